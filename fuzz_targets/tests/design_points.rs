//! Each allocator's design points (`tests/cases/<allocator>/*.ra`, for
//! every registry entry that says it has them): each
//! case passes both oracles and needs exactly the number of moves its
//! `# expect: moves N` line names (and, with `# expect: cost X`, exactly
//! that loop-weighted cost), so a change in the allocator's choices shows
//! up here.

use allocator::ir::text::parse_and_validate;
use allocator::Allocator;
use checker::{check, interp};

/// Runs `a` on every case of `tests/cases/<a>`; returns how many there were.
fn design_points(a: &dyn Allocator) -> usize {
    let mut n = 0;
    for path in allocator::fixtures::ra_files(format!("tests/cases/{}", a.name())) {
        let text = std::fs::read_to_string(&path).unwrap();
        let expect: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("# expect: moves "))
            .unwrap_or_else(|| panic!("{}: no `# expect: moves N` line", path.display()))
            .trim()
            .parse()
            .unwrap();
        let (case, _) = parse_and_validate(text.as_bytes()).unwrap();
        let out = a
            .run(&case.func, &case.machine)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let errs = check(&case.func, &case.machine, &out);
        assert!(errs.is_empty(), "{}: {}", path.display(), errs[0]);
        for seed in 0..8 {
            interp::run(&case.func, &case.machine, &out, seed, 10_000)
                .unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        }
        assert_eq!(out.edits.len(), expect, "{}: moves", path.display());
        // `# expect: cost X` pins where the moves go, not only how many.
        if let Some(cost) = text.lines().find_map(|l| l.strip_prefix("# expect: cost ")) {
            let depth = allocator::analysis::loops::loop_depths(&case.func);
            let got = out.cost_tenths(&case.func, &depth, |r| {
                case.machine.role(r) == allocator::PRegRole::FixedStack
            });
            assert_eq!(
                format!("{}.{}", got / 10, got % 10),
                cost.trim(),
                "{}: cost",
                path.display()
            );
        }
        n += 1;
    }
    n
}

/// Every entry with design points has them; the three families of ours
/// do, with at least as many cases as their tests below expect.
#[test]
fn every_entry_with_design_points_passes_them() {
    let with: Vec<&str> = fuzz_targets::registry::entries()
        .iter()
        .filter(|e| e.design_points)
        .map(|e| e.name)
        .collect();
    assert_eq!(with, ["linear_scan", "backtracking", "coloring"]);
    for e in fuzz_targets::registry::entries()
        .iter()
        .filter(|e| e.design_points)
    {
        assert!(
            design_points(&*e.allocator()) > 0,
            "{}: no design points",
            e.name
        );
    }
}

#[test]
fn linear_scan_design_points() {
    let n = design_points(&allocator::linear_scan::LinearScan);
    assert!(n >= 12, "only {n} cases");
}

/// The `# expect: NAME N` lines of a case, other than `moves` and `cost`.
fn expected_stats(text: &str) -> Vec<(String, u64)> {
    text.lines()
        .filter_map(|l| l.strip_prefix("# expect: "))
        .filter(|l| !l.starts_with("moves ") && !l.starts_with("cost "))
        .map(|l| {
            let (name, n) = l.split_once(' ').expect("`# expect: NAME N`");
            (name.to_string(), n.trim().parse().expect("a count"))
        })
        .collect()
}

/// Checks every `# expect: NAME N` counter line of `tests/cases/<a>`
/// against `a`'s counters; returns how many there were.
fn counters_checked(a: &dyn Allocator) -> usize {
    let mut checked = 0;
    for path in allocator::fixtures::ra_files(format!("tests/cases/{}", a.name())) {
        let text = std::fs::read_to_string(&path).unwrap();
        let case = allocator::fixtures::read_case(&path);
        let (_, counters) = a.run_with_counters(&case.func, &case.machine).unwrap();
        for (name, want) in expected_stats(&text) {
            let got = counters
                .iter()
                .find(|c| c.0 == name)
                .unwrap_or_else(|| panic!("{}: no counter `{name}`", path.display()))
                .1;
            assert_eq!(got, want, "{}: {name}", path.display());
            checked += 1;
        }
    }
    checked
}

#[test]
fn backtracking_design_points() {
    let n = design_points(&allocator::backtracking::Backtracking);
    assert!(n >= 12, "only {n} cases");
    // The counters each case is about: the eviction happens, the split, the
    // second chance, the shared slot, the removed move.
    let checked = counters_checked(&allocator::backtracking::Backtracking);
    assert!(checked >= 8, "only {checked} counters checked");
}

#[test]
fn coloring_design_points() {
    let n = design_points(&allocator::coloring::Coloring);
    assert!(n >= 7, "only {n} cases");
    // The counters each case is about: the coalesced copies, the rounds,
    // the spilled groups.
    let checked = counters_checked(&allocator::coloring::Coloring);
    assert!(checked >= 10, "only {checked} counters checked");
}

/// The splitting design point costs 5.0 with passive splitting and 17.0
/// without (a reload in a loop); and the two-address split's store goes
/// where the splitter is born, before its read, not at its write.
#[test]
fn passive_splitting_pays_and_covers_the_read_of_a_two_address_value() {
    use allocator::coloring::{Coloring, ColoringWithoutSplitting};
    let cost = |a: &dyn Allocator, file: &str| {
        let path = allocator::fixtures::repo_root()
            .join("tests/cases/coloring")
            .join(file);
        let case = allocator::fixtures::read_case(&path);
        let out = a.run(&case.func, &case.machine).unwrap();
        let depth = allocator::analysis::loops::loop_depths(&case.func);
        (out.cost_tenths(&case.func, &depth, |_| false), out)
    };
    assert_eq!(cost(&Coloring, "split_beats_spill.ra").0, 50);
    assert_eq!(
        cost(&ColoringWithoutSplitting, "split_beats_spill.ra").0,
        170
    );
    let (_, out) = cost(&Coloring, "two_address_split.ra");
    let store = out
        .edits
        .iter()
        .find(|(_, m)| matches!(m.to, allocator::Allocation::Stack(_)))
        .expect("v0i is stored");
    assert_eq!(store.0.inst().index(), 2, "{:?}", out.edits);
}

/// Every case regalloc2 refuses or gets wrong (`tests/regressions/regalloc2`)
/// is taken, passes both oracles, and needs the moves listed here.
#[test]
fn backtracking_takes_every_regalloc2_regression() {
    let expected = [
        ("branch-def-arg-elsewhere", 0),
        ("branch-def-in-fastalloc", 0),
        ("branch-operands-into-join", 0),
        ("early-def-after-live-out", 2),
        ("fastalloc-no-free-register", 0),
        ("fastalloc-no-scratch", 2),
        ("fixed-unlisted", 1),
        ("limit-in-fastalloc", 0),
        ("live-in-before-def", 0),
        ("repeated-late-fixed-use", 1),
        ("repeated-limit-use", 2),
        ("repeated-stack-use", 1),
        ("reuse-extends-uses", 0),
        ("reuse-index-too-large", 0),
        ("reuse-of-non-reg-use", 1),
        ("stack-def-in-fastalloc", 0),
        ("too-many-live-regs", 1),
    ];
    let files = allocator::fixtures::ra_files("tests/regressions/regalloc2");
    assert_eq!(
        files.len(),
        expected.len(),
        "a regalloc2 case without an expected count"
    );
    for path in files {
        let stem = path.file_stem().unwrap().to_str().unwrap();
        let want = expected
            .iter()
            .find(|e| e.0 == stem)
            .unwrap_or_else(|| panic!("{stem}: no expected count"))
            .1;
        let case = allocator::fixtures::read_case(&path);
        let out = allocator::backtracking::Backtracking
            .run(&case.func, &case.machine)
            .unwrap_or_else(|e| panic!("{stem}: {e}"));
        let errs = check(&case.func, &case.machine, &out);
        assert!(errs.is_empty(), "{stem}: {}", errs[0]);
        for seed in 0..8 {
            interp::run(&case.func, &case.machine, &out, seed, 10_000)
                .unwrap_or_else(|d| panic!("{stem}: {d}"));
        }
        assert_eq!(out.edits.len(), want, "{stem}: moves");
    }
}
