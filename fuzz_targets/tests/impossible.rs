//! Valid functions no allocation exists for (more register needs at one
//! point than registers, a late read of a clobbered fixed register): every
//! allocator answers with an error, never a panic, an endless loop or an
//! allocation; ours say `impossible` and name the instruction, the outside
//! ones may also say `unsupported`.

use allocator::AllocError;

#[test]
fn every_allocator_refuses_each_impossible_case_with_an_error() {
    let mut n = 0;
    for path in allocator::fixtures::ra_files("tests/cases/impossible") {
        let case = allocator::fixtures::read_case(&path);
        for a in fuzz_targets::registry::allocators(&Default::default()) {
            let r = fuzz_targets::harness::panics::catch(|| a.run(&case.func, &case.machine));
            match r {
                Ok(Err(AllocError::Impossible(m))) => {
                    assert!(m.contains("inst1"), "{}: {}: {m}", path.display(), a.name())
                }
                Ok(Err(e)) if a.name().starts_with("regalloc") => {
                    assert!(matches!(e, AllocError::Unsupported(_)), "{e:?}")
                }
                other => panic!("{}: {} gave {other:?}", path.display(), a.name()),
            }
        }
        n += 1;
    }
    assert!(n >= 3, "only {n} cases");
}
