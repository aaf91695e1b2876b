//! Step 4 of the scan: where each part that starts at the current
//! instruction goes, parts an operand reads first. A part no operand reads,
//! whose value arrives from a slot, stays in its slot; else it takes a
//! register free for its whole life (its hint first: the register an edge
//! pairs it with, its first `fixed` read's, or its parameter group's), or
//! for a prefix of it that
//! pays (the rest is split off and queued), or evicts the active part whose
//! next use is farthest, or waits in its slot.

use super::layout::Pos;
use super::part::{Loc, PartId};
use super::scan::{Scan, PREDS_LOOKED_AT};
use crate::analysis::bitset::dense;
use crate::ir::index::{PReg, RegClass};
use std::cmp::Reverse;

impl Scan<'_> {
    /// Step 4: allocates every queued part that starts here, those an
    /// operand reads first: a part only passed on by branches gains least
    /// from a register, so it must not take the one a read needs.
    pub(super) fn drain(&mut self, cold: bool) {
        let slot = self.now.slot();
        let mut starting = std::mem::take(&mut self.starting);
        starting.clear();
        while self.waiting[slot] != PartId::NONE {
            let p = self.waiting[slot];
            self.waiting[slot] = self.waiting_next[p.index()];
            starting.push(p);
        }
        if starting.len() > 1 {
            starting.sort_by_key(|&p| {
                let x = self.parts[p];
                self.r.next_operand_use(x.vreg as usize, x.start) >= x.end
            });
        }
        for &p in &starting {
            debug_assert_eq!(self.parts[p].start, self.now);
            let idle = !cold && (self.idle(p) || self.starts_in_slot(p));
            self.live_part[self.parts[p].vreg as usize] = p;
            if idle {
                self.set_stack(p);
                continue;
            }
            if cold || !self.try_free(p) {
                if cold {
                    self.set_stack(p);
                } else {
                    self.allocate_blocked(p);
                }
            }
        }
        debug_assert_eq!(self.waiting[slot], PartId::NONE);
        self.starting = starting;
    }

    /// The registers of class `c` unavailable to part `p` at the current
    /// instruction: taken by an operand of another value, or clobbered,
    /// at a point where `p` is live.
    fn blocked_mask(&self, p: PartId, c: usize) -> u64 {
        let me = self.parts[p].vreg + 1;
        let class = RegClass::from_index(c);
        let others = |taken: u64, own: &[u32]| {
            let mut m = 0;
            let mut t = taken;
            while t != 0 {
                let hw = t.trailing_zeros() as usize;
                t &= t - 1;
                if own[PReg::new(hw, class).index()] != me {
                    m |= 1 << hw;
                }
            }
            m
        };
        let mut blocked = 0;
        if self.taken_e[c] != 0 && self.covers(p, self.now) {
            blocked |= others(self.taken_e[c], &self.own_e);
        }
        if (self.taken_l[c] | self.clob[c]) != 0 && self.covers(p, self.now + 1) {
            blocked |= others(self.taken_l[c], &self.own_l) | self.clob[c];
        }
        blocked
    }

    /// The first position before `limit` where a known conflict (clobber,
    /// `fixed` operand) in `r` meets part `p`; `limit` if none.
    fn first_fixed_conflict(&self, r: PReg, p: PartId, limit: Pos) -> Pos {
        self.fixed.first_conflict(r, self.parts[p], self.r, limit)
    }

    /// How long register `r` stays free for part `p` (from its start) once
    /// the active part in it, if any, has left for its slot.
    fn free_until_evicted(&self, r: PReg, p: PartId) -> Pos {
        let c = r.class().index();
        if self.blocked_mask(p, c) & (1 << r.hw()) != 0 {
            return Pos::early(0);
        }
        let x = self.parts[p];
        let mut until = x.end;
        // Every inactive part wakes after `now`, and `x` starts no earlier.
        debug_assert!(x.start >= self.now);
        for &Reverse((_, q)) in &self.inactive {
            let y = self.parts[q];
            // Not live before it wakes: no overlap before `until`.
            if y.loc == Loc::Reg(r) && self.wake[q.index()] < until {
                if let Some(o) = self.r.first_overlap(
                    x.vreg as usize,
                    (x.start, until),
                    y.vreg as usize,
                    (y.start, y.end),
                    x.start,
                ) {
                    until = o;
                }
            }
        }
        self.first_fixed_conflict(r, p, until)
    }

    /// The register `v` should take, if any: the one it last had (or a
    /// `fixed` use it was split for asked), else the one an edge already
    /// scanned pairs it with ([`Scan::edge_hint`]), else its first `fixed`
    /// read's, else its parameter group's.
    pub(super) fn hint_of(&mut self, v: usize) -> Option<PReg> {
        if let Some(h) = self.hint[v]
            .or_else(|| self.edge_hint(v))
            .or(self.ahead.fixed_use[v])
        {
            return Some(h);
        }
        self.groups.reg(v)
    }

    /// The register an edge whose both ends are scanned, or will be by the
    /// time `v` is written, pairs `v` with, so that the edge needs no move:
    /// - `v` is a back edge's argument (its target laid out no later than
    ///   its source) whose parameter began in a register: that register;
    /// - `v` is a parameter of the block starting here: the register its
    ///   argument holds at the branch of the first predecessor already
    ///   scanned that has it in one (a few looked at, for a switch's
    ///   thousands).
    ///
    /// A group's register is one for all its members; a value passed to
    /// two parameters, or parameters permuted around a loop, need the
    /// edge's own.
    fn edge_hint(&self, v: usize) -> Option<PReg> {
        let back = self.ahead.back_param[v];
        if back != u32::MAX {
            // A parameter never read has no part.
            let q = self.first_part[back as usize];
            if q != PartId::NONE {
                if let Loc::Reg(r) = self.parts[q].loc {
                    return Some(r);
                }
            }
        }
        let (b, k) = self.r.params[v];
        if !b.is_valid() || self.layout.span[b.index()].0 != self.now {
            return None;
        }
        let mut looked = 0;
        for &pred in self.f.block_preds(b) {
            let end = self.layout.span[pred.index()].1;
            if end > self.now {
                continue;
            }
            let t = self.f.block_succs(pred).iter().position(|&s| s == b)?;
            let arg = self.f.branch_args(pred, t)[k as usize].index();
            if let Some(Loc::Reg(r)) = self.loc_at(arg, end - 2) {
                return Some(r);
            }
            looked += 1;
            if looked == PREDS_LOOKED_AT {
                break;
            }
        }
        None
    }

    /// How long each register of part `p`'s class stays free for it, by
    /// hardware number, leaving out the known conflicts of
    /// [`Scan::first_fixed_conflict`] (an upper bound): one pass over the
    /// inactive parts.
    fn free_until_all(&self, p: PartId, until: &mut [Pos; 64]) {
        let x = self.parts[p];
        let c = self.r.class[x.vreg as usize].index();
        let unavailable = self.occ[c] | self.blocked_mask(p, c);
        for &r in &self.order[c] {
            until[r.hw()] = if unavailable & (1 << r.hw()) != 0 {
                Pos::early(0)
            } else {
                x.end
            };
        }
        // Every inactive part wakes after `now`, and `x` starts no earlier.
        debug_assert!(x.start >= self.now);
        for &Reverse((_, q)) in &self.inactive {
            let y = self.parts[q];
            let Loc::Reg(r) = y.loc else { continue };
            // Not live before it wakes: no overlap before `until`.
            if r.class().index() != c || self.wake[q.index()] >= until[r.hw()] {
                continue;
            }
            if let Some(o) = self.r.first_overlap(
                x.vreg as usize,
                (x.start, until[r.hw()]),
                y.vreg as usize,
                (y.start, y.end),
                x.start,
            ) {
                until[r.hw()] = o;
            }
        }
    }

    /// How long `r` stays free for part `p`, given the bound `bound` from
    /// [`Scan::free_until_all`].
    fn exact_until(&self, r: PReg, p: PartId, bound: Pos) -> Pos {
        if bound <= self.parts[p].start {
            bound
        } else {
            self.first_fixed_conflict(r, p, bound)
        }
    }

    /// Gives part `p` a register free for its whole life or a prefix of it.
    fn try_free(&mut self, p: PartId) -> bool {
        let x = self.parts[p];
        let c = self.r.class[x.vreg as usize].index();
        let mut until = [Pos::default(); 64];
        self.free_until_all(p, &mut until);
        if let Some(h) = self.hint_of(x.vreg as usize) {
            if h.class().index() == c
                && self.alloc_mask[c] & (1 << h.hw()) != 0
                && until[h.hw()] >= x.end
                && self.exact_until(h, p, until[h.hw()]) >= x.end
            {
                self.set_reg(p, h);
                return true;
            }
        }
        // The first register with the most room, in preference order. A
        // register's exact room is computed only when its bound could beat
        // the best so far.
        let mut best: Option<(PReg, Pos)> = None;
        for &r in &self.order[c] {
            if best.is_some_and(|b| until[r.hw()] <= b.1) {
                continue;
            }
            let u = self.exact_until(r, p, until[r.hw()]);
            if best.is_none_or(|b| u > b.1) {
                best = Some((r, u));
                if u >= x.end {
                    break;
                }
            }
        }
        let Some((r, until)) = best else { return false };
        if until >= x.end {
            self.set_reg(p, r);
            return true;
        }
        let at = until.early_point();
        if at <= x.start {
            return false;
        }
        if !self.prefix_pays(p, at) {
            self.set_stack(p);
            return true;
        }
        self.set_reg(p, r);
        if let Some(t) = self.split(p, at) {
            self.enqueue(t);
        }
        true
    }

    /// Whether holding part `p` in a register only up to `at` (where the
    /// register is taken) can save a move. Not when nothing reads the value
    /// before `at` and the part does not begin with its definition: the
    /// register would have to be filled (from the slot, or by an edge that
    /// could fill the slot) and emptied again for nothing, and a loop the
    /// prefix spans would refill it on every back edge. Nor when no operand
    /// reads the part at all: a branch passing it on from the register
    /// saves one move, while the other edges pay to refill it.
    pub(super) fn prefix_pays(&self, p: PartId, at: Pos) -> bool {
        let x = self.parts[p];
        let v = x.vreg as usize;
        let d = self.r.def_inst[v];
        let at_def = d.is_valid() && x.start == self.layout.pos[d.index()] + 2;
        at_def || (self.r.next_use(v, x.start) < at && self.r.next_operand_use(v, x.start) < x.end)
    }

    /// Whether part `p` would gain nothing from a register: no operand
    /// reads it, and its value reaches it from a slot (the part before it,
    /// or at a block's start every edge into the block scanned so far,
    /// which for a parameter brings the argument), so a register would
    /// only be filled from a slot to be passed on by a branch; in its slot,
    /// which a parameter may share with its argument ([`super::slots`]),
    /// it costs nothing. Called before `p` becomes its value's live part.
    fn idle(&self, p: PartId) -> bool {
        let x = self.parts[p];
        let v = x.vreg as usize;
        if self.r.next_operand_use(v, x.start) < x.end {
            return false;
        }
        if !self.layout.is_block_start(x.start) {
            let q = self.live_part[v];
            return q != PartId::NONE
                && self.parts[q].loc == Loc::Stack
                && self.parts[q].end >= x.start;
        }
        let b = self.f.block_of(self.layout.inst(x.start));
        let param = match self.r.params[v] {
            (pb, k) if pb == b => Some(k as usize),
            _ => None,
        };
        let mut any = false;
        for &pred in self.f.block_preds(b) {
            let end = self.layout.span[pred.index()].1;
            if end > x.start {
                continue;
            }
            for (k, &s) in self.f.block_succs(pred).iter().enumerate() {
                if s != b {
                    continue;
                }
                let carried = param.map_or(v, |i| self.f.branch_args(pred, k)[i].index());
                let q = self.live_part[carried];
                if q == PartId::NONE {
                    return false;
                }
                let y = self.parts[q];
                if y.loc != Loc::Stack || y.start >= end || y.end < end {
                    return false;
                }
                any = true;
            }
        }
        any
    }

    /// Whether part `p` is the first part of a parameter told to start in
    /// its slot ([`Scan::with_params_in_slot`]).
    fn starts_in_slot(&self, p: PartId) -> bool {
        let v = self.parts[p].vreg as usize;
        !self.in_slot.is_empty() && dense::contains(&self.in_slot, v) && self.first_part[v] == p
    }

    /// No register is free: evict the active part whose next use is
    /// farthest, unless part `p`'s own next use is farther still (then `p`
    /// waits in its slot). Parts read by the current instruction are never
    /// evicted here.
    fn allocate_blocked(&mut self, p: PartId) {
        let x = self.parts[p];
        let c = self.r.class[x.vreg as usize].index();
        let mine = self.r.next_use(x.vreg as usize, x.start);
        let mut best: Option<(PReg, Pos)> = None;
        let blocked = self.blocked_mask(p, c);
        for &r in &self.order[c] {
            let occ = self.reg_part[r.index()];
            if occ == PartId::NONE || blocked & (1 << r.hw()) != 0 {
                continue;
            }
            let next = self.r.next_use(self.parts[occ].vreg as usize, self.now);
            if next < self.now + 2 {
                continue;
            }
            if best.is_none_or(|b| next > b.1) {
                best = Some((r, next));
            }
        }
        match best {
            Some((r, next)) if mine < next => {
                let until = self.free_until_evicted(r, p);
                let at = until.early_point();
                if until < x.end && (at <= x.start || !self.prefix_pays(p, at)) {
                    self.set_stack(p);
                    return;
                }
                self.evict(self.reg_part[r.index()], true);
                self.set_reg(p, r);
                if until < x.end {
                    if let Some(t) = self.split(p, at) {
                        self.enqueue(t);
                    }
                }
            }
            _ => self.set_stack(p),
        }
    }
}
