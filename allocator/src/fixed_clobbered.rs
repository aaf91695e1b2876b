//! Uses fixed to a register their own instruction clobbers, read at the late
//! point (a late use, or an input a def reuses): the clobber has destroyed
//! the register by then, so no allocation meets the constraint, and the
//! allocators answer with [`AllocError::Impossible`] before they start. The
//! validator accepts these functions (it forbids only defs fixed to a
//! clobbered register). For an allocatable register the allocators' own
//! searches would find no place either; a register outside the allocatable
//! set (a fixed stack location, a register in no list) is placed as
//! written, so only this check catches it.

use crate::interface::AllocError;
use crate::ir::function::Function;
use crate::ir::operand::{OperandConstraint, OperandPos};

/// The first use of `f` fixed to a register its instruction clobbers and
/// read at the late point, as an `Impossible` error naming the instruction
/// and the operand.
pub fn check(f: &Function) -> Result<(), AllocError> {
    for i in f.insts() {
        let clobbers = f.inst_clobbers(i);
        if clobbers.is_empty() {
            continue;
        }
        let ops = f.inst_operands(i);
        for (k, op) in ops.iter().enumerate() {
            let OperandConstraint::FixedReg(r) = op.constraint() else {
                continue;
            };
            let reused = ops
                .iter()
                .any(|o| o.constraint() == OperandConstraint::Reuse(k));
            // A def fixed to a clobbered register is invalid: this is a use.
            let late = op.pos() == OperandPos::Late || reused;
            if late && clobbers.contains(&r) {
                return Err(AllocError::Impossible(format!(
                    "{i}: operand {k} is fixed to {r}, which {i} clobbers at the late point the operand occupies"
                )));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_src(inst1: &str) -> Result<(), AllocError> {
        let function = format!(
            "function
  block0:
    inst0: op def:v0i:reg
    {inst1}
    inst2: ret
end
"
        );
        let regs = ["p0i-p1i fixed_stack p32i", "p0f", "p0v"];
        check(&crate::fixtures::case_on(regs, &function).func)
    }

    #[test]
    fn late_reads_and_defs_in_a_clobbered_fixed_register_are_impossible() {
        for inst1 in [
            "inst1: op use:v0i:fixed(p32i):late clobbers(p32i)",
            "inst1: op use:v0i:fixed(p0i):late clobbers(p0i)",
            "inst1: op use:v0i:fixed(p32i) def:v1i:reuse(0) clobbers(p32i)",
        ] {
            let Err(AllocError::Impossible(m)) = check_src(inst1) else {
                panic!("{inst1}: not refused");
            };
            assert!(m.starts_with("inst1: operand "), "{m}");
        }
    }

    #[test]
    fn early_reads_and_other_registers_are_fine() {
        for inst1 in [
            "inst1: op use:v0i:fixed(p32i) clobbers(p32i)",
            "inst1: op use:v0i:fixed(p32i):late clobbers(p0i)",
            "inst1: op use:v0i:fixed(p32i):late",
        ] {
            assert!(check_src(inst1).is_ok(), "{inst1}");
        }
    }
}
