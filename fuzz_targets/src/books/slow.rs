//! Slow cases as findings: per allocator and size (instructions, by power
//! of two), the time per instruction of the last cases it allocated; a run
//! far above the median of its size, and long enough to be measured well,
//! is a suspect, which [`crate::judging::judge`] re-runs before it reports it.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

/// When a run counts as slow.
#[derive(Clone, Copy, Debug)]
pub struct SlowRule {
    /// At least this many times the median time per instruction of the
    /// allocator's cases of the same size.
    pub ratio: f64,
    /// And at least this long, so that timer noise and a scheduler's
    /// hiccup on a tiny case never count.
    pub floor: Duration,
    /// The median is trusted after this many cases of the size.
    pub min_samples: usize,
}

impl Default for SlowRule {
    fn default() -> SlowRule {
        SlowRule {
            ratio: f64::from(crate::spec::DEFAULT_SLOW_RATIO),
            floor: Duration::from_millis(50),
            min_samples: 32,
        }
    }
}

/// The last [`WINDOW`] times per instruction of one allocator on cases of
/// one size.
#[derive(Default)]
struct Samples {
    ns_per_inst: Vec<f32>,
    /// Where the next sample goes once the window is full.
    next: usize,
}

const WINDOW: usize = 128;

impl Samples {
    fn push(&mut self, x: f32) {
        if self.ns_per_inst.len() < WINDOW {
            self.ns_per_inst.push(x);
        } else {
            self.ns_per_inst[self.next] = x;
            self.next = (self.next + 1) % WINDOW;
        }
    }

    fn median(&self) -> f64 {
        let mut v = self.ns_per_inst.clone();
        let mid = v.len() / 2;
        v.select_nth_unstable_by(mid, |a, b| a.total_cmp(b));
        v[mid] as f64
    }
}

/// What a suspect run is compared with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Baseline {
    /// The median time per instruction on cases of the size.
    pub median_ns_per_inst: f64,
    pub samples: usize,
}

/// The times of one campaign, per allocator and size.
#[derive(Default)]
pub struct TimingBook {
    per: Mutex<BTreeMap<(&'static str, u32), Samples>>,
}

/// The size class of a case of `insts` instructions.
fn size_class(insts: usize) -> u32 {
    usize::BITS - insts.leading_zeros()
}

impl TimingBook {
    /// Records that `allocator` took `time` over `insts` instructions; the
    /// baseline when the run breaks `rule` (before this run was added).
    pub fn observe(
        &self,
        rule: &SlowRule,
        allocator: &'static str,
        insts: usize,
        time: Duration,
    ) -> Option<Baseline> {
        let per_inst = time.as_nanos() as f64 / insts.max(1) as f64;
        let mut per = self.per.lock().unwrap();
        let samples = per.entry((allocator, size_class(insts))).or_default();
        let suspect = (time >= rule.floor && samples.ns_per_inst.len() >= rule.min_samples)
            .then(|| Baseline {
                median_ns_per_inst: samples.median(),
                samples: samples.ns_per_inst.len(),
            })
            .filter(|b| per_inst >= rule.ratio * b.median_ns_per_inst);
        samples.push(per_inst as f32);
        suspect
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_far_above_the_median_of_its_size_is_a_suspect() {
        let rule = SlowRule {
            ratio: 10.0,
            floor: Duration::from_millis(5),
            min_samples: 4,
        };
        let book = TimingBook::default();
        let us = Duration::from_micros;
        // 100 instructions at 1 µs each: the baseline.
        for _ in 0..3 {
            assert_eq!(book.observe(&rule, "a", 100, us(100)), None);
        }
        // Too few samples yet to judge.
        assert_eq!(book.observe(&rule, "a", 100, us(100_000)), None);
        // 9× is not enough; 20 ms over 100 instructions is 200×.
        assert_eq!(book.observe(&rule, "a", 100, us(900)), None);
        let b = book.observe(&rule, "a", 100, us(20_000)).unwrap();
        assert_eq!(b.samples, 5);
        assert!((b.median_ns_per_inst - 1000.0).abs() < 1.0, "{b:?}");
        // Under the floor: not a suspect, however high the ratio.
        assert_eq!(book.observe(&rule, "a", 100, us(4_000)), None);
        // Another allocator, another size: their own baselines.
        assert_eq!(book.observe(&rule, "b", 100, us(20_000)), None);
        assert_eq!(book.observe(&rule, "a", 1000, us(20_000)), None);
    }

    #[test]
    fn the_window_keeps_the_latest_samples() {
        let mut s = Samples::default();
        for i in 0..WINDOW + 10 {
            s.push(if i < 10 { 1e9 } else { 1.0 });
        }
        assert_eq!(s.ns_per_inst.len(), WINDOW);
        assert_eq!(s.median(), 1.0);
    }
}
