//! `cargo bench -p fuzz_targets --bench allocate`: each allocator's cost
//! per instruction on 300 functions generated from random 4 KiB inputs
//! (plain timing loop; runs on stable Rust), and its mean moves per case.
//!
//! Three sets: the default generator config (our allocators; regalloc2
//! refuses nearly all of these), then `Config::regalloc2()` and
//! `Config::regalloc2_fastalloc()` (every allocator, regalloc2's too, each
//! timed on the cases it takes).

use allocator::{Allocator, Case};
use rand::{RngCore, SeedableRng};
use std::time::Instant;

fn cases(config: &ssagen::Config) -> Vec<Case> {
    (0..300u64)
        .map(|seed| {
            let mut b = vec![0u8; 4096];
            rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut b);
            ssagen::generate_from_bytes(&b, config)
        })
        .collect()
}

fn bench(a: &dyn Allocator, cases: &[Case]) {
    // Time each allocator on the cases it takes, so a refusal costs nothing.
    let taken: Vec<&Case> = cases
        .iter()
        .filter(|c| a.run(&c.func, &c.machine).is_ok())
        .collect();
    let insts: usize = taken.iter().map(|c| c.func.num_insts()).sum();
    let mut best = f64::MAX;
    let mut moves = 0;
    for _round in 0..5 {
        moves = 0;
        let t = Instant::now();
        for c in &taken {
            if let Ok(out) = std::hint::black_box(a.run(&c.func, &c.machine)) {
                moves += out.edits.len();
            }
        }
        best = best.min(t.elapsed().as_nanos() as f64 / insts.max(1) as f64);
    }
    println!(
        "  {:<20} {best:>7.1} ns/inst  {:>6.1} moves/case  ({} cases taken, {:.0} insts/case)",
        a.name(),
        moves as f64 / taken.len().max(1) as f64,
        taken.len(),
        insts as f64 / taken.len().max(1) as f64
    );
}

fn main() {
    println!("default config (best of 5 rounds):");
    let default = cases(&ssagen::Config::default());
    for a in allocator::allocators() {
        bench(a, &default);
    }
    println!("Config::regalloc2() (best of 5 rounds):");
    let ra2 = cases(&ssagen::Config::regalloc2());
    for a in fuzz_targets::allocators() {
        bench(a, &ra2);
    }
    println!("Config::regalloc2_fastalloc() (best of 5 rounds):");
    let fast = cases(&ssagen::Config::regalloc2_fastalloc());
    for a in fuzz_targets::allocators() {
        bench(a, &fast);
    }
}
