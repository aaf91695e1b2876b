//! How much of the generator's output regalloc2 takes: over COUNT generated
//! cases (4 KiB inputs as `rafuzz gen --seed 0..COUNT` makes them), per
//! allocator, the share it allocates, the share it gives up on
//! (`TooManyLiveRegs`) and how often each of its exclusions
//! (`fuzz_targets::outside::ra2::exclusions`) is hit. Each allocator gets its own
//! profile (`Config::regalloc2()`, `Config::regalloc2_fastalloc()`), or the
//! default config when the second argument is `default`. The figures in
//! docs/regalloc2.md come from
//! `cargo run --release -p fuzz_targets --example regalloc2_support -- 2000`.

use allocator::{AllocError, Allocator};
use fuzz_targets::outside::ra2::{self, exclusions::Exclusion};

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let default = std::env::args().nth(2).as_deref() == Some("default");
    println!("{count} generated cases");
    for (a, profile) in [
        (&ra2::ION, fuzz_targets::outside::ra2::profile::regalloc2()),
        (
            &ra2::FASTALLOC,
            fuzz_targets::outside::ra2::profile::fastalloc(),
        ),
    ] {
        let config = if default {
            ssagen::Config::default()
        } else {
            profile
        };
        let mut hits = [0u64; Exclusion::ALL.len()];
        let (mut taken, mut gave_up) = (0u64, 0u64);
        for seed in 0..count {
            let bytes = fuzz_targets::harness::inputs::seeded_bytes(seed, 4096);
            let case = ssagen::generate_from_bytes(&bytes, &config);
            for (k, x) in Exclusion::ALL.iter().enumerate() {
                hits[k] += (x.applies_to(a.algorithm()) && x.hit(&case.func, &case.machine)) as u64;
            }
            match a.run(&case.func, &case.machine) {
                Ok(_) => taken += 1,
                Err(AllocError::Impossible(m)) if m.contains("TooManyLiveRegs") => gave_up += 1,
                Err(_) => {}
            }
        }
        let pct = |n: u64| 100.0 * n as f64 / count as f64;
        println!(
            "{:<22} allocates {:5.1}%, gives up (TooManyLiveRegs) {:5.1}%",
            a.name(),
            pct(taken),
            pct(gave_up)
        );
        for (k, x) in Exclusion::ALL.iter().enumerate() {
            if x.applies_to(a.algorithm()) {
                println!("  {:<30} hit by {:5.1}%", x.name(), pct(hits[k]));
            }
        }
    }
}
