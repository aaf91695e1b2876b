//! `cargo bench -p ssagen`: generation cost per instruction on random 4 KiB
//! inputs (plain timing loop; runs on stable Rust).

use rand::{RngCore, SeedableRng};
use std::time::Instant;

fn main() {
    // RAFUZZ_BENCH_QUICK=1: a sliver, to check that the bench runs.
    let quick = std::env::var_os("RAFUZZ_BENCH_QUICK").is_some();
    let (count, rounds) = if quick { (20u64, 1) } else { (2000, 5) };
    let config = ssagen::Config::default();
    let inputs: Vec<Vec<u8>> = (0..count)
        .map(|seed| {
            let mut b = vec![0u8; 4096];
            rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut b);
            b
        })
        .collect();
    let mut best = f64::MAX;
    for _round in 0..rounds {
        let (mut insts, t) = (0usize, Instant::now());
        for bytes in &inputs {
            let case = ssagen::generate_from_bytes(bytes, &config);
            insts += case.func.num_insts();
            std::hint::black_box(&case);
        }
        best = best.min(t.elapsed().as_nanos() as f64 / insts as f64);
    }
    println!("ssagen: {best:.1} ns/inst (best of 5 rounds over 2000 random 4 KiB inputs)");
}
