//! Splitting in the main loop: where a bundle that lost is cut, the cut
//! itself (a range divided, the two halves requeued), and the spill
//! bundle that gathers the parts nothing needs in a register.

use super::super::bundles::{Bundle, RangeList, NONE};
use super::super::liveranges::LiveRange;
use super::super::points::{e_after_inst, e_at_or_before, is_e, Point};
use super::super::requirement::Req;
use super::Loop;
use crate::interface::AllocError;
use crate::ir::index::PReg;

impl Loop<'_> {
    /// The split point for a conflict at `at`: the last point at or before
    /// it where the bundle can be split (an `E` point inside a range, or the
    /// start of a range that is not the first); when there is none, the
    /// first such point around its first constrained use.
    pub(super) fn split_point(&self, k: u32, at: Point) -> Point {
        let ranges = &self.bundles[k as usize].ranges;
        let inside = |j: usize, q: Point| q > ranges[j].0 && q < ranges[j].1 && is_e(q);
        // The range holding `at`, or the first one after it.
        let j = ranges.partition_point(|r| r.1 <= at).min(ranges.len() - 1);
        if let Some(q) = e_at_or_before(at).filter(|&q| inside(j, q)) {
            return q;
        }
        if j > 0 {
            return ranges[j].0;
        }
        let (j, first_use) = ranges
            .iter()
            .enumerate()
            .find_map(|(j, &(_, _, x))| {
                self.uses_of(x)
                    .iter()
                    .find(|u| u.req != Req::Top)
                    .map(|u| (j, u.point))
            })
            .unwrap_or((0, ranges[0].0));
        if let Some(q) = e_at_or_before(first_use).filter(|&q| inside(j, q)) {
            return q;
        }
        if j > 0 {
            return ranges[j].0;
        }
        let q = e_after_inst(first_use);
        if inside(j, q) {
            return q;
        }
        debug_assert!(ranges.len() > 1, "a minimal bundle is never split");
        ranges[1].0
    }

    pub(super) fn spill_bundle(&mut self, ss: u32) -> u32 {
        let sb = self.spillsets[ss as usize].spill_bundle;
        if sb != NONE {
            return sb;
        }
        let sb = self.bundles.len() as u32;
        self.bundles.push(Bundle::new(RangeList::new(), ss, None));
        self.spillsets[ss as usize].spill_bundle = sb;
        self.spilled.push(sb);
        sb
    }

    pub(super) fn move_all_to_spill_bundle(&mut self, k: u32, sb: u32) {
        let moved = std::mem::take(&mut self.bundles[k as usize].ranges);
        for &(_, _, x) in &moved {
            self.range_bundle[x as usize] = sb;
        }
        self.bundles[sb as usize].ranges.extend(moved);
    }

    /// Splits range `x` at `q`: `x` keeps `[from, q)`, the new range gets
    /// `[q, to)` and the uses from `q` on.
    fn split_range(&mut self, x: u32, q: Point) -> u32 {
        let lr = self.ranges[x as usize];
        debug_assert!(lr.from < q && q < lr.to);
        let (a, b) = lr.uses;
        let mid = a + self.uses[a as usize..b as usize].partition_point(|u| u.point < q) as u32;
        self.ranges[x as usize].to = q;
        self.ranges[x as usize].uses = (a, mid);
        let y = self.ranges.len() as u32;
        self.ranges.push(LiveRange {
            from: q,
            to: lr.to,
            value: lr.value,
            uses: (mid, b),
        });
        self.range_bundle.push(self.range_bundle[x as usize]);
        y
    }

    /// Splits bundle `k` at `q` into `[.., q)` and `[q, ..)`, moves the ends
    /// around the split that no operand constrains into the spill bundle,
    /// and requeues both halves with `hint`.
    pub(super) fn split(&mut self, k: u32, q: Point, hint: Option<PReg>) -> Result<(), AllocError> {
        self.stats.splits += 1;
        let mut first = std::mem::take(&mut self.bundles[k as usize].ranges);
        debug_assert!(
            first[0].0 < q && q < first[first.len() - 1].1,
            "split at {q} outside the bundle"
        );
        let at = first.partition_point(|r| r.1 <= q);
        // The longer half keeps the list's storage: a long bundle split
        // again and again near one end must not leave every piece holding
        // room for all of it (on esbuild's largest function that room was
        // half the peak heap).
        let mut second: RangeList = if at >= first.len() - at {
            first.drain(at..).collect()
        } else {
            let head = first.drain(..at).collect();
            std::mem::replace(&mut first, head)
        };
        if let Some(&(from, to, x)) = second.first() {
            if from < q {
                let y = self.split_range(x, q);
                first.push((from, q, x));
                second[0] = (q, to, y);
            }
        }
        let ss = self.bundles[k as usize].spillset;
        let mut to_spill = std::mem::take(&mut self.to_spill);
        to_spill.clear();
        // Tail of the first half.
        while let Some(&(from, to, x)) = first.last() {
            match self
                .uses_of(x)
                .iter()
                .rev()
                .find(|u| u.req != Req::Top)
                .map(|u| u.point)
            {
                None => {
                    to_spill.push((from, to, x));
                    first.pop();
                }
                Some(last) => {
                    let cut = e_after_inst(last);
                    if cut < to {
                        let y = self.split_range(x, cut);
                        to_spill.push((cut, to, y));
                        first.last_mut().expect("nonempty").1 = cut;
                    }
                    break;
                }
            }
        }
        // Head of the second half.
        let mut skip = 0;
        while skip < second.len() {
            let (from, to, x) = second[skip];
            match self
                .uses_of(x)
                .iter()
                .find(|u| u.req != Req::Top)
                .map(|u| u.point)
            {
                None => {
                    to_spill.push((from, to, x));
                    skip += 1;
                }
                Some(p) => {
                    if let Some(cut) = e_at_or_before(p).filter(|&c| c > from) {
                        let y = self.split_range(x, cut);
                        // `x` keeps the head; the rest is `y`.
                        to_spill.push((from, cut, x));
                        second[skip] = (cut, to, y);
                    }
                    break;
                }
            }
        }
        second.drain(..skip);
        if !to_spill.is_empty() {
            let sb = self.spill_bundle(ss);
            for &(_, _, x) in &to_spill {
                self.range_bundle[x as usize] = sb;
            }
            self.bundles[sb as usize]
                .ranges
                .extend_from_slice(&to_spill);
        }
        self.to_spill = to_spill;
        self.bundles[k as usize].ranges = first;
        self.bundles[k as usize].hint = hint;
        let nk = self.bundles.len() as u32;
        for &(_, _, x) in &second {
            self.range_bundle[x as usize] = nk;
        }
        self.bundles.push(Bundle::new(second, ss, hint));
        self.enqueue(k);
        self.enqueue(nk);
        Ok(())
    }
}
