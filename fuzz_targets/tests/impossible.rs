//! Valid functions no allocation exists for (more register needs at one
//! point than registers): every allocator answers with an error, never a
//! panic, an endless loop or an allocation; ours say `impossible` and name
//! the instruction.

use allocator::text::parse_and_validate;
use allocator::AllocError;
use std::path::PathBuf;

#[test]
fn every_allocator_refuses_each_impossible_case_with_an_error() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/cases/impossible");
    let mut n = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        let (case, _) = parse_and_validate(&std::fs::read(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {}", path.display(), e[0]));
        for a in fuzz_targets::allocators() {
            let r = fuzz_targets::panics::catch(|| a.run(&case.func, &case.machine));
            match r {
                Ok(Err(AllocError::Impossible(m))) => {
                    assert!(m.contains("inst1"), "{}: {}: {m}", path.display(), a.name())
                }
                Ok(Err(e)) if a.name().starts_with("regalloc2_") => {
                    assert!(matches!(e, AllocError::Unsupported(_)), "{e:?}")
                }
                other => panic!("{}: {} gave {other:?}", path.display(), a.name()),
            }
        }
        n += 1;
    }
    assert!(n >= 3, "only {n} cases");
}
