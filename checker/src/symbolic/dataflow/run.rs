//! Running one block from its in-state: each edit's and instruction's
//! effect on the locations, in the order the [module
//! documentation](super::super) gives, and every use checked where it reads.

use super::*;

/// What an instruction has besides early uses, found in the pass that
/// checks them: one bit per later step of its run.
const LATE_USE: u8 = 1;
const EARLY_DEF: u8 = 2;
const LATE_DEF: u8 = 4;
const REUSE: u8 = 8;

impl Checker {
    /// Runs block `b` from its in-state, checking every use and telling
    /// `obs` what each edit and instruction writes.
    pub(in crate::symbolic) fn run_block<O: Observe>(
        &mut self,
        c: &Ctx,
        b: Block,
        errs: &mut Vec<CheckError>,
        obs: &mut O,
    ) {
        let f = c.f;
        for i in f.block_insts(b).iter() {
            let (s, e) = (
                self.edit_start[i.index()] as usize,
                self.edit_start[i.index() + 1] as usize,
            );
            for k in s..e {
                let (p, ei) = self.by_inst[k];
                if p.pos() == InstPosition::Before {
                    self.edit(c, ei as usize, obs);
                }
            }
            let ops = f.inst_operands(i);
            let allocs = &c.out.allocs[f.inst_operand_range(i)];
            // Early uses, early defs, late uses, clobbers, late defs: the
            // early uses are checked in the pass that finds which of the
            // other steps this instruction has (most have only late defs).
            let mut has = 0u8;
            for (k, &op) in ops.iter().enumerate() {
                if op.is_use() {
                    if op.pos() == OperandPos::Early {
                        self.check_use(c, i, k, op, allocs[k], errs);
                    } else {
                        has |= LATE_USE;
                    }
                } else if op.is_def() {
                    has |= match op.pos() {
                        OperandPos::Early => EARLY_DEF,
                        OperandPos::Late => LATE_DEF,
                    };
                    if let OperandConstraint::Reuse(_) = op.constraint() {
                        has |= REUSE;
                    }
                }
            }
            if has & REUSE != 0 {
                self.check_reuse_sharing(c, i, ops, allocs, errs);
            }
            if has & EARLY_DEF != 0 {
                self.defs_at(c, ops, allocs, OperandPos::Early);
            }
            if has & LATE_USE != 0 {
                for (k, &op) in ops.iter().enumerate() {
                    if op.is_use() && op.pos() == OperandPos::Late {
                        self.check_use(c, i, k, op, allocs[k], errs);
                    }
                }
            }
            for r in f.inst_clobbers(i) {
                self.clear_loc(r.index() as u32);
            }
            if has & LATE_DEF != 0 {
                self.defs_at(c, ops, allocs, OperandPos::Late);
            }
            if O::ON {
                let written = f.inst_clobbers(i).iter().map(|r| r.index() as u32).chain(
                    ops.iter()
                        .zip(allocs)
                        .filter(|(op, _)| op.is_def())
                        .filter_map(|(_, &a)| c.key(a)),
                );
                for l in written {
                    obs.wrote(TracePoint::Inst(i), l, &self.set_of(l));
                }
            }
            for k in s..e {
                let (p, ei) = self.by_inst[k];
                if p.pos() == InstPosition::After {
                    self.edit(c, ei as usize, obs);
                }
            }
        }
    }

    /// Writes the defs of one instruction at point `pos`.
    #[inline]
    fn defs_at(&mut self, c: &Ctx, ops: &[Operand], allocs: &[Allocation], pos: OperandPos) {
        for (op, &a) in ops.iter().zip(allocs) {
            if op.is_def() && op.pos() == pos {
                if let Some(l) = c.key(a) {
                    self.def(op.vreg().index() as u32, l);
                    self.cut_overlapped(c, l, op.class());
                }
            }
        }
    }

    fn edit<O: Observe>(&mut self, c: &Ctx, e: usize, obs: &mut O) {
        let m = c.out.edits[e].1;
        let Some(to) = c.key(m.to) else { return };
        match c.key(m.from) {
            Some(from) => self.mv(from, to),
            None => self.clear_loc(to),
        }
        if let Allocation::Reg(r) = m.from {
            self.cut_overlapped(c, to, r.class());
        }
        if O::ON {
            obs.wrote(TracePoint::Edit(e), to, &self.set_of(to));
        }
    }

    /// A value of `class` was just written to location `l`: when `l` is a
    /// slot and values fill several slots, every other value whose slots
    /// the write overlaps is cut, its location emptied.
    fn cut_overlapped(&mut self, c: &Ctx, l: u32, class: RegClass) {
        if c.vclass.is_empty() || (l as usize) < PReg::NUM_INDEX {
            return;
        }
        let k = l as usize - PReg::NUM_INDEX;
        let Some(mine) = c.slots.span(class, k) else {
            return;
        };
        let reach = c.slots.max_size();
        for j in k.saturating_sub(reach - 1)..(k + reach).min(c.nslots) {
            let lj = (PReg::NUM_INDEX + j) as u32;
            if j == k {
                continue;
            }
            let Some(v) = self.first_vreg(lj) else {
                continue;
            };
            let theirs = c.slots.span(c.vclass[v as usize], j);
            if theirs.is_some_and(|r| r.start < mine.end && mine.start < r.end) {
                self.clear_loc(lj);
            }
        }
    }

    /// A reuse def writes its input's location: an early input of another
    /// vreg may share that location only when it holds the same value,
    /// that is when the location holds both vregs (`a = a + b` where `b` is
    /// a copy of `a`, or a block parameter bound to `a`). Run after the
    /// early uses, before any def.
    fn check_reuse_sharing(
        &self,
        c: &Ctx,
        i: Inst,
        ops: &[Operand],
        allocs: &[Allocation],
        errs: &mut Vec<CheckError>,
    ) {
        for (kd, d) in ops.iter().enumerate() {
            let OperandConstraint::Reuse(t) = d.constraint() else {
                continue;
            };
            let (Some(input), Some(l)) = (ops.get(t), c.key(allocs[kd])) else {
                continue;
            };
            for (ku, u) in ops.iter().enumerate() {
                if !u.is_use()
                    || u.is_nonalloc()
                    || u.pos() != OperandPos::Early
                    || u.vreg() == input.vreg()
                    || allocs[ku] != allocs[kd]
                    || (self.holds(l, u.vreg().index() as u32)
                        && self.holds(l, input.vreg().index() as u32))
                {
                    continue;
                }
                let ((k1, o1), (k2, o2)) = if kd < ku {
                    ((kd, d), (ku, u))
                } else {
                    ((ku, u), (kd, d))
                };
                errs.push(CheckError {
                    kind: ErrorKind::Interference,
                    site: Site::Alloc(i, k2),
                    message: format!(
                        "{i} operands {k1} ({o1}) and {k2} ({o2}) are both in {}, but one is written while the other still needs its value",
                        allocs[kd]
                    ),
                    read_nothing: false,
                });
            }
        }
    }

    #[inline]
    fn check_use(
        &self,
        c: &Ctx,
        i: Inst,
        k: usize,
        op: Operand,
        a: Allocation,
        errs: &mut Vec<CheckError>,
    ) {
        let Some(l) = c.key(a) else { return };
        if !self.holds(l, op.vreg().index() as u32) {
            self.wrong_value(c, i, k, errs);
        }
    }

    /// Reports operand `k` of `i`, which reads a location its vreg is not in.
    #[cold]
    fn wrong_value(&self, c: &Ctx, i: Inst, k: usize, errs: &mut Vec<CheckError>) {
        let op = c.f.inst_operands(i)[k];
        let a = c.out.allocs[c.f.inst_operand_range(i)][k];
        let held = c.key(a).map(|l| self.set_of(l)).unwrap_or_default();
        errs.push(CheckError {
            kind: ErrorKind::WrongValue,
            site: Site::Alloc(i, k),
            message: format!(
                "{i} operand {k} ({op}) reads {v2} from {a} at the {pos} point, but {a} holds {held}",
                v2 = op.vreg(),
                pos = if op.pos() == OperandPos::Early { "early" } else { "late" },
                held = describe_set(&held, c.f)
            ),
            read_nothing: held.is_empty(),
        });
    }
}
