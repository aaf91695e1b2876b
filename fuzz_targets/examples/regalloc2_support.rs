//! How much of the generator's output regalloc2 takes: over COUNT generated
//! cases (4 KiB inputs as `rafuzz gen --seed 0..COUNT` makes them, generated
//! with `Config::regalloc2()`, or the default config when the second
//! argument is `default`), the share each of its
//! allocators allocates, and how often each limitation of
//! `fuzz_targets::ra2::unsupported` is hit. The figures in docs/regalloc2.md come from
//! `cargo run --release -p fuzz_targets --example regalloc2_support -- 2000`.

use allocator::AllocError;
use fuzz_targets::ra2::{self, unsupported::Limitation};

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let config = match std::env::args().nth(2).as_deref() {
        Some("default") => ssagen::Config::default(),
        _ => ssagen::Config::regalloc2(),
    };
    let mut hits = [0u64; Limitation::ALL.len()];
    let mut taken = [0u64; 2];
    let mut gave_up = [0u64; 2];
    for seed in 0..count {
        let bytes = fuzz_targets::inputs::seeded_bytes(seed, 4096);
        let case = ssagen::generate_from_bytes(&bytes, &config);
        for (k, l) in Limitation::ALL.iter().enumerate() {
            hits[k] += l.hit(&case.func, &case.machine) as u64;
        }
        for (k, a) in ra2::allocators().iter().enumerate() {
            match a.run(&case.func, &case.machine) {
                Ok(_) => taken[k] += 1,
                Err(AllocError::Unsupported(m)) if m.contains("TooManyLiveRegs") => gave_up[k] += 1,
                Err(_) => {}
            }
        }
    }
    let pct = |n: u64| 100.0 * n as f64 / count as f64;
    println!("{count} generated cases");
    for (k, a) in ra2::allocators().iter().enumerate() {
        println!(
            "{:<22} allocates {:5.1}%, gives up (TooManyLiveRegs) {:5.1}%",
            a.name(),
            pct(taken[k]),
            pct(gave_up[k])
        );
    }
    for (k, l) in Limitation::ALL.iter().enumerate() {
        println!("{:<30} hit by {:5.1}%", l.name(), pct(hits[k]));
    }
}
