//! `checker_agreement`: our checker and regalloc2's must agree. A case is
//! generated (as `differential` draws it) and allocated by every allocator;
//! each output and up to four mutants of it (as `checker_soundness` makes
//! them) go to both checkers ([`crate::outside::ra2::cross_check`]). A disagreement
//! outside the documented places where ours checks more is a finding.

use super::target::{with_case, Input};
use crate::books::context::Context;
use crate::judging::failure::Failure;
use crate::outside::ra2::cross_check;
use allocator::{AllocError, Case};
use arbitrary::Unstructured;
use ssagen::Choices;

fn allocate(a: &dyn allocator::Allocator, case: &Case) -> Option<allocator::Output> {
    match crate::judging::panics::catch(|| a.run(&case.func, &case.machine)) {
        Ok(Ok(out)) => Some(out),
        Ok(Err(
            AllocError::Unsupported(_)
            | AllocError::Suppressed(_)
            | AllocError::Impossible(_)
            | AllocError::Failed(_),
        ))
        | Err(_) => None,
    }
}

/// Every allocator's output on the case through both checkers; then, when
/// the case was generated, up to four mutants of each drawn from the bytes
/// left.
pub fn check(input: &Input, ctx: &Context) -> Result<(), Failure> {
    let Input::Case { case, rest } = *input else {
        panic!("checker_agreement runs on cases");
    };
    let counts = &ctx.verdicts;
    let Some(rest) = rest else {
        for a in crate::registry::allocators(&ctx.settings) {
            if let Some(out) = allocate(&*a, case) {
                cross_check::cross_check(a.name(), case, &out, counts)?;
            }
        }
        return Ok(());
    };
    super::ssagen::note_case(case);
    let mut u = Unstructured::new(rest);
    let mut c = Choices::new(&mut u);
    for a in crate::registry::allocators(&ctx.settings) {
        // An allocator that fails is the other targets' business; here
        // only its output matters.
        let Some(out) = allocate(&*a, case) else {
            continue;
        };
        cross_check::cross_check(a.name(), case, &out, counts).map_err(|f| with_case(f, case))?;
        for _ in 0..4 {
            let Some((what, m)) = super::checker_soundness::mutate(case, &out, &mut c) else {
                break;
            };
            cross_check::cross_check(a.name(), case, &m, counts).map_err(|mut f| {
                f.message.push_str(&format!(" (mutant: {what})"));
                let mut shown = case.clone();
                shown.output = Some(m.clone());
                with_case(f, &shown)
            })?;
        }
    }
    Ok(())
}
