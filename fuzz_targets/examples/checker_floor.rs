//! The floor under any checker that runs on regalloc2's own types: one walk
//! of the `Function` trait (blocks, parameters, edges, operands, clobbers,
//! branch arguments) and of the `Output` (allocations, edits), building
//! nothing, timed against ion as Cranelift runs it (release options, one
//! `Ctx` kept) and against our checker's entry point
//! (`checker::regalloc2::Ra2Checker`), each the best of nine passes over
//! every function of a directory. What the checker spends beyond the floor
//! is what a fused design could save; the figure in docs/real-code.md comes
//! from `cargo run --profile bench -p fuzz_targets --example checker_floor
//! -- OUT/x86_64-unknown-linux-gnu/ion`.
//!
//! Exits 2 without a directory, 1 when the checker rejects one of ion's
//! allocations (regalloc2's functions it cannot judge are left out).

use allocator::fixtures::{ra_files, read_case};
use fuzz_targets::outside::ra2::adapt;
use regalloc2 as ra2;
use std::time::Instant;

/// A hash of everything a checker reads of `f` and `out`, so that the walk
/// is not optimised away.
fn walk<F: ra2::Function>(f: &F, out: &ra2::Output) -> u64 {
    let mut h = 0u64;
    let mut mix = |x: u64| h = h.wrapping_mul(31).wrapping_add(x);
    for k in 0..f.num_blocks() {
        let b = ra2::Block::new(k);
        f.block_params(b).iter().for_each(|v| mix(v.vreg() as u64));
        f.block_succs(b).iter().for_each(|s| mix(s.index() as u64));
        f.block_preds(b).iter().for_each(|p| mix(p.index() as u64));
        for i in f.block_insns(b).iter() {
            f.inst_operands(i).iter().for_each(|op| mix(op.bits()));
            f.inst_clobbers(i)
                .into_iter()
                .for_each(|r| mix(r.index() as u64));
            if f.is_branch(i) {
                for t in 0..f.block_succs(b).len() {
                    let args = f.branch_blockparams(b, i, t);
                    args.iter().for_each(|v| mix(v.vreg() as u64));
                }
            }
            mix(u64::from(f.is_ret(i)));
        }
    }
    out.allocs.iter().for_each(|a| mix(a.bits() as u64));
    for (p, ra2::Edit::Move { from, to }) in &out.edits {
        mix(p.to_index() as u64 ^ from.bits() as u64 ^ to.bits() as u64);
    }
    h
}

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: checker_floor DIR (a directory of .ra cases)");
        std::process::exit(2);
    };
    let cases: Vec<_> = ra_files(&dir).iter().map(|p| read_case(p)).collect();
    let prepared: Vec<_> = cases
        .iter()
        .map(|c| {
            (
                adapt::Adapted::new(&c.func, &c.machine.slots),
                adapt::machine(&c.machine),
            )
        })
        .collect();
    let options = ra2::RegallocOptions {
        verbose_log: false,
        validate_ssa: false,
        algorithm: ra2::Algorithm::Ion,
    };
    let outs: Vec<_> = prepared
        .iter()
        .map(|(f, env)| ra2::run(f, env, &options).ok())
        .collect();
    let mut ctx = ra2::Ctx::default();
    let mut entry = checker::regalloc2::Ra2Checker::default();
    let (mut walked, mut ion, mut checked) = (f64::MAX, f64::MAX, f64::MAX);
    let mut rejected = 0;
    for _ in 0..9 {
        let t = Instant::now();
        let mut h = 0;
        for ((f, _), out) in prepared.iter().zip(&outs) {
            if let Some(out) = out {
                h ^= walk(f, out);
            }
        }
        std::hint::black_box(h);
        walked = walked.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        for (f, env) in &prepared {
            let _ = std::hint::black_box(ra2::run_with_ctx(f, env, &options, &mut ctx));
        }
        ion = ion.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        rejected = 0;
        for ((f, env), out) in prepared.iter().zip(&outs) {
            if let Some(out) = out {
                let verdict = entry.check(f, env, out);
                rejected += usize::from(matches!(
                    verdict,
                    Err(checker::regalloc2::Rejection::Wrong(_))
                ));
            }
        }
        checked = checked.min(t.elapsed().as_secs_f64());
    }
    println!(
        "{} functions: the walk {:.1} ms ({:.3}x ion's time), ion {:.1} ms, the checker {:.1} ms ({:.3}x ion's, {:.1}x the walk)",
        cases.len(),
        walked * 1e3,
        walked / ion,
        ion * 1e3,
        checked * 1e3,
        checked / ion,
        checked / walked
    );
    if rejected > 0 {
        println!("the checker rejects {rejected} of ion's allocations");
        std::process::exit(1);
    }
}
