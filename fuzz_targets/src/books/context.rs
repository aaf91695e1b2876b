//! What one campaign shares between its targets: its settings and the
//! counters the targets keep. A campaign (`rafuzz fuzz`, `rafuzz run`, the
//! reducer, one engine wrapper process) makes one [`Context`] and passes it
//! to every check, so that two campaigns in one process never mix their
//! figures and a test can read exactly what its own run counted.

use crate::books::quality::QualityBook;
use crate::books::slow::{SlowRule, TimingBook};
use crate::coverage::edges::Edges;
use crate::judging::failure::Failure;
use crate::judging::refusals::RefusalBook;
use crate::registry::Settings;
use allocator::{Case, Output};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A second checker, written elsewhere, run beside ours on every
/// allocation judged (regalloc2's, `--cross-check`): `Err` where the two
/// disagree, counting both verdicts. Arguments: the allocator's name, the
/// case, its allocation, and where the verdicts are counted.
pub type CrossCheck = fn(&'static str, &Case, &Output, &VerdictCounts) -> Result<(), Failure>;

/// Settings and counters of one campaign.
#[derive(Default)]
pub struct Context {
    /// How the outside allocators run in this campaign (known bugs
    /// suppressed, the `regalloc` crate's own checker).
    pub settings: Settings,
    /// The checker to cross-examine ours with on every allocation judged,
    /// if any (`rafuzz fuzz --cross-check`: the registry's
    /// `cross_check()`, regalloc2's).
    pub cross_check: Option<CrossCheck>,
    /// `checker_soundness`: the mutants made and what the oracles said.
    pub mutants: MutantCounts,
    /// Our checker against regalloc2's (`checker_agreement`, `--cross-check`).
    pub verdicts: VerdictCounts,
    /// Each allocator's moves, spills and reloads (`differential`).
    pub quality: QualityBook,
    /// The cases allocators refused, and why (every target that allocates).
    pub refusals: RefusalBook,
    /// Report slow allocator runs as findings by this rule (the built-in
    /// engine's campaigns; `None` elsewhere: a replay or an engine wrapper
    /// has no baseline to compare with).
    pub slow: Option<SlowRule>,
    /// The allocators' times per instruction, the baseline of `slow`.
    pub timing: TimingBook,
    /// The edge counters of the code under test, when the campaign is
    /// guided by them too (`--coverage`, an instrumented build): each
    /// input's edges become features.
    pub coverage: Option<Arc<Edges>>,
}

impl Context {
    /// A context whose allocators run under `settings`.
    pub fn with_settings(settings: Settings) -> Context {
        Context {
            settings,
            ..Context::default()
        }
    }

    /// The counters as text, one `group name values...` line each, for a
    /// worker process to hand its figures to the campaign
    /// ([`Context::absorb`]).
    pub fn export(&self) -> String {
        let m = &self.mutants;
        let v = &self.verdicts;
        let mut s = format!(
            "mutants {} {} {} {}\nverdicts {} {} {} {} {}\n",
            load(&m.mutants),
            load(&m.rejected),
            load(&m.diverged),
            load(&m.rejected_not_diverged),
            load(&v.both_accept),
            load(&v.both_reject),
            load(&v.ours_stricter),
            load(&v.not_run),
            load(&v.order_false_alarm),
        );
        s.push_str(&self.quality.export());
        s.push_str(&self.refusals.export());
        s
    }

    /// Adds counters that [`Context::export`] wrote; lines it does not
    /// know are skipped.
    pub fn absorb(&self, text: &str) {
        for line in text.lines() {
            let mut words = line.split(' ');
            let group = words.next().unwrap_or("");
            let numbers = |words: std::str::Split<'_, char>| -> Vec<u64> {
                words.map(|w| w.parse().unwrap_or(0)).collect()
            };
            match group {
                "mutants" | "verdicts" => {
                    let m = &self.mutants;
                    let v = &self.verdicts;
                    let counters: &[&AtomicU64] = if group == "mutants" {
                        &[
                            &m.mutants,
                            &m.rejected,
                            &m.diverged,
                            &m.rejected_not_diverged,
                        ]
                    } else {
                        &[
                            &v.both_accept,
                            &v.both_reject,
                            &v.ours_stricter,
                            &v.not_run,
                            &v.order_false_alarm,
                        ]
                    };
                    for (c, n) in counters.iter().zip(numbers(words)) {
                        bump(c, n);
                    }
                }
                "quality" => self.quality.absorb(line),
                "refused" => self.refusals.absorb(line),
                _ => {}
            }
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
    /// Only regalloc2's rejects, on a case with a block none of whose
    /// predecessors comes before it, and accepts the same allocation with
    /// the blocks renumbered in reverse postorder: its documented false
    /// alarm (docs/regalloc2.md, "Block numbering").
    pub order_false_alarm: AtomicU64,
}

impl VerdictCounts {
    /// One line of counters.
    pub fn report(&self) -> String {
        format!(
            "both_accept={} both_reject={} only_ours_rejects={} malformed_not_cross_checked={} \
             theirs_order_false_alarm={}",
            load(&self.both_accept),
            load(&self.both_reject),
            load(&self.ours_stricter),
            load(&self.not_run),
            load(&self.order_false_alarm)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::books::quality::Quality;

    #[test]
    fn exported_counters_add_up_in_another_context() {
        let a = Context::default();
        bump(&a.mutants.mutants, 3);
        bump(&a.mutants.rejected_not_diverged, 1);
        bump(&a.verdicts.not_run, 2);
        let q = Quality {
            cases: 1,
            moves: 4,
            cost_tenths: 17,
            ..Quality::default()
        };
        a.quality.record("linear_scan", &q);
        a.quality
            .record_common(&[("linear_scan", q), ("spill_everywhere", q)]);
        let b = Context::default();
        b.absorb(&a.export());
        b.absorb(&a.export());
        assert_eq!(load(&b.mutants.mutants), 6);
        assert_eq!(load(&b.mutants.rejected_not_diverged), 2);
        assert_eq!(load(&b.verdicts.not_run), 4);
        assert_eq!(load(&b.verdicts.both_accept), 0);
        let report = b.quality.report();
        assert!(
            report.contains("over the 2 cases every allocator took"),
            "{report}"
        );
        let twice = Context::default();
        for _ in 0..2 {
            twice.quality.record("linear_scan", &q);
            twice
                .quality
                .record_common(&[("linear_scan", q), ("spill_everywhere", q)]);
        }
        assert_eq!(report, twice.quality.report());
    }
}
