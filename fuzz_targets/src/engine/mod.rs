//! `rafuzz fuzz`: the built-in fuzzing engine. It needs nothing but stable
//! Rust: inputs are fresh random bytes or mutations and splices of corpus
//! entries; an input that reaches a feature not seen before (see
//! [`crate::features`]) joins the in-memory corpus; every input runs through
//! [`Target::failure`], and a failure (or a panic) is a finding, written to
//! `artifacts/<target>/` (through a temporary name and a rename, so an
//! interrupted campaign never leaves half a file) and reported with the
//! command that replays it.
//!
//! Each job is a thread; with [`Options::isolation`] set, it runs its
//! inputs in a worker process ([`process::Worker`]), so that an input that
//! hangs, aborts, overflows the stack or eats the memory becomes a finding
//! too (`timeout`, `crash`, `oom`) and the campaign goes on with a fresh
//! worker.

mod job;
pub mod process;
pub mod triage;
pub mod wire;
pub mod worker;

use crate::context::Context;
use crate::failure::Failure;
use crate::Target;
use rand::{Rng, RngCore};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What a campaign does.
#[derive(Clone, Debug)]
pub struct Options {
    pub targets: Vec<Target>,
    /// Stop after this long (None: no time limit).
    pub time: Option<Duration>,
    /// Stop after this many executions in all (None: no limit).
    pub runs: Option<u64>,
    pub jobs: usize,
    pub seed: u64,
    /// Seed corpora: `<corpus>/<target>/` (missing folders are fine).
    pub corpus: PathBuf,
    pub artifacts: PathBuf,
    pub keep_going: bool,
    pub max_len: usize,
    /// Interval of the progress line.
    pub progress: Duration,
    /// Write every input that reached a new feature to `DIR/<target>/`.
    pub save_corpus: Option<PathBuf>,
    /// Cross-examine our checker and regalloc2's on every allocation
    /// (see [`Context::cross_check`]).
    pub cross_check: bool,
    /// Run inputs in worker processes started so (`None`: in the job's
    /// thread, unprotected against hangs and crashes).
    pub isolation: Option<process::Launcher>,
    /// Report slow allocator runs (see [`crate::slow`]).
    pub slow: Option<crate::slow::SlowRule>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A finding: where its input was saved and what the target found.
#[derive(Clone, Debug)]
pub struct Finding {
    pub target: &'static str,
    pub path: PathBuf,
    pub failure: Failure,
    /// How long after the campaign's start it was found, and after how
    /// many executions (of every target).
    pub after: Duration,
    pub execs: u64,
}

/// Per-target state shared by the jobs.
struct Shared {
    target: Target,
    corpus: Mutex<Vec<Arc<Vec<u8>>>>,
    features: Mutex<HashSet<u32>>,
    execs: AtomicU64,
    findings: AtomicU64,
    /// Time spent running this target, in nanoseconds: workers pick the
    /// target with the least, so every target gets an equal share of time.
    nanos: AtomicU64,
}

/// The results of a campaign, per target: (name, execs, corpus, features,
/// findings), plus the findings and the elapsed time.
pub struct Report {
    pub rows: Vec<(&'static str, u64, usize, usize, u64)>,
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
    /// The campaign's settings and the counters its targets kept.
    pub context: Context,
}

/// Runs the campaign; progress goes to `log`.
pub fn fuzz(opts: &Options, log: &mut (dyn Write + Send)) -> Report {
    let start = Instant::now();
    let ctx = Context {
        slow: opts.slow,
        ..Context::with_cross_check(opts.cross_check)
    };
    let shared: Vec<Arc<Shared>> = opts
        .targets
        .iter()
        .map(|t| {
            let seeds = crate::inputs::expand_inputs(&[opts.corpus.join(t.name)]);
            let corpus: Vec<Arc<Vec<u8>>> = seeds
                .iter()
                .filter_map(|p| std::fs::read(p).ok())
                .map(Arc::new)
                .collect();
            Arc::new(Shared {
                target: t.clone(),
                corpus: Mutex::new(corpus),
                features: Mutex::new(HashSet::new()),
                execs: AtomicU64::new(0),
                findings: AtomicU64::new(0),
                nanos: AtomicU64::new(0),
            })
        })
        .collect();
    let stop = Arc::new(AtomicBool::new(false));
    let total = Arc::new(AtomicU64::new(0));
    let findings: Arc<Mutex<Vec<Finding>>> = Arc::new(Mutex::new(Vec::new()));
    let terminal = std::io::stderr().is_terminal();
    let mut told = 0;
    let campaign = job::Campaign {
        opts,
        ctx: &ctx,
        shared: &shared,
        stop: &stop,
        total: &total,
        findings: &findings,
        start,
    };
    std::thread::scope(|scope| {
        for id in 0..opts.jobs.max(1) {
            let campaign = &campaign;
            scope.spawn(move || job::Job::new(campaign, id).run());
        }
        // The progress line and each finding once it is on disk, until the
        // workers stop.
        let mut last = Instant::now();
        loop {
            std::thread::sleep(Duration::from_millis(50));
            told = tell_findings(&findings.lock().unwrap(), told, terminal, log);
            let done = stop.load(Ordering::Relaxed)
                || opts.time.is_some_and(|t| start.elapsed() >= t)
                || opts
                    .runs
                    .is_some_and(|r| total.load(Ordering::Relaxed) >= r);
            if done {
                stop.store(true, Ordering::Relaxed);
                break;
            }
            if last.elapsed() >= opts.progress {
                last = Instant::now();
                let line = progress_line(&shared, start.elapsed());
                if terminal {
                    let _ = write!(log, "\r{line}\x1b[K");
                } else {
                    let _ = writeln!(log, "{line}");
                }
                let _ = log.flush();
            }
        }
    });
    tell_findings(&findings.lock().unwrap(), told, terminal, log);
    if terminal {
        let _ = writeln!(log);
    }
    let elapsed = start.elapsed();
    let rows = shared
        .iter()
        .map(|s| {
            (
                s.target.name,
                s.execs.load(Ordering::Relaxed),
                s.corpus.lock().unwrap().len(),
                s.features.lock().unwrap().len(),
                s.findings.load(Ordering::Relaxed),
            )
        })
        .collect();
    let findings = std::mem::take(&mut *findings.lock().unwrap());
    Report {
        rows,
        findings,
        elapsed,
        context: ctx,
    }
}

/// Prints the findings from `told` on, each once its files are complete
/// on disk; returns how many are told.
fn tell_findings(
    findings: &[Finding],
    told: usize,
    terminal: bool,
    log: &mut (dyn Write + Send),
) -> usize {
    for f in &findings[told..] {
        let cr = if terminal { "\r\x1b[K" } else { "" };
        let _ = writeln!(
            log,
            "{cr}saved {} finding of {}: {}",
            f.failure.signature.oracle.kind(),
            f.target,
            f.path.display()
        );
    }
    findings.len()
}

fn progress_line(shared: &[Arc<Shared>], elapsed: Duration) -> String {
    let execs: u64 = shared.iter().map(|s| s.execs.load(Ordering::Relaxed)).sum();
    let secs = elapsed.as_secs_f64().max(1e-9);
    let mut line = format!(
        "[{:>5.0}s] {:>9} execs {:>7.0}/s |",
        secs,
        execs,
        execs as f64 / secs
    );
    for s in shared {
        line.push_str(&format!(
            " {} c{} f{}{}",
            s.target.name,
            s.corpus.lock().unwrap().len(),
            s.features.lock().unwrap().len(),
            match s.findings.load(Ordering::Relaxed) {
                0 => String::new(),
                n => format!(" FOUND {n}"),
            }
        ));
    }
    line
}

/// A fresh random input (a quarter of the time, or when the corpus is empty)
/// or a mutation of a corpus entry.
fn make_input(rng: &mut ChaCha8Rng, s: &Shared, max_len: usize) -> Vec<u8> {
    let pick = {
        let corpus = s.corpus.lock().unwrap();
        if corpus.is_empty() || rng.gen_ratio(1, 4) {
            None
        } else {
            let a = corpus[rng.gen_range(0..corpus.len())].clone();
            let b = corpus[rng.gen_range(0..corpus.len())].clone();
            Some((a, b))
        }
    };
    let Some((a, b)) = pick else {
        let len = [16usize, 64, 256, 1024, 4096][rng.gen_range(0..5)].min(max_len);
        let len = rng.gen_range(0..=len);
        let mut v = vec![0u8; len];
        rng.fill_bytes(&mut v);
        return v;
    };
    let mut v = (*a).clone();
    for _ in 0..rng.gen_range(1..=4) {
        mutate(rng, &mut v, &b);
    }
    v.truncate(max_len);
    v
}

/// One mutation: bit flip, byte set, chunk insert, delete, copy, or splice
/// with another entry.
pub fn mutate(rng: &mut impl Rng, v: &mut Vec<u8>, other: &[u8]) {
    let len = v.len();
    match rng.gen_range(0..7) {
        0 if len > 0 => {
            let i = rng.gen_range(0..len);
            v[i] ^= 1 << rng.gen_range(0..8);
        }
        1 if len > 0 => {
            let i = rng.gen_range(0..len);
            v[i] = [0, 1, 0x7f, 0x80, 0xff, rng.gen()][rng.gen_range(0..6)];
        }
        2 => {
            let at = rng.gen_range(0..=len);
            let n = rng.gen_range(1..=32);
            let chunk: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
            v.splice(at..at, chunk);
        }
        3 if len > 0 => {
            let at = rng.gen_range(0..len);
            let n = rng.gen_range(1..=(len - at).min(64));
            v.drain(at..at + n);
        }
        4 if len > 1 => {
            let from = rng.gen_range(0..len);
            let to = rng.gen_range(0..len);
            let n = rng.gen_range(1..=(len - from).min(len - to).min(64));
            v.copy_within(from..from + n, to);
        }
        5 if !other.is_empty() => {
            let cut = rng.gen_range(0..=len);
            let from = rng.gen_range(0..other.len());
            v.truncate(cut);
            v.extend_from_slice(&other[from..]);
        }
        _ => {
            let at = rng.gen_range(0..=len);
            v.insert(at, rng.gen());
        }
    }
}

/// Writes the input (and, when the target's input makes a case, the case
/// as text) under `artifacts/<target>/<kind>-<hash>` (`crash`, `timeout`,
/// `oom` or `slow`), through a temporary name and a rename; the input goes
/// last, so a finding whose input is there is complete.
fn save_finding(dir: &Path, t: &Target, input: &[u8], failure: &Failure) -> PathBuf {
    let d = dir.join(t.name);
    let name = format!("{}-{:016x}", failure.signature.oracle.kind(), hash(input));
    write_atomically(&d, &format!("{name}.txt"), failure.to_string().as_bytes());
    // The generator is ours and bounded: it runs here even for an input
    // that took a worker down (the allocator or the checker did that).
    if let Some(case) = t.case_of(input) {
        write_atomically(
            &d,
            &format!("{name}.ra"),
            allocator::ir::text::print(&case).as_bytes(),
        );
    }
    write_atomically(&d, &name, input);
    d.join(name)
}

/// FNV-1a of the input, for file names.
fn hash(input: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in input {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Writes `dir/name` through a temporary name and a rename, so a reader (or
/// an interrupted campaign) never sees half a file.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) {
    let _ = std::fs::create_dir_all(dir);
    let tmp = dir.join(format!(".{name}.tmp"));
    if std::fs::write(&tmp, bytes).is_ok() {
        let _ = std::fs::rename(&tmp, dir.join(name));
    }
}
