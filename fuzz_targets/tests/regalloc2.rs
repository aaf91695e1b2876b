//! regalloc2 as a peer: each exclusion (limitation or known bug) has an
//! example that is excluded for exactly that reason and that regalloc2, run
//! anyway, gets wrong; the profiles generate none of them (and, with the
//! known bugs let in, each known bug); the two checkers agree on the
//! hand-written cases and on every allocator's output.
#![cfg(feature = "regalloc2")]

use allocator::{AllocError, Allocator, Case};
use fuzz_targets::books::context::Context;
use fuzz_targets::judging::failure::Oracle;
use fuzz_targets::judging::judge::{allocate_and_judge_refusal, judge, Oracles};
use fuzz_targets::judging::refusals::Refused;
use fuzz_targets::outside::ra2::exclusions::{self, Exclusion, Kind};
use fuzz_targets::outside::ra2::{self, cross_check};
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

/// Whether regalloc2 really fails on `case`: an error, a panic, or an
/// allocation the oracles reject.
fn fails(a: &ra2::Regalloc2, case: &Case) -> bool {
    match fuzz_targets::judging::panics::catch(|| a.run_unchecked(&case.func, &case.machine)) {
        Ok(Ok(out)) => judge(a.name(), case, &out, Oracles::Both, &Context::default()).is_err(),
        Ok(Err(_)) | Err(_) => true,
    }
}

#[test]
fn each_exclusion_example_is_excluded_for_its_reason_and_is_real() {
    let examples = cases("tests/regressions/regalloc2");
    for x in Exclusion::ALL {
        let (path, case) = examples
            .iter()
            .find(|(p, _)| p.file_stem().unwrap() == x.name())
            .unwrap_or_else(|| panic!("no example for {}", x.name()));
        let mut excluded_by_one = false;
        for a in [&ra2::ION, &ra2::FASTALLOC] {
            if !x.applies_to(a.algorithm()) {
                continue;
            }
            let hits: Vec<Exclusion> = Exclusion::ALL
                .into_iter()
                .filter(|y| y.applies_to(a.algorithm()) && y.hit(&case.func, &case.machine))
                .collect();
            assert_eq!(hits, vec![x], "{}: {}", path.display(), a.name());
            let shown = |r: &Result<allocator::Output, AllocError>| match r {
                Ok(_) => "an allocation".to_string(),
                Err(e) => e.to_string(),
            };
            let suppressed = a.run_suppressing(&case.func, &case.machine, true);
            match (x.kind(), &suppressed) {
                (Kind::Limitation, Err(AllocError::Unsupported(m)))
                | (Kind::KnownBug, Err(AllocError::Suppressed(m))) => {
                    assert!(m.contains(x.name()), "{m}")
                }
                _ => panic!(
                    "{}: {} gave {}",
                    path.display(),
                    a.name(),
                    shown(&suppressed)
                ),
            }
            // A limitation stays unsupported under --no-suppress; a known
            // bug is run, and regalloc2 gets it wrong.
            if x.kind() == Kind::Limitation {
                let again = a.run_suppressing(&case.func, &case.machine, false);
                assert!(
                    matches!(again, Err(AllocError::Unsupported(_))),
                    "{}",
                    shown(&again)
                );
            }
            assert!(
                fails(a, case),
                "{}: {} handles it after all",
                path.display(),
                a.name()
            );
            excluded_by_one = true;
        }
        assert!(excluded_by_one, "{}", x.name());
    }
}

/// A known bug run with suppression off is found by the allocator's
/// checker target, with the failure the docs describe.
#[test]
fn known_bugs_are_findings_without_suppression() {
    let examples = cases("tests/regressions/regalloc2");
    for x in Exclusion::ALL
        .into_iter()
        .filter(|x| x.kind() == Kind::KnownBug)
    {
        let (_, case) = examples
            .iter()
            .find(|(p, _)| p.file_stem().unwrap() == x.name())
            .unwrap();
        let a = [&ra2::ION, &ra2::FASTALLOC]
            .into_iter()
            .find(|a| x.applies_to(a.algorithm()))
            .unwrap();
        // A wrong allocation the oracles reject, or (early-def-after-live-out)
        // a panic inside ion: either is a finding.
        match fuzz_targets::judging::panics::catch(|| {
            a.run_suppressing(&case.func, &case.machine, false)
        }) {
            Ok(Ok(out)) => {
                let f = judge(a.name(), case, &out, Oracles::Both, &Context::default())
                    .expect_err("a silent wrong allocation");
                assert!(!f.to_string().is_empty());
            }
            Ok(Err(e)) => panic!("{}: {e}", x.name()),
            Err(panic) => assert_eq!(x, Exclusion::EarlyDefAfterLiveOut, "{panic}"),
        }
    }
}

/// The profiles generate nothing regalloc2 is excluded from, but for
/// ion's `early-def-after-live-out`, whose shape no switch leaves out
/// alone: the `regalloc2` profile keeps free numberings (ion takes the
/// rest of them) and its few cases of the bug are suppressed. With the
/// known bugs let in (`--no-suppress`), each known bug of the algorithm
/// shows up, and still no limitation.
#[test]
fn the_profiles_generate_exactly_what_regalloc2_takes() {
    for (a, config) in [
        (&ra2::ION, fuzz_targets::outside::ra2::profile::regalloc2()),
        (
            &ra2::FASTALLOC,
            fuzz_targets::outside::ra2::profile::fastalloc(),
        ),
    ] {
        let mut bugs_seen = Vec::new();
        for seed in 0..300 {
            let bytes = fuzz_targets::harness::inputs::seeded_bytes(seed, 3000);
            let case = ssagen::generate_from_bytes(&bytes, &config);
            match exclusions::check(a.algorithm(), &case.func, &case.machine) {
                None | Some(Exclusion::EarlyDefAfterLiveOut) => {}
                Some(x) => panic!("{}: seed {seed} hits {}", a.name(), x.name()),
            }
            let wide = fuzz_targets::outside::ra2::profile::with_known_bugs(config.clone());
            let case = ssagen::generate_from_bytes(&bytes, &wide);
            for x in Exclusion::ALL
                .into_iter()
                .filter(|x| x.applies_to(a.algorithm()) && x.hit(&case.func, &case.machine))
            {
                assert_eq!(
                    x.kind(),
                    Kind::KnownBug,
                    "{}: seed {seed}: {}",
                    a.name(),
                    x.name()
                );
                if !bugs_seen.contains(&x) {
                    bugs_seen.push(x);
                }
            }
        }
        let expected = Exclusion::ALL
            .into_iter()
            .filter(|x| x.kind() == Kind::KnownBug && x.applies_to(a.algorithm()))
            .count();
        assert_eq!(bugs_seen.len(), expected, "{}: {bugs_seen:?}", a.name());
    }
}

/// Each way a case may run regalloc2 (the SSA validator off, `verbose_log`,
/// twice on one `Ctx`) allocates as a fresh run with the validator does,
/// and generated cases pick every way.
#[test]
fn every_way_of_running_regalloc2_allocates_alike() {
    use fuzz_targets::outside::ra2::Way;
    let mut picked = [0usize; 4];
    for (a, config) in [
        (&ra2::ION, fuzz_targets::outside::ra2::profile::regalloc2()),
        (
            &ra2::FASTALLOC,
            fuzz_targets::outside::ra2::profile::fastalloc(),
        ),
    ] {
        for seed in 0..60 {
            let bytes = fuzz_targets::harness::inputs::seeded_bytes(seed, 2000);
            let case = ssagen::generate_from_bytes(&bytes, &config);
            if exclusions::check(a.algorithm(), &case.func, &case.machine).is_some() {
                continue;
            }
            let fresh = a.run_as(&case.func, &case.machine, Way::Fresh);
            for way in [Way::Unvalidated, Way::Verbose, Way::ReusedCtx] {
                let other = a.run_as(&case.func, &case.machine, way);
                assert_eq!(other, fresh, "{} seed {seed}: {way:?}", a.name());
            }
            picked[Way::of(&case.func) as usize] += 1;
        }
    }
    assert!(picked.iter().all(|&n| n > 0), "{picked:?}");
}

/// An edit regalloc2 places after a block's last instruction never runs in
/// its clients (`Output::block_insts_and_edits` skips it): the adapter drops
/// it, and the example is allocated right without it.
#[test]
fn edits_after_a_blocks_last_instruction_are_dropped_as_regalloc2s_clients_drop_them() {
    let (_, case) = cases("tests/cases/regalloc2")
        .into_iter()
        .find(|(p, _)| p.file_stem().unwrap() == "edit-after-branch")
        .unwrap();
    let adapted = ra2::adapt::Adapted::new(&case.func, &case.machine.slots);
    let options = regalloc2::RegallocOptions {
        algorithm: regalloc2::Algorithm::Fastalloc,
        ..Default::default()
    };
    let raw = regalloc2::run(&adapted, &ra2::adapt::machine(&case.machine), &options).unwrap();
    let after_branch = |p: allocator::ProgPoint| {
        p.pos() == allocator::InstPosition::After && case.func.opcode(p.inst()).is_terminator()
    };
    let raw_points: Vec<allocator::ProgPoint> = raw
        .edits
        .iter()
        .map(|(p, _)| {
            let i = allocator::Inst::new(p.inst().index());
            match p.pos() {
                regalloc2::InstPosition::Before => allocator::ProgPoint::before(i),
                regalloc2::InstPosition::After => allocator::ProgPoint::after(i),
            }
        })
        .collect();
    assert!(
        raw_points.iter().any(|&p| after_branch(p)),
        "{raw_points:?}"
    );
    let out = ra2::FASTALLOC.run(&case.func, &case.machine).unwrap();
    assert!(out.edits.iter().all(|&(p, _)| !after_branch(p)));
    judge(
        "regalloc2_fastalloc",
        &case,
        &out,
        Oracles::Both,
        &Context::default(),
    )
    .unwrap();
}

/// `TooManyLiveRegs` on a case none of the limitations covers is a false
/// refusal: each example (`too-many-live-regs` for ion,
/// `fastalloc-no-free-register` and `fastalloc-no-scratch` for fastalloc,
/// both its known false refusal `fastalloc-no-free-register`) is feasible, and the algorithm still gives up on it,
/// calling it impossible. The judge suppresses it as that allocator's known
/// bug by default, and without suppression reports it as
/// `refused-feasible` with an allocation both oracles accept.
#[test]
fn each_false_refusal_example_is_feasible_and_suppressed_by_default() {
    for (a, stem, known) in [
        (&ra2::ION, "too-many-live-regs", "too-many-live-regs"),
        (
            &ra2::FASTALLOC,
            "fastalloc-no-free-register",
            "fastalloc-no-free-register",
        ),
        (
            &ra2::FASTALLOC,
            "fastalloc-no-scratch",
            "fastalloc-no-free-register",
        ),
    ] {
        let (path, case) = cases("tests/regressions/regalloc2")
            .into_iter()
            .find(|(p, _)| p.file_stem().unwrap() == stem)
            .unwrap_or_else(|| panic!("example {stem}.ra"));
        assert_eq!(
            exclusions::check(a.algorithm(), &case.func, &case.machine),
            None
        );
        match a.run(&case.func, &case.machine) {
            Err(AllocError::Impossible(m)) => assert!(m.contains("TooManyLiveRegs"), "{m}"),
            other => panic!("{}: {} gave {other:?}", path.display(), a.name()),
        }
        let ctx = Context::default();
        let judged = allocate_and_judge_refusal(a, &case, Oracles::Both, &ctx);
        assert!(matches!(judged, Ok(Err(Refused::Suppressed))), "{judged:?}");
        let report = ctx.refusals.report();
        assert!(report.contains(&format!("known bug {known}")), "{report}");
        let ctx = Context::with_settings(fuzz_targets::registry::Settings {
            suppress: false,
            ..Default::default()
        });
        let f = allocate_and_judge_refusal(a, &case, Oracles::Both, &ctx).unwrap_err();
        assert_eq!(f.signature.oracle, Oracle::RefusedFeasible);
        assert_eq!(f.signature.allocator, Some(a.name()));
        let proof = f.proof.expect("the allocation that exists");
        let (proved, _) = allocator::ir::text::parse_and_validate(proof.as_bytes()).unwrap();
        let out = proved.output.clone().expect("an allocation section");
        judge("proof", &proved, &out, Oracles::Both, &Context::default()).unwrap();
        // Just outside the shape: the algorithm allocates it right.
        let (path, case) = cases("tests/cases/regalloc2/outside-refusals")
            .into_iter()
            .find(|(p, _)| p.file_stem().unwrap() == stem)
            .unwrap_or_else(|| panic!("a case just outside {stem}"));
        let out = a
            .run(&case.func, &case.machine)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        judge(a.name(), &case, &out, Oracles::Both, &Context::default()).unwrap();
    }
}

#[test]
fn regalloc2_allocates_the_hand_written_cases_it_supports() {
    // What the regalloc2 profile generates beyond the old one: ion takes it.
    for (path, case) in cases("tests/cases/regalloc2") {
        let out = ra2::ION
            .run(&case.func, &case.machine)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        judge(
            "regalloc2_ion",
            &case,
            &out,
            Oracles::Both,
            &Context::default(),
        )
        .unwrap_or_else(|f| panic!("{}: {f}", path.display()));
    }
    let mut allocated = 0;
    for sub in [
        "tests/cases/regalloc2",
        "tests/cases/valid",
        "tests/cases/linear_scan",
        "tests/regressions",
    ] {
        for (path, case) in cases(sub) {
            for a in [&ra2::ION as &dyn allocator::Allocator, &ra2::FASTALLOC] {
                match fuzz_targets::judging::judge::allocate_and_judge(
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
    // ones (regalloc2's profile, so that every allocator takes part; 150 in
    // the deep sweeps, a fifth otherwise).
    let mut generated: Vec<Case> = (0..allocator::fixtures::sweep(150) as u64)
        .map(|s| {
            let bytes = fuzz_targets::harness::inputs::seeded_bytes(s, 2048);
            ssagen::generate_from_bytes(&bytes, &fuzz_targets::outside::ra2::profile::regalloc2())
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
        for a in fuzz_targets::registry::allocators(&Default::default()) {
            if let Ok(out) = a.run(&case.func, &case.machine) {
                cross_check::cross_check(a.name(), case, &out, &Default::default())
                    .unwrap_or_else(|f| panic!("{f}\n{}", allocator::ir::text::print(case)));
            }
        }
    }
}

/// Every exclusion is exactly as wide as what it cites: beside its example
/// just inside it (`tests/regressions/regalloc2/<name>.ra`), a case just
/// outside it (`tests/cases/regalloc2/outside/<name>.ra`, one step from the
/// example) hits no exclusion, and every algorithm the exclusion applies
/// to allocates it, accepted by both oracles.
#[test]
fn each_exclusion_has_a_case_just_outside_it_that_runs_and_passes() {
    let outside = cases("tests/cases/regalloc2/outside");
    assert_eq!(outside.len(), Exclusion::ALL.len());
    for x in Exclusion::ALL {
        let (path, case) = outside
            .iter()
            .find(|(p, _)| p.file_stem().unwrap() == x.name())
            .unwrap_or_else(|| panic!("no case just outside {}", x.name()));
        for a in [&ra2::ION, &ra2::FASTALLOC] {
            if !x.applies_to(a.algorithm()) {
                continue;
            }
            assert_eq!(
                exclusions::check(a.algorithm(), &case.func, &case.machine),
                None,
                "{}: {}",
                path.display(),
                a.name()
            );
            let out = a
                .run(&case.func, &case.machine)
                .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), a.name()));
            judge(a.name(), case, &out, Oracles::Both, &Context::default())
                .unwrap_or_else(|f| panic!("{}: {}: {f}", path.display(), a.name()));
        }
    }
}

/// The known bug `repeated-late-fixed-use` is reachable from Cranelift
/// 0.135.8: `atomic_rmw.i128 xchg` with `iconcat v1, v1` on x86-64
/// (`tests/real/x64-i128-xchg-iconcat-same.clif`) asks for one vreg in
/// rbx and rcx at the late point. The allocation ion gave Cranelift, as the
/// capture tool recorded it, is rejected by both oracles; our adapter hands
/// ion the same function and gets the same wrong answer under
/// `--no-suppress`, suppresses it by default, and our allocators get it
/// right.
#[test]
fn the_repeated_late_fixed_use_bug_is_reachable_from_cranelift() {
    let path = allocator::fixtures::repo_root()
        .join("tests/regressions/regalloc2/real/x64-i128-xchg-same-halves.ra");
    let case = allocator::fixtures::read_case(&path);
    let recorded = case.output.clone().expect("ion's allocation, recorded");
    assert!(!checker::check(&case.func, &case.machine, &recorded).is_empty());
    assert!((0..3)
        .any(|s| checker::interp::run(&case.func, &case.machine, &recorded, s, 1_000).is_err()));
    assert_eq!(
        exclusions::check(ra2::ION.algorithm(), &case.func, &case.machine),
        Some(Exclusion::RepeatedLateFixedUse)
    );
    let ours = ra2::ION
        .run_suppressing(&case.func, &case.machine, false)
        .unwrap();
    assert_eq!(
        ours.edits, recorded.edits,
        "the adapter asks ion what Cranelift asks"
    );
    assert!(matches!(
        ra2::ION.run(&case.func, &case.machine),
        Err(AllocError::Suppressed(_))
    ));
    let ls = allocator::linear_scan::LinearScan
        .run(&case.func, &case.machine)
        .unwrap();
    judge(
        "linear_scan",
        &case,
        &ls,
        Oracles::Both,
        &Context::default(),
    )
    .unwrap();
}

/// regalloc2's checker visits blocks in index order and takes a block none
/// of whose predecessors came before it for a second entry, dropping what
/// flows through it: it rejects correct allocations of such numberings.
/// The cross-check recognises exactly that (the same allocation, with the
/// blocks renumbered in reverse postorder, passes regalloc2's checker)
/// and counts it apart; the renumbered case has no such block and needs
/// no excuse.
#[test]
fn regalloc2s_checker_block_order_false_alarm_is_recognised_exactly() {
    use allocator::analysis::numbering;
    let a = fuzz_targets::registry::allocator_by_name(
        "spill_everywhere",
        &fuzz_targets::registry::Settings::default(),
    )
    .unwrap();
    let config = ssagen::Config::default();
    let found = (0..2000).find_map(|seed| {
        let bytes = fuzz_targets::harness::inputs::seeded_bytes(seed, 2048);
        let case = ssagen::generate_from_bytes(&bytes, &config);
        let out = a.run(&case.func, &case.machine).ok()?;
        (checker::check(&case.func, &case.machine, &out).is_empty()
            && cross_check::theirs(&case, &out).is_err())
        .then_some((seed, case, out))
    });
    let (seed, case, out) = found.expect("a rejection by regalloc2's checker in 2,000 cases");
    assert!(
        numbering::block_before_its_preds(&case.func).is_some(),
        "seed {seed}: regalloc2's checker rejects a correct allocation of a case whose every \
         block has an earlier predecessor"
    );
    assert!(cross_check::order_false_alarm(&case, &out), "seed {seed}");
    let counts = fuzz_targets::books::context::VerdictCounts::default();
    cross_check::cross_check("spill_everywhere", &case, &out, &counts).unwrap();
    assert_eq!(
        counts
            .order_false_alarm
            .load(std::sync::atomic::Ordering::Relaxed),
        1
    );
    // Just outside: the same allocation in reverse postorder.
    let allocated = Case {
        output: Some(out),
        ..case
    };
    let rpo = numbering::renumbered(&allocated, &numbering::rpo_order(&allocated.func));
    let rpo_out = rpo.output.clone().unwrap();
    assert_eq!(numbering::block_before_its_preds(&rpo.func), None);
    assert!(checker::check(&rpo.func, &rpo.machine, &rpo_out).is_empty());
    assert!(cross_check::theirs(&rpo, &rpo_out).is_ok());
    assert!(!cross_check::order_false_alarm(&rpo, &rpo_out));
}
