//! What the outside allocators refuse, per profile: over COUNT generated
//! cases of each profile (4 KiB inputs, as `rafuzz gen --seed 0..COUNT
//! --profile P` makes them), each outside allocator's share of cases
//! allocated, refused as unsupported (a documented limitation) or
//! suppressed (a known bug), and refused as having no allocation (for the
//! `regalloc` crate: its documented out-of-registers and too-few-registers
//! refusals, counted unsupported by the harness); of the last, the share
//! one of our allocators proved feasible (both oracles
//! accept its allocation). The figures in docs/regalloc2.md and
//! docs/regalloc-rs.md come from
//! `cargo run --release -p fuzz_targets --example refusals -- 300`.

use allocator::AllocError;
use fuzz_targets::harness::inputs::seeded_bytes;
use fuzz_targets::judging::judge::proof_of_feasibility;
use fuzz_targets::registry::{self, Family, Settings};

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(300);
    println!(
        "{count} cases per profile; refusals as the harness sees them by default (exclusions on)\n"
    );
    println!(
        "{:<20} {:<20} {:>9} {:>12} {:>11} {:>12} {:>9}",
        "allocator", "profile", "allocated", "unsupported", "suppressed", "infeasible", "proved"
    );
    for e in registry::entries()
        .iter()
        .filter(|e| e.family == Family::Outside)
    {
        let a = e.build(&Settings::default());
        for p in registry::profiles() {
            let config = (p.config)();
            let (mut ok, mut unsupported, mut suppressed, mut claims, mut proved) = (0, 0, 0, 0, 0);
            for seed in 0..count {
                let case = ssagen::generate_from_bytes(&seeded_bytes(seed, 4096), &config);
                match fuzz_targets::judging::panics::catch(|| a.run(&case.func, &case.machine)) {
                    Ok(Ok(_)) => ok += 1,
                    // The `regalloc` crate's documented giving up for want
                    // of registers: a limitation, but a claim all the same.
                    Ok(Err(AllocError::Unsupported(m)))
                        if m.contains("out-of-registers") || m.contains("too-few-registers") =>
                    {
                        claims += 1;
                        proved += u64::from(proof_of_feasibility(e.name, &case).is_some());
                    }
                    Ok(Err(AllocError::Unsupported(_))) => unsupported += 1,
                    Ok(Err(AllocError::Suppressed(_))) => suppressed += 1,
                    Ok(Err(AllocError::Impossible(_))) => {
                        claims += 1;
                        proved += u64::from(proof_of_feasibility(e.name, &case).is_some());
                    }
                    _ => {}
                }
            }
            let pct = |n: u64| format!("{:.1}%", 100.0 * n as f64 / count as f64);
            println!(
                "{:<20} {:<20} {:>9} {:>12} {:>11} {:>12} {:>9}",
                e.name,
                p.name,
                pct(ok),
                pct(unsupported),
                pct(suppressed),
                pct(claims),
                if claims == 0 {
                    "-".to_string()
                } else {
                    format!("{:.0}%", 100.0 * proved as f64 / claims as f64)
                }
            );
        }
    }
}
