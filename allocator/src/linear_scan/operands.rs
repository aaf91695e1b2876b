//! Step 5 of the scan: the instruction's operands. Register operands are
//! placed all at once by the exact search of [`crate::inst_regs`], each
//! preferring the register its value already holds (a use) or its hint (a
//! def), then a free one; parts in the way move out; then `any` and `stack`
//! operands and reuse pairs are placed.

use super::fixed::EXCLUSIVE;
use super::part::{slot_of, Loc};
use super::reused::{mark_reused, NOT_REUSED};
use super::scan::{Scan, Want};
use crate::analysis::cfg;
use crate::inst_regs::RegSlot;
use crate::interface::AllocError;
use crate::ir::index::{Inst, PReg, RegClass};
use crate::ir::operand::{limit_mask, OperandConstraint, OperandPos};
use crate::ir::output::Allocation;

impl Scan<'_> {
    /// Step 5: the instruction's operands (`cold`: it starts a cold join).
    pub(super) fn operands(&mut self, i: Inst, cold: bool) -> Result<(), AllocError> {
        let ops = self.f.inst_operands(i);
        mark_reused(ops, &mut self.reused);
        for (k, op) in ops.iter().enumerate() {
            if let OperandConstraint::Reuse(t) = op.constraint() {
                if self.reused[t] != k as u32 {
                    return Err(AllocError::Impossible(format!(
                        "{i}: two defs reuse operand {t}, so both would be written to one location"
                    )));
                }
            }
        }
        let occupied = self.occupied(i);
        // Reads of one value are first merged into one register slot; if
        // that makes the search fail, it runs again with every operand apart.
        for merge in [true, false] {
            self.want_registers(i, merge, &occupied);
            let Some(c) = self.search_registers() else {
                break;
            };
            if !merge {
                return Err(AllocError::Impossible(format!(
                    "{i}: its {} operands cannot all get registers at once",
                    RegClass::from_index(c)
                )));
            }
        }
        self.record_registers(i);
        self.evict_in_the_way();
        self.drain(cold);
        self.place_without_registers(i);
        Ok(())
    }

    /// The register operands of `i` as slots for the search, per class;
    /// with `merge`, reads of one value that can share a register share
    /// one slot (the others are noted in `aliases`).
    fn want_registers(&mut self, i: Inst, merge: bool, occupied: &[(u64, u64); 3]) {
        let f = self.f;
        let ops = f.inst_operands(i);
        let base = f.inst_operand_range(i).start;
        for w in &mut self.want {
            w.clear();
        }
        self.aliases.clear();
        for (k, op) in ops.iter().enumerate() {
            let c = op.class().index();
            let mut candidates = match op.constraint() {
                OperandConstraint::NonAlloc(r) => {
                    self.allocs[base + k] = Allocation::Reg(r);
                    continue;
                }
                OperandConstraint::FixedReg(r) if self.alloc_mask[c] & (1 << r.hw()) == 0 => {
                    self.allocs[base + k] = Allocation::Reg(r);
                    continue;
                }
                OperandConstraint::FixedReg(r) => 1u64 << r.hw(),
                OperandConstraint::Reg => self.alloc_mask[c],
                OperandConstraint::Limit(n) => self.alloc_mask[c] & limit_mask(n),
                OperandConstraint::Reuse(_) | OperandConstraint::Any | OperandConstraint::Stack => {
                    continue
                }
            };
            let (early, late) = if op.is_use() {
                (
                    true,
                    op.pos() == OperandPos::Late || self.reused[k] != NOT_REUSED,
                )
            } else {
                (op.pos() == OperandPos::Early, true)
            };
            if late {
                candidates &= !self.clob[c];
            }
            let mut prefer = [0u64; 2];
            if op.is_use() {
                if let Loc::Reg(r) = self.parts[self.live_part[op.vreg().index()]].loc {
                    if r.class().index() == c {
                        prefer[0] = 1 << r.hw();
                    }
                }
            } else if let Some(h) = self.hint_of(op.vreg().index()) {
                // Not a hint held by a value that lives on: taking it
                // would cost that value a move.
                let (occ_e, occ_l) = occupied[c];
                let held = if op.pos() == OperandPos::Early {
                    occ_e
                } else {
                    occ_l
                };
                if h.class().index() == c && held & (1 << h.hw()) == 0 {
                    prefer[0] = 1 << h.hw();
                }
            }
            let (occ_e, occ_l) = occupied[c];
            prefer[1] = !((if early { occ_e } else { 0 }) | (if late { occ_l } else { 0 }));
            // Several reads of one value (`a = a + a`) share a register when
            // their constraints allow.
            if op.is_use() && merge {
                // Not when a reused input would share with a read that lasts
                // past the early point (the def overwrites it there).
                let reused = &self.reused;
                let aliases = &self.aliases;
                let me_reused = reused[k] != NOT_REUSED;
                let me_late = op.pos() == OperandPos::Late;
                let same = self.want[c].iter_mut().find(|w| {
                    let o = ops[w.operand];
                    let group = || {
                        std::iter::once(w.operand)
                            .chain(aliases.iter().filter(|a| a.0 == w.operand).map(|a| a.1))
                    };
                    let other_reused = group().any(|x| reused[x] != NOT_REUSED);
                    let other_late = group().any(|x| ops[x].pos() == OperandPos::Late);
                    o.is_use()
                        && o.vreg() == op.vreg()
                        && w.slot.candidates & candidates != 0
                        && !(other_reused && (me_reused || me_late))
                        && !(me_reused && other_late)
                });
                if let Some(w) = same {
                    w.slot.candidates &= candidates;
                    w.slot.early |= early;
                    w.slot.late |= late;
                    self.aliases.push((w.operand, k));
                    continue;
                }
            }
            self.want[c].push(Want {
                operand: k,
                slot: RegSlot {
                    candidates,
                    early,
                    late,
                    prefer,
                },
            });
        }
    }

    /// Runs the search on each class's slots: the first class whose
    /// operands cannot all get registers, if any.
    fn search_registers(&mut self) -> Option<usize> {
        (0..3).find(|&c| {
            self.slot_buf.clear();
            self.slot_buf.extend(self.want[c].iter().map(|w| w.slot));
            !self.slot_buf.is_empty() && !self.search[c].run(&self.slot_buf, 0, 0)
        })
    }

    /// Gives each register operand the register the search chose, and
    /// notes what each point of the instruction now holds.
    fn record_registers(&mut self, i: Inst) {
        let ops = self.f.inst_operands(i);
        let base = self.f.inst_operand_range(i).start;
        for c in 0..3 {
            let hws = std::mem::take(&mut self.search[c].result);
            for (w, &hw) in self.want[c].iter().zip(&hws) {
                let op = ops[w.operand];
                let r = PReg::new(hw, RegClass::from_index(c));
                self.allocs[base + w.operand] = Allocation::Reg(r);
                let v = op.vreg().index() as u32 + 1;
                if w.slot.early {
                    self.taken_e[c] |= 1 << hw;
                    self.own_e[r.index()] = if op.is_use() { v } else { EXCLUSIVE };
                }
                if w.slot.late {
                    self.taken_l[c] |= 1 << hw;
                    let reused = self.reused[w.operand] != NOT_REUSED
                        || self
                            .aliases
                            .iter()
                            .any(|&(k, a)| k == w.operand && self.reused[a] != NOT_REUSED);
                    self.own_l[r.index()] = if op.is_use() && !reused { v } else { EXCLUSIVE };
                }
                if op.is_def() {
                    self.hint[op.vreg().index()] = Some(r);
                }
            }
            self.search[c].result = hws;
        }
        for &(k, alias) in &self.aliases {
            self.allocs[base + alias] = self.allocs[base + k];
        }
    }

    /// Active parts in a register the operands took (or the instruction
    /// clobbers while they live across it) move out and wait for another.
    fn evict_in_the_way(&mut self) {
        self.victims.clear();
        for c in 0..3 {
            let mut m = (self.taken_e[c] | self.taken_l[c] | self.clob[c]) & self.occ[c];
            while m != 0 {
                let hw = m.trailing_zeros() as usize;
                m &= m - 1;
                let (r, bit) = (PReg::new(hw, RegClass::from_index(c)), 1u64 << hw);
                let p = self.reg_part[r.index()];
                let me = self.parts[p].vreg + 1;
                let early = self.taken_e[c] & bit != 0 && self.own_e[r.index()] != me;
                let late = ((self.taken_l[c] & bit != 0 && self.own_l[r.index()] != me)
                    || self.clob[c] & bit != 0)
                    && self.live_late(p);
                if early || late {
                    self.victims.push(p);
                }
            }
        }
        for k in 0..self.victims.len() {
            self.evict(self.victims[k], false);
        }
    }

    /// `any` and `stack` operands, and reuse defs.
    fn place_without_registers(&mut self, i: Inst) {
        let f = self.f;
        let ops = f.inst_operands(i);
        let base = f.inst_operand_range(i).start;
        // A branch whose edge moves run before it (into a join) reads its
        // `any` and `stack` operands from memory: the moves may fill any
        // register that is not cold (see `cold_blocks`). It must not read a
        // parameter of that join from the parameter's slot either: the moves
        // have already filled it with the next value. It reads a temporary
        // copy instead.
        let b = f.block_of(i);
        let succs = f.block_succs(b);
        let edge_before =
            f.is_branch(i) && succs.len() == 1 && cfg::effective_preds(f, succs[0]) > 1;
        let join_params = if edge_before {
            f.block_params(succs[0])
        } else {
            &[]
        };
        let regs_safe = edge_before && self.cold[succs[0].index()];
        let mut temps = 0;
        let occupied = self.occupied(i);
        // Operands without register needs, and reuse defs.
        for (k, op) in ops.iter().enumerate() {
            let v = op.vreg().index();
            let c = op.class().index();
            match op.constraint() {
                OperandConstraint::Any | OperandConstraint::Stack
                    if op.is_use() && self.reused[k] != NOT_REUSED =>
                {
                    // The def overwrites the reused location: give the pair
                    // the def's own slot, filled with a copy of the input.
                    let w = ops[self.reused[k] as usize].vreg().index();
                    self.allocs[base + k] = slot_of(w);
                    self.spilled[w] = true;
                }
                OperandConstraint::Stack | OperandConstraint::Any
                    if op.is_use() && join_params.contains(&op.vreg()) =>
                {
                    self.allocs[base + k] = match self.parts[self.live_part[v]].loc {
                        Loc::Reg(r) if op.constraint() == OperandConstraint::Any && regs_safe => {
                            Allocation::Reg(r)
                        }
                        _ => {
                            temps += 1;
                            slot_of(f.num_vregs() + temps - 1)
                        }
                    };
                }
                OperandConstraint::Stack => {
                    self.allocs[base + k] = slot_of(v);
                    self.spilled[v] = true;
                }
                OperandConstraint::Any if op.is_use() => {
                    self.allocs[base + k] = match self.parts[self.live_part[v]].loc {
                        Loc::Reg(r) if !edge_before || regs_safe => Allocation::Reg(r),
                        _ => {
                            self.spilled[v] = true;
                            slot_of(v)
                        }
                    };
                }
                OperandConstraint::Any => {
                    let (occ_e, occ_l) = occupied[c];
                    let early = op.pos() == OperandPos::Early;
                    let mut free = self.alloc_mask[c] & !(self.taken_l[c] | self.clob[c] | occ_l);
                    if early {
                        free &= !(self.taken_e[c] | occ_e);
                    }
                    let pick = match self.hint_of(v) {
                        Some(h) if h.class().index() == c && free & (1 << h.hw()) != 0 => Some(h),
                        _ => self.order[c]
                            .iter()
                            .copied()
                            .find(|r| free & (1 << r.hw()) != 0),
                    };
                    self.allocs[base + k] = match pick {
                        Some(r) => {
                            self.taken_l[c] |= 1 << r.hw();
                            self.own_l[r.index()] = EXCLUSIVE;
                            if early {
                                self.taken_e[c] |= 1 << r.hw();
                                self.own_e[r.index()] = EXCLUSIVE;
                            }
                            self.hint[v] = Some(r);
                            Allocation::Reg(r)
                        }
                        None => {
                            self.spilled[v] = true;
                            slot_of(v)
                        }
                    };
                }
                _ => {}
            }
        }
        for (k, op) in ops.iter().enumerate() {
            if let OperandConstraint::Reuse(t) = op.constraint() {
                self.allocs[base + k] = self.allocs[base + t];
                if let Allocation::Reg(r) = self.allocs[base + t] {
                    self.hint[op.vreg().index()] = Some(r);
                }
            }
        }
    }
}
