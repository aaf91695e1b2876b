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
//! is read at the branch's late point, after which edge moves run.

use super::layout::Layout;
use crate::cfg;
use crate::function::Function;
use crate::index::{Inst, RegClass};
use crate::liveness::{self, Liveness};
use crate::operand::OperandPos;

/// See the module doc.
pub struct Ranges {
    /// Every vreg's ranges `[start, end)`, grouped by vreg, sorted.
    ranges: Vec<(u32, u32)>,
    ranges_of: Vec<(u32, u32)>,
    /// Read positions, grouped by vreg, sorted.
    uses: Vec<u32>,
    uses_of: Vec<(u32, u32)>,
    /// The class of each vreg.
    pub class: Vec<RegClass>,
    /// The instruction defining each vreg (`Inst::INVALID` for a block
    /// parameter).
    pub def_inst: Vec<Inst>,
    pub liveness: Liveness,
}

const DEAD: u32 = u32::MAX;

impl Ranges {
    pub fn new(f: &Function, layout: &Layout) -> Ranges {
        let nv = f.num_vregs();
        let liveness = liveness::compute(f, &cfg::postorder(f));
        let mut class = vec![RegClass::Int; nv];
        let mut def_inst = vec![Inst::INVALID; nv];
        // Blocks are walked in reverse linear order and each block backwards,
        // so every vreg's ranges and uses come out in descending position
        // order; a counting sort by vreg then yields sorted lists.
        let mut found: Vec<(u32, u32, u32)> = Vec::with_capacity(2 * nv);
        let mut reads: Vec<(u32, u32)> = Vec::with_capacity(f.num_operands());
        let mut end = vec![DEAD; nv];
        let mut live: Vec<u32> = Vec::new();
        let set_live = |live: &mut Vec<u32>, end: &mut [u32], v: usize, e: u32| {
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
            for v in liveness.live_out[b.index()].iter() {
                set_live(&mut live, &mut end, v, block_end);
            }
            let term = f.block_insts(b).last();
            for t in 0..f.block_succs(b).len() {
                for &a in f.branch_args(b, t) {
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
                            found.push((w as u32, p + 2, end[w]));
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
                            set_live(&mut live, &mut end, v, read + 1);
                        }
                    }
                }
            }
            for &v in &live {
                let v = v as usize;
                if end[v] != DEAD {
                    found.push((v as u32, start, end[v]));
                    end[v] = DEAD;
                }
            }
        }
        let (mut ranges, ranges_of) =
            bucket_ascending(nv, &found, |x| x.0 as usize, |x| (x.1, x.2));
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
        let (uses, uses_of) = bucket_ascending(nv, &reads, |x| x.0 as usize, |x| x.1);
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
            class,
            def_inst,
            liveness,
        }
    }

    /// The ranges of vreg `v`.
    #[inline]
    pub fn of(&self, v: usize) -> &[(u32, u32)] {
        let (a, b) = self.ranges_of[v];
        &self.ranges[a as usize..b as usize]
    }

    /// Whether `v` is live at `p`.
    #[inline]
    pub fn covers(&self, v: usize, p: u32) -> bool {
        let r = self.of(v);
        let k = r.partition_point(|x| x.1 <= p);
        k < r.len() && r[k].0 <= p
    }

    /// The first position at or after `from` and before `until` where `v`
    /// is live.
    #[inline]
    pub fn first_live(&self, v: usize, from: u32, until: u32) -> Option<u32> {
        let r = self.of(v);
        let k = r.partition_point(|x| x.1 <= from);
        let p = r.get(k)?.0.max(from);
        (p < until).then_some(p)
    }

    /// The first read of `v` at or after `from`.
    #[inline]
    pub fn next_use(&self, v: usize, from: u32) -> u32 {
        let (a, b) = self.uses_of[v];
        let u = &self.uses[a as usize..b as usize];
        u.get(u.partition_point(|&x| x < from))
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// The first position from `from` on where both `a` (within the window
    /// `wa`) and `b` (within `wb`) are live.
    pub fn first_overlap(
        &self,
        a: usize,
        wa: (u32, u32),
        b: usize,
        wb: (u32, u32),
        from: u32,
    ) -> Option<u32> {
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
fn bucket_ascending<T, V: Copy + Default>(
    n: usize,
    items: &[T],
    key: impl Fn(&T) -> usize,
    value: impl Fn(&T) -> V,
) -> (Vec<V>, Vec<(u32, u32)>) {
    let mut of = vec![(0u32, 0u32); n];
    for x in items {
        of[key(x)].1 += 1;
    }
    let mut total = 0;
    for o in of.iter_mut() {
        let count = o.1;
        *o = (total, total + count);
        total += count;
    }
    let mut fill: Vec<u32> = of.iter().map(|o| o.1).collect();
    let mut out = vec![V::default(); items.len()];
    for x in items {
        let k = key(x);
        fill[k] -= 1;
        out[fill[k] as usize] = value(x);
    }
    (out, of)
}
