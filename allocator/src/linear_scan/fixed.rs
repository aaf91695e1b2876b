//! The known conflicts ahead, per register: every point where a clobber or
//! a `fixed` operand takes an allocatable register, so that the scan knows
//! how long a register stays free for a part before it gives it.

use super::layout::{Layout, Pos};
use super::part::Part;
use super::ranges::Ranges;
use super::reused::{mark_reused, NOT_REUSED};
use crate::counting_sort::counting_sorted;
use crate::ir::function::Function;
use crate::ir::index::PReg;
use crate::ir::operand::{OperandConstraint, OperandKind, OperandPos};
use std::cell::Cell;

/// Owner of a register at a point that no value may share.
pub const EXCLUSIVE: u32 = u32::MAX;

/// Per register, its conflicts in position order.
pub struct FixedConflicts {
    /// `(position, owner)`, grouped by register: owner `v + 1` is a use of
    /// `v` (which `v` may share), [`EXCLUSIVE`] otherwise.
    list: Vec<(Pos, u32)>,
    /// Per preg index: its range of `list`.
    of: Vec<(u32, u32)>,
    /// Per preg index: the first of its conflicts not before the start of
    /// the last part asked about. Parts are asked about in start order, so
    /// it only moves forward.
    next: Vec<Cell<u32>>,
}

impl FixedConflicts {
    /// The conflicts of `f`'s instructions in `layout` order with the
    /// allocatable registers of `alloc_mask`.
    pub fn new(f: &Function, layout: &Layout, alloc_mask: &[u64; 3]) -> FixedConflicts {
        let is_alloc = |p: PReg| alloc_mask[p.class().index()] & (1 << p.hw()) != 0;
        // Known conflicts per register, in position order: instructions in
        // linear order, each one's early point before its late point, then
        // grouped by register with a counting sort.
        let mut blocks: Vec<(u32, Pos, u32)> = Vec::new();
        let mut late: Vec<(u32, Pos, u32)> = Vec::new();
        let mut reused = Vec::new();
        for &i in &layout.inst_at {
            let p = layout.pos[i.index()];
            let ops = f.inst_operands(i);
            mark_reused(ops, &mut reused);
            late.clear();
            for (k, op) in ops.iter().enumerate() {
                let OperandConstraint::FixedReg(reg) = op.constraint() else {
                    continue;
                };
                if !is_alloc(reg) {
                    continue;
                }
                let v = op.vreg().index() as u32 + 1;
                let (e, l) = match (op.kind(), op.pos()) {
                    (OperandKind::Use, OperandPos::Early) if reused[k] != NOT_REUSED => {
                        (v, EXCLUSIVE)
                    }
                    (OperandKind::Use, OperandPos::Early) => (v, 0),
                    (OperandKind::Use, OperandPos::Late) => (v, v),
                    (OperandKind::Def, OperandPos::Late) => (0, EXCLUSIVE),
                    (OperandKind::Def, OperandPos::Early) => (EXCLUSIVE, EXCLUSIVE),
                };
                if e != 0 {
                    blocks.push((reg.index() as u32, p, e));
                }
                if l != 0 {
                    late.push((reg.index() as u32, p + 1, l));
                }
            }
            blocks.extend_from_slice(&late);
            for &c in f.inst_clobbers(i) {
                if is_alloc(c) {
                    blocks.push((c.index() as u32, p + 1, EXCLUSIVE));
                }
            }
        }
        let (start, fixed) = counting_sorted(
            PReg::NUM_INDEX,
            blocks.len(),
            |k| Some(blocks[k].0 as usize),
            |k| (blocks[k].1, blocks[k].2),
        );
        let fixed_of: Vec<(u32, u32)> = start.windows(2).map(|w| (w[0], w[1])).collect();
        debug_assert!(fixed_of.iter().all(|&(a, b)| fixed[a as usize..b as usize]
            .windows(2)
            .all(|w| w[0].0 <= w[1].0)));
        FixedConflicts {
            list: fixed,
            next: fixed_of.iter().map(|s| Cell::new(s.0)).collect(),
            of: fixed_of,
        }
    }

    /// The first position before `limit` where a known conflict (clobber,
    /// `fixed` operand) in `r` meets part `x`; `limit` if none. Parts must be asked about in order
    /// of their starts (the scan's order): the search resumes where the last
    /// one stopped.
    pub fn first_conflict(&self, r: PReg, x: Part, ranges: &Ranges, limit: Pos) -> Pos {
        let (a, b) = self.of[r.index()];
        let next = &self.next[r.index()];
        let mut k = next.get() as usize;
        debug_assert!(k == a as usize || self.list[k - 1].0 <= x.start);
        while k < b as usize && self.list[k].0 < x.start {
            k += 1;
        }
        next.set(k as u32);
        let limit = limit.min(x.end);
        let list = &self.list[k..b as usize];
        if list.first().is_none_or(|e| e.0 >= limit) {
            return limit;
        }
        // Walk the conflicts and the vreg's ranges together.
        let rs = ranges.of(x.vreg as usize);
        let mut j = rs.partition_point(|r| r.1 <= x.start);
        let mut i = 0;
        while let Some(&(pos, owner)) = list.get(i) {
            if pos >= limit {
                break;
            }
            while j < rs.len() && rs[j].1 <= pos {
                j += 1;
            }
            if j == rs.len() {
                break;
            }
            if rs[j].0 > pos {
                // In a hole: on to the conflicts where the vreg is live again.
                let live = rs[j].0;
                i += list[i..].partition_point(|e| e.0 < live);
                continue;
            }
            if owner != x.vreg + 1 {
                return pos;
            }
            i += 1;
        }
        limit
    }
}
