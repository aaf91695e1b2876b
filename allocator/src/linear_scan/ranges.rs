//! Lifetime intervals: for every vreg, the sorted, disjoint position ranges
//! where it is live (with holes where it is not), and the positions where it
//! is read. Built by one backward walk per block from the block's live-out
//! set, then sorted and merged (regalloc2's sort-then-scan).
//!
//! A value defined by instruction `i` at position `P` becomes live at
//! `P + 2`: the allocator places every def in its operand's location and
//! moves it to the value's home after the instruction, so between
//! instructions is where a value's home begins. A use keeps its value live
//! through the point it reads (`P` early, `P + 1` late); a branch argument
//! is read at the branch's late point, after which edge moves run, unless
//! every parameter it is passed to is dead ([`crate::analysis::read`]).

use super::layout::{Layout, Pos};
use crate::analysis::bitset::dense;
use crate::analysis::block_sets::{members, BlockSets};
use crate::analysis::cfg;
use crate::analysis::read::read_values;
use crate::counting_sort::counting_sorted;
use crate::ir::function::Function;
use crate::ir::index::{Block, Inst, RegClass};
use crate::ir::operand::OperandPos;

/// See the module doc.
pub struct Ranges {
    /// Every vreg's ranges `[start, end)`, grouped by vreg, sorted.
    ranges: Vec<(Pos, Pos)>,
    ranges_of: Vec<(u32, u32)>,
    /// Read positions, grouped by vreg, sorted.
    uses: Vec<Pos>,
    uses_of: Vec<(u32, u32)>,
    /// The reads by operands alone (not branch arguments), as `uses`.
    op_uses: Vec<Pos>,
    op_uses_of: Vec<(u32, u32)>,
    /// The class of each vreg.
    pub class: Vec<RegClass>,
    /// The instruction defining each vreg (`Inst::INVALID` for a block
    /// parameter).
    pub def_inst: Vec<Inst>,
    /// Each block parameter's block and index there
    /// ([`Function::param_positions`]).
    pub params: Vec<(Block, u32)>,
    pub live_in: BlockSets,
}

/// The end of a vreg not live in the walk so far.
const DEAD: Pos = Pos::MAX;

/// The first of the sorted positions `list[a..b]` at or after `from`
/// (`Pos::MAX` if none).
#[inline]
fn first_from(list: &[Pos], (a, b): (u32, u32), from: Pos) -> Pos {
    let u = &list[a as usize..b as usize];
    u.get(u.partition_point(|&x| x < from))
        .copied()
        .unwrap_or(Pos::MAX)
}

impl Ranges {
    pub fn new(f: &Function, layout: &Layout) -> Ranges {
        let nv = f.num_vregs();
        // An argument passed only to dead parameters is not live on the way
        // there, and its branch does not read it.
        let read = read_values(f);
        let (live_in, live_out) =
            BlockSets::liveness(f, &cfg::postorder(f), |p| dense::contains(&read, p.index()));
        let mut class = vec![RegClass::Int; nv];
        let mut def_inst = vec![Inst::INVALID; nv];
        // Blocks are walked in reverse linear order and each block backwards,
        // so every vreg's ranges and uses come out in descending position
        // order; a counting sort by vreg then yields sorted lists.
        let mut found: Vec<(u32, Pos, Pos)> = Vec::with_capacity(2 * nv);
        let mut reads: Vec<(u32, Pos)> = Vec::with_capacity(f.num_operands());
        let mut op_reads: Vec<(u32, Pos)> = Vec::with_capacity(f.num_operands());
        let mut end = vec![DEAD; nv];
        // Per vreg: the index in `found` of its range found last (the
        // earliest so far), which a range ending where it starts extends.
        let mut last = vec![u32::MAX; nv];
        let mut push = |found: &mut Vec<(u32, Pos, Pos)>, v: usize, s: Pos, e: Pos| match found
            .get_mut(last[v] as usize)
        {
            Some(r) if r.1 == e => r.1 = s,
            _ => {
                last[v] = found.len() as u32;
                found.push((v as u32, s, e));
            }
        };
        let mut live: Vec<u32> = Vec::new();
        let set_live = |live: &mut Vec<u32>, end: &mut [Pos], v: usize, e: Pos| {
            if end[v] == DEAD {
                live.push(v as u32);
                end[v] = e;
            } else {
                end[v] = end[v].max(e);
            }
        };
        for &b in layout.order.iter().rev() {
            for &p in f.block_params(b) {
                class[p.index()] = p.class();
            }
            let (start, block_end) = layout.span[b.index()];
            live.clear();
            for v in members(live_out.of(b.index()), None) {
                set_live(&mut live, &mut end, v, block_end);
            }
            let term = f.block_insts(b).last();
            for (t, &s) in f.block_succs(b).iter().enumerate() {
                for (&a, &q) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                    if !dense::contains(&read, q.index()) {
                        continue;
                    }
                    set_live(&mut live, &mut end, a.index(), block_end);
                    reads.push((a.index() as u32, layout.pos[term.index()] + 1));
                }
            }
            for i in f.block_insts(b).iter().rev() {
                let p = layout.pos[i.index()];
                let ops = f.inst_operands(i);
                for op in ops.iter().filter(|o| o.is_def()) {
                    let w = op.vreg().index();
                    class[w] = op.class();
                    def_inst[w] = i;
                    if end[w] != DEAD {
                        if p + 2 < end[w] {
                            push(&mut found, w, p + 2, end[w]);
                        }
                        end[w] = DEAD;
                    }
                }
                for late in [true, false] {
                    for op in ops.iter().filter(|o| o.is_use()) {
                        if (op.pos() == OperandPos::Late) == late {
                            let v = op.vreg().index();
                            let read = p + late as u32;
                            reads.push((v as u32, read));
                            op_reads.push((v as u32, read));
                            set_live(&mut live, &mut end, v, read + 1);
                        }
                    }
                }
            }
            for &v in &live {
                let v = v as usize;
                if end[v] != DEAD {
                    push(&mut found, v, start, end[v]);
                    end[v] = DEAD;
                }
            }
        }
        let (mut ranges, ranges_of) =
            bucket_ascending(nv, &mut found, |x| x.0 as usize, |x| (x.1, x.2));
        // Merge ranges that touch, compacting each vreg's segment in place.
        let mut ranges_of = ranges_of;
        let mut w = 0;
        for seg in ranges_of.iter_mut() {
            let first = w;
            for k in seg.0 as usize..seg.1 as usize {
                let r = ranges[k];
                if w > first && ranges[w - 1].1 == r.0 {
                    ranges[w - 1].1 = r.1;
                } else {
                    ranges[w] = r;
                    w += 1;
                }
            }
            *seg = (first as u32, w as u32);
        }
        ranges.truncate(w);
        let (uses, uses_of) = bucket_ascending(nv, &mut reads, |x| x.0 as usize, |x| x.1);
        let (op_uses, op_uses_of) = bucket_ascending(nv, &mut op_reads, |x| x.0 as usize, |x| x.1);
        debug_assert!(ranges_of.iter().all(|&(a, b)| {
            ranges[a as usize..b as usize]
                .windows(2)
                .all(|w| w[0].1 < w[1].0)
        }));
        debug_assert!(uses_of.iter().all(|&(a, b)| {
            uses[a as usize..b as usize]
                .windows(2)
                .all(|w| w[0] <= w[1])
        }));
        Ranges {
            ranges,
            ranges_of,
            uses,
            uses_of,
            op_uses,
            op_uses_of,
            class,
            def_inst,
            params: f.param_positions(),
            live_in,
        }
    }

    /// The ranges of vreg `v`.
    #[inline]
    pub fn of(&self, v: usize) -> &[(Pos, Pos)] {
        let (a, b) = self.ranges_of[v];
        &self.ranges[a as usize..b as usize]
    }

    /// Whether `v` is live at `p`.
    #[inline]
    pub fn covers(&self, v: usize, p: Pos) -> bool {
        let r = self.of(v);
        let k = r.partition_point(|x| x.1 <= p);
        k < r.len() && r[k].0 <= p
    }

    /// The first position at or after `from` and before `until` where `v`
    /// is live.
    #[inline]
    pub fn first_live(&self, v: usize, from: Pos, until: Pos) -> Option<Pos> {
        let r = self.of(v);
        let k = r.partition_point(|x| x.1 <= from);
        let p = r.get(k)?.0.max(from);
        (p < until).then_some(p)
    }

    /// The first read of `v` by an operand at or after `from`.
    #[inline]
    pub fn next_operand_use(&self, v: usize, from: Pos) -> Pos {
        first_from(&self.op_uses, self.op_uses_of[v], from)
    }

    /// Every read of `v` by an operand, in position order.
    #[inline]
    pub fn operand_uses(&self, v: usize) -> &[Pos] {
        let (a, b) = self.op_uses_of[v];
        &self.op_uses[a as usize..b as usize]
    }

    /// The first read of `v` at or after `from`, a branch argument's
    /// included.
    #[inline]
    pub fn next_use(&self, v: usize, from: Pos) -> Pos {
        first_from(&self.uses, self.uses_of[v], from)
    }

    /// The first position from `from` on where both `a` (within the window
    /// `wa`) and `b` (within `wb`) are live.
    pub fn first_overlap(
        &self,
        a: usize,
        wa: (Pos, Pos),
        b: usize,
        wb: (Pos, Pos),
        from: Pos,
    ) -> Option<Pos> {
        let lo = from.max(wa.0).max(wb.0);
        let hi = wa.1.min(wb.1);
        if lo >= hi {
            return None;
        }
        let (ra, rb) = (self.of(a), self.of(b));
        let mut i = ra.partition_point(|x| x.1 <= lo);
        let mut j = rb.partition_point(|x| x.1 <= lo);
        while i < ra.len() && j < rb.len() {
            let s = ra[i].0.max(rb[j].0).max(lo);
            let e = ra[i].1.min(rb[j].1);
            if s >= hi {
                return None;
            }
            if s < e {
                return Some(s);
            }
            if ra[i].1 < rb[j].1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        None
    }
}

/// Groups `items` by key (a vreg index below `n`), reversing their order
/// within each group: items found in descending order come out ascending.
/// Returns the values and each key's range of them.
fn bucket_ascending<T, V: Copy>(
    n: usize,
    items: &mut [T],
    key: impl Fn(&T) -> usize,
    value: impl Fn(&T) -> V,
) -> (Vec<V>, Vec<(u32, u32)>) {
    items.reverse();
    let (start, out) = counting_sorted(
        n,
        items.len(),
        |i| Some(key(&items[i])),
        |i| value(&items[i]),
    );
    (out, start.windows(2).map(|w| (w[0], w[1])).collect())
}
