//! The reducer: shrinks a failing case to a small one that fails the same
//! way, by editing the IR (as llvm-reduce and C-Reduce do) rather than the
//! fuzzer's bytes, which for a structured generator mostly changes the
//! program instead of shrinking it.
//!
//! [`reduce_case`] runs the [`passes`] to a fixpoint. Each pass offers its
//! items (blocks, instructions, operands, ...) in program order; the driver
//! tries to remove or weaken them in contiguous chunks, the whole list
//! first, then halves, quarters, down to single items (delta debugging).
//! Every candidate is repaired into SSA, renumbered, and must be valid and
//! feasible before the predicate sees it; an accepted candidate is strictly
//! smaller ([`crate::edit::draft::Cost`]), so reduction ends. Candidates of one chunk
//! size are tried on every core at once, and the first one (in order) that
//! the predicate keeps wins, so the result does not depend on the number of
//! threads.
//!
//! [`reduce_input`] is what `rafuzz reduce` and `rafuzz fuzz` call: it finds
//! the input's failure [`Signature`] and keeps only candidates with exactly
//! that signature. Inputs that do not make a case (the `moves` target), and
//! failures that depend on more than the case (a `checker_soundness`
//! mutant, an invalid generated case), are reduced as bytes instead.

pub mod passes;
pub mod predicate;
pub mod report;

use crate::books::context::Context;
use crate::edit::draft::Draft;
use crate::judging::failure::{Failure, Signature};
use crate::targets::Target;
use allocator::Case;
use passes::Pass;
use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a reduction runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// Threads trying candidates.
    pub jobs: usize,
    /// Stop (keeping the smallest case so far) after this long.
    pub time_limit: Option<Duration>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            jobs: std::thread::available_parallelism().map_or(1, |n| n.get()),
            time_limit: None,
        }
    }
}

/// What a reduction did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Stats {
    /// Candidates the predicate ran on.
    pub tried: usize,
    /// Candidates dropped before the predicate: invalid or infeasible.
    pub invalid: usize,
    /// Candidates kept.
    pub kept: usize,
    pub elapsed: Duration,
    /// The time limit stopped the reduction before its fixpoint.
    pub timed_out: bool,
}

/// Whether the reducer may hand `case` to a predicate: it validates and
/// meets the generator's feasibility rules, so a correct allocator can
/// allocate it.
pub fn is_candidate(case: &Case) -> bool {
    ssagen::feasibility::check_case(case).is_ok()
}

/// Runs `f(0)`, `f(1)`, ... `f(n - 1)` on `jobs` threads and returns the
/// lowest index for which `f` gives `Some`. Indices are handed out in order
/// and none above a success is started, so every index below the result
/// was tried: the answer is the one a single thread would give.
fn first_success<T: Send>(
    n: usize,
    jobs: usize,
    f: &(dyn Fn(usize) -> Option<T> + Sync),
) -> Option<(usize, T)> {
    let next = AtomicUsize::new(0);
    let best = AtomicUsize::new(usize::MAX);
    let found: Mutex<Vec<(usize, T)>> = Mutex::new(Vec::new());
    let work = || loop {
        let i = next.fetch_add(1, Ordering::SeqCst);
        if i >= n || i > best.load(Ordering::SeqCst) {
            break;
        }
        if let Some(t) = f(i) {
            best.fetch_min(i, Ordering::SeqCst);
            found.lock().unwrap().push((i, t));
        }
    };
    if jobs <= 1 || n <= 1 {
        work();
    } else {
        std::thread::scope(|s| {
            for _ in 0..jobs.min(n) {
                s.spawn(work);
            }
        });
    }
    found.into_inner().unwrap().into_iter().min_by_key(|x| x.0)
}

fn fingerprint(x: &impl Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    x.hash(&mut h);
    h.finish()
}

/// Delta debugging over a list of items: `count(cur)` items, `apply(cur,
/// range)` a smaller candidate without them (or `None`), `keep` decides.
/// Chunks of the whole list, then halves, and so on down to one item; after
/// each success the same chunk size is tried again from the same place.
fn ddmin<S: Clone + Send + Sync>(
    cur: &mut S,
    count: &dyn Fn(&S) -> usize,
    try_range: &(dyn Fn(&S, std::ops::Range<usize>) -> Option<S> + Sync),
    jobs: usize,
    out_of_time: &dyn Fn() -> bool,
) -> bool {
    let mut changed = false;
    let mut chunk = count(cur);
    while chunk > 0 && !out_of_time() {
        let mut start = 0;
        loop {
            let n = count(cur);
            if start >= n || out_of_time() {
                break;
            }
            let ranges: Vec<_> = (start..n)
                .step_by(chunk)
                .map(|s| s..(s + chunk).min(n))
                .collect();
            let snapshot = cur.clone();
            let hit = first_success(ranges.len(), jobs, &|k| {
                try_range(&snapshot, ranges[k].clone())
            });
            match hit {
                Some((k, next)) => {
                    *cur = next;
                    start = ranges[k].start;
                    changed = true;
                }
                None => break,
            }
        }
        if chunk == 1 {
            break;
        }
        chunk = chunk.div_ceil(2);
    }
    changed
}

/// Shrinks `case` (which `keep` must accept) to a fixpoint of every pass;
/// the result is valid, feasible and accepted by `keep`.
pub fn reduce_case(
    case: &Case,
    keep: &(dyn Fn(&Case) -> bool + Sync),
    opts: &Options,
) -> (Case, Stats) {
    let start = Instant::now();
    let out_of_time = || opts.time_limit.is_some_and(|t| start.elapsed() >= t);
    let tried = AtomicUsize::new(0);
    let invalid = AtomicUsize::new(0);
    let kept = AtomicUsize::new(0);
    let seen: Mutex<HashSet<u64>> = Mutex::new(HashSet::new());
    let mut cur = (Draft::from_case(case), case.clone());
    loop {
        let mut changed = false;
        for pass in Pass::ALL {
            let try_range = |s: &(Draft, Case), r: std::ops::Range<usize>| {
                if out_of_time() {
                    return None;
                }
                let mut d = pass.apply(&s.0, r)?;
                d.renumber();
                if d.cost() >= s.0.cost() || !seen.lock().unwrap().insert(fingerprint(&d)) {
                    return None;
                }
                let c = d.to_case();
                if !is_candidate(&c) {
                    invalid.fetch_add(1, Ordering::Relaxed);
                    return None;
                }
                tried.fetch_add(1, Ordering::Relaxed);
                keep(&c).then(|| {
                    kept.fetch_add(1, Ordering::Relaxed);
                    (d, c)
                })
            };
            changed |= ddmin(
                &mut cur,
                &|s: &(Draft, Case)| pass.count(&s.0),
                &try_range,
                opts.jobs,
                &out_of_time,
            );
        }
        if !changed || out_of_time() {
            break;
        }
    }
    let stats = Stats {
        tried: tried.into_inner(),
        invalid: invalid.into_inner(),
        kept: kept.into_inner(),
        elapsed: start.elapsed(),
        timed_out: out_of_time(),
    };
    (cur.1, stats)
}

/// Shrinks a raw input (which `keep` must accept) by removing byte ranges,
/// delta-debugging style, to a fixpoint.
pub fn reduce_bytes(
    input: &[u8],
    keep: &(dyn Fn(&[u8]) -> bool + Sync),
    opts: &Options,
) -> (Vec<u8>, Stats) {
    let start = Instant::now();
    let out_of_time = || opts.time_limit.is_some_and(|t| start.elapsed() >= t);
    let tried = AtomicUsize::new(0);
    let kept = AtomicUsize::new(0);
    let mut cur = input.to_vec();
    let try_range = |s: &Vec<u8>, r: std::ops::Range<usize>| {
        if out_of_time() {
            return None;
        }
        let mut v = s.clone();
        v.drain(r);
        tried.fetch_add(1, Ordering::Relaxed);
        keep(&v).then(|| {
            kept.fetch_add(1, Ordering::Relaxed);
            v
        })
    };
    while ddmin(
        &mut cur,
        &|s: &Vec<u8>| s.len(),
        &try_range,
        opts.jobs,
        &out_of_time,
    ) {
        if out_of_time() {
            break;
        }
    }
    let stats = Stats {
        tried: tried.into_inner(),
        invalid: 0,
        kept: kept.into_inner(),
        elapsed: start.elapsed(),
        timed_out: out_of_time(),
    };
    (cur, stats)
}

/// A failing input: a fuzzer's raw bytes or a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Input {
    Bytes(Vec<u8>),
    Case(Box<Case>),
}

/// The result of [`reduce_input`].
#[derive(Clone, Debug)]
pub struct Outcome {
    /// What the input and the reduced input both fail with.
    pub signature: Signature,
    /// The case reduction started from, when it reduced a case.
    pub original: Input,
    pub reduced: Input,
    pub stats: Stats,
}

/// How the reducer runs a target on a candidate: in this process, or (for
/// a failure that takes its process down) in worker processes.
pub trait Runs: Sync {
    /// What the fuzzer's bytes `data` find.
    fn bytes(&self, data: &[u8]) -> Option<Failure>;
    /// What `case` finds; `None` when the target does not run on cases.
    fn case(&self, case: &Case) -> Option<Option<Failure>>;
}

/// A target run in this process, in a campaign of its own whose counters
/// nobody reads.
pub struct InProcess<'a> {
    pub target: &'a Target,
    pub ctx: Context,
}

impl Runs for InProcess<'_> {
    fn bytes(&self, data: &[u8]) -> Option<Failure> {
        self.target.failure(data, &self.ctx)
    }

    fn case(&self, case: &Case) -> Option<Option<Failure>> {
        self.target.case_failure(case, &self.ctx)
    }
}

/// Reduces an input that fails `target`, keeping its failure signature.
/// A raw input whose failure shows in its generated case (the case is
/// valid and fails the target's case check the same way) is reduced as a
/// case; otherwise as bytes. Errors: the input does not fail, or a case was
/// given to a target that does not run on cases.
pub fn reduce_input(target: &Target, input: &Input, opts: &Options) -> Result<Outcome, String> {
    let runs = InProcess {
        target,
        ctx: Context::with_settings(target.narrowing().settings()),
    };
    reduce_input_with(target, input, opts, &runs)
}

/// [`reduce_input`], running the target through `runs`.
pub fn reduce_input_with(
    target: &Target,
    input: &Input,
    opts: &Options,
    runs: &dyn Runs,
) -> Result<Outcome, String> {
    match input {
        Input::Case(case) => {
            let Some(found) = runs.case(case) else {
                return Err(format!("target `{}` does not run on cases", target.name));
            };
            let Some(failure) = found else {
                return Err(format!("the case does not fail target `{}`", target.name));
            };
            Ok(reduce_case_keeping(runs, case, failure.signature, opts))
        }
        Input::Bytes(bytes) => {
            let Some(failure) = runs.bytes(bytes) else {
                return Err(format!("the input does not fail target `{}`", target.name));
            };
            let sig = failure.signature;
            if let Some(case) = target.case_of(bytes) {
                let same = is_candidate(&case)
                    && matches!(runs.case(&case), Some(Some(f)) if f.signature == sig);
                if same {
                    return Ok(reduce_case_keeping(runs, &case, sig, opts));
                }
            }
            let keep = |b: &[u8]| runs.bytes(b).is_some_and(|f| f.signature == sig);
            let (reduced, stats) = reduce_bytes(bytes, &keep, opts);
            Ok(Outcome {
                signature: sig,
                original: input.clone(),
                reduced: Input::Bytes(reduced),
                stats,
            })
        }
    }
}

fn reduce_case_keeping(runs: &dyn Runs, case: &Case, sig: Signature, opts: &Options) -> Outcome {
    let keep = |c: &Case| matches!(runs.case(c), Some(Some(f)) if f.signature == sig);
    let (reduced, stats) = reduce_case(case, &keep, opts);
    Outcome {
        signature: sig,
        original: Input::Case(Box::new(case.clone())),
        reduced: Input::Case(Box::new(reduced)),
        stats,
    }
}
