//! `rafuzz fuzz`: the built-in fuzzing engine. It needs nothing but stable
//! Rust: inputs are fresh random bytes or mutations and splices of corpus
//! entries; an input that reaches a feature not seen before (see
//! [`crate::books::features`]) joins the in-memory corpus; every input runs through
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

mod campaign;
mod findings;
mod guided;
mod input;
mod job;
pub mod process;
mod progress;
pub mod triage;
pub mod watchdog;
pub mod wire;
pub mod worker;

pub use campaign::{Finding, Options, Report};
pub use findings::write_atomically;
pub use input::mutate;

use crate::books::context::Context;
use campaign::Shared;
use progress::{tell_findings, Progress};
use std::collections::HashSet;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Runs the campaign; progress goes to `log`.
pub fn fuzz(opts: &Options, log: &mut (dyn Write + Send)) -> Report {
    let start = Instant::now();
    let ctx = Context {
        slow: opts.slow,
        cross_check: opts.cross_check,
        coverage: opts.coverage.clone(),
        ..Context::with_settings(opts.settings)
    };
    let shared: Vec<Arc<Shared>> = opts
        .targets
        .iter()
        .map(|t| {
            let mut seeds = crate::harness::inputs::expand_inputs(&[opts.corpus.join(t.name)]);
            if t.takes_cases() {
                let cases = crate::harness::inputs::expand_inputs(&opts.seeds);
                seeds.extend(
                    cases
                        .into_iter()
                        .filter(|p| p.extension().is_some_and(|x| x == "ra")),
                );
            }
            let corpus: Vec<Arc<Vec<u8>>> = seeds
                .iter()
                .filter_map(|p| std::fs::read(p).ok())
                .map(Arc::new)
                .collect();
            Arc::new(Shared {
                target: t.clone(),
                corpus: Mutex::new(corpus),
                features: Mutex::new(HashSet::new()),
                scope: guided::scope_of(t, &ctx),
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
        let mut progress = Progress::new(shared.len());
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
                let line = progress.line(&shared, start.elapsed());
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
