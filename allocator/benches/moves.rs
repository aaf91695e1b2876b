//! `cargo bench -p allocator --bench moves`: small parallel move sets
//! resolved per second (plain timing loop; runs on stable Rust).

use allocator::moves::{MoveContext, MoveResolver, ParallelMove};
use allocator::{Allocation, MachineEnv, PReg, PRegSet, RegClass, SpillSlot};
use rand::{Rng, SeedableRng};
use std::time::Instant;

fn main() {
    // RAFUZZ_BENCH_QUICK=1: a sliver, to check that the bench runs.
    let quick = std::env::var_os("RAFUZZ_BENCH_QUICK").is_some();
    let (count, rounds) = if quick { (100, 1) } else { (10_000, 20) };
    let env = MachineEnv::simple(8);
    let ctx = MoveContext {
        env: &env,
        free: PRegSet::empty(),
        extra_slots: [SpillSlot(100), SpillSlot(101)],
    };
    // 10,000 sets of 1 to 8 moves over 8 registers and 4 slots: permutations
    // (so cycles are common) of a random subset, with some stack moves.
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let locs: Vec<Allocation> = (0..8)
        .map(|hw| Allocation::Reg(PReg::new(hw, RegClass::Int)))
        .chain((0..4).map(|s| Allocation::Stack(SpillSlot(s))))
        .collect();
    let sets: Vec<Vec<ParallelMove>> = (0..count)
        .map(|_| {
            let k = rng.gen_range(1..=8);
            let mut dsts = locs.clone();
            for i in 0..k {
                let j = rng.gen_range(i..dsts.len());
                dsts.swap(i, j);
            }
            (0..k)
                .map(|i| ParallelMove {
                    from: if rng.gen_bool(0.7) {
                        dsts[(i + 1) % k]
                    } else {
                        locs[rng.gen_range(0..locs.len())]
                    },
                    to: dsts[i],
                    class: RegClass::Int,
                })
                .collect()
        })
        .collect();
    let total_moves: usize = sets.iter().map(Vec::len).sum();
    let mut resolver = MoveResolver::new();
    let mut out = Vec::new();
    let mut best = f64::MAX;
    for _ in 0..rounds {
        let t = Instant::now();
        for set in &sets {
            out.clear();
            resolver.resolve(set, &ctx, &mut out);
            std::hint::black_box(&out);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    println!(
        "moves: {:.2} M sets/s, {:.2} M parallel moves/s (best of 20 rounds, {} sets of 1-8 moves, mean {:.1})",
        sets.len() as f64 / best / 1e6,
        total_moves as f64 / best / 1e6,
        sets.len(),
        total_moves as f64 / sets.len() as f64
    );
}
