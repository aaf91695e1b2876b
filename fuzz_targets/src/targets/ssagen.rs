//! `ssagen`: generate, validate (must be valid and feasible), print, parse,
//! compare (must be equal).

use crate::judging::failure::{Failure, Oracle, Signature};
use allocator::ir::text::{parse, print};
use allocator::Case;
use ssagen::feasibility::{self, Unfit};

/// The case must be valid, feasible, and come back unchanged from printing
/// and parsing.
pub fn check_case(case: &Case) -> Result<(), Failure> {
    let text = print(case);
    match feasibility::check_case(case) {
        Ok(()) => {}
        Err(Unfit::Invalid(errs)) => {
            let e = &errs[0];
            return Err(Failure::new(
                Signature::new(None, Oracle::Validator, &e.message),
                format!(
                    "the generated case is invalid ({} errors; first at {:?}: {})\n{text}",
                    errs.len(),
                    e.site,
                    e.message
                ),
            ));
        }
        Err(Unfit::Infeasible(e)) => {
            return Err(Failure::new(
                Signature::new(None, Oracle::Feasibility, &e),
                format!("the generated case is infeasible: {e}\n{text}"),
            ));
        }
    }
    let sig = Signature::new(None, Oracle::RoundTrip, "");
    match parse(text.as_bytes()) {
        Ok((again, _)) if again == *case => Ok(()),
        Ok((again, _)) => Err(Failure::new(
            sig,
            format!(
                "parse(print(case)) differs from the case\n--- printed\n{text}--- reprinted\n{}",
                print(&again)
            ),
        )),
        Err(e) => Err(Failure::new(
            sig,
            format!("the printed case does not parse: {e}\n{text}"),
        )),
    }
}

/// Features of a generated case: its size, machine and what its operands use.
pub fn note_case(case: &allocator::Case) {
    use crate::books::features::{note, note_bucket};
    let f = &case.func;
    note_bucket("blocks", f.num_blocks() as u64);
    note_bucket("insts", f.num_insts() as u64);
    for c in allocator::RegClass::ALL {
        note_bucket("regs", case.machine.num_allocatable(c) as u64);
        note("scratch", case.machine.scratch[c].is_some() as u64);
    }
    for i in f.insts() {
        for op in f.inst_operands(i) {
            let kind = match op.constraint() {
                allocator::OperandConstraint::Any => 0,
                allocator::OperandConstraint::Reg => 1,
                allocator::OperandConstraint::Stack => 2,
                allocator::OperandConstraint::FixedReg(_) => 3,
                allocator::OperandConstraint::Reuse(_) => 4,
                allocator::OperandConstraint::Limit(_) => 5,
                allocator::OperandConstraint::NonAlloc(_) => 6,
            };
            note(
                "constraint",
                kind * 8 + (op.is_def() as u64) * 2 + op.pos() as u64,
            );
        }
        note_bucket("clobbers", f.inst_clobbers(i).len() as u64);
        note_bucket("operands", f.inst_operands(i).len() as u64);
    }
}
