//! How often one generated case reveals each planted wrong-allocation fault
//! (`fuzz_targets/src/faults.rs`), with a single config (the default) and
//! with swarm generation (`--swarm`): the share of COUNT inputs of SIZE bytes
//! (seeds 0..COUNT, as `rafuzz gen --seed` makes them) on which the fault's
//! target fails. The fault benchmark's time to detection is under 0.01 s
//! for these faults either way; this rate tells the two apart. The
//! failure-mode faults (hangs, aborts, blow-ups) are left out: they would
//! stop this process. Then the same for regalloc2's known bugs, real ones:
//! the share of inputs on which its checker targets fail with suppression
//! off (`--no-suppress`).
//!
//! `cargo run --release -p fuzz_targets --example fault_rates -- [COUNT] [SIZE]`

use fuzz_targets::books::context::Context;
use fuzz_targets::harness::narrowing::Narrowing;

fn main() {
    let arg = |k: usize, default: u64| {
        std::env::args()
            .nth(k)
            .and_then(|s| s.parse().ok())
            .unwrap_or(default)
    };
    let (count, size) = (arg(1, 2000), arg(2, 512) as usize);
    println!("share of {count} inputs of {size} bytes that reveal the fault");
    println!(
        "{:<42} {:>8} {:>8} {:>7}",
        "fault", "single", "swarm", "ratio"
    );
    // The share of inputs on which the target fails.
    let rate = |name: &str, swarm: bool, no_suppress: bool| {
        let target = fuzz_targets::targets::target_by_name(name).expect("target");
        let narrowing = Narrowing {
            swarm,
            no_suppress,
            ..Narrowing::default()
        };
        let t = target.narrowed(&narrowing);
        let ctx = Context::with_settings(narrowing.settings());
        let hits = (0..count)
            .filter(|&seed| {
                let bytes = fuzz_targets::harness::inputs::seeded_bytes(seed, size);
                t.failure(&bytes, &ctx).is_some()
            })
            .count();
        hits as f64 / count as f64
    };
    let row = |name: &str, single: f64, swarm: f64| {
        println!(
            "{name:<42} {:>7.1}% {:>7.1}% {:>7.2}",
            100.0 * single,
            100.0 * swarm,
            swarm / single.max(1e-9)
        )
    };
    let (mut sum_single, mut sum_swarm, mut n) = (0.0, 0.0, 0.0);
    for f in fuzz_targets::testing::faults::FAULTY.iter() {
        let name = f.target_name();
        if fuzz_targets::testing::faults::NOT_WRONG_ALLOCATIONS.contains(&name) {
            continue;
        }
        let (single, swarm) = (rate(name, false, false), rate(name, true, false));
        row(name, single, swarm);
        sum_single += single;
        sum_swarm += swarm;
        n += 1.0;
    }
    row("mean of the planted faults", sum_single / n, sum_swarm / n);
    #[cfg(feature = "regalloc2")]
    for name in ["regalloc2_ion_checker", "regalloc2_fastalloc_checker"] {
        let (single, swarm) = (rate(name, false, true), rate(name, true, true));
        row(&format!("{name} (known bugs)"), single, swarm);
    }
}
