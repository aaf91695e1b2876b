//! What a campaign tells a person while it runs: a progress line that
//! fits one 100-column terminal line, and each finding once it is on disk.

use super::campaign::{Finding, Shared};
use std::io::Write;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// Prints the findings from `told` on, each once its files are complete
/// on disk; returns how many are told.
pub(super) fn tell_findings(
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

/// The longest progress line: one line of a 100-column terminal.
pub const WIDTH: usize = 100;

/// The progress line's memory: each target's counts when last shown, and
/// which target changed most recently.
pub(super) struct Progress {
    seen: Vec<(usize, usize, u64)>,
    recent: Option<usize>,
}

impl Progress {
    pub fn new(targets: usize) -> Progress {
        Progress {
            seen: vec![(0, 0, 0); targets],
            recent: None,
        }
    }

    /// `[ secs] execs rate | totals | the target most recently changed`,
    /// cut to [`WIDTH`] characters. Among targets that changed since the
    /// last line, one with a new finding is named first.
    pub fn line(&mut self, shared: &[Arc<Shared>], elapsed: Duration) -> String {
        let counts: Vec<(usize, usize, u64)> = shared
            .iter()
            .map(|s| {
                (
                    s.corpus.lock().unwrap().len(),
                    s.features.lock().unwrap().len(),
                    s.findings.load(Ordering::Relaxed),
                )
            })
            .collect();
        let changed = |i: &usize| counts[*i] != self.seen[*i];
        let found = |i: &usize| counts[*i].2 != self.seen[*i].2;
        let all = 0..counts.len();
        if let Some(i) = all
            .clone()
            .filter(changed)
            .find(found)
            .or_else(|| all.clone().find(changed))
        {
            self.recent = Some(i);
        }
        self.seen = counts;
        let execs: u64 = shared.iter().map(|s| s.execs.load(Ordering::Relaxed)).sum();
        let secs = elapsed.as_secs_f64().max(1e-9);
        let (corpus, features, findings) = self
            .seen
            .iter()
            .fold((0, 0, 0), |t, c| (t.0 + c.0, t.1 + c.1, t.2 + c.2));
        let mut line = format!(
            "[{secs:>5.0}s] {execs:>9} execs {:>7.0}/s | {} targets c{corpus} f{features}{}",
            execs as f64 / secs,
            shared.len(),
            match findings {
                0 => String::new(),
                n => format!(" FOUND {n}"),
            }
        );
        if let Some(i) = self.recent {
            let (c, f, n) = self.seen[i];
            line.push_str(&format!(" | {} c{c} f{f}", shared[i].target.name));
            if n > 0 {
                line.push_str(&format!(" FOUND {n}"));
            }
        }
        if line.chars().count() > WIDTH {
            line = line.chars().take(WIDTH - 1).chain(['…']).collect();
        }
        line
    }
}
