//! One instruction's operands as use records for the live ranges, with the
//! three rewrites that let the core allocator see one requirement per
//! value per point:
//!
//! - **Several reads of one value.** Reads at one point whose requirements
//!   meet share one record and one location (the others are aliases), and
//!   so do an early and a late read that meet as `any` or `stack`. A read that
//!   cannot share (`fixed(p0)` and `fixed(p1)` of one value, say) gets a
//!   *copy value*: a fresh value live only at this instruction, filled by a
//!   move before it. A `fixed` read of a value that lives on past an
//!   instruction which clobbers or defines that register is a copy too:
//!   the value cannot stay there.
//! - **`reuse`.** The def occupies its location from the early point, with
//!   the requirement of the reused operand, so nothing else the instruction
//!   reads can be there; the reused input is read from the def's location,
//!   filled by a move before the instruction. The input itself is only
//!   needed up to the boundary before the instruction, so when it dies
//!   there it may share the def's location and the move disappears.
//! - **Reads that cannot stay.** A read that needs a register, by a value
//!   that lives on past the instruction, is a copy when the exact search of
//!   [`crate::inst_regs`] finds that the instruction's register operands do
//!   not fit if such reads keep their registers through the late point (as
//!   when the instruction writes or clobbers every register one accepts).
//! - **Early defs** occupy their location through the late point.
//!
//! Clobbers and `nonalloc` registers become reservations, which nothing
//! may overlap and nothing can evict.

use super::points::{e, l, m, Point};
use super::requirement::{Masks, Req};
use crate::inst_regs::{RegSlot, Search};
use crate::interface::AllocError;
use crate::ir::function::Function;
use crate::ir::index::{Inst, PReg, RegClass};
use crate::ir::operand::{OperandConstraint, OperandPos};

/// `slot` of a record that stands for no operand.
pub const GHOST: u32 = u32::MAX;
const NONE: u32 = u32::MAX;

/// A read or write of a value at a point, with what it asks of the
/// location; `slot` is the operand's index in the function, or [`GHOST`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub value: u32,
    pub point: Point,
    pub slot: u32,
    pub req: Req,
}

/// The records of one instruction, in the order the range builder needs
/// them (defs close ranges, uses open them). Kept between instructions.
#[derive(Default)]
pub struct InstRecords {
    pub defs: Vec<Record>,
    pub uses: Vec<Record>,
    /// Copy values: `(copy, source value, the copy's read)`.
    pub copies: Vec<(u32, u32, Record)>,
    reused_by: Vec<u32>,
    slots: Vec<RegSlot>,
    search: Search,
}

/// Move-side facts of the rewrites, for the assembly of the output.
#[derive(Default, Debug)]
pub struct Rewrites {
    /// `(operand, operand whose location it shares)`.
    pub aliases: Vec<(u32, u32)>,
    pub reuses: Vec<Reuse>,
    /// `(instruction, source value, copy value)`.
    pub copies: Vec<(Inst, u32, u32)>,
    /// `(register, from, to)`: no value may be there.
    pub reservations: Vec<(PReg, Point, Point)>,
}

impl Rewrites {
    /// These rewrites emptied, their storage kept for another function.
    pub fn cleared(mut self) -> Rewrites {
        self.aliases.clear();
        self.reuses.clear();
        self.copies.clear();
        self.reservations.clear();
        self
    }
}

/// A `reuse` def and its input.
#[derive(Clone, Copy, Debug)]
pub struct Reuse {
    pub inst: Inst,
    /// Operand indices in the function.
    pub input_slot: u32,
    pub def_slot: u32,
    /// The values read and defined.
    pub input: u32,
    pub def: u32,
}

/// The values of the function: its vregs, then the copy values.
pub struct Values {
    pub class: Vec<RegClass>,
}

/// Records the operands of `i`. `live_after(v)` says whether vreg `v` is
/// live after `i`. New copy values are appended to `values`.
pub fn plan_inst(
    f: &Function,
    i: Inst,
    masks: &Masks,
    live_after: impl Fn(u32) -> bool,
    values: &mut Values,
    out: &mut InstRecords,
    rw: &mut Rewrites,
) -> Result<(), AllocError> {
    out.defs.clear();
    out.uses.clear();
    out.copies.clear();
    let ops = f.inst_operands(i);
    let base = f.inst_operand_range(i).start as u32;
    out.reused_by.clear();
    out.reused_by.resize(ops.len(), NONE);
    let mut clob = [0u64; 3];
    for &r in f.inst_clobbers(i) {
        clob[r.class().index()] |= 1 << r.hw();
        rw.reservations.push((r, l(i), l(i) + 1));
    }
    for (d, op) in ops.iter().enumerate() {
        match op.constraint() {
            OperandConstraint::Reuse(k) => {
                if out.reused_by[k] != NONE {
                    return Err(AllocError::Impossible(format!(
                        "{i}: two defs reuse operand {k}, so both would be written to one location"
                    )));
                }
                out.reused_by[k] = d as u32;
            }
            OperandConstraint::NonAlloc(r) => rw.reservations.push((r, e(i), l(i) + 1)),
            _ => {}
        }
    }
    for (d, op) in ops.iter().enumerate() {
        if !op.is_def() {
            continue;
        }
        let class = op.class();
        let (point, req) = match op.constraint() {
            OperandConstraint::Reuse(k) => (e(i), Req::of(ops[k].constraint(), class, masks)),
            c if op.pos() == OperandPos::Early => (e(i), Req::of(c, class, masks)),
            c => (l(i), Req::of(c, class, masks)),
        };
        out.defs.push(Record {
            value: op.vreg().index() as u32,
            point,
            slot: base + d as u32,
            req,
        });
    }
    // Reads, grouped per value: `out.uses` holds one record per group, the
    // first group of each value being the value's own read.
    let first_group = out.uses.len();
    for (k, op) in ops.iter().enumerate() {
        if !op.is_use() || op.is_nonalloc() {
            continue;
        }
        let v = op.vreg().index() as u32;
        if out.reused_by[k] != NONE {
            out.uses.push(Record {
                value: v,
                point: m(i),
                slot: GHOST,
                req: Req::Top,
            });
            let d = out.reused_by[k] as usize;
            rw.reuses.push(Reuse {
                inst: i,
                input_slot: base + k as u32,
                def_slot: base + d as u32,
                input: v,
                def: ops[d].vreg().index() as u32,
            });
            continue;
        }
        let req = Req::of(op.constraint(), op.class(), masks);
        let point = if op.pos() == OperandPos::Late {
            l(i)
        } else {
            e(i)
        };
        let slot = base + k as u32;
        // Reads at one point share when their requirements meet; an early
        // and a late read only when they meet as `any` or `stack`, so that
        // the shared location need not be a register the instruction
        // writes.
        let group = out.uses[first_group..].iter_mut().find(|g| {
            let met = g.req.meet(req);
            g.value == v
                && g.slot != GHOST
                && met != Req::Conflict
                && (g.point == point || !met.needs_reg())
        });
        match group {
            Some(g) => {
                g.req = g.req.meet(req);
                g.point = g.point.max(point);
                rw.aliases.push((slot, g.slot));
            }
            None => out.uses.push(Record {
                value: v,
                point,
                slot,
                req,
            }),
        }
    }
    // Per class: do the register operands still fit when the reads of
    // values that live on keep their register through the late point? (A
    // read fixed to a register the instruction clobbers or a def writes
    // does not: its register is taken at the late point.)
    let mut fits = [true; 3];
    for (c, fit) in fits.iter_mut().enumerate() {
        let keeps = out.uses[first_group..].iter().any(|g| {
            g.slot != GHOST
                && g.point == e(i)
                && g.req.needs_reg()
                && values.class[g.value as usize].index() == c
                && live_after(g.value)
        });
        if !keeps {
            continue;
        }
        out.slots.clear();
        let cand = |req: Req| match req {
            Req::Regs(m) => m,
            Req::Fixed(r) | Req::Pinned(r) => 1 << r.hw(),
            _ => 0,
        };
        for r in &out.defs {
            if r.req.needs_reg() && values.class[r.value as usize].index() == c {
                out.slots.push(RegSlot {
                    candidates: cand(r.req) & !clob[c],
                    early: r.point == e(i),
                    late: true,
                    prefer: [0; 2],
                });
            }
        }
        for g in &out.uses[first_group..] {
            if g.slot != GHOST && g.req.needs_reg() && values.class[g.value as usize].index() == c {
                let late = g.point == l(i) || live_after(g.value);
                out.slots.push(RegSlot {
                    candidates: if late {
                        cand(g.req) & !clob[c]
                    } else {
                        cand(g.req)
                    },
                    early: true,
                    late,
                    prefer: [0; 2],
                });
            }
        }
        *fit = out.search.run(&out.slots, 0, 0);
    }
    // Groups after a value's first become copy values, and so does a first
    // group that cannot stay in its register past the instruction.
    for k in first_group..out.uses.len() {
        let g = out.uses[k];
        if g.slot == GHOST {
            continue;
        }
        let first = !out.uses[first_group..k]
            .iter()
            .any(|o| o.value == g.value && o.slot != GHOST);
        let stuck = g.point == e(i)
            && live_after(g.value)
            && g.req.needs_reg()
            && !fits[values.class[g.value as usize].index()];
        if first && !stuck {
            continue;
        }
        let c = values.class.len() as u32;
        values.class.push(values.class[g.value as usize]);
        out.copies.push((c, g.value, Record { value: c, ..g }));
        rw.copies.push((i, g.value, c));
        // The source is read by the copy's move before the instruction.
        out.uses[k] = Record {
            value: g.value,
            point: m(i),
            slot: GHOST,
            req: Req::Top,
        };
    }
    Ok(())
}

/// The records of a branch whose edge moves run before it: its operands
/// are placed apart (see `edge_branch`), so the core allocator only keeps
/// their values live through it.
pub fn plan_edge_branch(f: &Function, i: Inst, out: &mut InstRecords, rw: &mut Rewrites) {
    out.defs.clear();
    out.uses.clear();
    out.copies.clear();
    for &r in f.inst_clobbers(i) {
        rw.reservations.push((r, l(i), l(i) + 1));
    }
    for op in f.inst_operands(i) {
        let point = if op.pos() == OperandPos::Early {
            e(i)
        } else {
            l(i)
        };
        let rec = Record {
            value: op.vreg().index() as u32,
            point,
            slot: GHOST,
            req: Req::Top,
        };
        match op.constraint() {
            OperandConstraint::NonAlloc(r) => rw.reservations.push((r, e(i), l(i) + 1)),
            _ if op.is_def() => out.defs.push(rec),
            _ => out.uses.push(rec),
        }
    }
}

/// The first instruction whose register operands alone cannot all get
/// registers (each use early, and late too when it is a late use; each def
/// late, and early too when it is an early or `reuse` def), as the message
/// of an `Impossible` error; `None` when every instruction fits.
pub fn infeasible_inst(f: &Function, masks: &Masks) -> Option<String> {
    let mut slots: Vec<RegSlot> = Vec::new();
    for i in f.insts() {
        let ops = f.inst_operands(i);
        let mut clob = [0u64; 3];
        for &r in f.inst_clobbers(i) {
            clob[r.class().index()] |= 1 << r.hw();
        }
        // A reused input shares its def's register: one slot for the pair.
        let reused = |k: usize| {
            ops.iter()
                .any(|d| d.constraint() == OperandConstraint::Reuse(k))
        };
        for c in RegClass::ALL {
            slots.clear();
            for (_, op) in ops
                .iter()
                .enumerate()
                .filter(|&(k, op)| op.class() == c && !op.is_nonalloc() && !reused(k))
            {
                let constraint = match op.constraint() {
                    OperandConstraint::Reuse(k) => ops[k].constraint(),
                    other => other,
                };
                let candidates = match Req::of(constraint, c, masks) {
                    Req::Regs(m) => m,
                    Req::Fixed(r) | Req::Pinned(r) => 1 << r.hw(),
                    _ => continue,
                };
                let reuse = matches!(op.constraint(), OperandConstraint::Reuse(_));
                let (early, late) = if op.is_use() {
                    (true, op.pos() == OperandPos::Late)
                } else {
                    (reuse || op.pos() == OperandPos::Early, true)
                };
                slots.push(RegSlot {
                    candidates: if late {
                        candidates & !clob[c.index()]
                    } else {
                        candidates
                    },
                    early,
                    late,
                    prefer: [0; 2],
                });
            }
            if !slots.is_empty() && crate::inst_regs::assign(&slots, 0, 0).is_none() {
                return Some(format!(
                    "{i}: its {c} operands cannot all get registers at once"
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
