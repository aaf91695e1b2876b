//! What one campaign shares between its targets: its settings and the
//! counters the targets keep. A campaign (`rafuzz fuzz`, `rafuzz run`, the
//! reducer, one engine wrapper process) makes one [`Context`] and passes it
//! to every check, so that two campaigns in one process never mix their
//! figures and a test can read exactly what its own run counted.

use crate::quality::QualityBook;
use std::sync::atomic::{AtomicU64, Ordering};

/// Settings and counters of one campaign.
#[derive(Default)]
pub struct Context {
    /// Cross-examine our checker and regalloc2's on every allocation judged
    /// (`rafuzz fuzz --cross-check`; needs the `regalloc2` feature).
    pub cross_check: bool,
    /// `checker_soundness`: the mutants made and what the oracles said.
    pub mutants: MutantCounts,
    /// Our checker against regalloc2's (`checker_agreement`, `--cross-check`).
    pub verdicts: VerdictCounts,
    /// Each allocator's moves, spills and reloads (`differential`).
    pub quality: QualityBook,
}

impl Context {
    /// A context with the cross-examination of the checkers on or off.
    pub fn with_cross_check(cross_check: bool) -> Context {
        Context {
            cross_check,
            ..Context::default()
        }
    }
}

fn load(c: &AtomicU64) -> u64 {
    c.load(Ordering::Relaxed)
}

/// Adds `by` to a counter.
pub fn bump(c: &AtomicU64, by: u64) {
    c.fetch_add(by, Ordering::Relaxed);
}

/// Mutants of correct allocations, and which oracles caught them.
#[derive(Default)]
pub struct MutantCounts {
    pub mutants: AtomicU64,
    pub rejected: AtomicU64,
    pub diverged: AtomicU64,
    pub rejected_not_diverged: AtomicU64,
}

impl MutantCounts {
    /// One line of precision statistics.
    pub fn report(&self) -> String {
        format!(
            "mutants={} checker_rejected={} interpreter_diverged={} rejected_without_divergence={}",
            load(&self.mutants),
            load(&self.rejected),
            load(&self.diverged),
            load(&self.rejected_not_diverged)
        )
    }
}

/// The two checkers' verdicts side by side.
#[derive(Default)]
pub struct VerdictCounts {
    pub both_accept: AtomicU64,
    pub both_reject: AtomicU64,
    /// Only ours rejects, for the kinds where ours is documented stricter.
    pub ours_stricter: AtomicU64,
    /// regalloc2's checker not run: the output is malformed for it.
    pub not_run: AtomicU64,
}

impl VerdictCounts {
    /// One line of counters.
    pub fn report(&self) -> String {
        format!(
            "both_accept={} both_reject={} only_ours_rejects={} malformed_not_cross_checked={}",
            load(&self.both_accept),
            load(&self.both_reject),
            load(&self.ours_stricter),
            load(&self.not_run)
        )
    }
}
