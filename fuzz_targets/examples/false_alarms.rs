//! The false-alarm figure of docs/checker.md: over COUNT cases (default
//! 1,000,000) drawn round-robin from every profile (generated at 256, 1024
//! and 4096 bytes, so all three block numberings appear) and, one case in
//! eight, from mutants of the real corpus under its target's profile, each
//! allocated by one allocator that takes the profile (ours, or the outside
//! allocator the profile is for), how often
//!
//! - the symbolic checker and the interpreter disagree on the allocation,
//!   and on one mutant of it (`checker_soundness`'s mutations): a mutant
//!   the interpreter shows wrong that the checker accepts is a checker miss;
//!   one the checker rejects that the interpreter, on its paths, does not
//!   catch is counted apart (the interpreter follows a few paths only);
//! - regalloc2's checker and ours disagree outside the documented places,
//!   with its block-order false alarm counted apart.
//!
//! `cargo run --release -p fuzz_targets --example false_alarms -- 1000000`

use allocator::analysis::numbering::{classify, Numbering};
use allocator::Case;
use fuzz_targets::books::context::{Context, VerdictCounts};
use fuzz_targets::harness::inputs::seeded_bytes;
use fuzz_targets::judging::judge::{MAX_STEPS, PATHS};
use fuzz_targets::outside::ra2::cross_check;
use fuzz_targets::registry::{self, Family, Settings};
use rand::{Rng, SeedableRng};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

#[derive(Default)]
struct Counts {
    cases: AtomicU64,
    by_numbering: [AtomicU64; 3],
    real_mutants: AtomicU64,
    refused: AtomicU64,
    allocations: AtomicU64,
    checker_rejects: AtomicU64,
    interp_diverges: AtomicU64,
    oracles_disagree: AtomicU64,
    mutants: AtomicU64,
    mutant_missed: AtomicU64,
    mutant_only_checker: AtomicU64,
    cross_disagree: AtomicU64,
}

fn main() {
    let count: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let profiles = registry::profiles();
    let settings = Settings::default();
    let real: Vec<(&'static str, Case)> = [
        ("x86_64", "cranelift"),
        ("aarch64", "cranelift-aarch64"),
        ("riscv64gc", "cranelift-riscv64"),
    ]
    .iter()
    .flat_map(|&(dir, p)| {
        let root = allocator::fixtures::repo_root()
            .join("corpus/real")
            .join(dir);
        allocator::fixtures::ra_files(root)
            .into_iter()
            .map(move |path| (p, allocator::fixtures::read_case(&path)))
    })
    .collect();
    let eligible = |profile: &str| -> Vec<std::sync::Arc<dyn allocator::Allocator>> {
        registry::entries()
            .iter()
            .filter(|e| match e.family {
                Family::Ours => true,
                Family::Outside => e.profile.map_or("default", |p| p.name) == profile,
                _ => false,
            })
            .map(|e| e.build(&settings))
            .collect()
    };
    let counts = Counts::default();
    let verdicts = VerdictCounts::default();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    let start = std::time::Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            let (counts, verdicts, real, profiles) = (&counts, &verdicts, &real, &profiles);
            s.spawn(move || {
                let quiet = Context::default();
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(t);
                let mut n = t;
                while n < count {
                    let (profile_name, case) = if n % 8 == 7 {
                        let (p, seed) = &real[rng.gen_range(0..real.len())];
                        let config = (registry::profile(p).unwrap().config)();
                        let m = fuzz_targets::edit::mutate::mutate(
                            seed,
                            &config,
                            rng.gen_range(1..=3),
                            &mut rng,
                        );
                        counts.real_mutants.fetch_add(1, Relaxed);
                        (*p, m)
                    } else {
                        let p = profiles[(n / 8 * 7 + n % 8) as usize % profiles.len()];
                        let size = [256, 1024, 4096][(n % 3) as usize];
                        let case =
                            ssagen::generate_from_bytes(&seeded_bytes(n, size), &(p.config)());
                        (p.name, case)
                    };
                    counts.cases.fetch_add(1, Relaxed);
                    counts.by_numbering[classify(&case.func) as usize].fetch_add(1, Relaxed);
                    let allocators = eligible(profile_name);
                    let a = &*allocators[(n as usize / 3) % allocators.len()];
                    judge(a, &case, n, counts, verdicts, &quiet);
                    n += threads;
                }
            });
        }
    });
    let c = &counts;
    let l = |x: &AtomicU64| x.load(Relaxed);
    println!(
        "{} cases in {:.0} s ({} mutants of real functions); numberings: {} preorder, {} reverse \
         postorder, {} free",
        l(&c.cases),
        start.elapsed().as_secs_f64(),
        l(&c.real_mutants),
        l(&c.by_numbering[Numbering::DomPreorder as usize]),
        l(&c.by_numbering[Numbering::ReversePostorder as usize]),
        l(&c.by_numbering[Numbering::Free as usize]),
    );
    println!(
        "allocations: {} ({} refused); checker rejects {}, interpreter diverges {}; the oracles \
         disagree on {}",
        l(&c.allocations),
        l(&c.refused),
        l(&c.checker_rejects),
        l(&c.interp_diverges),
        l(&c.oracles_disagree)
    );
    println!(
        "mutants: {}; the checker accepts {} the interpreter shows wrong (misses); it rejects {} \
         the interpreter's paths do not catch",
        l(&c.mutants),
        l(&c.mutant_missed),
        l(&c.mutant_only_checker)
    );
    println!(
        "cross-check with regalloc2's checker: {}; disagreements outside the documented places: {}",
        verdicts.report(),
        l(&c.cross_disagree)
    );
}

fn judge(
    a: &dyn allocator::Allocator,
    case: &Case,
    n: u64,
    c: &Counts,
    verdicts: &VerdictCounts,
    _quiet: &Context,
) {
    let run = fuzz_targets::judging::panics::catch(|| a.run(&case.func, &case.machine));
    let Ok(Ok(out)) = run else {
        c.refused.fetch_add(1, Relaxed);
        return;
    };
    c.allocations.fetch_add(1, Relaxed);
    let verdict = |out: &allocator::Output| {
        let rejected = !checker::check(&case.func, &case.machine, out).is_empty();
        let diverged = (0..PATHS)
            .any(|s| checker::interp::run(&case.func, &case.machine, out, s, MAX_STEPS).is_err());
        (rejected, diverged)
    };
    let (rejected, diverged) = verdict(&out);
    c.checker_rejects.fetch_add(rejected as u64, Relaxed);
    c.interp_diverges.fetch_add(diverged as u64, Relaxed);
    c.oracles_disagree.fetch_add(
        (rejected && !diverged || diverged && !rejected) as u64,
        Relaxed,
    );
    if cross_check::cross_check(a.name(), case, &out, verdicts).is_err() {
        c.cross_disagree.fetch_add(1, Relaxed);
        eprintln!(
            "cross-check disagreement ({}, case {n}):\n{}",
            a.name(),
            allocator::ir::text::print(&Case {
                output: Some(out.clone()),
                ..case.clone()
            })
        );
    }
    let bytes = seeded_bytes(n ^ 0x5eed, 64);
    let mut u = arbitrary::Unstructured::new(&bytes);
    let mut ch = ssagen::Choices::new(&mut u);
    if let Some((_, m)) = fuzz_targets::targets::checker_soundness::mutate(case, &out, &mut ch) {
        c.mutants.fetch_add(1, Relaxed);
        let (rejected, diverged) = verdict(&m);
        c.mutant_missed
            .fetch_add((diverged && !rejected) as u64, Relaxed);
        c.mutant_only_checker
            .fetch_add((rejected && !diverged) as u64, Relaxed);
    }
}
