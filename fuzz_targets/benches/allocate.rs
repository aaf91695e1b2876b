//! `cargo bench -p fuzz_targets --bench allocate`: each allocator's cost
//! per instruction on 300 functions generated from random 4 KiB inputs
//! (plain timing loop; runs on stable Rust), its mean moves per case and
//! its loop-weighted cost per case (`fuzz_targets::books::quality::Quality::of`);
//! then the backtracking and graph-coloring allocators against
//! `regalloc2_ion` and the linear scan on exactly the cases both take, timed
//! in the same run, as ratios.
//!
//! Then real code: the committed real corpus (`corpus/real/x86_64`), or
//! with `RAFUZZ_BENCH_REAL=DIR` only the cases of DIR (a full capture),
//! per program, every allocator against `regalloc2_ion`.
//!
//! Five sets: the default generator config (ion refuses nearly all of
//! these, so the ones it takes among 3,000 are compared apart), then `Config::regalloc2()`, `Config::regalloc2_fastalloc()` and
//! `Config::regalloc_rs_lsra()` (every allocator, the outside ones too,
//! each timed on the cases it takes; the `regalloc` crate's without its own
//! checker), and what both outside families take, for the two against
//! regalloc2's ion.

use allocator::{Allocator, Case};
use rand::{RngCore, SeedableRng};
use std::time::Instant;

/// `RAFUZZ_BENCH_QUICK=1`: every loop cut to a sliver, to check that the
/// bench runs (scripts/figure-commands.sh), not to measure.
fn quick() -> bool {
    std::env::var_os("RAFUZZ_BENCH_QUICK").is_some()
}

/// `full`, or a thirtieth of it (at least one) when [`quick`].
fn sized(full: u64) -> u64 {
    if quick() {
        (full / 30).max(1)
    } else {
        full
    }
}

fn cases(config: &ssagen::Config) -> Vec<Case> {
    cases_of(config, 0..sized(300))
}

fn cases_of(config: &ssagen::Config, seeds: std::ops::Range<u64>) -> Vec<Case> {
    seeds
        .map(|seed| {
            let mut b = vec![0u8; 4096];
            rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut b);
            ssagen::generate_from_bytes(&b, config)
        })
        .collect()
}

/// One round of `a` over `cases`: nanoseconds per instruction.
fn round(a: &dyn Allocator, cases: &[&Case]) -> f64 {
    let insts: usize = cases.iter().map(|c| c.func.num_insts()).sum();
    let t = Instant::now();
    for c in cases {
        let _ = std::hint::black_box(a.run(&c.func, &c.machine));
    }
    t.elapsed().as_nanos() as f64 / insts.max(1) as f64
}

/// Best-of-5 time per instruction, moves per case and cost per case of `a`
/// on `cases` (all of which it takes).
fn measure(a: &dyn Allocator, cases: &[&Case]) -> (f64, f64, f64) {
    let best = (0..sized(5))
        .map(|_| round(a, cases))
        .fold(f64::MAX, f64::min);
    let (moves, cost) = judge(a, cases);
    (best, moves, cost)
}

/// Moves and cost per case, judged apart from the timing, so that the time
/// is the allocator's alone.
fn judge(a: &dyn Allocator, cases: &[&Case]) -> (f64, f64) {
    let (mut moves, mut cost) = (0, 0);
    for c in cases {
        if let Ok(out) = a.run(&c.func, &c.machine) {
            moves += out.edits.len();
            cost += fuzz_targets::books::quality::Quality::of(c, Some(&out)).cost_tenths;
        }
    }
    let n = cases.len().max(1) as f64;
    (moves as f64 / n, cost as f64 / 10.0 / n)
}

fn taken<'a>(a: &dyn Allocator, cases: &'a [Case]) -> Vec<&'a Case> {
    cases
        .iter()
        .filter(|c| a.run(&c.func, &c.machine).is_ok())
        .collect()
}

fn bench(a: &dyn Allocator, cases: &[Case]) {
    // Time each allocator on the cases it takes, so a refusal costs nothing.
    let taken = taken(a, cases);
    let insts: usize = taken.iter().map(|c| c.func.num_insts()).sum();
    let (ns, moves, cost) = measure(a, &taken);
    println!(
        "  {:<20} {ns:>7.1} ns/inst  {moves:>6.1} moves/case  cost {cost:>8.1}/case  ({} cases taken, {:.0} insts/case)",
        a.name(),
        taken.len(),
        insts as f64 / taken.len().max(1) as f64
    );
}

/// `a` against `b` on the cases both take: time and cost ratios.
fn versus(a: &dyn Allocator, b: &dyn Allocator, cases: &[Case]) {
    let both: Vec<&Case> = taken(a, cases)
        .into_iter()
        .filter(|c| b.run(&c.func, &c.machine).is_ok())
        .collect();
    if both.is_empty() {
        println!("  {} vs {}: no case both take", a.name(), b.name());
        return;
    }
    // Rounds alternate, best of 9 each, so that a drift of the machine's
    // speed during the run favours neither.
    let (mut ta, mut tb) = (f64::MAX, f64::MAX);
    for _ in 0..sized(9) {
        ta = ta.min(round(a, &both));
        tb = tb.min(round(b, &both));
    }
    let ((_, ca), (_, cb)) = (judge(a, &both), judge(b, &both));
    println!(
        "  {} vs {} on the {} cases both take: time {:.2}x ({ta:.0} / {tb:.0} ns/inst), cost {:.2}x ({ca:.1} / {cb:.1})",
        a.name(),
        b.name(),
        both.len(),
        ta / tb,
        ca / cb.max(f64::MIN_POSITIVE)
    );
}

/// Real code: the `.ra` cases of `dir` (a capture's `<target>/ion`, or the
/// committed selection), grouped by program (the file name before its
/// call number). Per program, each allocator against `regalloc2_ion` on the
/// functions both take (time and cost ratios, timed in the same run), and
/// the function where each of ours is slowest against ion.
fn real_code(dir: &str, all: &[&dyn Allocator], ion: &dyn Allocator) {
    let files = fuzz_targets::harness::inputs::expand_inputs(&[dir]);
    let mut programs: Vec<(String, Vec<Case>)> = Vec::new();
    for f in files
        .iter()
        .filter(|p| p.extension().is_some_and(|x| x == "ra"))
    {
        let stem = f.file_stem().unwrap().to_string_lossy().to_string();
        let program = stem
            .rsplit_once('-')
            .map_or(stem.clone(), |(p, _)| p.to_string());
        let case = allocator::fixtures::read_case(f);
        match programs.iter_mut().find(|(p, _)| *p == program) {
            Some((_, v)) => v.push(case),
            None => programs.push((program, vec![case])),
        }
    }
    for (program, cases) in &programs {
        let insts: usize = cases.iter().map(|c| c.func.num_insts()).sum();
        println!(
            "real code, {program} ({} functions, {insts} instructions, from {dir}):",
            cases.len()
        );
        bench(ion, cases);
        for a in all.iter().copied().filter(|a| a.name() != ion.name()) {
            versus(a, ion, cases);
        }
        for a in all
            .iter()
            .copied()
            .filter(|a| !a.name().starts_with("regalloc"))
        {
            let (mut worst, mut at) = (0.0f64, 0);
            for c in cases.iter().filter(|c| c.func.num_insts() >= 50) {
                let one = [c];
                let (ta, tb) = (round(a, &one), round(ion, &one));
                // One run of a short function can meet a page fault or a
                // context switch: a ratio above 2 is timed again, best of
                // five each.
                let best = |x: &dyn Allocator| {
                    (0..sized(5))
                        .map(|_| round(x, &one))
                        .fold(f64::MAX, f64::min)
                };
                let ratio = if ta / tb > 2.0 {
                    best(a) / best(ion)
                } else {
                    ta / tb
                };
                if ratio > worst {
                    (worst, at) = (ratio, c.func.num_insts());
                }
            }
            println!(
                "  {} at worst {worst:.2}x ion's time on one function ({at} insts)",
                a.name()
            );
        }
    }
}

use fuzz_targets::registry::Settings;

fn main() {
    // The allocators alone: the `regalloc` crate's own checker off.
    let settings = Settings {
        own_checker: false,
        ..Settings::default()
    };
    let fuzzed = fuzz_targets::registry::allocators(&settings);
    let all: Vec<&dyn Allocator> = fuzzed.iter().map(|a| &**a).collect();
    let by_name = |n: &str| *all.iter().find(|a| a.name() == n).expect("registered");
    let (bt, ion, ls, gc) = (
        by_name("backtracking"),
        by_name("regalloc2_ion"),
        by_name("linear_scan"),
        by_name("coloring"),
    );
    // RAFUZZ_BENCH_REAL=DIR: real code only (a full capture's
    // <target>/ion); by default the committed selection runs after the rest.
    if let Ok(dir) = std::env::var("RAFUZZ_BENCH_REAL") {
        real_code(&dir, &all, ion);
        return;
    }
    println!("default config (best of 5 rounds):");
    let default = cases(&ssagen::Config::default());
    for a in all.iter().copied() {
        bench(a, &default);
    }
    versus(bt, ls, &default);
    versus(bt, ion, &default);
    versus(gc, ls, &default);
    // Ion takes few default cases: those it takes among 3,000.
    let rare: Vec<Case> = cases_of(&ssagen::Config::default(), 0..sized(3000))
        .into_iter()
        .filter(|c| ion.run(&c.func, &c.machine).is_ok())
        .collect();
    println!(
        "default config, the {} of 3,000 cases ion takes:",
        rare.len()
    );
    versus(bt, ion, &rare);
    versus(gc, ion, &rare);
    println!("Config::regalloc2() (best of 5 rounds):");
    let ra2 = cases(&fuzz_targets::outside::ra2::profile::regalloc2());
    for a in all.iter().copied() {
        bench(a, &ra2);
    }
    versus(bt, ion, &ra2);
    versus(bt, ls, &ra2);
    versus(ls, ion, &ra2);
    versus(gc, ion, &ra2);
    versus(gc, ls, &ra2);
    // What passive splitting pays: the same allocator without it.
    let nosplit = fuzz_targets::registry::allocator_by_name("coloring_nosplit", &settings)
        .expect("a variant");
    let nosplit = &*nosplit;
    versus(gc, nosplit, &default);
    versus(gc, nosplit, &ra2);
    println!("Config::regalloc2_fastalloc() (best of 5 rounds):");
    let fast = cases(&fuzz_targets::outside::ra2::profile::fastalloc());
    for a in all.iter().copied() {
        bench(a, &fast);
    }
    if cfg!(feature = "regalloc_rs") {
        println!("Config::regalloc_rs_lsra() (best of 5 rounds):");
        let rs = cases(&fuzz_targets::outside::regalloc_rs::profile::lsra());
        for a in all.iter().copied() {
            bench(a, &rs);
        }
        let (rbt, rls) = (by_name("regalloc_rs_bt"), by_name("regalloc_rs_lsra"));
        versus(rbt, rls, &rs);
        versus(bt, rbt, &rs);
        versus(ls, rls, &rs);
        versus(gc, rbt, &rs);
        versus(ls, rbt, &rs);
        // What both outside families take: regalloc2's profile less what
        // the crate's linear scan cannot be handed and its known bugs.
        let mut common = fuzz_targets::outside::ra2::profile::regalloc2();
        common.constraints.stack = false;
        common.constraints.limit = false;
        common.stack_defs = false;
        common.operands_in_registers = true;
        common.in_place_with_writes = false;
        common.branch_defs = false;
        common.machine.scratch_always = true;
        println!("regalloc2() within regalloc_rs_lsra() (best of 5 rounds):");
        let common = cases(&common);
        for a in [ion, rbt, rls, bt, ls, gc] {
            bench(a, &common);
        }
        versus(rbt, ion, &common);
        versus(rls, ion, &common);
        versus(bt, ion, &common);
        versus(ls, ion, &common);
    }
    let real = allocator::fixtures::repo_root().join("corpus/real/x86_64");
    real_code(&real.display().to_string(), &all, ion);
}
