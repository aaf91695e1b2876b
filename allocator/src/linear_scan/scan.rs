//! The scan: one pass over the instructions in linear order that gives every
//! value a home (a register or its spill slot) piece by piece, and every
//! operand its location.
//!
//! A *part* is a window of one vreg's lifetime interval (holes included)
//! with one home. Parts begin whole, one per vreg, and are split when their
//! register must go to someone else. Register parts are *active* where
//! they are live and *inactive* in their holes, as in Wimmer and Franz's
//! linear scan; spill-slot parts occupy nothing.
//!
//! At each instruction, in this order:
//! 1. parts that end or enter a hole leave the active set;
//! 2. at the top of a *cold* join (see [`super::cold`]) every live part
//!    moves to its spill slot; at the top of another block, a part that no
//!    operand reads in the block and that every edge scanned into it brings
//!    from its slot does;
//! 3. a value waiting in its slot that the instruction needs in a register
//!    is split there, so its next piece can compete for a register
//!    (splitting at use positions);
//! 4. parts starting here, those an operand reads first, get a register
//!    free for their whole life, or for a prefix of it (the rest is split
//!    off and queued), or evict the active part whose next use is farthest,
//!    or go to their slot; an evicted part that no operand read since it
//!    started goes to its slot whole;
//! 5. the instruction itself (the "interesting instructions" queue of the
//!    MoarVM allocator: every instruction is visited, defs or not): its
//!    register operands get registers all at once with the exact search of
//!    [`crate::inst_regs`], preferring the register each value already
//!    occupies, then free ones; active parts in the way (or in a clobbered
//!    register while live across) are split off and re-queued; then `any`
//!    and `stack` operands and reuse pairs are placed.
//!
//! Correctness rests on step 5 alone ([`super::operands`]): whatever
//! earlier steps chose, the instruction's needs are met there. Steps 3 and
//! 4 ([`super::place`]) are about quality.
//!
//! Every value that has a spill slot is stored there right after its
//! definition (see `assemble`), so a slot, once written, holds its value for
//! the value's whole life: moving a value from a register to its slot costs
//! nothing, and stores sit at definitions, outside any loop the definition
//! is outside of.

use super::cold::cold_blocks;
use super::fixed::FixedConflicts;
use super::groups::HintGroups;
use super::hints::Ahead;
use super::layout::{Layout, Pos};
use super::part::{Loc, Part, PartId, Parts};
use super::ranges::Ranges;
use crate::inst_regs::{RegSlot, Search};
use crate::interface::AllocError;
use crate::ir::function::Function;
use crate::ir::index::{Inst, PReg, RegClass};
use crate::ir::machine::MachineEnv;
use crate::ir::operand::{OperandConstraint, OperandPos};
use crate::ir::output::Allocation;
use smallvec::SmallVec;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// A position no part reaches: the wake of a part not yet asleep.
const NEVER: Pos = Pos::MAX;

/// How many predecessors of a block the scan looks at when it asks where
/// the edges into the block bring a value: a few, for a switch's
/// thousands.
pub(super) const PREDS_LOOKED_AT: usize = 8;

/// What the scan hands to `assemble`: every part with its home, every
/// operand's location, and which registers each instruction leaves free.
pub struct Scanned {
    /// Every part, the vreg's parts linked in position order from
    /// `first_part[v]` ([`PartId::NONE`] for a vreg with no interval).
    pub parts: Parts,
    pub first_part: Vec<PartId>,
    /// Operand locations; spill slots as [`super::part::slot_of`] placeholders.
    pub allocs: Vec<Allocation>,
    /// Whether the vreg has a spill slot (stored at its definition).
    pub spilled: Vec<bool>,
    /// The parameter groups, whose spilled members may share a slot.
    pub groups: HintGroups,
    /// Per linear slot, per class: every register an operand or a value
    /// holds at the instruction (a superset of what is live at either of
    /// its points). The moves before an instruction may use any other
    /// allocatable register as scratch.
    pub busy: Vec<[u64; 3]>,
    /// Per linear slot, per class: the registers held by values' parts at
    /// the instruction's early point.
    pub held: Vec<[u64; 3]>,
    /// Per linear slot, per class: the registers the instruction's operands
    /// took, at either point.
    pub taken: Vec<[u64; 3]>,
}

/// A register operand waiting for the exact search.
#[derive(Clone, Copy)]
pub(super) struct Want {
    pub(super) operand: usize,
    pub(super) slot: RegSlot,
}

pub struct Scan<'a> {
    pub(super) f: &'a Function,
    pub(super) layout: &'a Layout,
    pub(super) r: &'a Ranges,
    pub(super) parts: Parts,
    pub(super) first_part: Vec<PartId>,
    /// Per vreg: its part allocated last (the one covering the current
    /// position, when the vreg is live there).
    pub(super) live_part: Vec<PartId>,
    /// Parts waiting for allocation, bucketed by the instruction where they
    /// start (a linked list per bucket through `waiting_next`).
    pub(super) waiting: Vec<PartId>,
    pub(super) waiting_next: Vec<PartId>,
    pub(super) active: Vec<PartId>,
    /// Register parts in a hole, each keyed by where it is live again: a
    /// min-heap, so an instruction wakes only the parts due there instead
    /// of walking them all.
    pub(super) inactive: BinaryHeap<Reverse<(Pos, PartId)>>,
    /// Per preg index: the active part in it, or [`PartId::NONE`].
    pub(super) reg_part: Vec<PartId>,
    /// Per class: the registers with an active part, as a mask.
    pub(super) occ: [u64; 3],
    /// Per part: for an active one, where its current range ends; for an
    /// inactive one, where it is live again.
    pub(super) wake: Vec<Pos>,
    /// Known conflicts ahead, per register.
    pub(super) fixed: FixedConflicts,
    /// Allocatable registers per class, preferred first.
    pub(super) order: [Vec<PReg>; 3],
    pub(super) alloc_mask: [u64; 3],
    pub(super) cold: Vec<bool>,
    pub(super) hint: Vec<Option<PReg>>,
    /// Per vreg, what it is known ahead to want (see [`Ahead`]).
    pub(super) ahead: Ahead,
    /// Vregs joined by block parameters, and the register each group got
    /// first: members prefer it.
    pub(super) groups: HintGroups,
    /// Operand locations; spill slots as [`super::part::slot_of`] placeholders.
    pub(super) allocs: Vec<Allocation>,
    /// Whether the vreg has a spill slot (stored at its definition).
    pub(super) spilled: Vec<bool>,
    // The instruction being processed: its early point, what its operands
    // took at each point, and which registers it clobbers.
    pub(super) now: Pos,
    pub(super) taken_e: [u64; 3],
    pub(super) taken_l: [u64; 3],
    pub(super) clob: [u64; 3],
    pub(super) own_e: Vec<u32>,
    pub(super) own_l: Vec<u32>,
    pub(super) want: [Vec<Want>; 3],
    pub(super) slot_buf: Vec<RegSlot>,
    pub(super) search: [Search; 3],
    /// `(operand, alias)`: the alias reads the same value from the same
    /// register.
    pub(super) aliases: Vec<(usize, usize)>,
    pub(super) reused: Vec<u32>,
    pub(super) victims: Vec<PartId>,
    /// The parts starting at the current instruction, in the order step 4
    /// allocates them.
    pub(super) starting: Vec<PartId>,
    pub(super) part_limit: usize,
    /// Block parameters whose first part starts in their slot (a dense row
    /// over vregs; empty for none): see [`super::refills`].
    pub(super) in_slot: Vec<u64>,
    /// Per linear slot, per class: every register an operand or a value
    /// holds at the instruction (a superset of what is live at either of
    /// its points). The moves before an instruction may use any other
    /// allocatable register as scratch.
    pub(super) busy: Vec<[u64; 3]>,
    /// Per linear slot, per class: the registers held by values' parts at
    /// the instruction's early point.
    pub(super) held: Vec<[u64; 3]>,
    /// Per linear slot, per class: the registers the instruction's operands
    /// took, at either point.
    pub(super) taken: Vec<[u64; 3]>,
}

impl<'a> Scan<'a> {
    pub fn new(
        f: &'a Function,
        env: &MachineEnv,
        layout: &'a Layout,
        r: &'a Ranges,
    ) -> Result<Scan<'a>, AllocError> {
        let nv = f.num_vregs();
        let mut order: [Vec<PReg>; 3] = Default::default();
        for c in RegClass::ALL {
            order[c.index()] = env.allocatable(c).collect();
        }
        let alloc_mask = env.allocatable_set().class_masks();
        let mut parts = Parts::with_capacity(2 * nv);
        let mut first_part = vec![PartId::NONE; nv];
        let mut waiting = vec![PartId::NONE; layout.inst_at.len()];
        let mut waiting_next = Vec::with_capacity(2 * nv);
        for (v, first) in first_part.iter_mut().enumerate() {
            let rs = r.of(v);
            if let (Some(a), Some(b)) = (rs.first(), rs.last()) {
                let slot = a.0.slot();
                waiting_next.push(waiting[slot]);
                *first = parts.push(Part {
                    vreg: v as u32,
                    start: a.0,
                    end: b.1,
                    loc: Loc::Unassigned,
                    next: PartId::NONE,
                });
                waiting[slot] = *first;
            }
        }
        let part_limit = 8 * (f.num_operands() + nv + f.num_blocks()) + 64;
        Ok(Scan {
            f,
            layout,
            r,
            parts,
            first_part,
            live_part: vec![PartId::NONE; nv],
            waiting,
            waiting_next,
            active: Vec::new(),
            inactive: BinaryHeap::new(),
            reg_part: vec![PartId::NONE; PReg::NUM_INDEX],
            occ: [0; 3],
            wake: vec![NEVER; nv],
            fixed: FixedConflicts::new(f, layout, &alloc_mask),
            order,
            alloc_mask,
            cold: cold_blocks(f, &alloc_mask)?,
            hint: vec![None; nv],
            ahead: Ahead::new(f, layout, &alloc_mask),
            groups: HintGroups::new(f),
            allocs: vec![Allocation::None; f.num_operands()],
            spilled: vec![false; nv],
            now: Pos::early(0),
            taken_e: [0; 3],
            taken_l: [0; 3],
            clob: [0; 3],
            own_e: vec![0; PReg::NUM_INDEX],
            own_l: vec![0; PReg::NUM_INDEX],
            want: Default::default(),
            slot_buf: Vec::new(),
            search: Default::default(),
            aliases: Vec::new(),
            reused: Vec::new(),
            victims: Vec::new(),
            starting: Vec::new(),
            part_limit,
            in_slot: Vec::new(),
            busy: Vec::with_capacity(layout.inst_at.len()),
            held: Vec::with_capacity(layout.inst_at.len()),
            taken: Vec::with_capacity(layout.inst_at.len()),
        })
    }

    /// The scan with the block parameters of the dense row `params`
    /// starting in their slot.
    pub fn with_params_in_slot(mut self, params: Vec<u64>) -> Scan<'a> {
        self.in_slot = params;
        self
    }

    /// Scans every instruction: the parts' homes and the operands'
    /// locations, or why there are none.
    pub fn run(mut self) -> Result<Scanned, AllocError> {
        for n in 0..self.layout.inst_at.len() {
            self.instruction(self.layout.inst_at[n], Pos::early(n))?;
            if self.parts.len() > self.part_limit {
                return Err(AllocError::Impossible(format!(
                    "work bound exceeded ({} interval parts)",
                    self.parts.len()
                )));
            }
        }
        debug_assert!(self.waiting.iter().all(|&w| w == PartId::NONE));
        debug_assert!(self.parts.iter().all(|p| p.loc != Loc::Unassigned));
        Ok(Scanned {
            parts: self.parts,
            first_part: self.first_part,
            allocs: self.allocs,
            spilled: self.spilled,
            groups: self.groups,
            busy: self.busy,
            held: self.held,
            taken: self.taken,
        })
    }

    fn instruction(&mut self, i: Inst, now: Pos) -> Result<(), AllocError> {
        self.now = now;
        self.taken_e = [0; 3];
        self.taken_l = [0; 3];
        self.clob = [0; 3];
        for &c in self.f.inst_clobbers(i) {
            self.clob[c.class().index()] |= 1 << c.hw();
        }
        self.advance();
        let cold = self.layout.is_block_start(now) && self.cold[self.f.block_of(i).index()];
        if cold {
            self.victims.clear();
            self.victims.extend_from_slice(&self.active);
            for k in 0..self.victims.len() {
                self.evict(self.victims[k], true);
            }
        } else {
            if self.layout.is_block_start(now) {
                self.leave_unread_at_join(i);
            }
            self.split_at_uses(i);
        }
        self.drain(cold);
        self.operands(i, cold)?;
        self.busy
            .push([0, 1, 2].map(|c| self.occ[c] | self.taken_e[c] | self.taken_l[c]));
        self.held.push(self.occ);
        self.taken
            .push([0, 1, 2].map(|c| self.taken_e[c] | self.taken_l[c]));
        Ok(())
    }

    #[inline]
    pub(super) fn covers(&self, p: PartId, pos: Pos) -> bool {
        let x = &self.parts[p];
        x.start <= pos && pos < x.end && self.r.covers(x.vreg as usize, pos)
    }

    fn reg_of(&self, p: PartId) -> PReg {
        match self.parts[p].loc {
            Loc::Reg(r) => r,
            _ => unreachable!("part {p} has no register"),
        }
    }

    /// The end of the range of part `p` that contains `pos`.
    fn range_end(&self, p: PartId, pos: Pos) -> Pos {
        let x = self.parts[p];
        let rs = self.r.of(x.vreg as usize);
        let k = rs.partition_point(|r| r.1 <= pos);
        rs[k].1.min(x.end)
    }

    /// Moves parts between the active and inactive sets for `self.now`.
    /// Each register part carries the position where its state next
    /// changes (`wake`): an active part that stays put costs one
    /// comparison, an inactive one nothing until it is due.
    fn advance(&mut self) {
        let now = self.now;
        let mut k = 0;
        while k < self.active.len() {
            let p = self.active[k];
            let x = self.parts[p];
            if now < self.wake[p.index()].min(x.end) {
                k += 1;
                continue;
            }
            self.active.swap_remove(k);
            let r = self.reg_of(p);
            self.reg_part[r.index()] = PartId::NONE;
            self.occ[r.class().index()] &= !(1 << r.hw());
            if let Some(next) = self.r.first_live(x.vreg as usize, now, x.end) {
                self.sleep(p, next);
            }
        }
        while let Some(&Reverse((due, p))) = self.inactive.peek() {
            if due > now {
                break;
            }
            self.inactive.pop();
            let end = self.parts[p].end;
            if end <= now {
                continue;
            }
            if self.covers(p, now) {
                self.activate(p);
            } else if let Some(next) = self.r.first_live(self.parts[p].vreg as usize, now, end) {
                self.sleep(p, next);
            }
        }
    }

    /// Makes register part `p` inactive until `next`, where it is live
    /// again.
    fn sleep(&mut self, p: PartId, next: Pos) {
        self.wake[p.index()] = next;
        debug_assert!(next < self.parts[p].end);
        self.inactive.push(Reverse((next, p)));
    }

    /// Makes register part `p`, live at `self.now`, active.
    fn activate(&mut self, p: PartId) {
        let r = self.reg_of(p);
        debug_assert_eq!(self.reg_part[r.index()], PartId::NONE, "{r} doubly active");
        self.reg_part[r.index()] = p;
        self.occ[r.class().index()] |= 1 << r.hw();
        self.wake[p.index()] = self.range_end(p, self.now);
        self.active.push(p);
    }

    /// Whether active part `p` is still live at the late point.
    #[inline]
    pub(super) fn live_late(&self, p: PartId) -> bool {
        self.now + 1 < self.wake[p.index()].min(self.parts[p].end)
    }

    /// Splits part `p` at `at`: `p` keeps `[start, at)`, and the returned
    /// new part (unassigned) takes the rest from where the vreg is next
    /// live; `None` when it is not live again within `p`.
    pub(super) fn split(&mut self, p: PartId, at: Pos) -> Option<PartId> {
        let x = self.parts[p];
        debug_assert!(x.start < at);
        if at >= x.end {
            return None;
        }
        self.parts[p].end = at;
        let start = self.r.first_live(x.vreg as usize, at, x.end)?;
        let t = self.parts.push(Part {
            vreg: x.vreg,
            start,
            end: x.end,
            loc: Loc::Unassigned,
            next: x.next,
        });
        if self.wake.len() <= t.index() {
            self.wake.resize(t.index() + 1, NEVER);
        }
        self.parts[p].next = t;
        Some(t)
    }

    /// Takes active part `p` out of its register from `self.now` on: the
    /// rest goes to the spill slot (`to_stack`) or back to the queue. When
    /// the register held it for nothing (no read since it started, this
    /// instruction's included, and it did not start at its definition: see
    /// [`Scan::prefix_pays`]), the part is in its slot from its start: the
    /// register would only have been filled to be emptied here, and where
    /// the part starts at a loop's header, refilled by every back edge.
    pub(super) fn evict(&mut self, p: PartId, to_stack: bool) {
        let k = self.active.iter().position(|&a| a == p).unwrap();
        self.active.swap_remove(k);
        let r = self.reg_of(p);
        self.reg_part[r.index()] = PartId::NONE;
        self.occ[r.class().index()] &= !(1 << r.hw());
        let rest = if self.parts[p].start >= self.now {
            self.parts[p].loc = Loc::Unassigned;
            Some(p)
        } else if !self.prefix_pays(p, self.now + 2) {
            let rest = if to_stack {
                None
            } else {
                self.split(p, self.now)
            };
            self.set_stack(p);
            rest
        } else {
            self.split(p, self.now)
        };
        if let Some(t) = rest {
            if to_stack {
                self.set_stack(t);
            } else {
                self.enqueue(t);
            }
        }
    }

    pub(super) fn set_stack(&mut self, p: PartId) {
        let x = &mut self.parts[p];
        x.loc = Loc::Stack;
        self.spilled[x.vreg as usize] = true;
        self.live_part[x.vreg as usize] = p;
    }

    pub(super) fn set_reg(&mut self, p: PartId, r: PReg) {
        let v = self.parts[p].vreg as usize;
        self.parts[p].loc = Loc::Reg(r);
        self.activate(p);
        self.live_part[v] = p;
        self.groups.claim(v, r);
    }

    /// Step 3: values in their slot that this instruction reads from a
    /// register get a new part from here on.
    fn split_at_uses(&mut self, i: Inst) {
        let now = self.now;
        for op in self.f.inst_operands(i) {
            if !op.is_use() {
                continue;
            }
            let fixed = match op.constraint() {
                OperandConstraint::Reg | OperandConstraint::Limit(_) => None,
                OperandConstraint::FixedReg(r) => Some(r),
                _ => continue,
            };
            let v = op.vreg().index();
            let p = self.live_part[v];
            if p == PartId::NONE || self.parts[p].loc != Loc::Stack {
                continue;
            }
            if self.parts[p].start < now && self.covers(p, now) {
                if let Some(t) = self.split(p, now) {
                    if fixed.is_some() {
                        self.hint[v] = fixed;
                    }
                    self.enqueue(t);
                }
            }
        }
    }

    /// Step 2 at the start of a block that is not cold, at its first
    /// instruction `i`: an active part that no operand reads in this block,
    /// whose value every edge into the block scanned so far brings from its
    /// slot (a few predecessors looked at, and one at least), goes to its
    /// slot here. Held in a register, it would cost a reload on each of
    /// those edges, where a read later on reloads it once; a value that a
    /// loop reloaded for its own reads no longer carries that register
    /// into the blocks laid out after the loop.
    fn leave_unread_at_join(&mut self, i: Inst) {
        let b = self.f.block_of(i);
        let preds = self.f.block_preds(b);
        if preds.len() > PREDS_LOOKED_AT {
            return;
        }
        // Where each predecessor already scanned ends.
        let ends: SmallVec<[Pos; PREDS_LOOKED_AT]> = preds
            .iter()
            .map(|pred| self.layout.span[pred.index()].1)
            .filter(|&end| end <= self.now)
            .collect();
        if ends.is_empty() {
            return;
        }
        let block_end = self.layout.span[b.index()].1;
        self.victims.clear();
        for &p in &self.active {
            let x = self.parts[p];
            let v = x.vreg as usize;
            if x.start >= self.now || self.r.next_operand_use(v, self.now) < block_end.min(x.end) {
                continue;
            }
            if ends
                .iter()
                .all(|&end| self.loc_at(v, end - 2) == Some(Loc::Stack))
            {
                self.victims.push(p);
            }
        }
        for k in 0..self.victims.len() {
            self.evict(self.victims[k], true);
        }
    }

    /// Where vreg `v`'s part covering `pos` lives, if one does: from its
    /// live part when that starts early enough, else from its first.
    pub(super) fn loc_at(&self, v: usize, pos: Pos) -> Option<Loc> {
        let live = self.live_part[v];
        let mut q = if live != PartId::NONE && self.parts[live].start <= pos {
            live
        } else {
            self.first_part[v]
        };
        while q != PartId::NONE {
            let x = self.parts[q];
            if x.start > pos {
                return None;
            }
            if pos < x.end {
                return Some(x.loc);
            }
            q = x.next;
        }
        None
    }

    /// Queues part `t` for allocation where it starts.
    pub(super) fn enqueue(&mut self, t: PartId) {
        let slot = self.parts[t].start.slot();
        debug_assert!(slot >= self.now.slot());
        self.waiting_next.resize(self.parts.len(), PartId::NONE);
        self.waiting_next[t.index()] = self.waiting[slot];
        self.waiting[slot] = t;
    }

    /// Per class, the registers held by active parts at the early point and
    /// at the late point. Only a value read early for the last time here
    /// leaves its register between the two.
    pub(super) fn occupied(&self, i: Inst) -> [(u64, u64); 3] {
        let mut occ = [0, 1, 2].map(|c| (self.occ[c], self.occ[c]));
        for op in self.f.inst_operands(i) {
            if !op.is_use() || op.pos() != OperandPos::Early {
                continue;
            }
            let p = self.live_part[op.vreg().index()];
            if let Loc::Reg(r) = self.parts[p].loc {
                if self.reg_part[r.index()] == p && !self.live_late(p) {
                    occ[r.class().index()].1 &= !(1 << r.hw());
                }
            }
        }
        occ
    }
}

#[cfg(test)]
mod tests {
    use super::super::{layout::Layout, ranges::Ranges};
    use super::Scan;
    use crate::fixtures::unit_case;
    use crate::interface::AllocError;

    #[test]
    fn the_work_bound_ends_the_scan_with_an_error() {
        // v0i must leave p0i at the clobber and come back for the fixed
        // use: its interval is split, so the scan makes more parts than
        // vregs. With the bound lowered below that, the scan must stop
        // with `impossible`, not go on.
        let case = unit_case("linear_scan/the_work_bound_ends_the_scan_with_an_error");
        let layout = Layout::new(&case.func);
        let ranges = Ranges::new(&case.func, &layout);
        let scan = Scan::new(&case.func, &case.machine, &layout, &ranges).unwrap();
        let parts = scan.run().unwrap().parts.len();
        assert!(parts > 1, "the case should split v0i");
        let mut scan = Scan::new(&case.func, &case.machine, &layout, &ranges).unwrap();
        scan.part_limit = parts - 1;
        match scan.run() {
            Err(AllocError::Impossible(m)) => assert!(m.contains("work bound"), "{m}"),
            Err(other) => panic!("expected the work bound to stop the scan: {other:?}"),
            Ok(_) => panic!("expected the work bound to stop the scan"),
        }
    }
}
