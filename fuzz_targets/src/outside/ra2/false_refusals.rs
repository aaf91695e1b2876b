//! regalloc2's known false refusals, recognised by their shape: a
//! `TooManyLiveRegs` (documented as "making allocation impossible") on a
//! case one of our allocators allocates is a known bug only when the case
//! has the structural shape the bug was reduced to (docs/regalloc2.md,
//! "False refusals"); any other false refusal is a `refused-feasible`
//! finding. Each shape has an example inside it
//! (`tests/regressions/regalloc2/<name>.ra`) and one just outside it
//! (`tests/cases/regalloc2/outside-refusals/<name>.ra`), which the
//! algorithm allocates.
//!
//! Both shapes are about one instruction and one register class: a greedy
//! allocator that never revisits a choice among the registers one
//! instruction needs can only give up where that instruction leaves no
//! register to spare.

use allocator::{Function, Inst, MachineEnv, Operand, OperandConstraint, OperandPos, RegClass};

/// What one instruction takes of a set of registers of one class (`set`, a
/// mask by hardware number, within the class's allocatable registers):
/// the operands confined to the set (a `reg`, `reuse` or, with
/// `any_in_registers`, `any` operand when the set is all of the class's
/// allocatable registers; a `limit` operand whose registers all lie in the
/// set; a `fixed` one on a register of the set) at the points they occupy
/// (an early use the early point, a late def the late one, a late use or
/// an early def both), and the set's registers it clobbers at the late
/// point. Also whether some such operand occupies both points.
fn taken(
    ops: &[Operand],
    clobbers: &[allocator::PReg],
    class: RegClass,
    set: u64,
    all: u64,
    any_in_registers: bool,
) -> ([usize; 2], bool) {
    let mut n = [0usize; 2];
    let mut both = false;
    let mut fixed_late = 0u64;
    for o in ops
        .iter()
        .filter(|o| !o.is_nonalloc() && o.class() == class)
    {
        let within = |m: u64| m & all != 0 && m & all & !set == 0;
        let confined = match o.constraint() {
            OperandConstraint::Reg | OperandConstraint::Reuse(_) => set == all,
            OperandConstraint::Any => any_in_registers && set == all,
            OperandConstraint::Limit(k) => within(allocator::ir::operand::limit_mask(k)),
            OperandConstraint::FixedReg(r) => r.hw() < 64 && set & all & (1 << r.hw()) != 0,
            OperandConstraint::Stack | OperandConstraint::NonAlloc(_) => false,
        };
        if !confined {
            continue;
        }
        let (early, late) = match (o.is_use(), o.pos()) {
            (true, OperandPos::Early) => (true, false),
            (true, OperandPos::Late) | (false, OperandPos::Early) => (true, true),
            (false, OperandPos::Late) => (false, true),
        };
        n[0] += usize::from(early);
        n[1] += usize::from(late);
        both |= early && late;
        if let (true, OperandConstraint::FixedReg(r)) = (late, o.constraint()) {
            fixed_late |= 1 << r.hw();
        }
    }
    n[1] += clobbers
        .iter()
        .filter(|r| r.class() == class && r.hw() < 64)
        .filter(|r| set & all & !fixed_late & (1 << r.hw()) != 0)
        .count();
    (n, both)
}

/// The register sets of `class` an instruction's operands can be confined
/// to: all the class's allocatable registers (`all`), and those under
/// each `limit` the instruction's operands of the class name. With each
/// set's size.
fn sets(ops: &[Operand], all: u64, class: RegClass) -> Vec<(u64, usize)> {
    let mut v = vec![(all, all.count_ones() as usize)];
    for o in ops
        .iter()
        .filter(|o| !o.is_nonalloc() && o.class() == class)
    {
        if let OperandConstraint::Limit(k) = o.constraint() {
            let m = all & allocator::ir::operand::limit_mask(k);
            if !v.iter().any(|&(x, _)| x == m) {
                v.push((m, m.count_ones() as usize));
            }
        }
    }
    v
}

/// ion's `too-many-live-regs`: an instruction with an operand that needs a
/// register of a class at both its points (a late use, an early def) and
/// that takes every register of a set it is confined to (the class's
/// allocatable registers, or those under a `limit`) at one of its
/// points. ion allocates the instruction's operands one at a time and
/// never evicts another operand's minimal range; on such a tight
/// instruction an early choice can leave the both-points operand no
/// register at one point, though another assignment fits. Example: an
/// early `fixed` use, a late `reg` use and a `reg` def in a class of two
/// registers; just outside: the same with three.
pub fn ion_tight_instruction(func: &Function, env: &MachineEnv) -> Option<Inst> {
    let masks = env.allocatable_set().class_masks();
    func.insts().find(|&i| {
        let ops = func.inst_operands(i);
        RegClass::ALL.iter().any(|&c| {
            let all = masks[c.index()];
            sets(ops, all, c).into_iter().any(|(set, k)| {
                let (n, both) = taken(ops, func.inst_clobbers(i), c, set, all, false);
                both && k > 0 && (n[0] >= k || n[1] >= k)
            })
        })
    })
}

/// fastalloc's `fastalloc-no-free-register`, two shapes:
///
/// - an instruction with `any` operands of a class, or an operand that
///   needs a register of it at both points (as in ion's
///   [`ion_tight_instruction`]), that, counting its `any` operands as
///   register operands, takes every allocatable register of the class at
///   one of its points where some operand (or clobber) needs one of them:
///   fastalloc gives an operand a register while one is
///   free and does not take it back when a later operand of the
///   instruction needs one (a late `any` use and a `reg` def in a class of
///   one register; just outside: three registers);
/// - in a class with no scratch register, an instruction whose register
///   and `any` operands and clobbers of the class at its two points
///   together number at least its allocatable registers (so they may leave no register
///   free at both points), with an operand of the class on a stack
///   location (`stack`, or `fixed` to a fixed stack location): the move
///   between that location and the value's slot needs a register free
///   across the instruction to go through, and fastalloc finds none,
///   though another choice of registers, or the registers before the
///   instruction, would give one (just outside: the same with a scratch
///   register).
pub fn fastalloc_no_free_register(func: &Function, env: &MachineEnv) -> Option<Inst> {
    let masks = env.allocatable_set().class_masks();
    func.insts().find(|&i| {
        let ops = func.inst_operands(i);
        let clobbers = func.inst_clobbers(i);
        RegClass::ALL.iter().any(|&c| {
            let all = masks[c.index()];
            let k = all.count_ones() as usize;
            if k == 0 {
                return false;
            }
            let tight = sets(ops, all, c).into_iter().any(|(set, size)| {
                let (n, both) = taken(ops, clobbers, c, set, all, false);
                let (with_any, _) = taken(ops, clobbers, c, set, all, true);
                let has_any = with_any != n;
                // At a point where the `any` operands fill the set, and some
                // operand (or clobber) there needs one of its registers.
                let full = |p: usize| with_any[p] >= size && n[p] > 0;
                size > 0 && (has_any || both) && (full(0) || full(1))
            });
            if tight {
                return true;
            }
            let (with_any, _) = taken(ops, clobbers, c, all, all, true);
            let on_stack = ops.iter().any(|o| {
                !o.is_nonalloc()
                    && o.class() == c
                    && match o.constraint() {
                        OperandConstraint::Stack => true,
                        OperandConstraint::FixedReg(r) => env.fixed_stack[c].contains(&r),
                        _ => false,
                    }
            });
            env.scratch[c].is_none() && with_any[0] + with_any[1] >= k && on_stack
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(path: &str, f: fn(&Function, &MachineEnv) -> Option<Inst>) -> Option<Inst> {
        let case = allocator::fixtures::read_case(&allocator::fixtures::repo_root().join(path));
        f(&case.func, &case.machine)
    }

    #[test]
    fn each_shape_holds_on_its_examples_and_not_just_outside() {
        for (name, f) in [
            (
                "too-many-live-regs",
                ion_tight_instruction as fn(&Function, &MachineEnv) -> Option<Inst>,
            ),
            ("fastalloc-no-free-register", fastalloc_no_free_register),
            ("fastalloc-no-scratch", fastalloc_no_free_register),
        ] {
            assert!(
                shape(&format!("tests/regressions/regalloc2/{name}.ra"), f).is_some(),
                "{name}"
            );
            assert_eq!(
                shape(
                    &format!("tests/cases/regalloc2/outside-refusals/{name}.ra"),
                    f
                ),
                None,
                "{name}"
            );
        }
    }
}
