//! What structure-aware mutation of real cases buys against generation, on
//! Cranelift's input domain: for each planted wrong-allocation fault
//! (`fuzz_targets/src/testing/faults.rs`), the share of COUNT cases that
//! reveal it, (a) generated under `--profile cranelift` (seeds 0..COUNT,
//! SIZE bytes) and (b) mutants of the real x86-64 corpus
//! (`corpus/real/x86_64`, one to three edits each, as the engine makes
//! them); then the distinct features (the engine's own coverage signal)
//! each set reaches on `linear_scan_checker` and `regalloc2_ion_checker`.
//! The fault benchmark's time to detection is under 0.01 s either way for
//! these faults; these rates tell the two apart.
//!
//! `cargo run --release -p fuzz_targets --example mutation_rates -- [COUNT] [SIZE]`

use fuzz_targets::books::context::Context;
use fuzz_targets::harness::narrowing::Narrowing;
use rand::{Rng, SeedableRng};

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|s| s.parse().ok())
        .collect();
    let count = args.first().copied().unwrap_or(1000);
    let size = args.get(1).copied().unwrap_or(512);
    let profile = &fuzz_targets::outside::cranelift::X86_64;
    let config = (profile.config)();
    let generated: Vec<allocator::Case> = (0..count as u64)
        .map(|s| {
            let bytes = fuzz_targets::harness::inputs::seeded_bytes(s, size);
            ssagen::generate_from_bytes(&bytes, &config)
        })
        .collect();
    let seeds: Vec<allocator::Case> = allocator::fixtures::ra_files("corpus/real/x86_64")
        .iter()
        .map(|p| allocator::fixtures::read_case(p))
        .collect();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let mutants: Vec<allocator::Case> = (0..count)
        .map(|k| {
            let steps = rng.gen_range(1..=3);
            fuzz_targets::edit::mutate::mutate(&seeds[k % seeds.len()], &config, steps, &mut rng)
        })
        .collect();
    let narrowing = Narrowing {
        profile: Some(profile),
        ..Narrowing::default()
    };
    let ctx = Context::with_settings(narrowing.settings());
    let rate = |name: &str, cases: &[allocator::Case]| {
        let t = fuzz_targets::targets::target_by_name(name)
            .expect("target")
            .narrowed(&narrowing);
        let hits = cases
            .iter()
            .filter(|c| matches!(t.case_failure(c, &ctx), Some(Some(_))))
            .count();
        hits as f64 / cases.len() as f64
    };
    println!("share of {count} cases that reveal the fault (cranelift profile, x86-64)");
    println!(
        "{:<28} {:>10} {:>10} {:>7}",
        "fault", "generated", "mutants", "ratio"
    );
    let (mut sg, mut sm, mut n) = (0.0, 0.0, 0.0);
    for f in fuzz_targets::testing::faults::FAULTY.iter() {
        let name = f.target_name();
        if fuzz_targets::testing::faults::NOT_WRONG_ALLOCATIONS.contains(&name) {
            continue;
        }
        let (g, m) = (rate(name, &generated), rate(name, &mutants));
        println!(
            "{name:<28} {:>9.1}% {:>9.1}% {:>7.2}",
            100.0 * g,
            100.0 * m,
            m / g.max(1e-9)
        );
        (sg, sm, n) = (sg + g, sm + m, n + 1.0);
    }
    println!(
        "{:<28} {:>9.1}% {:>9.1}% {:>7.2}",
        "mean",
        100.0 * sg / n,
        100.0 * sm / n,
        sm / sg.max(1e-9)
    );
    for name in ["linear_scan_checker", "regalloc2_ion_checker"] {
        let t = fuzz_targets::targets::target_by_name(name)
            .expect("target")
            .narrowed(&narrowing);
        let reach = |cases: &[allocator::Case]| {
            let mut all = std::collections::HashSet::new();
            let mut buf = Vec::new();
            for c in cases {
                buf.clear();
                fuzz_targets::books::features::collect(&mut buf, || t.case_failure(c, &ctx));
                all.extend(buf.iter().copied());
            }
            all
        };
        let (g, m) = (reach(&generated), reach(&mutants));
        let both = g.intersection(&m).count();
        println!(
            "{name}: features reached: generated {}, mutants {}, both {both}, only by mutants {}",
            g.len(),
            m.len(),
            m.len() - both
        );
    }
}
