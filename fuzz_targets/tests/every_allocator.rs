//! Every allocator of ours, as the registry lists them, on the
//! hand-written valid cases, ten thousand small generated cases and the
//! regression corpus: both oracles accept each allocation.

use allocator::ir::text::parse_and_validate;
use allocator::Allocator;
use checker::interp;
use rand::{Rng, SeedableRng};

/// Our allocators: the registry's entries of our own family.
fn ours() -> impl Iterator<Item = std::sync::Arc<dyn Allocator>> {
    fuzz_targets::registry::entries()
        .iter()
        .filter(|e| e.family == fuzz_targets::registry::Family::Ours)
        .map(|e| e.allocator())
}

use allocator::fixtures::hand_written as files;
use checker::check_both_ways as check;

#[test]
fn every_allocator_passes_both_oracles_on_every_valid_case() {
    for a in ours() {
        for path in files("valid") {
            let (case, _) = parse_and_validate(&std::fs::read(&path).unwrap()).unwrap();
            let out = a
                .run(&case.func, &case.machine)
                .unwrap_or_else(|e| panic!("{} on {}: {e}", a.name(), path.display()));
            let errs = check(&case.func, &case.machine, &out);
            assert!(
                errs.is_empty(),
                "{} on {}: {}",
                a.name(),
                path.display(),
                errs[0]
            );
            for seed in 0..4 {
                interp::run(&case.func, &case.machine, &out, seed, 10_000)
                    .unwrap_or_else(|d| panic!("{} on {}: {d}", a.name(), path.display()));
            }
        }
    }
}

/// Small generated functions (inputs of up to 600 bytes; 10,000 of them
/// deep, 2,000 otherwise: [`allocator::fixtures::sweep`]), through every
/// allocator and both oracles. No allocator may refuse one: the generator
/// only makes feasible cases, and none uses a shape an allocator of ours
/// declares unsupported. `ORACLES_ALLOCATOR=NAME` runs one allocator's
/// share only (for `cargo mutants` on that allocator's files).
#[test]
fn every_allocator_on_generated_cases() {
    let config = ssagen::Config::default();
    let only = std::env::var("ORACLES_ALLOCATOR").ok();
    for a in ours() {
        if only.as_deref().is_some_and(|n| n != a.name()) {
            continue;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(10);
        let mut insts = 0;
        for n in 0..allocator::fixtures::sweep(10_000) {
            let len = rng.gen_range(0..=600);
            let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let case = ssagen::generate_from_bytes(&bytes, &config);
            insts += case.func.num_insts();
            let out = a.run(&case.func, &case.machine).unwrap_or_else(|e| {
                panic!(
                    "{} on input {n}: {e}\n{}",
                    a.name(),
                    allocator::ir::text::print(&case)
                )
            });
            let errs = check(&case.func, &case.machine, &out);
            if let Some(e) = errs.first() {
                let mut c = case.clone();
                c.output = Some(out);
                panic!(
                    "{} on input {n}: {e}\n{}",
                    a.name(),
                    allocator::ir::text::print(&c)
                );
            }
            interp::run(&case.func, &case.machine, &out, n as u64, 2_000)
                .unwrap_or_else(|d| panic!("{} on input {n}: {d}", a.name()));
        }
        assert!(
            insts > allocator::fixtures::sweep(10_000) * 10,
            "only {insts} instructions"
        );
    }
}

/// `tests/regressions/*.ra`: every bug the fuzzers found in this
/// repository, reduced; replayed through every allocator and both oracles.
/// A bug in an oracle (`# Fails without the fix: oracle ...`) carries the
/// allocation it misjudged and its exact `# error:` lines (none: correct).
#[test]
fn regression_corpus_passes_every_allocator_and_both_oracles() {
    let cases = files("../regressions");
    assert!(!cases.is_empty());
    for path in cases {
        passes_as_a_regression_case(&path);
    }
}

/// What makes `path` a regression case: its first line names the bug, a
/// `# Fails without the fix:` line names an allocator of the registry (or
/// an oracle) and an oracle, and every allocator of ours passes it.
fn passes_as_a_regression_case(path: &std::path::Path) {
    let src = std::fs::read_to_string(path).unwrap();
    assert!(
        src.starts_with("# Bug: "),
        "{}: the first line names the bug",
        path.display()
    );
    let fails = src
        .lines()
        .find_map(|l| l.strip_prefix("# Fails without the fix: "))
        .unwrap_or_else(|| {
            panic!(
                "{}: no `# Fails without the fix: allocator NAME, oracle ...` \
                 (or `oracle NAME ...`) line",
                path.display()
            )
        });
    let oracle_bug = fails.starts_with("oracle ");
    let named = fails
        .strip_prefix("allocator ")
        .and_then(|rest| rest.split_once(", oracle"))
        .and_then(|(name, _)| fuzz_targets::registry::allocator_by_name(name, &Default::default()));
    assert!(
        oracle_bug || named.is_some(),
        "{}: the Fails line names a registered allocator and an oracle, or an oracle",
        path.display()
    );
    let (case, map) = parse_and_validate(src.as_bytes())
        .unwrap_or_else(|e| panic!("{}: {}", path.display(), e[0]));
    if oracle_bug {
        let out = case.output.as_ref().expect("the allocation it misjudged");
        let expected: Vec<&str> = src
            .lines()
            .filter_map(|l| l.strip_prefix("# error: "))
            .collect();
        let got: Vec<String> = check(&case.func, &case.machine, out)
            .iter()
            .map(|e| format!("{}: {} [{}]", map.locate(e.site), e.message, e.kind.name()))
            .collect();
        assert_eq!(got, expected, "{}", path.display());
    }
    for a in ours() {
        let out = a
            .run(&case.func, &case.machine)
            .unwrap_or_else(|e| panic!("{}: {}: {e}", path.display(), a.name()));
        let errs = check(&case.func, &case.machine, &out);
        assert!(
            errs.is_empty(),
            "{}: {}: {}",
            path.display(),
            a.name(),
            errs[0]
        );
        for seed in 0..16 {
            interp::run(&case.func, &case.machine, &out, seed, 10_000)
                .unwrap_or_else(|d| panic!("{}: {}: {d}", path.display(), a.name()));
        }
    }
}

/// A fresh finding, reduced by `rafuzz reduce`, is a regression case as it
/// is written: copied into `tests/regressions/`, it passes the test above
/// (here, a planted fault's finding: every real allocator passes it).
#[test]
fn a_reduced_finding_is_a_regression_case_as_written() {
    let dir = std::env::temp_dir().join(format!("rafuzz-regress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = dir.join("big.ra");
    let gen = std::process::Command::new(env!("CARGO_BIN_EXE_rafuzz"))
        .args(["gen", "--seed", "2"])
        .output()
        .unwrap();
    std::fs::write(&big, gen.stdout).unwrap();
    let reduce = std::process::Command::new(env!("CARGO_BIN_EXE_rafuzz"))
        .args(["reduce", "--target", "fault_swap_reuse"])
        .arg(&big)
        .output()
        .unwrap();
    assert_eq!(reduce.status.code(), Some(0), "{reduce:?}");
    let reduced = dir.join("big.reduced.ra");
    let text = std::fs::read_to_string(&reduced).unwrap();
    assert!(
        text.contains(
            "# Fails without the fix: allocator linear_scan+swap_reuse, oracle checker\n"
        ),
        "{text}"
    );
    passes_as_a_regression_case(&reduced);
    let _ = std::fs::remove_dir_all(&dir);
}

/// No allocator of ours refuses a feasible case, on any profile: 2,000
/// small cases of each profile besides the default (which the test above
/// covers with 10,000), each allocated and accepted by both oracles, so a
/// refusal of theirs is never what an outside allocator's
/// `refused-feasible` finding is measured against by mistake.
#[test]
fn no_allocator_of_ours_refuses_a_case_of_any_profile() {
    let ctx = fuzz_targets::books::context::Context::default();
    for p in fuzz_targets::registry::profiles().into_iter().skip(1) {
        let config = (p.config)();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for n in 0..allocator::fixtures::sweep(2_000) {
            let len = rng.gen_range(0..=600);
            let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let case = ssagen::generate_from_bytes(&bytes, &config);
            if case.func.num_insts() > 3_000 {
                continue; // the cranelift profiles' tail: for scaling and fuzzing
            }
            for a in ours() {
                let judged = fuzz_targets::judging::judge::allocate_and_judge_refusal(
                    &*a,
                    &case,
                    fuzz_targets::judging::judge::Oracles::Both,
                    &ctx,
                );
                assert!(
                    matches!(judged, Ok(Ok(_))),
                    "{} on {} input {n}: {judged:?}\n{}",
                    a.name(),
                    p.name,
                    allocator::ir::text::print(&case)
                );
            }
        }
    }
}
