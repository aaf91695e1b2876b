//! Where each vreg is, instruction by instruction: the instructions it is
//! present at (one interval per block), the instructions that need it in a
//! register, and what spilling it everywhere would cost. Passive splitting
//! ([`super::split`]) reads these to decide whether a live range can step
//! aside for another.
//!
//! In SSA a vreg's presence within one block is one interval: from the top
//! of the block (live in, or a parameter) or its def, to the end (live out,
//! or a branch argument) or its last use. So the intervals come from the
//! references and the live-in and live-out rows, with no per-instruction
//! walk over everything live.
//!
//! Edge moves count as presence and reference: a parameter of a join is
//! written before each predecessor's branch, a parameter of a block with one
//! predecessor at its top, and a branch argument is read at its branch;
//! what a branch into a join reads is present at the top of the join too,
//! since that edge's moves run before the branch.

use super::facts::Facts;
use crate::analysis::block_sets::members;
use crate::analysis::cfg::{effective_preds, join_successor};
use crate::ir::function::Function;
use crate::ir::operand::{Operand, OperandConstraint};

/// Spill weights of RegAllocScore: a reload, a store.
pub const RELOAD: f64 = 4.0;
pub const STORE: f64 = 1.0;

/// Presence intervals, references and spill costs per vreg.
pub struct Points {
    /// `(first, last)` instruction intervals, by vreg (`span_of` gives
    /// each vreg's range), each vreg's sorted.
    spans: Vec<(u32, u32)>,
    span_of: Vec<u32>,
    /// The instructions that need each vreg in its register (an operand
    /// other than `any` or `stack`, or an edge move), sorted, by vreg
    /// (`ref_of` gives each vreg's range). An `any` or `stack` operand
    /// takes the slot as well, so a group may be in its slot there at no
    /// cost.
    ref_at: Vec<u32>,
    ref_of: Vec<u32>,
    /// Defined by a branch: its def moves home on the edge, so it never
    /// steps aside.
    pub pinned: Vec<bool>,
    /// The cost of spilling the vreg everywhere: a store after each def and
    /// a reload before each use that needs a register, times the block
    /// frequency.
    pub spill_cost: Vec<f64>,
}

impl Points {
    pub fn new(f: &Function, facts: &Facts) -> Points {
        let n = f.num_vregs();
        const NONE: u32 = u32::MAX;
        let mut lo = vec![NONE; n];
        let mut hi = vec![0u32; n];
        let mut touched: Vec<usize> = Vec::new();
        let mut spans = Vec::new();
        let mut refs = Vec::new();
        let mut pinned = vec![false; n];
        let mut spill_cost = vec![0.0; n];
        let touch = |v: usize, i: u32, lo: &mut [u32], hi: &mut [u32], touched: &mut Vec<usize>| {
            if lo[v] == NONE {
                touched.push(v);
                lo[v] = i;
                hi[v] = i;
            } else {
                lo[v] = lo[v].min(i);
                hi[v] = hi[v].max(i);
            }
        };
        for b in f.blocks() {
            let insts = f.block_insts(b);
            let (first, last) = (insts.first().index() as u32, insts.last().index() as u32);
            let freq = facts.freq[b.index()];
            for v in members(facts.live_in(b), None) {
                touch(v, first, &mut lo, &mut hi, &mut touched);
            }
            // A parameter nothing reads is never written: not present.
            for p in f.block_params(b).iter().filter(|&&p| facts.is_read(p)) {
                touch(p.index(), first, &mut lo, &mut hi, &mut touched);
                if effective_preds(f, b) == 1 {
                    refs.push((p.index() as u32, first));
                } else {
                    for &q in f.block_preds(b) {
                        let br = f.block_insts(q).last().index() as u32;
                        refs.push((p.index() as u32, br));
                        spans.push((p.index() as u32, br, br));
                    }
                }
            }
            for i in insts.iter() {
                for op in f.inst_operands(i).iter().filter(|o| !o.is_nonalloc()) {
                    let v = op.vreg().index();
                    touch(v, i.index() as u32, &mut lo, &mut hi, &mut touched);
                    pinned[v] |= op.is_def() && f.is_branch(i);
                    if needs_register(op) {
                        refs.push((v as u32, i.index() as u32));
                        spill_cost[v] += freq * if op.is_use() { RELOAD } else { STORE };
                    }
                }
            }
            for v in members(facts.live_out(b), None) {
                touch(v, last, &mut lo, &mut hi, &mut touched);
            }
            for (t, &s) in f.block_succs(b).iter().enumerate() {
                for (a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                    if facts.is_read(p) {
                        touch(a.index(), last, &mut lo, &mut hi, &mut touched);
                        refs.push((a.index() as u32, last));
                    }
                }
            }
            // The edge moves into a join run before the branch, after its
            // reads: what the branch reads keeps its place through them, as
            // if present at the top of the join.
            if let Some(join) = join_successor(f, b) {
                let top = f.block_insts(join).first().index() as u32;
                for op in f.inst_operands(insts.last()).iter() {
                    if op.is_use() && !op.is_nonalloc() {
                        spans.push((op.vreg().index() as u32, top, top));
                    }
                }
            }
            for v in touched.drain(..) {
                spans.push((v as u32, lo[v], hi[v]));
                lo[v] = NONE;
            }
        }
        // Grouped by vreg with a counting sort, then each vreg's own few
        // sorted (mostly in order already: blocks come in layout order):
        // one sort of every span and reference was a twentieth of the
        // allocator's time on libjxl's functions.
        let (span_of, mut spans) = crate::counting_sort::counting_sorted(
            n,
            spans.len(),
            |k| Some(spans[k].0 as usize),
            |k| (spans[k].1, spans[k].2),
        );
        let (mut ref_of, mut ref_at) = crate::counting_sort::counting_sorted(
            n,
            refs.len(),
            |k| Some(refs[k].0 as usize),
            |k| refs[k].1,
        );
        for v in 0..n {
            spans[span_of[v] as usize..span_of[v + 1] as usize].sort_unstable();
        }
        // Sorted and deduplicated in place: vreg `v`'s references move down
        // to where the ones kept before them end.
        let mut kept = 0;
        for v in 0..n {
            let (from, to) = (ref_of[v] as usize, ref_of[v + 1] as usize);
            ref_at[from..to].sort_unstable();
            ref_of[v] = kept as u32;
            let mut last = None;
            for k in from..to {
                if last != Some(ref_at[k]) {
                    last = Some(ref_at[k]);
                    ref_at[kept] = ref_at[k];
                    kept += 1;
                }
            }
        }
        ref_of[n] = kept as u32;
        ref_at.truncate(kept);
        Points {
            span_of,
            spans,
            ref_of,
            ref_at,
            pinned,
            spill_cost,
        }
    }

    /// The instruction intervals `v` is present at, sorted (they may touch
    /// or overlap).
    pub fn spans(&self, v: usize) -> impl Iterator<Item = (u32, u32)> + '_ {
        let r = self.span_of[v] as usize..self.span_of[v + 1] as usize;
        self.spans[r].iter().copied()
    }

    /// The instructions that need `v` in its register, sorted.
    pub fn refs(&self, v: usize) -> impl Iterator<Item = u32> + '_ {
        self.refs_of(v).iter().copied()
    }

    /// [`Points::refs`] as a slice, for binary search.
    pub fn refs_of(&self, v: usize) -> &[u32] {
        &self.ref_at[self.ref_of[v] as usize..self.ref_of[v + 1] as usize]
    }
}

/// Whether operand `op` needs its value in a register (not `any` or
/// `stack`, which take a slot as well): what a reference is, and what a
/// hole may not hold.
pub fn needs_register(op: &Operand) -> bool {
    !matches!(
        op.constraint(),
        OperandConstraint::Any | OperandConstraint::Stack
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::unit_case;

    #[test]
    fn presence_references_and_spill_costs() {
        let case = unit_case("coloring_points/presence_references_and_spill_costs");
        let f = &case.func;
        let facts = Facts::new(f);
        let p = Points::new(f, &facts);
        let spans = |v| p.spans(v).collect::<Vec<_>>();
        let refs = |v| p.refs(v).collect::<Vec<_>>();
        // v0i: defined at inst0, live around the loop block1-block2; at
        // inst3 its `any` read would take a slot as well, but the edge
        // move to block2 reads it there too.
        assert_eq!(spans(0), vec![(0, 1), (2, 3), (4, 4)]);
        assert_eq!(refs(0), vec![0, 2, 3]);
        // v1i: defined `any`, read by the edge move at inst1.
        assert_eq!(spans(1), vec![(0, 1)]);
        assert_eq!(refs(1), vec![1]);
        // v2i, a join's parameter: written before each predecessor's
        // branch (inst1, inst4), present from there to its last read (a
        // `stack` one).
        assert_eq!(spans(2), vec![(1, 1), (2, 2), (4, 4)]);
        assert_eq!(refs(2), vec![1, 4]);
        // v3i, a parameter of a block with one predecessor: written at
        // its top, read by the branch's edge move.
        assert_eq!(spans(3), vec![(4, 4)]);
        assert_eq!(refs(3), vec![4]);
        // What a branch into a join reads is present at the join's top:
        // none here (inst3 has two targets); `reg` reads reload, a `reg`
        // def stores, `any` and `stack` operands cost nothing; block1 and
        // block2 are a loop (frequency 4).
        assert_eq!(p.spill_cost[0], STORE + 4.0 * RELOAD);
        assert_eq!(p.spill_cost[1], 0.0);
        assert_eq!(p.spill_cost[2], 0.0);
        assert!(!p.pinned.iter().any(|&x| x));
    }

    #[test]
    fn a_branch_def_is_pinned_and_a_join_branch_read_reaches_the_top() {
        let case = unit_case(
            "coloring_points/a_branch_def_is_pinned_and_a_join_branch_read_reaches_the_top",
        );
        let f = &case.func;
        let p = Points::new(f, &Facts::new(f));
        assert!(p.pinned[0]);
        assert_eq!(p.spans(0).collect::<Vec<_>>(), vec![(0, 0), (1, 1), (3, 3)]);
    }
}
