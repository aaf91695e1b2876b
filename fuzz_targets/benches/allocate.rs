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
//! per program, every allocator and our symbolic checker against
//! `regalloc2_ion`: time, loop-weighted cost and peak heap, each also as a
//! `table` line that `scripts/real-code-table.sh` gathers into
//! docs/real-code.md's table, and an `identity` line per allocator and
//! program: a hash of every output, equal before and after a change that
//! claims to keep them. `RAFUZZ_BENCH_ONLY=NAME,...` times only those
//! allocators (`checker` for the checker) in the real-code section.
//!
//! Five sets: the default generator config (ion refuses nearly all of
//! these, so the ones it takes among 3,000 are compared apart), then `Config::regalloc2()`, `Config::regalloc2_fastalloc()` and
//! `Config::regalloc_rs_lsra()` (every allocator, the outside ones too,
//! each timed on the cases it takes; the `regalloc` crate's without its own
//! checker), and what both outside families take, for the two against
//! regalloc2's ion.

use allocator::ir::validate::Validator;
use allocator::{Allocator, Case};
use fuzz_targets::outside::ra2::adapt;
use rand::{RngCore, SeedableRng};
use regalloc2 as ra2;
use std::time::Instant;

/// Heap bytes held, counted by the bench's global allocator, so that each
/// allocator's (and the checker's) peak on a function can be reported
/// beside ion's. The bench is single-threaded, so the counters are plain
/// loads and stores (an atomic read-modify-write on every allocation and
/// free would cost an allocator in proportion to how often it allocates,
/// which a compiler's allocator does not pay).
mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    pub struct Counting;

    static NOW: AtomicUsize = AtomicUsize::new(0);
    static PEAK: AtomicUsize = AtomicUsize::new(0);

    fn grew(n: usize) {
        let now = NOW.load(Relaxed) + n;
        NOW.store(now, Relaxed);
        if now > PEAK.load(Relaxed) {
            PEAK.store(now, Relaxed);
        }
    }

    fn shrank(n: usize) {
        NOW.store(NOW.load(Relaxed).wrapping_sub(n), Relaxed);
    }

    // SAFETY: every call is passed on to `System` unchanged; the counters
    // only observe sizes.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            let p = unsafe { System.alloc(l) };
            if !p.is_null() {
                grew(l.size());
            }
            p
        }
        unsafe fn alloc_zeroed(&self, l: Layout) -> *mut u8 {
            let p = unsafe { System.alloc_zeroed(l) };
            if !p.is_null() {
                grew(l.size());
            }
            p
        }
        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            unsafe { System.dealloc(p, l) };
            shrank(l.size());
        }
        unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
            let q = unsafe { System.realloc(p, l, new) };
            if !q.is_null() {
                shrank(l.size());
                grew(new);
            }
            q
        }
    }

    /// What `f` returns, and the most heap it held at once beyond what was
    /// held when it started (its result included).
    pub fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
        let base = NOW.load(Relaxed);
        PEAK.store(base, Relaxed);
        let r = f();
        (r, PEAK.load(Relaxed).saturating_sub(base))
    }
}

#[global_allocator]
static HEAP: heap::Counting = heap::Counting;

/// Bytes as MB, one decimal.
fn mb(bytes: usize) -> f64 {
    bytes as f64 / 1e6
}

/// `RAFUZZ_BENCH_QUICK=1`: every loop cut to a sliver, to check that the
/// bench runs (scripts/figure-commands.sh), not to measure.
fn quick() -> bool {
    std::env::var_os("RAFUZZ_BENCH_QUICK").is_some()
}

/// `RAFUZZ_BENCH_ONLY=NAME,...`: in the real-code section, only these
/// allocators (and `checker`) against ion, to time one while changing it.
fn only(name: &str) -> bool {
    std::env::var("RAFUZZ_BENCH_ONLY").map_or(true, |v| v.split(',').any(|n| n == name))
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
    let (moves, cost, _, _) = judge(a, cases);
    (best, moves, cost)
}

/// Moves and cost per case, judged apart from the timing, so that the time
/// is the allocator's alone, and the largest peak heap of one run.
fn judge(a: &dyn Allocator, cases: &[&Case]) -> (f64, f64, usize, u64) {
    use std::hash::{Hash, Hasher};
    let (mut moves, mut cost, mut peak) = (0, 0, 0);
    let mut digest = std::hash::DefaultHasher::new();
    for c in cases {
        let (out, bytes) = heap::peak_of(|| a.run(&c.func, &c.machine));
        peak = peak.max(bytes);
        out.as_ref().ok().hash(&mut digest);
        if let Ok(out) = out {
            moves += out.edits.len();
            cost += fuzz_targets::books::quality::Quality::of(c, Some(&out)).cost_tenths;
        }
    }
    let n = cases.len().max(1) as f64;
    (
        moves as f64 / n,
        cost as f64 / 10.0 / n,
        peak,
        digest.finish(),
    )
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

/// `a` against `b` on the cases both take: time and cost ratios, and
/// each one's largest peak heap on one case.
fn versus(a: &dyn Allocator, b: &dyn Allocator, cases: &[Case]) -> Option<Versus> {
    let both: Vec<&Case> = taken(a, cases)
        .into_iter()
        .filter(|c| b.run(&c.func, &c.machine).is_ok())
        .collect();
    if both.is_empty() {
        println!("  {} vs {}: no case both take", a.name(), b.name());
        return None;
    }
    let (ta, tb) = race(|| round(a, &both), || round(b, &both));
    let ((_, ca, pa, _), (_, cb, pb, _)) = (judge(a, &both), judge(b, &both));
    Some(Versus::report(
        &format!(
            "{} vs {} on the {} cases both take",
            a.name(),
            b.name(),
            both.len()
        ),
        (ta, tb),
        (ca, cb),
        (pa, pb),
    ))
}

/// The best of 9 rounds of each of two timings, the rounds alternating so
/// that a drift of the machine's speed during the run favours neither.
fn race(mut a: impl FnMut() -> f64, mut b: impl FnMut() -> f64) -> (f64, f64) {
    let (mut ta, mut tb) = (f64::MAX, f64::MAX);
    for _ in 0..sized(9) {
        ta = ta.min(a());
        tb = tb.min(b());
    }
    (ta, tb)
}

impl Versus {
    /// The multiples of one side's time (ns per instruction), cost and
    /// peak heap (bytes) against the other's, printed after `what`.
    fn report(
        what: &str,
        (ta, tb): (f64, f64),
        (ca, cb): (f64, f64),
        peak: (usize, usize),
    ) -> Versus {
        let v = Versus {
            time: ta / tb,
            cost: ca / cb.max(f64::MIN_POSITIVE),
            peak,
            worst: None,
        };
        println!(
            "  {what}: time {:.2}x ({ta:.0} / {tb:.0} ns/inst), cost {:.2}x ({ca:.1} / {cb:.1}), peak heap {:.1} / {:.1} MB",
            v.time,
            v.cost,
            mb(peak.0),
            mb(peak.1)
        );
        v
    }
}

/// One allocator (or the checker) against another, timed in one run.
struct Versus {
    time: f64,
    cost: f64,
    /// The largest peak heap of one case, each side's.
    peak: (usize, usize),
    /// The worst single function against ion's time, and its size (for
    /// our allocators on real code).
    worst: Option<(f64, usize)>,
}

/// regalloc2's ion as Cranelift runs it, the yardstick for real code: on
/// functions already in regalloc2's types (the adapter's conversion is made
/// beforehand, outside the timing, as Cranelift's `VCode` needs none), with
/// a release build's options (no SSA validation, no verbose log) and one
/// `Ctx` reused from function to function. The harness's `regalloc2_ion`
/// pays for more: the validator, the exclusion checks, the conversions,
/// and its four ways of calling regalloc2.
struct IonAsCranelift<'a> {
    cases: &'a [Case],
    prepared: Vec<(adapt::Adapted<'a>, ra2::MachineEnv)>,
    ctx: std::cell::RefCell<ra2::Ctx>,
    /// Each case's peak heap under ion, measured once when first asked.
    peaks: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> IonAsCranelift<'a> {
    const OPTIONS: ra2::RegallocOptions = ra2::RegallocOptions {
        verbose_log: false,
        validate_ssa: false,
        algorithm: ra2::Algorithm::Ion,
    };

    fn new(cases: &'a [Case]) -> Self {
        IonAsCranelift {
            cases,
            prepared: cases
                .iter()
                .map(|c| {
                    (
                        adapt::Adapted::new(&c.func, &c.machine.slots),
                        adapt::machine(&c.machine),
                    )
                })
                .collect(),
            ctx: Default::default(),
            peaks: Default::default(),
        }
    }

    /// One round over the cases `sel` (indices): nanoseconds per
    /// instruction.
    fn round(&self, sel: &[usize]) -> f64 {
        let insts: usize = sel.iter().map(|&k| self.cases[k].func.num_insts()).sum();
        let mut ctx = self.ctx.borrow_mut();
        let t = Instant::now();
        for &k in sel {
            let (f, env) = &self.prepared[k];
            let _ = std::hint::black_box(ra2::run_with_ctx(f, env, &Self::OPTIONS, &mut ctx));
        }
        t.elapsed().as_nanos() as f64 / insts.max(1) as f64
    }

    /// Case `k`'s allocation, from a fresh `Ctx`.
    fn output(&self, k: usize) -> Option<ra2::Output> {
        let (f, env) = &self.prepared[k];
        ra2::run(f, env, &Self::OPTIONS).ok()
    }

    /// The most heap ion held at once on any of the cases `sel`, each run
    /// from a fresh `Ctx`.
    fn peak(&self, sel: &[usize]) -> usize {
        let peaks = self.peaks.get_or_init(|| {
            (0..self.cases.len())
                .map(|k| heap::peak_of(|| self.output(k)).1)
                .collect()
        });
        sel.iter().map(|&k| peaks[k]).max().unwrap_or(0)
    }
}

/// `a` against ion as Cranelift runs it ([`IonAsCranelift`]), on the cases
/// both take (ion's by the harness's `regalloc2_ion`, which also gives
/// ion's cost): rounds alternate, best of 9 each.
fn versus_ion(
    program: &str,
    a: &dyn Allocator,
    ion: &dyn Allocator,
    fair: &IonAsCranelift,
    cases: &[Case],
) -> Option<Versus> {
    let sel: Vec<usize> = (0..cases.len())
        .filter(|&k| {
            let c = &cases[k];
            a.run(&c.func, &c.machine).is_ok() && ion.run(&c.func, &c.machine).is_ok()
        })
        .collect();
    if sel.is_empty() {
        println!("  {} vs ion: no case both take", a.name());
        return None;
    }
    let both: Vec<&Case> = sel.iter().map(|&k| &cases[k]).collect();
    let (ta, tb) = race(|| round(a, &both), || fair.round(&sel));
    let ((_, ca, pa, digest), (_, cb, _, _)) = (judge(a, &both), judge(ion, &both));
    let pb = fair.peak(&sel);
    // `identity PROGRAM NAME DIGEST`: a hash of every output, to compare
    // before and after a change that claims to keep them.
    println!("identity {program} {} {digest:016x}", a.name());
    Some(Versus::report(
        &format!("{} vs ion on the {} cases both take", a.name(), sel.len()),
        (ta, tb),
        (ca, cb),
        (pa, pb),
    ))
}

/// Our symbolic checker on ion's allocations against ion's own time, both
/// as a compiler runs them: the checker through its entry point over
/// regalloc2's types (`checker::regalloc2`: reading the function into our
/// IR, validating it, checking), kept across functions; rounds alternate,
/// best of 9 each. Also its parts: the check alone, on our IR; reading
/// the function and output (the machine is read once); validating by
/// every rule but reachability, definedness and dominance (which the check
/// proves), with a validator kept per machine as the entry point keeps
/// one. And the peer a
/// Cranelift user has today: regalloc2's own checker (what its
/// `regalloc_checker` setting runs) on the same allocations, best of 3, as
/// it is the slowest. Its peak heap is a fresh checker's, per function.
fn checker_versus_ion(fair: &IonAsCranelift) -> Option<(Versus, Versus)> {
    let (sel, outs): (Vec<usize>, Vec<ra2::Output>) = (0..fair.cases.len())
        .filter_map(|k| fair.output(k).map(|o| (k, o)))
        .unzip();
    if sel.is_empty() {
        return None;
    }
    let insts: usize = sel.iter().map(|&k| fair.cases[k].func.num_insts()).sum();
    let ours: Vec<allocator::Output> = sel
        .iter()
        .zip(&outs)
        .map(|(&k, o)| adapt::from_output(&fair.cases[k].func, o))
        .collect();
    let mut entry = checker::regalloc2::Ra2Checker::default();
    let mut core = checker::Checker::default();
    let mut validator: Option<Validator> = None;
    let (mut te, mut tc, mut ti) = (f64::MAX, f64::MAX, f64::MAX);
    let (mut tr, mut tv, mut tp) = (f64::MAX, f64::MAX, f64::MAX);
    let per_inst = |t: Instant| t.elapsed().as_nanos() as f64 / insts.max(1) as f64;
    for _ in 0..sized(9) {
        let t = Instant::now();
        for (&k, out) in sel.iter().zip(&outs) {
            let (f, env) = &fair.prepared[k];
            let verdict = entry.check(f, env, out);
            assert!(
                verdict.is_ok(),
                "the checker rejects ion's allocation: {verdict:?}"
            );
        }
        te = te.min(per_inst(t));
        let t = Instant::now();
        for (&k, out) in sel.iter().zip(&ours) {
            let c = &fair.cases[k];
            std::hint::black_box(core.check(&c.func, &c.machine, out));
        }
        tc = tc.min(per_inst(t));
        let t = Instant::now();
        for (&k, out) in sel.iter().zip(&outs) {
            let (f, _) = &fair.prepared[k];
            let g = checker::regalloc2::function_as_read(f).expect("ion's function reads");
            std::hint::black_box(checker::regalloc2::output(&g, out));
        }
        tr = tr.min(per_inst(t));
        // Validated as the entry point validates: one validator kept while
        // the machine stays the same.
        let t = Instant::now();
        for &k in &sel {
            let c = &fair.cases[k];
            let v = match &mut validator {
                Some(v) if v.env() == &c.machine => v,
                kept => kept.insert(Validator::new(&c.machine)),
            };
            std::hint::black_box(v.read_function_but_dominance(&c.func));
        }
        tv = tv.min(per_inst(t));
        ti = ti.min(fair.round(&sel));
    }
    for _ in 0..sized(3) {
        let t = Instant::now();
        for (&k, out) in sel.iter().zip(&outs) {
            let (f, env) = &fair.prepared[k];
            let mut peer = ra2::checker::Checker::new(f, env);
            peer.prepare(out);
            assert!(
                peer.run().is_ok(),
                "regalloc2's checker rejects ion's allocation"
            );
        }
        tp = tp.min(per_inst(t));
    }
    let peak_checker = sel
        .iter()
        .zip(&outs)
        .map(|(&k, out)| {
            let (f, env) = &fair.prepared[k];
            heap::peak_of(|| checker::regalloc2::check(f, env, out)).1
        })
        .max()
        .unwrap_or(0);
    let peak_ion = fair.peak(&sel);
    let v = Versus {
        time: te / ti,
        cost: f64::NAN,
        peak: (peak_checker, peak_ion),
        worst: None,
    };
    let peer = Versus {
        time: tp / ti,
        cost: f64::NAN,
        peak: (0, 0),
        worst: None,
    };
    println!(
        "  checker on ion's allocations vs ion: time {:.3}x ({te:.0} / {ti:.0} ns/inst; the check alone on our IR {:.3}x, {tc:.0}; reading {:.3}x, {tr:.0}; validating {:.3}x, {tv:.0}; regalloc2's checker {:.3}x, {tp:.0}), peak heap {:.1} / {:.1} MB",
        v.time,
        tc / ti,
        tr / ti,
        tv / ti,
        tp / ti,
        mb(v.peak.0),
        mb(v.peak.1)
    );
    Some((v, peer))
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
        if only(ion.name()) {
            bench(ion, cases);
        }
        let fair = IonAsCranelift::new(cases);
        // What the harness's ion pays beyond regalloc2 itself.
        if only(ion.name()) {
            let all_cases: Vec<usize> = (0..cases.len()).collect();
            let every: Vec<&Case> = cases.iter().collect();
            let (mut th, mut tf) = (f64::MAX, f64::MAX);
            for _ in 0..sized(5) {
                th = th.min(round(ion, &every));
                tf = tf.min(fair.round(&all_cases));
            }
            println!(
                "  regalloc2_ion through the harness vs ion as Cranelift runs it: time {:.2}x ({th:.0} / {tf:.0} ns/inst)",
                th / tf
            );
        }
        // `table PROGRAM NAME TIME COST PEAK ION_PEAK WORST WORST_INSTS`:
        // multiples of ion's time (as Cranelift runs it) and cost on the
        // functions both take, the largest peak heap of one function in
        // bytes, each's, and for ours the worst single function against
        // ion's time (`-` where none has 50 instructions).
        let mut rows: Vec<(&str, Versus)> = Vec::new();
        for a in all
            .iter()
            .copied()
            .filter(|a| a.name() != ion.name() && only(a.name()))
        {
            if let Some(v) = versus_ion(program, a, ion, &fair, cases) {
                rows.push((a.name(), v));
            }
        }
        if let Some((v, peer)) = only("checker").then(|| checker_versus_ion(&fair)).flatten() {
            rows.push(("checker", v));
            rows.push(("regalloc2_checker", peer));
        }
        for a in all
            .iter()
            .copied()
            .filter(|a| !a.name().starts_with("regalloc") && only(a.name()))
        {
            let mut worst: Option<(f64, usize)> = None;
            for (k, c) in cases.iter().enumerate() {
                if c.func.num_insts() < 50 || a.run(&c.func, &c.machine).is_err() {
                    continue;
                }
                let one = [c];
                let (ta, tb) = (round(a, &one), fair.round(&[k]));
                // One run of a short function can meet a page fault or a
                // context switch: a ratio above 2 is timed again, best of
                // five each.
                let ratio = if ta / tb > 2.0 {
                    let best = |time: &dyn Fn() -> f64| {
                        (0..sized(5)).map(|_| time()).fold(f64::MAX, f64::min)
                    };
                    best(&|| round(a, &one)) / best(&|| fair.round(&[k]))
                } else {
                    ta / tb
                };
                if worst.is_none_or(|(w, _)| ratio > w) {
                    worst = Some((ratio, c.func.num_insts()));
                }
            }
            if let Some((w, at)) = worst {
                println!(
                    "  {} at worst {w:.2}x ion's time on one function ({at} insts)",
                    a.name()
                );
            }
            if let Some(r) = rows.iter_mut().find(|r| r.0 == a.name()) {
                r.1.worst = worst;
            }
        }
        for (name, v) in &rows {
            let (w, at) = v
                .worst
                .map_or(("-".to_string(), "-".to_string()), |(w, at)| {
                    (format!("{w:.2}"), at.to_string())
                });
            println!(
                "table {program} {name} {:.3} {:.3} {} {} {w} {at}",
                v.time, v.cost, v.peak.0, v.peak.1
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
    let _ = versus(bt, ls, &default);
    let _ = versus(bt, ion, &default);
    let _ = versus(gc, ls, &default);
    // Ion takes few default cases: those it takes among 3,000.
    let rare: Vec<Case> = cases_of(&ssagen::Config::default(), 0..sized(3000))
        .into_iter()
        .filter(|c| ion.run(&c.func, &c.machine).is_ok())
        .collect();
    println!(
        "default config, the {} of 3,000 cases ion takes:",
        rare.len()
    );
    let _ = versus(bt, ion, &rare);
    let _ = versus(gc, ion, &rare);
    println!("Config::regalloc2() (best of 5 rounds):");
    let ra2 = cases(&fuzz_targets::outside::ra2::profile::regalloc2());
    for a in all.iter().copied() {
        bench(a, &ra2);
    }
    let _ = versus(bt, ion, &ra2);
    let _ = versus(bt, ls, &ra2);
    let _ = versus(ls, ion, &ra2);
    let _ = versus(gc, ion, &ra2);
    let _ = versus(gc, ls, &ra2);
    // What passive splitting pays: the same allocator without it.
    let nosplit = fuzz_targets::registry::allocator_by_name("coloring_nosplit", &settings)
        .expect("a variant");
    let nosplit = &*nosplit;
    let _ = versus(gc, nosplit, &default);
    let _ = versus(gc, nosplit, &ra2);
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
        let _ = versus(rbt, rls, &rs);
        let _ = versus(bt, rbt, &rs);
        let _ = versus(ls, rls, &rs);
        let _ = versus(gc, rbt, &rs);
        let _ = versus(ls, rbt, &rs);
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
        let _ = versus(rbt, ion, &common);
        let _ = versus(rls, ion, &common);
        let _ = versus(bt, ion, &common);
        let _ = versus(ls, ion, &common);
    }
    let real = allocator::fixtures::repo_root().join("corpus/real/x86_64");
    real_code(&real.display().to_string(), &all, ion);
}
