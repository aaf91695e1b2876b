//! Valid functions no allocation exists for (more register needs at one
//! point than registers, a late read of a clobbered fixed register): every
//! allocator answers with an error, never a panic, an endless loop or an
//! allocation; ours say `impossible` and name the instruction, the outside
//! ones say `impossible` or `unsupported`. No allocator of ours finds an
//! allocation either, so the judge counts the refusal, never a
//! `refused-feasible` finding.

use allocator::AllocError;
use fuzz_targets::books::context::Context;
use fuzz_targets::judging::judge::{allocate_and_judge_refusal, Oracles};

#[test]
fn every_allocator_refuses_each_impossible_case_with_an_error() {
    let mut n = 0;
    for path in allocator::fixtures::ra_files("tests/cases/impossible") {
        let case = allocator::fixtures::read_case(&path);
        for a in fuzz_targets::registry::allocators(&Default::default()) {
            let r = fuzz_targets::judging::panics::catch(|| a.run(&case.func, &case.machine));
            match r {
                Ok(Err(e)) if a.name().starts_with("regalloc") => assert!(
                    matches!(e, AllocError::Unsupported(_) | AllocError::Impossible(_)),
                    "{e:?}"
                ),
                Ok(Err(AllocError::Impossible(m))) => {
                    assert!(m.contains("inst1"), "{}: {}: {m}", path.display(), a.name())
                }
                other => panic!("{}: {} gave {other:?}", path.display(), a.name()),
            }
        }
        let ctx = Context::default();
        for a in fuzz_targets::registry::allocators(&ctx.settings) {
            let judged = allocate_and_judge_refusal(&*a, &case, Oracles::Both, &ctx);
            assert!(
                matches!(judged, Ok(Err(_))),
                "{}: {}: {judged:?}",
                path.display(),
                a.name()
            );
        }
        n += 1;
    }
    assert!(n >= 3, "only {n} cases");
}
