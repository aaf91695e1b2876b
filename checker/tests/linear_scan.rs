//! The linear scan's design points (`tests/cases/linear_scan/*.ra`): each
//! case passes both oracles and needs exactly the number of moves its
//! `# expect: moves N` line names, so a change in the allocator's choices
//! shows up here.

use allocator::ir::text::parse_and_validate;
use allocator::Allocator;
use checker::{check, interp};

#[test]
fn design_point_cases_pass_both_oracles_with_their_move_counts() {
    let mut n = 0;
    for path in allocator::fixtures::ra_files("tests/cases/linear_scan") {
        let text = std::fs::read_to_string(&path).unwrap();
        let expect: usize = text
            .lines()
            .find_map(|l| l.strip_prefix("# expect: moves "))
            .unwrap_or_else(|| panic!("{}: no `# expect: moves N` line", path.display()))
            .trim()
            .parse()
            .unwrap();
        let (case, _) = parse_and_validate(text.as_bytes()).unwrap();
        let out = allocator::linear_scan::LinearScan
            .run(&case.func, &case.machine)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let errs = check(&case.func, &case.machine, &out);
        assert!(errs.is_empty(), "{}: {}", path.display(), errs[0]);
        for seed in 0..8 {
            interp::run(&case.func, &out, seed, 10_000)
                .unwrap_or_else(|d| panic!("{}: {d}", path.display()));
        }
        assert_eq!(out.edits.len(), expect, "{}: moves", path.display());
        n += 1;
    }
    assert!(n >= 12, "only {n} cases");
}
