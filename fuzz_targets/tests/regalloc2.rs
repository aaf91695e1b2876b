//! regalloc2 as a peer: each documented limitation has an example that is
//! refused for exactly that reason and that regalloc2, run anyway, gets
//! wrong; the two checkers agree on the hand-written cases and on every
//! allocator's output.
#![cfg(feature = "regalloc2")]

use allocator::{AllocError, Allocator, Case};
use fuzz_targets::context::Context;
use fuzz_targets::judge::{judge, Oracles};
use fuzz_targets::ra2::{self, cross_check, unsupported::Limitation};
use std::path::PathBuf;

fn cases(sub: &str) -> Vec<(PathBuf, Case)> {
    let v = allocator::fixtures::ra_files(sub);
    v.into_iter()
        .map(|p| {
            let case = allocator::fixtures::read_case(&p);
            (p, case)
        })
        .collect()
}

#[test]
fn each_limitation_example_is_refused_for_its_reason_and_is_real() {
    let examples = cases("tests/regressions/regalloc2");
    for l in Limitation::ALL {
        let (path, case) = examples
            .iter()
            .find(|(p, _)| p.file_stem().unwrap() == l.name())
            .unwrap_or_else(|| panic!("no example for {}", l.name()));
        let mut refused_by_one = false;
        for a in [&ra2::ION, &ra2::FASTALLOC] {
            let hits: Vec<Limitation> = Limitation::ALL
                .into_iter()
                .filter(|x| x.applies_to(a.algorithm()) && x.hit(&case.func, &case.machine))
                .collect();
            if !l.applies_to(a.algorithm()) {
                continue;
            }
            assert_eq!(hits, vec![l], "{}: {}", path.display(), a.name());
            match a.run(&case.func, &case.machine) {
                Err(AllocError::Unsupported(m)) => assert!(m.contains(l.name()), "{m}"),
                other => panic!("{}: {} gave {other:?}", path.display(), a.name()),
            }
            // Run anyway, regalloc2 fails: an error, a panic, or an
            // allocation the oracles reject.
            let real =
                match fuzz_targets::panics::catch(|| a.run_unchecked(&case.func, &case.machine)) {
                    Ok(Ok(out)) => {
                        judge(a.name(), case, &out, Oracles::Both, &Context::default()).is_err()
                    }
                    Ok(Err(_)) | Err(_) => true,
                };
            assert!(
                real,
                "{}: {} handles it after all",
                path.display(),
                a.name()
            );
            refused_by_one = true;
        }
        assert!(refused_by_one, "{}", l.name());
    }
}

/// `TooManyLiveRegs` on a case none of the limitations covers is counted
/// unsupported too (`too-many-live-regs`): the example is feasible (our
/// allocators and both oracles prove it) and ion still gives up on it.
#[test]
fn too_many_live_regs_example_is_feasible_and_ion_gives_up() {
    let (path, case) = cases("tests/regressions/regalloc2")
        .into_iter()
        .find(|(p, _)| p.file_stem().unwrap() == "too-many-live-regs")
        .expect("example too-many-live-regs.ra");
    assert!(Limitation::ALL
        .iter()
        .all(|l| !l.hit(&case.func, &case.machine)));
    match ra2::ION.run(&case.func, &case.machine) {
        Err(AllocError::Unsupported(m)) => assert!(m.contains("too-many-live-regs"), "{m}"),
        other => panic!("{}: ion gave {other:?}", path.display()),
    }
    let all = fuzz_targets::allocators();
    let ours = all.iter().find(|a| a.name() == "linear_scan").unwrap();
    let out = ours.run(&case.func, &case.machine).unwrap();
    judge(ours.name(), &case, &out, Oracles::Both, &Context::default()).unwrap();
}

#[test]
fn regalloc2_allocates_the_hand_written_cases_it_supports() {
    let mut allocated = 0;
    for sub in [
        "tests/cases/valid",
        "tests/cases/linear_scan",
        "tests/regressions",
    ] {
        for (path, case) in cases(sub) {
            for a in ra2::allocators() {
                match fuzz_targets::judge::allocate_and_judge(
                    a,
                    &case,
                    Oracles::Both,
                    &Context::default(),
                ) {
                    Ok(Some(_)) => allocated += 1,
                    Ok(None) => {}
                    Err(f) => panic!("{}: {f}", path.display()),
                }
            }
        }
    }
    assert!(allocated >= 20, "only {allocated} allocations");
}

#[test]
fn the_checkers_agree_on_hand_written_allocations_and_every_allocators_output() {
    // Hand-written allocations, right and wrong: same verdict.
    for sub in [
        "tests/cases/check",
        "tests/cases/valid",
        "tests/regressions",
    ] {
        for (path, case) in cases(sub) {
            if let Some(out) = &case.output {
                cross_check::cross_check("hand-written", &case, out, &Default::default())
                    .unwrap_or_else(|f| panic!("{}: {f}", path.display()));
            }
        }
    }
    // Every allocator's output on the hand-written cases and on generated
    // ones (regalloc2's profile, so that every allocator takes part).
    let mut generated: Vec<Case> = (0..150)
        .map(|s| {
            let bytes = fuzz_targets::inputs::seeded_bytes(s, 2048);
            ssagen::generate_from_bytes(&bytes, &ssagen::Config::regalloc2())
        })
        .collect();
    for sub in [
        "tests/cases/valid",
        "tests/cases/linear_scan",
        "tests/regressions",
    ] {
        generated.extend(cases(sub).into_iter().map(|(_, c)| c));
    }
    for case in &generated {
        for a in fuzz_targets::allocators() {
            if let Ok(out) = a.run(&case.func, &case.machine) {
                cross_check::cross_check(a.name(), case, &out, &Default::default())
                    .unwrap_or_else(|f| panic!("{f}\n{}", allocator::ir::text::print(case)));
            }
        }
    }
}
