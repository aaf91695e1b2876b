//! `--profile` and `--without` on the command line: the generator leaves
//! out what they say, in the engine's worker processes too, and replay
//! commands repeat them.

mod common;

use common::{rafuzz, scratch};

#[test]
fn gen_stats_shows_each_feature_beside_the_default_config() {
    let out = gen_stats(&["--profile", "regalloc2", "--without", "reuse"]);
    assert!(out.contains("--profile regalloc2 --without reuse"), "{out}");
    for gone in ["reuse", "unlisted-fixed"] {
        let (ours, default) = share(&out, gone);
        assert_eq!(ours, 0.0, "{gone}: {out}");
        assert!(default > 10.0, "{gone} is common by default: {out}");
    }
    // What ion takes in part, the profile generates in part.
    for kept in ["stack", "limit", "branch-operands", "repeated-uses"] {
        let (ours, _) = share(&out, kept);
        assert!(ours > 10.0, "{kept}: {out}");
    }
    let out = gen_stats(&["--profile", "regalloc2_fastalloc"]);
    assert_eq!(share(&out, "limit").0, 0.0, "{out}");
    for kept in ["repeated-uses", "branch-operands", "stack"] {
        assert!(share(&out, kept).0 > 10.0, "{kept}: {out}");
    }
}

/// `rafuzz gen --stats` over 60 inputs of 2 KiB, narrowed by `narrowing`.
fn gen_stats(narrowing: &[&str]) -> String {
    let mut args = vec!["gen", "--stats", "60", "--size", "2048"];
    args.extend_from_slice(narrowing);
    let (code, out) = rafuzz(&args);
    assert_eq!(code, 0, "{out}");
    out
}

/// A feature's share of the cases in `gen --stats` output, and the default
/// config's share beside it.
fn share(out: &str, name: &str) -> (f64, f64) {
    let line = out
        .lines()
        .skip_while(|l| !l.starts_with("cases with each feature"))
        .find(|l| l.split_whitespace().next() == Some(name))
        .unwrap_or_else(|| panic!("no {name}:\n{out}"));
    let w: Vec<f64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.trim_end_matches('%').parse().unwrap())
        .collect();
    (w[0], w[1])
}

#[test]
fn unknown_names_are_usage_errors() {
    let (code, out) = rafuzz(&["gen", "--without", "loops"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("no feature named `loops`"), "{out}");
    let (code, out) = rafuzz(&["run", "--profile", "gcc", "ssagen", "corpus/ssagen"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("no profile named `gcc`"), "{out}");
}

#[test]
fn a_feature_left_out_is_never_generated_by_the_engine() {
    // The planted reuse bug needs a `reuse` def: without them, nothing to find.
    let dir = scratch("profile", "without-reuse");
    let artifacts = dir.join("artifacts");
    let (code, out) = rafuzz(&[
        "fuzz",
        "--target",
        "fault_swap_reuse",
        "--without",
        "reuse",
        "--runs",
        "3000",
        "--seed",
        "3",
        "--corpus",
        "no-such-corpus",
        "--artifacts",
        artifacts.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
}

#[test]
fn a_finding_replays_with_the_narrowing_it_was_found_with() {
    let dir = scratch("profile", "replay");
    let artifacts = dir.join("artifacts");
    let (code, out) = rafuzz(&[
        "fuzz",
        "--target",
        "fault_late_spill",
        "--without",
        "reuse,limit",
        "--seed",
        "1",
        "--time",
        "120",
        "--no-reduce",
        "--corpus",
        "no-such-corpus",
        "--artifacts",
        artifacts.to_str().unwrap(),
    ]);
    assert_eq!(code, 1, "{out}");
    let replay = out
        .lines()
        .find_map(|l| l.strip_prefix("  replay:  rafuzz "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        replay.starts_with("run --without reuse,limit fault_late_spill "),
        "{replay}"
    );
    let words: Vec<&str> = replay.split(' ').collect();
    let (code, again) = rafuzz(&words);
    assert_eq!(code, 1, "{again}");
    assert!(again.contains("FAILED: linear_scan+late_spill"), "{again}");
    // The raw input's case has neither feature.
    let case = std::fs::read_to_string(format!("{}.ra", words.last().unwrap())).unwrap();
    assert!(
        !case.contains("reuse(") && !case.contains("limit("),
        "{case}"
    );
}

/// A known regalloc2 bug is suppressed (counted, not a failure) unless
/// `--no-suppress` is given: then `rafuzz run` and `rafuzz alloc` show it.
#[cfg(feature = "regalloc2")]
#[test]
fn no_suppress_runs_regalloc2_on_its_known_bugs() {
    let case = "tests/regressions/regalloc2/repeated-limit-use.ra";
    let (code, out) = rafuzz(&["run", "regalloc2_ion_checker", case]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 passed"), "{out}");
    let (code, out) = rafuzz(&["run", "--no-suppress", "regalloc2_ion_checker", case]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("wrong-value"), "{out}");
    let (code, out) = rafuzz(&["alloc", "--allocator", "regalloc2_ion", case]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("suppressed: known regalloc2 bug repeated-limit-use"),
        "{out}"
    );
    let (code, out) = rafuzz(&[
        "alloc",
        "--no-suppress",
        "--allocator",
        "regalloc2_ion",
        case,
    ]);
    // The wrong allocation is printed, with the checker's verdict above it.
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("edit before inst1"), "{out}");
    assert!(
        out.contains("# checker: ") && out.contains("[wrong-value]"),
        "{out}"
    );
}
