//! `cargo bench -p fuzz_targets --bench allocate`: each allocator's cost
//! per instruction on 300 functions generated from random 4 KiB inputs
//! (plain timing loop; runs on stable Rust), and its mean moves per case.

use rand::{RngCore, SeedableRng};
use std::time::Instant;

fn main() {
    let config = ssagen::Config::default();
    let cases: Vec<allocator::Case> = (0..300u64)
        .map(|seed| {
            let mut b = vec![0u8; 4096];
            rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut b);
            ssagen::generate_from_bytes(&b, &config)
        })
        .collect();
    let insts: usize = cases.iter().map(|c| c.func.num_insts()).sum();
    for a in allocator::allocators() {
        let mut best = f64::MAX;
        let mut moves = 0;
        for _round in 0..5 {
            moves = 0;
            let t = Instant::now();
            for c in &cases {
                if let Ok(out) = std::hint::black_box(a.run(&c.func, &c.machine)) {
                    moves += out.edits.len();
                }
            }
            best = best.min(t.elapsed().as_nanos() as f64 / insts as f64);
        }
        println!(
            "{:<18} {best:>7.1} ns/inst  {:>6.1} moves/case  (best of 5 rounds, {} cases, {:.0} insts/case)",
            a.name(),
            moves as f64 / cases.len() as f64,
            cases.len(),
            insts as f64 / cases.len() as f64
        );
    }
}
