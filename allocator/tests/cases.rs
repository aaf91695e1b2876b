//! Replays the hand-written cases of `tests/cases/`: every valid case must
//! validate, round-trip through the printer and agree with the naive
//! analyses; every invalid case must fail with exactly the errors its
//! `# error: LINE:COL: message` header lines name.

mod common;

use allocator::analysis::{cfg, domtree, liveness, loops};
use allocator::ir::text::{parse, parse_and_validate, print};
use common::case_files;

#[test]
fn valid_cases_validate() {
    let files = case_files("valid");
    assert!(files.len() >= 20, "expected the hand-written valid cases");
    for path in files {
        let src = std::fs::read(&path).unwrap();
        if let Err(diags) = parse_and_validate(&src) {
            let msgs: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
            panic!("{}: {}", path.display(), msgs.join("\n"));
        }
    }
}

#[test]
fn valid_cases_round_trip_canonically() {
    for path in case_files("valid") {
        let src = std::fs::read(&path).unwrap();
        let (case, _) = parse(&src).unwrap();
        let printed = print(&case);
        let (again, _) = parse(printed.as_bytes())
            .unwrap_or_else(|e| panic!("{}: reparse: {e}\n{printed}", path.display()));
        assert_eq!(again, case, "{}: parse(print(x)) != x", path.display());
        assert_eq!(
            print(&again),
            printed,
            "{}: printing is not canonical",
            path.display()
        );
    }
}

#[test]
fn invalid_cases_fail_with_exactly_their_errors() {
    let files = case_files("invalid");
    assert!(files.len() >= 30, "expected the hand-written invalid cases");
    for path in files {
        let src = std::fs::read_to_string(&path).unwrap();
        let expected: Vec<&str> = src
            .lines()
            .filter_map(|l| l.strip_prefix("# error: "))
            .collect();
        assert!(
            !expected.is_empty(),
            "{}: no `# error:` line",
            path.display()
        );
        let got: Vec<String> = match parse_and_validate(src.as_bytes()) {
            Ok(_) => Vec::new(),
            Err(diags) => diags.iter().map(|d| d.to_string()).collect(),
        };
        assert_eq!(got, expected, "{}", path.display());
    }
}

#[test]
fn analyses_agree_with_naive_references_on_every_case() {
    for path in case_files("valid") {
        let (case, _) = parse(&std::fs::read(&path).unwrap()).unwrap();
        let f = &case.func;
        let tree = domtree::DomTree::new(f);
        let naive = domtree::naive_dominators(f);
        for b in f.blocks() {
            for a in f.blocks() {
                assert_eq!(
                    tree.dominates(a, b),
                    naive[b.index()][a.index()],
                    "{}: {a} dom {b}",
                    path.display()
                );
            }
        }
        let live = liveness::compute(f, &cfg::postorder(f));
        let reference = liveness::naive(f);
        assert_eq!(
            live.live_in,
            reference.live_in,
            "{}: live-in",
            path.display()
        );
        assert_eq!(
            live.live_out,
            reference.live_out,
            "{}: live-out",
            path.display()
        );
        assert_eq!(loops::loop_depths(f).len(), f.num_blocks());
    }
}

#[test]
fn hand_written_loop_cases_have_the_expected_depths() {
    let depths = |name: &str| {
        let path = case_files("valid")
            .into_iter()
            .find(|p| p.ends_with(name))
            .unwrap();
        let (case, _) = parse(&std::fs::read(path).unwrap()).unwrap();
        loops::loop_depths(&case.func)
    };
    assert!(depths("straight_line.ra").iter().all(|&d| d == 0));
    assert_eq!(depths("nested_loops.ra").iter().max(), Some(&2));
    assert_eq!(depths("irreducible_loop.ra").iter().max(), Some(&1));
    assert_eq!(depths("loop_to_entry.ra")[0], 1);
}
