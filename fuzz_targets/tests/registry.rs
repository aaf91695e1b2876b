//! The registry is the one list of allocators: every entry is found by its
//! own name and names its allocator, and a new allocator needs nothing but
//! its entry to get a checker target and a place in `differential`.

use allocator::{AllocError, Allocator, Function, MachineEnv, Output};
use fuzz_targets::books::context::Context;
use fuzz_targets::harness::inputs::seeded_bytes;
use fuzz_targets::registry::{self, Build, Entry, Family, Settings};

#[test]
fn every_entry_is_found_by_its_own_name() {
    for e in registry::entries() {
        let a = registry::allocator_by_name(e.name, &Settings::default()).unwrap();
        assert_eq!(a.name(), e.name);
        assert_eq!(registry::entry(e.name).map(|f| f.name), Some(e.name));
    }
    let fuzzed: Vec<&str> = registry::allocators(&Settings::default())
        .iter()
        .map(|a| a.name())
        .collect();
    assert_eq!(
        fuzzed,
        [
            "spill_everywhere",
            "linear_scan",
            "backtracking",
            "coloring",
            "regalloc2_ion",
            "regalloc2_fastalloc",
            "regalloc_rs_bt",
            "regalloc_rs_lsra"
        ]
    );
    let variants: Vec<&str> = registry::entries()
        .iter()
        .filter(|e| e.family == Family::Variant)
        .map(|e| e.name)
        .collect();
    assert_eq!(variants, ["coloring_nosplit"]);
    let profiles: Vec<&str> = registry::profiles().iter().map(|p| p.name).collect();
    assert_eq!(
        profiles,
        [
            "default",
            "regalloc2",
            "regalloc2_fastalloc",
            "regalloc_rs",
            "regalloc_rs_lsra",
            "cranelift",
            "cranelift-aarch64",
            "cranelift-riscv64"
        ]
    );
}

/// The settings reach the outside allocators: each combination builds an
/// allocator of the same name, and `--no-suppress` runs a known bug that
/// the default settings answer with `Suppressed`.
#[test]
fn settings_choose_how_outside_allocators_run() {
    let ion = registry::entry("regalloc2_ion").unwrap();
    let unsuppressed = Settings {
        suppress: false,
        ..Settings::default()
    };
    assert_eq!(ion.build(&unsuppressed).name(), "regalloc2_ion");
    let path =
        allocator::fixtures::repo_root().join("tests/regressions/regalloc2/repeated-limit-use.ra");
    let case = allocator::fixtures::read_case(&path);
    let suppressed = ion.allocator().run(&case.func, &case.machine);
    assert!(
        matches!(suppressed, Err(AllocError::Suppressed(_))),
        "{suppressed:?}"
    );
    let run = ion.build(&unsuppressed).run(&case.func, &case.machine);
    assert!(!matches!(run, Err(AllocError::Suppressed(_))), "{run:?}");
}

/// A small allocator of one's own: this repository's reference allocator
/// under another name.
struct Tiny;

impl Allocator for Tiny {
    fn name(&self) -> &'static str {
        "tiny"
    }

    fn run(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        allocator::spill_everywhere::SpillEverywhere.run(func, env)
    }
}

/// Adding an allocator is one entry: with it, a registry gets the
/// `tiny_checker` target, and `differential` runs it beside the others.
#[test]
fn a_new_allocator_is_one_entry() {
    let mut entries: Vec<Entry> = registry::entries()
        .iter()
        .filter(|e| e.family == Family::Ours)
        .copied()
        .collect();
    entries.push(Entry {
        name: "tiny",
        target: "tiny_checker",
        code: &["fuzz_targets"],
        family: Family::Ours,
        build: Build::Fixed(&Tiny),
        profile: None,
        design_points: false,
        false_refusals: &[],
    });
    let entries: &'static [Entry] = Vec::leak(entries);
    let targets = fuzz_targets::targets::targets_of(entries);
    let checker = targets
        .iter()
        .find(|t| t.name == "tiny_checker")
        .expect("its target");
    let differential = targets.iter().find(|t| t.name == "differential").unwrap();
    let ctx = Context::default();
    for seed in 0..30 {
        let bytes = seeded_bytes(seed, 1024);
        checker.check(&bytes, &ctx).unwrap();
        differential.check(&bytes, &ctx).unwrap();
    }
    let report = ctx.quality.report();
    assert!(report.contains("tiny"), "{report}");
    assert!(!report.contains("regalloc2_ion"), "{report}");
}

/// An allocator's own target counts its crate's edges, and a planted
/// fault's file besides; a target every allocator takes part in counts
/// every allocator's crate, and no fault's file.
#[test]
fn each_target_tests_the_code_of_its_allocators() {
    assert_eq!(
        registry::code_under_test("linear_scan_checker"),
        ["allocator"]
    );
    let faults = fuzz_targets::testing::faults::CODE;
    assert_eq!(
        registry::code_under_test("fault_hang"),
        ["allocator", faults]
    );
    assert!(allocator::fixtures::repo_root().join(faults).exists());
    let all = registry::shared_code();
    assert_eq!(registry::code_under_test("differential"), all);
    assert_eq!(all[0], "allocator");
    assert!(!all.contains(&faults));
    assert!(registry::all_code().contains(&faults));
    if cfg!(feature = "regalloc2") {
        assert_eq!(
            registry::code_under_test("regalloc2_ion_checker"),
            ["regalloc2"]
        );
        assert!(all.contains(&"regalloc2"));
    }
}
