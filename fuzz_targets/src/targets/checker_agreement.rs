//! `checker_agreement`: our checker and regalloc2's must agree. A case is
//! generated (as `differential` draws it) and allocated by every allocator;
//! each output and up to four mutants of it (as `checker_soundness` makes
//! them) go to both checkers ([`crate::ra2::cross_check`]). A disagreement
//! outside the documented places where ours checks more is a finding.

use crate::failure::Failure;
use crate::ra2::cross_check;
use allocator::{AllocError, Case};
use arbitrary::Unstructured;
use ssagen::Choices;

pub fn stats() -> String {
    cross_check::stats()
}

/// Every allocator's output on `case`, unmutated, through both checkers.
pub fn check_case(case: &Case) -> Result<(), Failure> {
    for a in crate::allocators() {
        if let Some(out) = allocate(a, case) {
            cross_check::cross_check(a.name(), case, &out)?;
        }
    }
    Ok(())
}

fn allocate(a: &dyn allocator::Allocator, case: &Case) -> Option<allocator::Output> {
    match crate::panics::catch(|| a.run(&case.func, &case.machine)) {
        Ok(Ok(out)) => Some(out),
        Ok(Err(AllocError::Unsupported(_) | AllocError::Impossible(_) | AllocError::Failed(_)))
        | Err(_) => None,
    }
}

pub fn check(data: &[u8]) -> Result<(), Failure> {
    let (config, rest) = super::differential_config(data);
    let mut u = Unstructured::new(rest);
    let case = ssagen::generate(&mut u, &config);
    super::ssagen::note_case(&case);
    let mut c = Choices::new(&mut u);
    let with_case = |mut f: Failure, case: &Case| {
        f.message.push('\n');
        f.message.push_str(&allocator::ir::text::print(case));
        f
    };
    for a in crate::allocators() {
        // An allocator that fails is the other targets' business; here
        // only its output matters.
        let Some(out) = allocate(a, &case) else {
            continue;
        };
        cross_check::cross_check(a.name(), &case, &out).map_err(|f| with_case(f, &case))?;
        for _ in 0..4 {
            let Some((what, m)) = super::checker_soundness::mutate(&case, &out, &mut c) else {
                break;
            };
            cross_check::cross_check(a.name(), &case, &m).map_err(|mut f| {
                f.message.push_str(&format!(" (mutant: {what})"));
                let mut shown = case.clone();
                shown.output = Some(m.clone());
                with_case(f, &shown)
            })?;
        }
    }
    Ok(())
}
