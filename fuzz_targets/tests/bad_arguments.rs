//! Every subcommand, given bad arguments or bad files, ends with the exit
//! status that means what went wrong (1 a failure found, 2 usage, 3 a file
//! that cannot be read), says so on stderr, and never panics.

#[allow(dead_code)]
mod common;

use common::{root, scratch};
use std::process::{Command, Stdio};

/// What a run must end with.
struct Expect {
    args: Vec<String>,
    status: i32,
    /// A word the error message must hold.
    says: &'static str,
}

/// The files the table refers to, by name: a valid case without an
/// allocation, one with an allocation, a malformed one, an empty folder
/// and a path that does not exist.
struct Files {
    plain: String,
    allocated: String,
    malformed: String,
    empty_dir: String,
    missing: String,
}

fn files() -> Files {
    let dir = scratch("bad-arguments", "files");
    let r = root();
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let path = |p: std::path::PathBuf| p.to_str().unwrap().to_string();
    Files {
        plain: path(r.join("tests/cases/valid/irreducible_loop.ra")),
        allocated: path(r.join("tests/cases/explain/regalloc2_ion_repeated_limit_use.ra")),
        malformed: path(r.join("tests/cases/invalid/parse_alloc_missing_end.ra")),
        empty_dir: path(empty),
        missing: path(dir.join("no-such-file.ra")),
    }
}

/// `rafuzz compare` of `linear_scan` against `coloring`, then `rest`.
fn pair<'a>(rest: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "compare",
        "--allocator",
        "linear_scan",
        "--allocator",
        "coloring",
    ];
    v.extend_from_slice(rest);
    v
}

fn table(f: &Files) -> Vec<Expect> {
    let e = |args: &[&str], status: i32, says: &'static str| Expect {
        args: args.iter().map(|s| s.to_string()).collect(),
        status,
        says,
    };
    let (plain, allocated, malformed) = (&f.plain[..], &f.allocated[..], &f.malformed[..]);
    let (empty, missing) = (&f.empty_dir[..], &f.missing[..]);
    vec![
        e(&[], 2, "Usage"),
        e(&["bogus"], 2, "unrecognized subcommand"),
        e(&["list", "--bogus"], 2, "unexpected argument"),
        // validate
        e(&["validate"], 2, "required"),
        e(&["validate", missing], 3, "cannot read"),
        e(&["validate", malformed], 1, "parse_alloc_missing_end.ra:"),
        // alloc
        e(
            &["alloc", "--allocator", "nope", plain],
            2,
            "no allocator named",
        ),
        e(
            &["alloc", "--allocator", "linear_scan", missing],
            3,
            "cannot read",
        ),
        e(&["alloc", "--allocator", "linear_scan", malformed], 1, ":"),
        e(
            &[
                "alloc",
                "--allocator",
                "linear_scan",
                "--repeat",
                "0",
                plain,
            ],
            2,
            "at least 1",
        ),
        // check
        e(&["check", plain], 2, "no allocation section"),
        e(&["check", malformed], 1, ":"),
        e(&["check", missing], 3, "cannot read"),
        e(&["check", "--repeat", "x", allocated], 2, "at least 1"),
        e(&["check", allocated], 1, "[wrong-value]"),
        // fuzz
        e(&["fuzz"], 2, "name a target"),
        e(&["fuzz", "--target", "nope"], 2, "no target named"),
        e(&["fuzz", "--all", "--time", "nan"], 2, "number of seconds"),
        e(
            &["fuzz", "--all", "--time", "1e400"],
            2,
            "number of seconds",
        ),
        e(&["fuzz", "--all", "--time=-5"], 2, "number of seconds"),
        e(&["fuzz", "--all", "--time", "0"], 2, "number of seconds"),
        e(&["fuzz", "--all", "--jobs", "0"], 2, "at least 1"),
        e(&["fuzz", "--all", "--timeout", "0"], 2, "number of seconds"),
        e(
            &["fuzz", "--all", "--timeout", "nan"],
            2,
            "number of seconds",
        ),
        e(
            &["fuzz", "--all", "--reduce-time", "inf"],
            2,
            "number of seconds",
        ),
        e(&["fuzz", "--all", "--runs", "0"], 2, "0"),
        e(&["fuzz", "--all", "--max-len", "0"], 2, "at least 1 byte"),
        e(&["fuzz", "--all", "--cmd-timeout", "0"], 2, "0"),
        e(&["fuzz", "--all", "--slow-ratio", "1"], 2, "1"),
        e(&["run", "ssagen", "--slow-ratio", "x", "."], 2, "x"),
        e(&["fuzz", "--all", "--profile", "nope"], 2, "nope"),
        e(&["fuzz", "--all", "--without", "nope"], 2, "nope"),
        e(&["fuzz", "--all", "--allocator", "linear_scan"], 2, "cmd:"),
        // run
        e(&["run", "nope", plain], 2, "no target named"),
        e(&["run", "linear_scan_checker", empty], 2, "no input"),
        e(&["run", "linear_scan_checker", missing], 3, "cannot read"),
        e(&["run", "linear_scan_checker", malformed], 1, ":"),
        // coverage: the tests' build counts no edges; without --target, an
        // input's folder must name its target
        e(&["coverage", plain], 2, "its folder names no target"),
        e(
            &["coverage", "corpus/linear_scan_checker"],
            2,
            "counts no edges",
        ),
        e(
            &["coverage", "--target", "nope", plain],
            2,
            "no target named",
        ),
        e(
            &["coverage", "--target", "linear_scan_checker", plain],
            2,
            "counts no edges",
        ),
        e(&["fuzz", "--all", "--coverage"], 2, "counts no edges"),
        e(
            &["run", "--timeout", "nan", "linear_scan_checker", plain],
            2,
            "number of seconds",
        ),
        e(
            &["run", "--timeout", "0", "linear_scan_checker", plain],
            2,
            "number of seconds",
        ),
        e(&["run", "linear_scan_checker"], 2, "required"),
        // reduce
        e(&["reduce", plain], 2, "required"),
        e(&["reduce", "--target", "nope", plain], 2, "no target named"),
        e(
            &[
                "reduce",
                "--target",
                "fault_swap_reuse",
                "--time",
                "nan",
                plain,
            ],
            2,
            "number of seconds",
        ),
        e(
            &["reduce", "--target", "fault_swap_reuse", missing],
            3,
            "cannot read",
        ),
        e(&["reduce", "--allocator", "linear_scan", malformed], 1, ":"),
        e(
            &["reduce", "--allocator", "nope", plain],
            2,
            "no allocator named",
        ),
        e(
            &["reduce", "--allocator", "linear_scan", "--jobs", "0", plain],
            2,
            "at least 1",
        ),
        e(
            &["reduce", "--allocator", "linear_scan", plain],
            1,
            "passes",
        ),
        // explain
        e(&["explain", missing], 3, "cannot read"),
        e(&["explain", malformed], 1, ":"),
        e(&["explain", plain], 2, "no allocation section"),
        e(&["explain", "--vreg", "x", allocated], 2, "not a vreg"),
        e(&["explain", "--vreg", "v99i", allocated], 2, "has no v99i"),
        e(
            &["explain", "--block", "block99", allocated],
            2,
            "not a block",
        ),
        // compare
        e(
            &["compare", "--allocator", "linear_scan", "--generate", "1"],
            2,
            "exactly twice",
        ),
        e(
            &[
                "compare",
                "--allocator",
                "linear_scan",
                "--allocator",
                "nope",
                "--generate",
                "1",
            ],
            2,
            "no allocator named",
        ),
        e(&pair(&["--generate", "0"]), 2, "at least 1"),
        e(&pair(&[empty]), 2, "no .ra case"),
        e(&pair(&[malformed]), 1, ":"),
        e(&pair(&["--generate", "1", "--profile", "nope"]), 2, "nope"),
        e(
            &pair(&["--generate", "1", "--fail-if-median-above", "nan"]),
            2,
            "ratio",
        ),
        e(
            &pair(&["--generate", "1", "--reduce-time", "nan"]),
            2,
            "number of seconds",
        ),
        // scaling
        e(&["scaling", "--max-insts", "5"], 2, "at least 100"),
        e(&["scaling", "--profile", "nope"], 2, "no profile named"),
        e(&["scaling", "--allocator", "nope"], 2, "no allocator named"),
        e(&["scaling", "--repeat", "0"], 2, "at least 1"),
        e(
            &[
                "scaling",
                "--max-insts",
                "100",
                "--allocator",
                "linear_scan",
                missing,
            ],
            3,
            "cannot read",
        ),
        // gen
        e(&["gen", "--size", "1e12"], 2, "size in bytes"),
        e(&["gen", "--size", "99999999999"], 2, "size in bytes"),
        e(&["gen", "--profile", "nope"], 2, "nope"),
        e(
            &["gen", "--profile", "cranelift", "--style", "nope"],
            2,
            "no style named `nope`",
        ),
        e(
            &["gen", "--style", "go"],
            2,
            "needs a profile with program styles",
        ),
        e(
            &["fuzz", "--all", "--profile", "regalloc2", "--style", "c"],
            2,
            "program styles",
        ),
        e(&["gen", "--without", "nope"], 2, "nope"),
        e(&["gen", "--stats", "5", "--raw"], 2, "cannot be used with"),
        e(&["gen", "--stats", missing], 3, "cannot read"),
        e(&["gen", "--stats", malformed], 1, ":"),
        // serve and the hidden worker
        e(&["serve", "--allocator", "nope"], 2, "no allocator named"),
        e(&["serve"], 2, "required"),
        e(&["worker", "--target", "nope"], 2, "no target named"),
    ]
}

#[test]
fn every_subcommand_answers_bad_input_with_its_status_on_stderr_and_no_panic() {
    let f = files();
    let mut wrong = Vec::new();
    for t in table(&f) {
        let out = Command::new(env!("CARGO_BIN_EXE_rafuzz"))
            .args(&t.args)
            .current_dir(root())
            .stdin(Stdio::null())
            .env("RUST_BACKTRACE", "1")
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        let status = out.status.code();
        let problem = if stderr.contains("panicked") {
            Some("panicked".to_string())
        } else if status != Some(t.status) {
            Some(format!("status {status:?}, expected {}", t.status))
        } else if !stderr.contains(t.says) {
            Some(format!("stderr does not say `{}`", t.says))
        } else if stdout.contains(t.says) && t.says != ":" {
            Some("an error went to stdout".to_string())
        } else {
            None
        };
        if let Some(p) = problem {
            wrong.push(format!(
                "rafuzz {}: {p}\n--- stdout\n{stdout}--- stderr\n{stderr}",
                t.args.join(" ")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// `rafuzz alloc missing.ra > out.ra` leaves `out.ra` empty and the
/// message on the terminal.
#[test]
fn an_error_never_lands_in_the_output_file() {
    let f = files();
    let out = Command::new(env!("CARGO_BIN_EXE_rafuzz"))
        .args(["alloc", "--allocator", "linear_scan", &f.missing])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("no-such-file.ra: cannot read"));
}
