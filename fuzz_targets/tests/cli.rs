//! The `rafuzz` binary, run as a user runs it.

use std::path::PathBuf;
use std::process::Command;

mod common;
use common::{rafuzz, root};

fn cases(sub: &str) -> Vec<String> {
    allocator::fixtures::ra_files(format!("tests/cases/{sub}"))
        .into_iter()
        .map(|p| {
            p.strip_prefix(allocator::fixtures::repo_root())
                .unwrap()
                .display()
                .to_string()
        })
        .collect()
}

#[test]
fn validate_accepts_every_valid_case() {
    let files = cases("valid");
    let args: Vec<&str> = std::iter::once("validate")
        .chain(files.iter().map(String::as_str))
        .collect();
    let (code, out) = rafuzz(&args);
    assert_eq!(code, 0, "{out}");
    assert_eq!(out.lines().count(), files.len());
    assert!(out.lines().all(|l| l.ends_with(": ok")), "{out}");
}

#[test]
fn validate_rejects_each_invalid_case_with_located_messages() {
    for file in cases("invalid") {
        let (code, out) = rafuzz(&["validate", &file]);
        assert_eq!(code, 1, "{file}: {out}");
        let src = std::fs::read_to_string(root().join(&file)).unwrap();
        let expected: Vec<String> = src
            .lines()
            .filter_map(|l| l.strip_prefix("# error: "))
            .map(|e| format!("{file}:{e}"))
            .collect();
        let got: Vec<&str> = out.lines().collect();
        assert_eq!(got, expected, "{file}");
    }
}

#[test]
fn validate_reports_unreadable_files_and_keeps_going() {
    let valid = &cases("valid")[0];
    let (code, out) = rafuzz(&["validate", "no/such/file.ra", valid]);
    assert_eq!(code, 3, "a file that cannot be read is an internal error");
    assert!(out.contains("no/such/file.ra: cannot read:"), "{out}");
    assert!(out.contains(&format!("{valid}: ok")), "{out}");
}

#[test]
fn list_names_allocators_and_targets() {
    let (code, out) = rafuzz(&["list"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("allocators:") && out.contains("targets:"),
        "{out}"
    );
}

#[test]
fn usage_errors_exit_nonzero() {
    let (code, _) = rafuzz(&["validate"]);
    assert_ne!(code, 0);
    let (code, _) = rafuzz(&["no-such-command"]);
    assert_ne!(code, 0);
}

#[test]
fn gen_is_reproducible_and_valid() {
    let (code, a) = rafuzz(&["gen", "--seed", "7", "--size", "512"]);
    assert_eq!(code, 0);
    let (_, b) = rafuzz(&["gen", "--seed", "7", "--size", "512"]);
    assert_eq!(a, b, "the same seed gives the same case");
    let (_, c) = rafuzz(&["gen", "--seed", "8", "--size", "512"]);
    assert_ne!(a, c);
    let (case, _) = allocator::ir::text::parse_and_validate(a.as_bytes()).unwrap();
    assert!(case.output.is_none());
}

#[test]
fn gen_stats_reports_every_generated_case_valid() {
    let (code, out) = rafuzz(&["gen", "--stats", "50", "--size", "1024"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("valid") && l.ends_with(" 100.0%")),
        "{out}"
    );
    assert!(out.contains("ns/inst"), "{out}");
}

#[test]
fn run_replays_a_corpus_directory() {
    let (code, out) = rafuzz(&["run", "ssagen", "corpus/ssagen"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.trim_end().ends_with("0 failed"), "{out}");
    let (code, out) = rafuzz(&["run", "no-such-target", "corpus/ssagen"]);
    assert_eq!(code, 2, "{out}");
}

#[test]
fn alloc_prints_a_checkable_allocation_and_times_with_repeat() {
    let dir = std::env::temp_dir().join(format!("rafuzz-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (code, out) = rafuzz(&[
        "alloc",
        "--allocator",
        "spill_everywhere",
        "tests/cases/valid/call_like.ra",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\nallocation\n"), "{out}");
    let file = dir.join("allocated.ra");
    std::fs::write(&file, &out).unwrap();
    let (code, checked) = rafuzz(&["check", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{checked}");
    assert!(checked.trim_end().ends_with(": ok"), "{checked}");
    let (code, timed) = rafuzz(&["check", "--repeat", "3", file.to_str().unwrap()]);
    assert_eq!(code, 0);
    let last = timed.lines().last().unwrap();
    assert!(
        last.starts_with("cases=1 insts=") && last.contains(" ns_per_inst="),
        "{last}"
    );
    let (code, timed) = rafuzz(&[
        "alloc",
        "--allocator",
        "spill_everywhere",
        "--repeat",
        "2",
        "tests/cases/valid/diamond.ra",
    ]);
    assert_eq!(code, 0);
    assert!(
        timed.lines().last().unwrap().starts_with("cases=1 insts="),
        "{timed}"
    );
    let (code, _) = rafuzz(&[
        "alloc",
        "--allocator",
        "no-such",
        "tests/cases/valid/diamond.ra",
    ]);
    assert_eq!(code, 2);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn check_reports_located_errors_and_refuses_cases_without_allocation() {
    let (code, out) = rafuzz(&["check", "tests/cases/valid/straight_line.ra"]);
    let has_alloc = std::fs::read_to_string(root().join("tests/cases/valid/straight_line.ra"))
        .unwrap()
        .contains("\nallocation");
    if !has_alloc {
        assert_eq!(code, 1);
        assert!(out.contains("no allocation section"), "{out}");
    }
    // A correct allocation with one reload dropped.
    let src = std::fs::read_to_string(root().join("tests/cases/valid/spec_example.ra")).unwrap();
    let broken = src.replace("  edit before inst6: p7i -> p0i\n", "");
    let file = std::env::temp_dir().join(format!("rafuzz-broken-{}.ra", std::process::id()));
    std::fs::write(&file, broken).unwrap();
    let (code, out) = rafuzz(&["check", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let line = out.lines().next().unwrap();
    assert!(line.contains(":29:10: inst6 operand 0 (use:v5i:fixed(p0i)) reads v5i from p0i at the early point, but p0i holds no live value"), "{line}");
    assert!(line.ends_with("[wrong-value]"), "{line}");
    std::fs::remove_file(file).unwrap();
}

#[test]
fn every_allocator_has_a_checker_target_and_joins_differential() {
    let (_, out) = rafuzz(&["list"]);
    for a in fuzz_targets::registry::allocators(&Default::default()) {
        assert!(out.contains(&format!("  {}_checker ", a.name())), "{out}");
    }
    assert!(out.contains("  differential "), "{out}");
    let (code, out) = rafuzz(&[
        "fuzz",
        "--target",
        "differential",
        "--runs",
        "60",
        "--jobs",
        "1",
        "--stats",
        "--artifacts",
        "/tmp/rafuzz-cli-artifacts",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("allocator") && out.contains("spill_everywhere"),
        "{out}"
    );
    assert!(out.contains("loop-weighted"), "{out}");
}

/// A scratch folder of its own for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("cli", name)
}

/// A generated case of about 300 instructions that the faulty allocator
/// `linear_scan+swap_reuse` fails on (seed 2, 4096 bytes).
fn failing_case(dir: &std::path::Path) -> String {
    let (code, text) = rafuzz(&["gen", "--seed", "2"]);
    assert_eq!(code, 0);
    let path = dir.join("case.ra");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn reduce_by_target_writes_a_small_case_that_still_fails() {
    let dir = scratch("reduce-target");
    let case = failing_case(&dir);
    let out_path = dir.join("small.ra").display().to_string();
    let (code, out) = rafuzz(&[
        "reduce",
        "--target",
        "fault_swap_reuse",
        &case,
        "-o",
        &out_path,
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("failure: linear_scan+swap_reuse: checker [constraint]"),
        "{out}"
    );
    assert!(out.contains("before:  338 insts"), "{out}");
    assert!(
        out.contains(&format!("replay:  rafuzz run fault_swap_reuse {out_path}")),
        "{out}"
    );
    let text = std::fs::read_to_string(&out_path).unwrap();
    assert!(
        text.starts_with(
            "# Bug: linear_scan+swap_reuse: checker [constraint] (found by fault_swap_reuse)."
        ),
        "{text}"
    );
    assert!(
        text.contains("\n# Reduced by `rafuzz reduce` from "),
        "{text}"
    );
    let (small, _) = allocator::ir::text::parse_and_validate(text.as_bytes()).unwrap();
    assert!(small.func.num_insts() <= 10, "{text}");
    // The replay command fails the same way; the original target passes.
    let (code, replay) = rafuzz(&["run", "fault_swap_reuse", &out_path]);
    assert_eq!(code, 1, "{replay}");
    assert!(
        replay.contains("FAILED: linear_scan+swap_reuse: checker [constraint]"),
        "{replay}"
    );
    let (code, replay) = rafuzz(&["run", "linear_scan_checker", &out_path]);
    assert_eq!(code, 0, "{replay}");
    // Without -o, the case goes beside the input.
    let (code, out) = rafuzz(&[
        "reduce",
        "--target",
        "fault_swap_reuse",
        "--jobs",
        "1",
        &case,
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(dir.join("case.reduced.ra").exists(), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reduce_by_allocator_and_oracle() {
    let dir = scratch("reduce-allocator");
    let case = failing_case(&dir);
    for oracle in ["checker", "interp"] {
        let out_path = dir.join(format!("{oracle}.ra")).display().to_string();
        let (code, out) = rafuzz(&[
            "reduce",
            "--allocator",
            "linear_scan+swap_reuse",
            "--oracle",
            oracle,
            &case,
            "-o",
            &out_path,
        ]);
        assert_eq!(code, 0, "{out}");
        let expected = match oracle {
            "checker" => "failure: linear_scan+swap_reuse: checker [constraint]",
            _ => "failure: linear_scan+swap_reuse: interpreter",
        };
        assert!(out.contains(expected), "{out}");
        let (code, replay) = rafuzz(&["run", "fault_swap_reuse", &out_path]);
        assert_eq!(code, 1, "{replay}");
    }
    // A registered allocator passes the case: nothing to reduce.
    let (code, out) = rafuzz(&["reduce", "--allocator", "linear_scan", &case]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("linear_scan's allocation of the case passes"),
        "{out}"
    );
    let (code, out) = rafuzz(&["reduce", "--allocator", "nope", &case]);
    assert_eq!(code, 2, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reduce_by_outside_predicate() {
    let dir = scratch("reduce-predicate");
    let case = failing_case(&dir);
    let out_path = dir.join("p.ra").display().to_string();
    let (code, out) = rafuzz(&[
        "reduce",
        "--predicate",
        "grep -q 'reuse('",
        &case,
        "-o",
        &out_path,
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("replay:  sh -c 'grep -q 'reuse(' \"$1\"' sh "),
        "{out}"
    );
    let text = std::fs::read_to_string(&out_path).unwrap();
    let (small, _) = allocator::ir::text::parse_and_validate(text.as_bytes()).unwrap();
    assert!(small.func.num_insts() <= 3, "{text}");
    assert!(
        allocator::ir::text::print(&small).contains("reuse("),
        "{text}"
    );
    // A predicate that does not hold on the input is an error.
    let (code, out) = rafuzz(&["reduce", "--predicate", "false", &case]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("the predicate does not hold"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn reduce_refuses_inputs_that_do_not_fail() {
    let (code, out) = rafuzz(&[
        "reduce",
        "--target",
        "linear_scan_checker",
        "tests/cases/valid/call_like.ra",
        "-o",
        "/dev/null",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("does not fail target `linear_scan_checker`"),
        "{out}"
    );
    let (code, out) = rafuzz(&[
        "reduce",
        "--target",
        "moves",
        "tests/cases/valid/call_like.ra",
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("does not run on cases"), "{out}");
    let (code, out) = rafuzz(&["run", "moves", "tests/cases/valid/call_like.ra"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("does not run on cases"), "{out}");
}

#[test]
fn fuzz_reduces_each_finding_and_prints_its_replay() {
    let dir = scratch("fuzz-reduce");
    let artifacts = dir.join("artifacts").display().to_string();
    let (code, out) = rafuzz(&[
        "fuzz",
        "--target",
        "fault_late_spill",
        "--time",
        "60",
        "--jobs",
        "1",
        "--artifacts",
        &artifacts,
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FOUND in fault_late_spill: linear_scan+late_spill: "),
        "{out}"
    );
    let reduced = out
        .lines()
        .find_map(|l| l.strip_prefix("  reduced: "))
        .unwrap_or_else(|| panic!("no reduced line: {out}"));
    let path = reduced.split(" (").next().unwrap();
    assert!(path.ends_with(".reduced.ra"), "{out}");
    assert!(
        out.contains(&format!("  replay:  rafuzz run fault_late_spill {path}")),
        "{out}"
    );
    let (code, replay) = rafuzz(&["run", "fault_late_spill", path]);
    assert_eq!(code, 1, "{replay}");
    // The raw input, the original case and the message sit beside it.
    let raw = path.trim_end_matches(".reduced.ra");
    for p in [raw.to_string(), format!("{raw}.ra"), format!("{raw}.txt")] {
        assert!(std::path::Path::new(&p).exists(), "{p} missing: {out}");
    }
    let (code, out) = rafuzz(&[
        "fuzz",
        "--target",
        "fault_late_spill",
        "--time",
        "60",
        "--no-reduce",
        "--artifacts",
        &artifacts,
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(!out.contains("  reduced: "), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_outside_program_is_fuzzed_and_its_findings_reduced() {
    let dir = scratch("fuzz-cmd");
    let artifacts = dir.join("artifacts").display().to_string();
    let exe = env!("CARGO_BIN_EXE_rafuzz");
    // A correct program: nothing found, and it joins differential.
    let (code, out) = rafuzz(&[
        "fuzz",
        "--allocator",
        &format!("cmd:{exe} serve --allocator linear_scan"),
        "--target",
        "cmd_checker",
        "--target",
        "differential",
        "--time",
        "3",
        "--stats",
        "--artifacts",
        &artifacts,
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("\ncmd "), "{out}");
    // A program with a planted bug: found, reduced, and replayable.
    let cmd = format!("cmd:{exe} serve --allocator linear_scan+swap_reuse");
    let (code, out) = rafuzz(&[
        "fuzz",
        "--allocator",
        &cmd,
        "--target",
        "cmd_checker",
        "--time",
        "60",
        "--artifacts",
        &artifacts,
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FOUND in cmd_checker: cmd: checker [constraint]"),
        "{out}"
    );
    let replay = out
        .lines()
        .find_map(|l| l.strip_prefix("  replay:  "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        replay.starts_with(&format!("rafuzz run --allocator '{cmd}' cmd_checker ")),
        "{out}"
    );
    let file = replay.rsplit(' ').next().unwrap();
    assert!(file.ends_with(".reduced.ra"), "{out}");
    let (code, again) = rafuzz(&["run", "--allocator", &cmd, "cmd_checker", file]);
    assert_eq!(code, 1, "{again}");
    // Only outside programs can be added with --allocator.
    let (code, out) = rafuzz(&["run", "--allocator", "linear_scan", "cmd_checker", file]);
    assert_eq!(code, 2, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn serve_answers_each_case_in_turn() {
    use std::io::Write;
    let valid = std::fs::read_to_string(root().join("tests/cases/valid/call_like.ra")).unwrap();
    let valid = &valid[..valid.find("allocation\n").unwrap()];
    let invalid = valid.replace("use:v0i:reg\n", "use:v99i:reg\n");
    let mut child = Command::new(env!("CARGO_BIN_EXE_rafuzz"))
        .args(["serve", "--allocator", "spill_everywhere"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    write!(stdin, "{valid}{invalid}{valid}").unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let replies: Vec<&str> = text.split_inclusive("end\n").collect();
    assert_eq!(replies.len(), 2, "{text}");
    assert!(
        replies[0].starts_with("allocation\n  spillslots "),
        "{text}"
    );
    assert!(
        replies[1].starts_with("error: the case is not valid: "),
        "{text}"
    );
    assert!(replies[1].contains("\nallocation\n"), "{text}");
}
