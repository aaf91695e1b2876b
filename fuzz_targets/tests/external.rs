//! Outside programs as allocators (`fuzz_targets::outside::external`): the example
//! program `rafuzz serve` answers exactly what the allocator behind it
//! computes in process; crashes, timeouts and nonsense replies are
//! allocator failures, and the program is restarted after them.

use allocator::{AllocError, Allocator};
use fuzz_targets::outside::external::External;
use std::time::{Duration, Instant};

fn serve(allocator: &str) -> String {
    format!(
        "{} serve --allocator {allocator}",
        env!("CARGO_BIN_EXE_rafuzz")
    )
}

fn cases(n: u64, size: usize) -> Vec<allocator::Case> {
    (0..n)
        .map(|s| {
            ssagen::generate_from_bytes(
                &fuzz_targets::harness::inputs::seeded_bytes(s, size),
                &ssagen::Config::default(),
            )
        })
        .collect()
}

#[test]
fn the_example_program_answers_what_its_allocator_computes() {
    let ext = External::new(&serve("linear_scan"), Duration::from_secs(20));
    for c in cases(60, 2048) {
        let inside = allocator::linear_scan::LinearScan.run(&c.func, &c.machine);
        let outside = ext.run(&c.func, &c.machine);
        assert_eq!(outside, inside, "{}", allocator::ir::text::print(&c));
    }
}

#[test]
fn crashes_timeouts_and_nonsense_are_allocator_failures() {
    let c = &cases(1, 512)[0];
    let run =
        |cmd: &str, ms: u64| External::new(cmd, Duration::from_millis(ms)).run(&c.func, &c.machine);
    let failed = |r: Result<allocator::Output, AllocError>| match r {
        Err(AllocError::Failed(m)) => m,
        other => panic!("expected a failure, got {other:?}"),
    };
    let m = failed(run("echo dying >&2; exit 3", 5000));
    assert!(
        m.starts_with("the program exited (exit status: 3) before answering"),
        "{m}"
    );
    assert!(m.contains("dying"), "{m}");
    let m = failed(run("sleep 10", 200));
    assert_eq!(m, "the program did not answer within 200 ms");
    let m = failed(run(
        "while read l; do case $l in end) echo nonsense; echo end;; esac; done",
        5000,
    ));
    assert!(
        m.starts_with("the reply is not an allocation of the case: "),
        "{m}"
    );
    let reply = |line: &str| {
        format!(
            "while read l; do case $l in end) n=$((n+1)); [ $n = 2 ] && echo '{line}';; esac; done"
        )
    };
    assert_eq!(
        run(&reply("unsupported: no vector registers here"), 5000),
        Err(AllocError::Unsupported("no vector registers here".into()))
    );
    assert_eq!(
        run(&reply("error: out of registers"), 5000),
        Err(AllocError::Impossible("out of registers".into()))
    );
}

#[test]
fn a_dead_program_is_restarted_for_the_next_case() {
    let dir = std::env::temp_dir().join(format!("rafuzz-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let count = dir.join("starts");
    // Each start appends a line; the program dies after its first answer.
    let cmd = format!(
        "echo x >> {}; {} | (IFS= read -r first; printf '%s\\n' \"$first\"; while IFS= read -r l; do printf '%s\\n' \"$l\"; [ \"$l\" = end ] && exit 0; done)",
        count.display(),
        serve("spill_everywhere")
    );
    let ext = External::new(&cmd, Duration::from_secs(20));
    let cs = cases(3, 256);
    let mut failures = 0;
    for c in &cs {
        if ext.run(&c.func, &c.machine).is_err() {
            failures += 1;
        }
    }
    let starts = std::fs::read_to_string(&count).unwrap().lines().count();
    assert!(starts >= 2, "the program was started {starts} times");
    assert!(failures < cs.len(), "every case failed");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn small_cases_go_through_the_protocol_quickly() {
    let ext = External::new(&serve("spill_everywhere"), Duration::from_secs(20));
    let cs = cases(300, 256);
    let t = Instant::now();
    for c in &cs {
        ext.run(&c.func, &c.machine).unwrap();
    }
    let per_sec = cs.len() as f64 / t.elapsed().as_secs_f64();
    // The release build sustains about 4,800 cases/s on one core; this test
    // runs the debug build.
    assert!(per_sec >= 200.0, "{per_sec:.0} cases/s");
}
