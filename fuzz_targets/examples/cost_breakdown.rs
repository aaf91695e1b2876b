//! `cargo run --release -p fuzz_targets --example cost_breakdown -- A B ...`:
//! the loop-weighted cost of each named allocator over 300 default-config
//! cases (4 KiB inputs, seeds 0 to 299, as `rafuzz compare --generate 300`),
//! split by kind of move: register moves, reloads, stores, memory to memory.
//! Where one allocator loses to another. Last, what taking the cheapest of
//! the named allocators on each case would cost, against the first: how
//! far any of them is from a goal stated against the first.

use allocator::Allocation;
use rand::{RngCore, SeedableRng};
fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    let cases: Vec<allocator::Case> = (0..300u64)
        .map(|seed| {
            let mut b = vec![0u8; 4096];
            rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut b);
            ssagen::generate_from_bytes(&b, &ssagen::Config::default())
        })
        .collect();
    let mut best = vec![f64::INFINITY; cases.len()];
    let mut first = 0.0;
    for (at, n) in names.iter().enumerate() {
        let a = fuzz_targets::registry::allocator_by_name(n, &Default::default()).unwrap();
        let mut k = [0f64; 4];
        let mut c = [0u64; 4];
        for (case, best) in cases.iter().zip(&mut best) {
            let before: f64 = k.iter().sum();
            let out = a.run(&case.func, &case.machine).unwrap();
            let depth = allocator::analysis::loops::loop_depths(&case.func);
            let mem = |x: Allocation| match x {
                Allocation::Stack(_) => true,
                Allocation::Reg(r) => case.machine.fixed_stack[r.class()].contains(&r),
                _ => false,
            };
            for (p, m) in &out.edits {
                if p.inst().index() >= case.func.num_insts() {
                    continue;
                }
                let (kind, w) = match (mem(m.from), mem(m.to)) {
                    (false, false) => (0, 0.2),
                    (true, false) => (1, 4.0),
                    (false, true) => (2, 1.0),
                    (true, true) => (3, 5.0),
                };
                k[kind] += w * 4f64.powi(depth[case.func.block_of(p.inst()).index()].min(5) as i32);
                c[kind] += 1;
            }
            *best = best.min(k.iter().sum::<f64>() - before);
        }
        if at == 0 {
            first = k.iter().sum();
        }
        println!("{n:20} regmove {:10.0} ({:6})  reload {:10.0} ({:6})  store {:10.0} ({:6})  memmem {:10.0} ({:6}) total {:10.0}", k[0], c[0], k[1], c[1], k[2], c[2], k[3], c[3], k.iter().sum::<f64>());
    }
    if names.len() > 1 {
        let b: f64 = best.iter().sum();
        println!(
            "cheapest of them per case: {b:.0} ({:.3}x the first)",
            b / first
        );
    }
}
