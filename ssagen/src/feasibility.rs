//! The feasibility rules: what the generator guarantees so that a correct
//! allocator can always allocate the case. They live here, in one place; the
//! generator applies them through [`PointRegs`] and [`check`] verifies them
//! independently on a finished case (tests and the `ssagen` target run it).
//!
//! 1. **Registers at a point.** At the early and at the late point of every
//!    instruction, the operands that need a register of a class (`reg`,
//!    `limit`, `fixed`, and a `reuse` of such an input) can be given distinct
//!    registers that satisfy their constraints. An early use needs its
//!    register at the early point, a late def at the late point, and a late
//!    use or an early def at both. The generator proves it by construction:
//!    it picks a witness register for each such operand as it draws the
//!    constraint, and falls back to `any` when none is left.
//! 2. **Clobbers.** An operand whose value lives at the late point (a late
//!    use, any def) never needs a register the instruction clobbers; an early
//!    use may (call arguments in caller-saved registers).
//! 3. **Reuse.** A `reuse(k)` def is late, and operand `k` is an early use of
//!    the same class; its register (when it needs one) is free at the late
//!    point, where the def takes it over.
//! 4. **Machine.** Every class has at least one allocatable register; `fixed`
//!    never names a scratch register (it may name `p62`, which no list
//!    holds); `nonalloc` names `p63`, which no list holds either. Spill slots are unbounded, so values live across an instruction
//!    can always wait in memory, and parallel moves can always borrow a
//!    register when there is no scratch.
//! 5. **Values.** Operands use values available (defined in a dominating
//!    block or earlier in the block); a branch argument is chosen before the
//!    branch, and when no value of the class is available one is defined just
//!    before the branch rather than giving up. Only a branch with two or more
//!    successors defines values (each successor then has a single
//!    predecessor, where moves of those values can go).

use crate::machine::UNLISTED_HW;
use allocator::ir::operand::limit_mask;
use allocator::ir::validate::{validate, ValidationError};
use allocator::{
    Case, Function, Inst, MachineEnv, Operand, OperandConstraint, OperandKind, OperandPos, PReg,
    PRegRole, RegClass,
};

/// Registers taken by witnesses at the early and the late point of the
/// instruction being generated, and the ones it clobbers, per class, as
/// masks over hardware numbers.
#[derive(Clone, Copy, Default)]
pub struct PointRegs {
    pub early: [u64; 3],
    pub late: [u64; 3],
    pub clobbered: [u64; 3],
}

/// At which points an operand holds its register.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Span {
    pub early: bool,
    pub late: bool,
}

impl Span {
    /// The points an operand of this kind and position holds its register:
    /// an early use only early, a late def only late, the others both.
    pub fn of_kind(kind: OperandKind, pos: OperandPos) -> Span {
        let (early, late) = match (kind, pos) {
            (OperandKind::Use, OperandPos::Early) => (true, false),
            (OperandKind::Def, OperandPos::Late) => (false, true),
            _ => (true, true),
        };
        Span { early, late }
    }

    pub fn of(op: Operand) -> Span {
        Self::of_kind(op.kind(), op.pos())
    }
}

impl PointRegs {
    /// Registers of `class` among `candidates` that an operand spanning
    /// `span` may take (free at its points, not clobbered if it lives late).
    pub fn free(&self, class: RegClass, span: Span, candidates: u64) -> u64 {
        let c = class.index();
        let mut m = candidates;
        if span.early {
            m &= !self.early[c];
        }
        if span.late {
            m &= !(self.late[c] | self.clobbered[c]);
        }
        m
    }

    pub fn take(&mut self, class: RegClass, span: Span, hw: usize) {
        let c = class.index();
        if span.early {
            self.early[c] |= 1 << hw;
        }
        if span.late {
            self.late[c] |= 1 << hw;
        }
    }
}

/// Masks per class: allocatable registers, and every register a `fixed`
/// constraint may name (allocatable, fixed stack locations and, with
/// `unlisted`, [`UNLISTED_HW`] when no list holds it).
pub fn machine_masks(env: &MachineEnv, unlisted: bool) -> ([u64; 3], [u64; 3]) {
    let alloc = env.allocatable_set().class_masks();
    let mut fixable = alloc;
    for class in RegClass::ALL {
        let c = class.index();
        for r in &env.fixed_stack[c] {
            fixable[c] |= 1 << r.hw();
        }
        if unlisted && env.role(PReg::new(UNLISTED_HW, class)) == PRegRole::NonAllocatable {
            fixable[c] |= 1 << UNLISTED_HW;
        }
    }
    (alloc, fixable)
}

/// The registers an operand may occupy, when it needs one.
fn candidates(ops: &[Operand], k: usize, alloc: &[u64; 3]) -> Option<u64> {
    let op = ops[k];
    let c = op.class().index();
    match op.constraint() {
        OperandConstraint::Reg => Some(alloc[c]),
        OperandConstraint::Limit(n) => Some(alloc[c] & limit_mask(n)),
        OperandConstraint::FixedReg(r) => Some(1 << r.hw()),
        OperandConstraint::Reuse(i) if i < ops.len() && i != k => candidates(ops, i, alloc),
        _ => None,
    }
}

/// Why a case is not one an allocator under test is handed.
#[derive(Debug)]
pub enum Unfit {
    /// The validator's errors (at least one).
    Invalid(Vec<ValidationError>),
    /// The first broken feasibility rule, described.
    Infeasible(String),
}

/// Whether `case` validates and meets the feasibility rules: what every
/// case passes before an allocator sees it (generated cases always do; the
/// reducer's candidates and `rafuzz gen --stats` ask).
pub fn check_case(case: &Case) -> Result<(), Unfit> {
    let errs = validate(&case.func, &case.machine);
    if !errs.is_empty() {
        return Err(Unfit::Invalid(errs));
    }
    check(&case.func, &case.machine).map_err(Unfit::Infeasible)
}

/// Checks rules 1 to 3 on every instruction (rule 1 by bipartite matching);
/// returns the first violation, described.
pub fn check(f: &Function, env: &MachineEnv) -> Result<(), String> {
    let (alloc, _) = machine_masks(env, false);
    for i in f.insts() {
        check_inst(f, i, &alloc)?;
    }
    Ok(())
}

fn check_inst(f: &Function, i: Inst, alloc: &[u64; 3]) -> Result<(), String> {
    let ops = f.inst_operands(i);
    let clobbered = allocator::PRegSet::of(f.inst_clobbers(i)).class_masks();
    // slots[point][class]: candidate masks of the operands needing a register.
    let mut slots: [[Vec<u64>; 3]; 2] = Default::default();
    for (k, &op) in ops.iter().enumerate() {
        if op.is_nonalloc() {
            continue;
        }
        if let OperandConstraint::Reuse(t) = op.constraint() {
            let input_ok = t < ops.len()
                && ops[t].is_use()
                && ops[t].pos() == OperandPos::Early
                && ops[t].class() == op.class();
            if op.pos() != OperandPos::Late || !input_ok {
                return Err(format!("{i}: operand {k} ({op}) breaks the reuse rule"));
            }
        }
        let Some(cand) = candidates(ops, k, alloc) else {
            continue;
        };
        let span = Span::of(op);
        let c = op.class().index();
        if span.early {
            slots[0][c].push(cand);
        }
        if span.late {
            if cand & !clobbered[c] == 0 {
                return Err(format!(
                    "{i}: operand {k} ({op}) lives at the late point but may only be in clobbered registers"
                ));
            }
            slots[1][c].push(cand & !clobbered[c]);
        }
    }
    for (point, per_class) in slots.iter().enumerate() {
        for (c, s) in per_class.iter().enumerate() {
            if !has_matching(s) {
                return Err(format!(
                    "{i}: {} {} operands need distinct registers at the {} point, and no assignment exists",
                    s.len(),
                    RegClass::from_index(c),
                    if point == 0 { "early" } else { "late" }
                ));
            }
        }
    }
    Ok(())
}

/// Whether every slot can get a distinct register from its candidate mask
/// (Kuhn's augmenting paths; slots and registers are few).
pub fn has_matching(slots: &[u64]) -> bool {
    let mut owner = [usize::MAX; 64];
    fn augment(s: usize, slots: &[u64], owner: &mut [usize; 64], seen: &mut u64) -> bool {
        let mut m = slots[s] & !*seen;
        while m != 0 {
            let r = m.trailing_zeros() as usize;
            m &= m - 1;
            *seen |= 1 << r;
            if owner[r] == usize::MAX || augment(owner[r], slots, owner, seen) {
                owner[r] = s;
                return true;
            }
        }
        false
    }
    (0..slots.len()).all(|s| augment(s, slots, &mut owner, &mut 0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_respects_halls_condition() {
        assert!(has_matching(&[]));
        assert!(has_matching(&[0b11, 0b01]));
        assert!(!has_matching(&[0b01, 0b01]));
        assert!(!has_matching(&[0b11, 0b11, 0b11]));
        assert!(has_matching(&[0b111, 0b011, 0b001]));
        assert!(!has_matching(&[0]));
    }

    #[test]
    fn point_regs_track_spans_and_clobbers() {
        let mut p = PointRegs::default();
        let i = RegClass::Int;
        p.clobbered[0] = 0b100;
        let early = Span {
            early: true,
            late: false,
        };
        let late = Span {
            early: false,
            late: true,
        };
        let both = Span {
            early: true,
            late: true,
        };
        assert_eq!(
            p.free(i, early, 0b111),
            0b111,
            "early uses may sit in clobbered registers"
        );
        assert_eq!(p.free(i, late, 0b111), 0b011);
        p.take(i, early, 0);
        assert_eq!(p.free(i, both, 0b111), 0b010);
        assert_eq!(
            p.free(i, late, 0b111),
            0b011,
            "an early use frees its register for late defs"
        );
        p.take(i, late, 1);
        assert_eq!(p.free(i, late, 0b111), 0b001);
        assert_eq!(p.free(RegClass::Float, both, 0b111), 0b111);
    }
}
