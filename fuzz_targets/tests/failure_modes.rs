//! Every failure mode is a finding: a planted hang, stack overflow, abort,
//! memory blow-up and quadratic slowdown are each found by the built-in
//! engine, saved, reduced and replayed with the command it prints; and a
//! campaign killed with SIGKILL at any moment leaves every finding it
//! reported complete on disk.

mod common;

use common::{rafuzz, scratch};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::Duration;

/// The campaigns time themselves: one at a time, so that two of them do
/// not share two cores.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Fuzzes `fault_<fault>` until it is found; checks the report names the
/// `kind`, that the finding was reduced, and returns the printed replay
/// command's words (without `rafuzz`) with the reduced case's size.
fn find_and_reduce(fault: &str, kind: &str, limits: &[&str]) -> (Vec<String>, String) {
    let dir = scratch("failure-modes", fault);
    let target = format!("fault_{fault}");
    let artifacts = dir.join("artifacts");
    let mut args = vec![
        "fuzz",
        "--target",
        &target,
        "--time",
        "120",
        "--seed",
        "1",
        "--jobs",
        "2",
        "--corpus",
        "no-such-corpus",
        // A reduction that runs long stops here with what it has: the
        // test asks for a reduced case, not the smallest.
        "--reduce-time",
        "5",
        "--artifacts",
        artifacts.to_str().unwrap(),
    ];
    args.extend_from_slice(limits);
    let (code, out) = rafuzz(&args);
    assert_eq!(code, 1, "{out}");
    let found = out
        .lines()
        .find(|l| l.starts_with(&format!("FOUND in {target}: ")))
        .unwrap_or_else(|| panic!("no finding:\n{out}"));
    assert!(found.contains(kind), "{found}");
    let saved = format!("saved {} finding of {target}: ", kind_word(kind));
    assert!(out.contains(&saved), "{out}");
    let reduced = out
        .lines()
        .find_map(|l| l.strip_prefix("  reduced: "))
        .unwrap_or_else(|| panic!("not reduced:\n{out}"));
    let path = reduced.split(' ').next().unwrap();
    assert!(Path::new(path).exists(), "{path}");
    let size = reduced[path.len()..].to_string();
    let replay = out
        .lines()
        .find_map(|l| l.strip_prefix("  replay:  rafuzz "))
        .unwrap_or_else(|| panic!("no replay command:\n{out}"));
    assert!(replay.ends_with(".reduced.ra"), "{replay}");
    (replay.split(' ').map(str::to_string).collect(), size)
}

/// The file-name word of a kind as the report prints it.
fn kind_word(kind: &str) -> &str {
    match kind {
        "timeout" | "oom" | "slow" => kind,
        _ => "crash",
    }
}

fn replay(words: &[String]) -> (Option<i32>, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rafuzz"))
        .args(words)
        .current_dir(common::root())
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code(), text)
}

#[test]
fn an_endless_loop_is_a_timeout() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Each hanging candidate of the reduction costs the whole timeout, so
    // it is short: still about 15 times a debug build's slowest input here.
    let (words, _) = find_and_reduce("hang", "timeout", &["--timeout", "0.15"]);
    assert!(
        words.starts_with(&["run".into(), "--timeout".into(), "0.15".into()]),
        "{words:?}"
    );
    let (code, out) = replay(&words);
    assert_eq!(code, Some(1), "{out}");
    assert!(
        out.contains(": FAILED: timeout: the input ran longer than the 0.15 s"),
        "{out}"
    );
}

#[test]
fn unbounded_recursion_is_a_crash_named_stack_overflow() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (words, size) = find_and_reduce("recurse", "crash [stack overflow]", &[]);
    assert!(size.contains(" 1 blocks"), "{size}");
    let (code, out) = replay(&words);
    assert_eq!(code, None, "killed by a signal: {out}");
    assert!(out.contains("has overflowed its stack"), "{out}");
}

/// The campaign above may find the overflow on a loop that does not
/// contain the entry; the reducer still gets it to one block, a loop on
/// the entry itself.
#[test]
fn a_loop_away_from_the_entry_reduces_to_one_block() {
    let dir = scratch("failure-modes", "reroot");
    let case = dir.join("loop.ra");
    std::fs::write(
        &case,
        "machine
  int    preferred p0i-p3i nonpreferred none scratch none
  float  preferred p0f-p1f nonpreferred none scratch none
  vector preferred p0v-p1v nonpreferred none scratch none
end
function
  block0:
    inst0: op def:v0i:reg
    inst1: op def:v3i:reg
    inst2: branch -> block1(v0i)
  block1(v1i):
    inst3: op def:v2i:reg use:v1i:reg use:v3i:any
    inst4: branch -> block1(v2i)
end
",
    )
    .unwrap();
    let (code, out) = rafuzz(&[
        "reduce",
        "--target",
        "fault_recurse",
        case.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("crash [stack overflow]"), "{out}");
    assert!(out.contains("after:   1 insts, 1 blocks"), "{out}");
    let reduced = std::fs::read_to_string(dir.join("loop.reduced.ra")).unwrap();
    assert!(reduced.contains("inst0: branch -> block0"), "{reduced}");
}

#[test]
fn an_abort_is_a_crash_named_by_its_signal() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (words, _) = find_and_reduce("abort", "crash [SIGABRT]", &[]);
    let (code, out) = replay(&words);
    assert_eq!(code, None, "killed by a signal: {out}");
}

#[test]
fn a_memory_blow_up_is_an_oom() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Each candidate of the reduction that still blows up grows to the
    // limit first: a low one keeps the reduction short.
    let (words, _) = find_and_reduce("grow", "oom", &["--rss-limit-mb", "100"]);
    assert!(
        words.starts_with(&["run".into(), "--rss-limit-mb".into(), "100".into()]),
        "{words:?}"
    );
    let (code, out) = replay(&words);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains(": FAILED: oom: the process grew to "), "{out}");
}

#[test]
fn a_quadratic_pass_is_slow_and_stays_slow_when_reduced() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (words, _) = find_and_reduce("quadratic", "slow", &[]);
    assert_eq!(
        words[..3],
        ["alloc", "--allocator", "linear_scan+quadratic"],
        "{words:?}"
    );
    let ns_per_inst = |words: &[String]| -> f64 {
        let (code, out) = replay(words);
        assert_eq!(code, Some(0), "{out}");
        let line = out.lines().last().unwrap();
        line.rsplit("ns_per_inst=").next().unwrap().parse().unwrap()
    };
    let slow = ns_per_inst(&words);
    let mut plain = words.clone();
    plain[2] = "linear_scan".into();
    let fast = ns_per_inst(&plain);
    // The campaign judged the original at 20x its size's median; the
    // reducer keeps half of that per instruction, measured against cases of
    // another size, and a debug build's tiny case times noisily: 4x is what
    // "stays slow" can promise (CI measured 8.9x once).
    assert!(slow > 4.0 * fast, "{slow} vs {fast} ns per instruction");
}

/// A small deterministic stream of numbers (the test's own; no crate).
fn next(state: &mut u64) -> u64 {
    *state = state
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *state >> 33
}

#[test]
fn a_campaign_killed_at_any_moment_leaves_every_finding_it_reported_complete() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("failure-modes", "sigkill");
    let mut state = 7u64;
    let mut reported = 0;
    let mut cases = Vec::new();
    let rounds = allocator::fixtures::sweep(20);
    for round in 0..rounds {
        let artifacts = dir.join(format!("artifacts-{round}"));
        let log = dir.join(format!("log-{round}"));
        let mut child = Command::new(env!("CARGO_BIN_EXE_rafuzz"))
            .args([
                "fuzz",
                "--target",
                "fault_abort",
                "--keep-going",
                "--no-reduce",
            ])
            .args(["--time", "60", "--jobs", "2", "--corpus", "no-such-corpus"])
            .args(["--seed", &round.to_string(), "--artifacts"])
            .arg(&artifacts)
            .current_dir(common::root())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(100 + next(&mut state) % 1400));
        child.kill().unwrap();
        child.wait().unwrap();
        let log = std::fs::read_to_string(&log).unwrap();
        for line in log.lines() {
            let Some(path) = line.strip_prefix("saved crash finding of fault_abort: ") else {
                continue;
            };
            reported += 1;
            assert!(Path::new(path).exists(), "{path} reported but missing");
        }
        // Every finding under its final name is complete, reported or not.
        let folder = artifacts.join("fault_abort");
        for entry in std::fs::read_dir(&folder).into_iter().flatten() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap().to_string();
            if name.starts_with('.') || path.extension().is_some() {
                continue;
            }
            let text = std::fs::read_to_string(path.with_extension("txt")).unwrap();
            assert!(text.starts_with("crash [SIGABRT]: "), "{text}");
            assert!(text.ends_with("running the input"), "{text}");
            assert!(path.with_extension("ra").exists(), "{name}: no case");
            cases.push(path.with_extension("ra"));
        }
    }
    assert!(
        reported >= rounds,
        "only {reported} findings reported in {rounds} campaigns"
    );
    let mut args = vec!["validate".to_string()];
    args.extend(cases.iter().map(|p| p.display().to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out) = rafuzz(&args);
    assert_eq!(code, 0, "{out}");
}

/// The worker processes of campaign `pid` (children of any of its threads).
fn workers_of(pid: u32) -> Vec<u32> {
    let mut v = Vec::new();
    for task in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
    {
        let children = task.unwrap().path().join("children");
        let text = std::fs::read_to_string(children).unwrap_or_default();
        v.extend(
            text.split_whitespace()
                .filter_map(|w| w.parse::<u32>().ok()),
        );
    }
    v
}

#[test]
fn a_worker_killed_from_outside_leaves_its_input_as_a_finding_and_is_replaced() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    if !Path::new("/proc/self/task").exists() {
        eprintln!("skipped: no /proc to find the workers in");
        return;
    }
    let dir = scratch("failure-modes", "kill-worker");
    let artifacts = dir.join("artifacts");
    let child = Command::new(env!("CARGO_BIN_EXE_rafuzz"))
        .args([
            "fuzz",
            "--target",
            "spill_everywhere_checker",
            "--keep-going",
            "--no-reduce",
        ])
        .args([
            "--time",
            "3",
            "--jobs",
            "1",
            "--corpus",
            "no-such-corpus",
            "--artifacts",
        ])
        .arg(&artifacts)
        .current_dir(common::root())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Waits for the worker, then lets it run inputs for a moment, so that
    // the kill lands while it runs one.
    let mut workers = Vec::new();
    for _ in 0..40 {
        std::thread::sleep(Duration::from_millis(50));
        workers = workers_of(child.id());
        if !workers.is_empty() {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(workers.len(), 1, "{workers:?}");
    let killed = Command::new("kill")
        .args(["-KILL", &workers[0].to_string()])
        .status();
    assert!(killed.unwrap().success());
    let out = child.wait_with_output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("FOUND in spill_everywhere_checker: crash [SIGKILL]: the worker process died (SIGKILL) running the input"),
        "{text}"
    );
    // The campaign went on with a new worker after the kill.
    let execs: u64 = text
        .lines()
        .find_map(|l| l.strip_prefix("spill_everywhere_checker"))
        .and_then(|l| l.split_whitespace().next()?.parse().ok())
        .unwrap_or(0);
    assert!(execs > 100, "{text}");
    let saved = std::fs::read_dir(artifacts.join("spill_everywhere_checker"))
        .unwrap()
        .count();
    assert!(saved >= 2, "the input and its message: {saved} files");
}

#[test]
fn scaling_fits_growth_exponents_and_draws_one_line_per_allocator() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("failure-modes", "scaling");
    let svg = dir.join("scaling.svg");
    let (code, out) = rafuzz(&[
        "scaling",
        "--allocator",
        "spill_everywhere",
        "--allocator",
        "linear_scan",
        "--max-insts",
        "2000",
        "--plot",
        svg.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    // Sizes 100, 200, 500, 1000, 2000, each allocator on each.
    for size_row in ["spill_everywhere", "linear_scan"] {
        let rows = out
            .lines()
            .filter(|l| l.starts_with(size_row) && !l.contains(" time "));
        assert_eq!(rows.count(), 5, "{out}");
    }
    let exponent = |name: &str| -> f64 {
        let line = out
            .lines()
            .find(|l| l.starts_with(name) && l.contains(" time "))
            .unwrap_or_else(|| panic!("{out}"));
        line.split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    // spill_everywhere is linear by design; timing noise leaves room.
    let e = exponent("spill_everywhere");
    assert!((0.6..1.5).contains(&e), "{e}\n{out}");
    let plot = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(
        plot.matches("<polyline").count(),
        4,
        "two panels, two lines"
    );
}
