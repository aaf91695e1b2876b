//! `rafuzz explain` and `rafuzz compare`, run as a user runs them, and the
//! explain page in a real browser where one is installed.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;
use common::{rafuzz, root};

/// A scratch folder of its own for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("explain", name)
}

/// A real finding: regalloc2's ion allocation of a case it gets wrong.
const FINDING: &str = "tests/cases/explain/regalloc2_ion_repeated_limit_use.ra";

#[test]
fn explain_marks_the_first_error_of_a_real_finding() {
    let (code, out) = rafuzz(&["explain", FINDING]);
    assert_eq!(code, 1, "{out}");
    let marked: Vec<&str> = out.lines().filter(|l| l.starts_with(">>>")).collect();
    assert_eq!(marked.len(), 1, "{out}");
    assert!(out.contains("!!! "), "{out}");
    assert!(out.contains("checker: "), "{out}");
    assert!(out.contains("on entry: "), "{out}");
}

#[test]
fn explain_accepts_a_correct_allocation_and_follows_one_vreg() {
    let d = scratch("ok");
    let case = d.join("case.ra");
    let (code, text) = rafuzz(&[
        "alloc",
        "--allocator",
        "linear_scan",
        "tests/cases/backtracking/half_moves_into_loop.ra",
    ]);
    assert_eq!(code, 0, "{text}");
    std::fs::write(&case, text).unwrap();
    let (code, out) = rafuzz(&["explain", case.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("# the checker and the interpreter accept"),
        "{out}"
    );
    assert!(!out.contains(">>>"), "{out}");
    let (code, follow) = rafuzz(&["explain", case.to_str().unwrap(), "--vreg", "v0i"]);
    assert_eq!(code, 0, "{follow}");
    assert!(follow.contains("v0i now: "), "{follow}");
    assert!(follow.lines().count() < out.lines().count(), "{follow}");
    let (code, one) = rafuzz(&["explain", case.to_str().unwrap(), "--block", "block1"]);
    assert_eq!(code, 0, "{one}");
    assert!(one.contains("block1") && !one.contains("block0:"), "{one}");
}

#[test]
fn explain_rejects_bad_arguments_clearly() {
    let (code, out) = rafuzz(&["explain", FINDING, "--vreg", "x7"]);
    assert_eq!(
        (code, out.trim()),
        (2, "`x7` is not a vreg (write it as the case does: v7i)")
    );
    let (code, out) = rafuzz(&["explain", FINDING, "--block", "block99"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("is not a block of the case"), "{out}");
    let (code, out) = rafuzz(&["explain", "tests/cases/backtracking/slots_shared.ra"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("no allocation section to explain"), "{out}");
}

#[test]
fn explain_writes_a_self_contained_page_with_the_error_cell() {
    let d = scratch("html");
    let page = d.join("finding.html");
    let (code, out) = rafuzz(&["explain", FINDING, "--html", page.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(
        html.matches("class=\"err").count() + html.matches(" err\"").count(),
        1,
        "one error cell"
    );
    for outside in ["http://", "https://", "src=", "<link"] {
        assert!(
            !html.contains(outside),
            "the page fetches nothing: {outside}"
        );
    }
}

/// Renders the explain page of the real finding in headless Chromium:
/// the page's script runs to its end (no script error) and the error cell
/// is in the rendered DOM; also writes the screenshot the README shows
/// (`docs/explain.png`) when `RAFUZZ_SCREENSHOT` is set. Skipped where no
/// Chromium is installed (`scripts/install-chromium.sh` installs it).
#[test]
fn the_page_renders_in_a_real_browser() {
    let Some(chromium) = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|b| {
            Command::new(b)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
    else {
        eprintln!("no Chromium here: skipped (scripts/install-chromium.sh installs it)");
        return;
    };
    let d = scratch("browser");
    let page = d.join("finding.html");
    let (_, out) = rafuzz(&["explain", FINDING, "--html", page.to_str().unwrap()]);
    assert!(page.exists(), "{out}");
    let url = format!("file://{}", page.display());
    let headless = |extra: &[&str]| {
        Command::new(chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu"])
            .arg(format!("--user-data-dir={}", d.join("profile").display()))
            .args(extra)
            .arg(&url)
            .output()
            .unwrap()
    };
    let dom = headless(&["--dump-dom"]);
    let dom = String::from_utf8_lossy(&dom.stdout);
    assert!(
        dom.contains("data-ready=\"1\""),
        "the script ran to its end:\n{dom}"
    );
    assert!(dom.contains(" err\""), "the error cell is there");
    let shot = match std::env::var_os("RAFUZZ_SCREENSHOT") {
        Some(_) => root().join("docs/explain.png"),
        None => d.join("shot.png"),
    };
    let arg = format!("--screenshot={}", shot.display());
    let o = headless(&[&arg, "--window-size=920,240", "--hide-scrollbars"]);
    assert!(shot.exists(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(std::fs::metadata(&shot).unwrap().len() > 5_000);
}

fn compare(args: &[&str], save: &Path) -> (i32, String) {
    let mut all = vec!["compare", "--save", save.to_str().unwrap()];
    all.extend_from_slice(args);
    rafuzz(&all)
}

#[test]
fn identical_allocators_compare_equal() {
    let d = scratch("same");
    let (code, out) = compare(
        &[
            "--allocator",
            "linear_scan",
            "--allocator",
            "linear_scan",
            "--generate",
            "20",
            "--fail-if-median-above",
            "1.0",
        ],
        &d,
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("B is better on 0, the same on 20, worse on 0"),
        "{out}"
    );
    assert!(
        out.contains("cost ratio B/A: p10 1.000  median 1.000  p90 1.000  max 1.000"),
        "{out}"
    );
    assert!(!out.contains("where B loses most"), "{out}");
}

#[test]
fn an_outside_program_and_regalloc2_compare_too() {
    let d = scratch("cmd");
    let serve = format!(
        "cmd:{} serve --allocator linear_scan",
        env!("CARGO_BIN_EXE_rafuzz")
    );
    let (code, out) = compare(
        &[
            "--allocator",
            &serve,
            "--allocator",
            "linear_scan",
            "--generate",
            "10",
        ],
        &d,
    );
    assert_eq!(code, 0, "{out}");
    assert!(
        out.starts_with("A = cmd, B = linear_scan: 10 cases"),
        "{out}"
    );
    assert!(out.contains("the same on 10"), "{out}");
    if !cfg!(feature = "regalloc2") {
        return;
    }
    let (code, out) = compare(
        &[
            "--allocator",
            "regalloc2_ion",
            "--allocator",
            "backtracking",
            "--generate",
            "10",
            "--profile",
            "regalloc2",
        ],
        &d,
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("regalloc2_ion took 10"), "{out}");
}

#[test]
fn a_planted_extra_spill_is_reported_worse_saved_and_reduced() {
    let d = scratch("worse");
    let plot = d.join("ratio.svg");
    let (code, out) = compare(
        &[
            "--allocator",
            "linear_scan",
            "--allocator",
            "linear_scan+extra_spill",
            "tests/cases/backtracking",
            "--worst",
            "1",
            "--reduce",
            "--reduce-time",
            "20",
            "--fail-if-median-above",
            "1.0",
            "--plot",
            plot.to_str().unwrap(),
        ],
        &d,
    );
    assert_eq!(code, 1, "the median got worse:\n{out}");
    assert!(out.contains("better on 0"), "{out}");
    assert!(out.contains("FAIL: the median cost ratio"), "{out}");
    let worst = d.join("worst-1.ra");
    let reduced = d.join("worst-1.reduced.ra");
    assert!(worst.exists() && reduced.exists(), "{out}");
    let small = std::fs::read_to_string(&reduced).unwrap();
    assert!(
        small.starts_with("# Reduced by `rafuzz compare --reduce`"),
        "{small}"
    );
    let (code, v) = rafuzz(&["validate", reduced.to_str().unwrap()]);
    assert_eq!(code, 0, "{v}");
    assert!(std::fs::read_to_string(&plot).unwrap().starts_with("<svg"));
}

#[test]
fn compare_reports_bad_arguments() {
    let d = scratch("bad");
    let (code, out) = compare(&["--allocator", "linear_scan", "--generate", "2"], &d);
    assert_eq!(code, 2, "{out}");
    let (code, out) = compare(
        &[
            "--allocator",
            "linear_scan",
            "--allocator",
            "nope",
            "--generate",
            "2",
        ],
        &d,
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("no allocator named `nope`"), "{out}");
    let (code, out) = compare(
        &[
            "--allocator",
            "linear_scan",
            "--allocator",
            "backtracking",
            "--generate",
            "2",
            "--profile",
            "huge",
        ],
        &d,
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("no profile named `huge`"), "{out}");
    let (code, out) = compare(
        &[
            "--allocator",
            "linear_scan",
            "--allocator",
            "coloring",
            "--generate",
            "2",
            "--without",
            "calls,nope",
        ],
        &d,
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("no feature named `nope`"), "{out}");
}

/// The cases `--without` generates are the profile's less the features
/// named: other cases, other costs, on the same seeds.
#[test]
fn compare_generates_without_the_features_named() {
    let d = scratch("without");
    let total = |extra: &[&str]| {
        let mut args = vec![
            "--allocator",
            "linear_scan",
            "--allocator",
            "linear_scan",
            "--generate",
            "10",
        ];
        args.extend_from_slice(extra);
        let (code, out) = compare(&args, &d);
        assert_eq!(code, 0, "{out}");
        let line = out.lines().find(|l| l.starts_with("total cost:")).unwrap();
        line.to_string()
    };
    let all = total(&[]);
    assert_ne!(all, total(&["--without", "calls"]));
    assert_eq!(
        total(&["--without", "clobbers,calls"]),
        total(&["--without", "clobbers"])
    );
}
