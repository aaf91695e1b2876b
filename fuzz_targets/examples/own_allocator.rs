//! Fuzzing your own allocator through the `Allocator` trait, from outside
//! this repository: implement the trait, describe it with one registry
//! entry, make its checker target, run the built-in engine, and reduce what
//! it finds. Inside the repository the same entry goes into
//! `fuzz_targets/src/registry/mod.rs`, and every target, table and test
//! picks it up.
//!
//!     cargo run --release -p fuzz_targets --example own_allocator -- 30
//!
//! (the argument is the campaign's length in seconds).

use allocator::{AllocError, Allocator, Function, MachineEnv, Output};
use fuzz_targets::registry::{Build, Entry, Family};
use fuzz_targets::tools::reduce::{reduce_input, Input, Options};
use std::time::Duration;

/// Your allocator. `run` gets a valid function and machine and returns one
/// allocation per operand plus the moves it inserts; on a case it cannot
/// handle it returns `AllocError::Unsupported` (counted apart, never a
/// finding), and it never panics.
struct MyAllocator;

impl Allocator for MyAllocator {
    fn name(&self) -> &'static str {
        "my_allocator"
    }

    fn run(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        // Your allocator goes here; this one hands the work to the
        // reference allocator.
        allocator::spill_everywhere::SpillEverywhere.run(func, env)
    }
}

/// What the harness needs to know of it: the cases it takes (the default
/// generator's) and how it is had.
static MINE: Entry = Entry {
    name: "my_allocator",
    target: "my_allocator_checker",
    code: &["own_allocator"],
    family: Family::Ours,
    build: Build::Fixed(&MyAllocator),
    profile: None,
    design_points: false,
    false_refusals: &[],
};

fn main() {
    let secs: f64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10.0);
    // Generate, allocate with MyAllocator, judge with both oracles.
    let target = fuzz_targets::targets::differential::checker_target(&MINE);
    let opts = fuzz_targets::engine::Options {
        time: Some(Duration::from_secs_f64(secs)),
        jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
        ..fuzz_targets::engine::Options::new(vec![target.clone()])
    };
    let report = fuzz_targets::engine::fuzz(&opts, &mut std::io::stderr());
    let execs: u64 = report.rows.iter().map(|r| r.1).sum();
    println!(
        "{execs} cases allocated and checked, {} findings",
        report.findings.len()
    );
    for f in &report.findings {
        println!(
            "FOUND: {}",
            f.failure.to_string().lines().next().unwrap_or("")
        );
        let input = Input::Bytes(std::fs::read(&f.path).expect("the engine saved it"));
        if let Ok(o) = reduce_input(&target, &input, &Options::default()) {
            if let Input::Case(c) = &o.reduced {
                println!("reduced:\n{}", allocator::ir::text::print(c));
            }
        }
    }
    std::process::exit(i32::from(!report.findings.is_empty()));
}
