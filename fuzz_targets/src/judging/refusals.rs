//! The cases allocators refused in a campaign, by allocator, kind and
//! reason: `unsupported` (a combination the allocator does not take),
//! `suppressed` (a known bug of an outside allocator, not reported again)
//! and `infeasible` (the allocator said the case has no allocation, and no
//! allocator of ours found one either; where one does, the refusal is a
//! `refused-feasible` finding instead).
//! Neither is a finding, but a user must see how much of a campaign an
//! allocator sat out and why, and a suppression must never hide among the
//! limitations.

use std::collections::BTreeMap;
use std::sync::Mutex;

/// Why an outside allocator's adapter keeps a case from it: the
/// allocator says it does not take the combination (answered
/// `unsupported`), or takes it and gets it wrong (`suppressed`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Limitation,
    KnownBug,
}

/// Why an allocator's result is not judged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Refused {
    /// [`allocator::AllocError::Unsupported`].
    Unsupported,
    /// [`allocator::AllocError::Suppressed`].
    Suppressed,
    /// [`allocator::AllocError::Impossible`], with no allocation to prove
    /// it wrong.
    Infeasible,
}

impl Refused {
    pub fn name(self) -> &'static str {
        match self {
            Refused::Unsupported => "unsupported",
            Refused::Suppressed => "suppressed",
            Refused::Infeasible => "infeasible",
        }
    }

    fn from_name(s: &str) -> Option<Refused> {
        match s {
            "unsupported" => Some(Refused::Unsupported),
            "suppressed" => Some(Refused::Suppressed),
            "infeasible" => Some(Refused::Infeasible),
            _ => None,
        }
    }
}

/// At most this many distinct reasons are kept per allocator and kind; the
/// rest are counted under [`OTHER`] (an allocator whose messages name
/// instructions would otherwise grow the book without end).
const MAX_REASONS: usize = 32;
const OTHER: &str = "(other reasons)";

type Key = (String, Refused, String);

/// Refusal counts of one campaign.
#[derive(Default)]
pub struct RefusalBook {
    counts: Mutex<BTreeMap<Key, u64>>,
}

impl RefusalBook {
    /// Counts one refusal of `allocator` for `reason` (the error's message).
    pub fn record(&self, allocator: &str, kind: Refused, reason: &str) {
        self.add(allocator, kind, reason, 1);
    }

    fn add(&self, allocator: &str, kind: Refused, reason: &str, n: u64) {
        let reason = reason.lines().next().unwrap_or("").trim();
        let mut counts = self.counts.lock().unwrap();
        let key = (allocator.to_string(), kind, reason.to_string());
        if let Some(c) = counts.get_mut(&key) {
            *c += n;
            return;
        }
        let known = counts
            .keys()
            .filter(|k| k.0 == allocator && k.1 == kind)
            .count();
        let key = if known < MAX_REASONS {
            key
        } else {
            (allocator.to_string(), kind, OTHER.to_string())
        };
        *counts.entry(key).or_default() += n;
    }

    /// The total of `kind` refusals by `allocator`.
    pub fn total(&self, allocator: &str, kind: Refused) -> u64 {
        let counts = self.counts.lock().unwrap();
        counts
            .iter()
            .filter(|(k, _)| k.0 == allocator && k.1 == kind)
            .map(|(_, n)| n)
            .sum()
    }

    pub fn is_empty(&self) -> bool {
        self.counts.lock().unwrap().is_empty()
    }

    /// The book as `refused ALLOCATOR KIND COUNT REASON` lines (see
    /// [`crate::books::context::Context::export`]).
    pub fn export(&self) -> String {
        let counts = self.counts.lock().unwrap();
        let mut s = String::new();
        for ((a, kind, reason), n) in counts.iter() {
            s.push_str(&format!("refused {a} {} {n} {reason}\n", kind.name()));
        }
        s
    }

    /// Adds one line of [`RefusalBook::export`].
    pub fn absorb(&self, line: &str) {
        let mut w = line.splitn(5, ' ');
        let (_, Some(a), Some(kind), Some(n)) = (w.next(), w.next(), w.next(), w.next()) else {
            return;
        };
        let (Some(kind), Ok(n)) = (Refused::from_name(kind), n.parse()) else {
            return;
        };
        self.add(a, kind, w.next().unwrap_or(""), n);
    }

    /// One line per allocator, kind and reason, most frequent first within
    /// each allocator and kind.
    pub fn report(&self) -> String {
        let counts = self.counts.lock().unwrap();
        let mut rows: Vec<(&Key, u64)> = counts.iter().map(|(k, &n)| (k, n)).collect();
        rows.sort_by(|x, y| (&x.0 .0, x.0 .1, y.1).cmp(&(&y.0 .0, y.0 .1, x.1)));
        let w = rows.iter().map(|r| r.0 .0.len()).max().unwrap_or(0).max(9);
        let mut s = format!("{:<w$} {:<11} {:>9}  reason", "allocator", "kind", "cases");
        for ((a, kind, reason), n) in rows {
            s.push_str(&format!("\n{a:<w$} {:<11} {n:>9}  {reason}", kind.name()));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_travel_through_export_and_stay_bounded() {
        let book = RefusalBook::default();
        book.record("ion", Refused::Suppressed, "known bug a");
        book.record("ion", Refused::Suppressed, "known bug a");
        book.record("ion", Refused::Unsupported, "limit b\nmore text");
        for k in 0..MAX_REASONS + 5 {
            book.record("mine", Refused::Unsupported, &format!("inst{k} is odd"));
        }
        let copy = RefusalBook::default();
        for line in book.export().lines() {
            copy.absorb(line);
        }
        assert_eq!(copy.total("ion", Refused::Suppressed), 2);
        assert_eq!(copy.total("ion", Refused::Unsupported), 1);
        assert_eq!(
            book.total("mine", Refused::Unsupported),
            MAX_REASONS as u64 + 5
        );
        assert!(book.export().contains(OTHER));
        let report = book.report();
        assert!(report.contains("suppressed"), "{report}");
        let first = report.lines().nth(1).unwrap();
        assert!(
            first.starts_with("ion") && first.contains("limit b"),
            "{report}"
        );
        assert!(!report.contains("more text"));
    }
}
