//! Per-register allocation maps: which bundle holds each register over which
//! points. One vector per register of the stretches it holds, sorted by
//! start; stretches in one map never overlap, so their ends are sorted too
//! and those overlapping a query are found by a search for the query's end
//! and a walk back from there. A sorted vector rather than a search tree:
//! probes far outnumber insertions, and a search over contiguous entries is
//! several times cheaper than a tree descent.
//!
//! A bundle enters a map as its runs (its ranges with touching ones
//! joined), all at once: one merge into the map, one compaction out of it,
//! and lookups that zip the runs with the map, each side galloping over the
//! other's gaps. A bundle of thousands of ranges (a value live across a
//! large function) so costs one pass, not a search and a shift per range.

use super::points::Point;
use crate::gallop::partition_from;
use crate::ir::index::PReg;

/// Owner of a reservation (a clobber, a `nonalloc` register, a register
/// kept free at a block entry): nothing can evict it.
pub const RESERVED: u32 = u32::MAX;

/// One occupied range of a register: `[start, end)` and its owner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Held {
    start: Point,
    end: Point,
    owner: u32,
}

/// The maps of every register of every class.
pub struct RegMaps {
    maps: Vec<Vec<Held>>,
    /// The merged span of [`RegMaps::insert_all`].
    scratch: Vec<Held>,
}

/// No storage at all, not even the per-register maps, until
/// [`RegMaps::refill`] makes them: what a kept context holds before its
/// first allocation.
impl Default for RegMaps {
    fn default() -> RegMaps {
        RegMaps {
            maps: Vec::new(),
            scratch: Vec::new(),
        }
    }
}

impl RegMaps {
    /// Maps holding only the `reservations` `(r, from, to)`, each merged
    /// with those it overlaps or touches, in the storage of these maps
    /// (whatever they held is dropped), so that one allocation after
    /// another does not grow every register's map again. Each map is built
    /// whole, then sorted and merged: the allocator finds reservations last
    /// point first, so taken in reverse they come nearly in order, and each
    /// register's few are cheaper to sort than all of them by register.
    pub fn refill(mut self, reservations: &[(PReg, Point, Point)]) -> RegMaps {
        self.maps.resize_with(PReg::NUM_INDEX, Vec::new);
        for map in &mut self.maps {
            map.clear();
        }
        for &(r, from, to) in reservations.iter().rev() {
            self.maps[r.index()].push(Held {
                start: from,
                end: to,
                owner: RESERVED,
            });
        }
        for map in &mut self.maps {
            if map.len() < 2 {
                continue;
            }
            if !map.is_sorted_by_key(|h| h.start) {
                map.sort_unstable_by_key(|h| h.start);
            }
            let mut last = 0;
            for k in 1..map.len() {
                let h = map[k];
                if map[last].end >= h.start {
                    map[last].end = map[last].end.max(h.end);
                } else {
                    last += 1;
                    map[last] = h;
                }
            }
            map.truncate(last + 1);
        }
        self
    }

    /// Gives `r` the sorted, disjoint `runs` of `bundle`, merged into its
    /// map in one pass over the entries they interleave with.
    pub fn insert_all(&mut self, r: PReg, runs: &[(Point, Point)], bundle: u32) {
        let (Some(first), Some(last)) = (runs.first(), runs.last()) else {
            return;
        };
        let map = &mut self.maps[r.index()];
        let lo = map.partition_point(|h| h.start < first.0);
        let hi = lo + map[lo..].partition_point(|h| h.start < last.0);
        let held = |&(start, end): &(Point, Point)| Held {
            start,
            end,
            owner: bundle,
        };
        self.scratch.clear();
        let (mut i, mut j) = (lo, 0);
        while i < hi && j < runs.len() {
            debug_assert!(
                map[i].start != runs[j].0,
                "{r} is already held at {}",
                runs[j].0
            );
            if map[i].start < runs[j].0 {
                self.scratch.push(map[i]);
                i += 1;
            } else {
                self.scratch.push(held(&runs[j]));
                j += 1;
            }
        }
        self.scratch.extend_from_slice(&map[i..hi]);
        self.scratch.extend(runs[j..].iter().map(held));
        map.splice(lo..hi, self.scratch.drain(..));
    }

    /// Takes the `runs` of `bundle` (as inserted) out of `r`'s map,
    /// compacting the span they cover in one pass.
    pub fn remove_all(&mut self, r: PReg, runs: &[(Point, Point)], bundle: u32) {
        let (Some(first), Some(last)) = (runs.first(), runs.last()) else {
            return;
        };
        let map = &mut self.maps[r.index()];
        let lo = map.partition_point(|h| h.start < first.0);
        let hi = lo + map[lo..].partition_point(|h| h.start <= last.0);
        let mut kept = lo;
        for i in lo..hi {
            if map[i].owner != bundle {
                map[kept] = map[i];
                kept += 1;
            }
        }
        debug_assert_eq!(
            hi - kept,
            runs.len(),
            "{r} does not hold every run of {bundle}"
        );
        map.drain(kept..hi);
    }

    /// Calls `visit(start, owner)` for each entry of `r`'s map overlapping
    /// one of the sorted, disjoint `runs`, latest first within each, until
    /// it returns `false`; `start` is where the overlap begins. An entry
    /// overlapping two runs is visited for each.
    #[inline]
    pub fn overlaps_all(
        &self,
        r: PReg,
        runs: &[(Point, Point)],
        mut visit: impl FnMut(Point, u32) -> bool,
    ) {
        let map = &self.maps[r.index()];
        let (mut i, mut j) = (0, 0);
        while i < runs.len() {
            let (from, to) = runs[i];
            // The first entry ending after `from`: every earlier one ended
            // at or before an earlier run's start.
            j = partition_from(map, j, |h| h.end <= from);
            let Some(next) = map.get(j) else {
                return;
            };
            if next.start >= to {
                // Nothing here: on to the first run ending after it.
                i = partition_from(runs, i + 1, |q| q.1 <= next.start);
                continue;
            }
            let hi = partition_from(map, j + 1, |h| h.start < to);
            for h in map[j..hi].iter().rev() {
                if !visit(h.start.max(from), h.owner) {
                    return;
                }
            }
            i += 1;
        }
    }

    /// Whether anything occupies `r` anywhere in `[from, to)`.
    pub fn occupied_in(&self, r: PReg, from: Point, to: Point) -> bool {
        let map = &self.maps[r.index()];
        let hi = map.partition_point(|h| h.start < to);
        hi > 0 && map[hi - 1].end > from
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::index::RegClass;

    fn seen(maps: &RegMaps, r: PReg, runs: &[(Point, Point)]) -> Vec<(Point, u32)> {
        let mut seen = Vec::new();
        maps.overlaps_all(r, runs, |s, o| {
            seen.push((s, o));
            true
        });
        seen
    }

    #[test]
    fn overlaps_and_reservations() {
        let r = PReg::new(0, RegClass::Int);
        let other = PReg::new(1, RegClass::Int);
        let mut maps =
            RegMaps::default().refill(&[(r, 30, 31), (other, 0, 40), (r, 31, 33), (r, 29, 30)]);
        assert_eq!(maps.maps[r.index()].len(), 1, "touching reservations merge");
        maps.insert_all(r, &[(10, 20)], 1);
        maps.insert_all(r, &[(20, 25)], 2);
        assert_eq!(
            seen(&maps, r, &[(15, 40)]),
            [(29, RESERVED), (20, 2), (15, 1)]
        );
        assert!(seen(&maps, r, &[(25, 29)]).is_empty());
        assert!(
            maps.occupied_in(r, 32, 33)
                && !maps.occupied_in(r, 33, 34)
                && !maps.occupied_in(r, 26, 27)
        );
        assert!(
            maps.occupied_in(r, 25, 30)
                && !maps.occupied_in(r, 25, 29)
                && !maps.occupied_in(r, 33, 40)
        );
        maps.remove_all(r, &[(20, 25)], 2);
        assert!(!maps.occupied_in(r, 22, 23));
        let mut first = None;
        maps.overlaps_all(r, &[(0, 100)], |s, _| {
            first = Some(s);
            false
        });
        assert_eq!(first, Some(29));
    }

    #[test]
    fn reservations_in_any_order_merge_where_they_touch_or_overlap() {
        let r = PReg::new(2, RegClass::Int);
        let other = PReg::new(2, RegClass::Float);
        let spans = |maps: &RegMaps, r: PReg| -> Vec<(Point, Point)> {
            maps.maps[r.index()]
                .iter()
                .map(|h| (h.start, h.end))
                .collect()
        };
        // Touching (5..9, 9..12, 12..14), overlapping (18..24, 20..26), one
        // inside another (31..32 in 30..35); gaps of two points and of one
        // (14 to 16, 17 to 18) keep spans apart.
        let res = [
            (r, 20, 26),
            (r, 9, 12),
            (other, 0, 99),
            (r, 31, 32),
            (r, 5, 9),
            (r, 12, 14),
            (r, 18, 24),
            (r, 16, 17),
            (r, 30, 35),
        ];
        let maps = RegMaps::default().refill(&res);
        assert_eq!(spans(&maps, r), [(5, 14), (16, 17), (18, 26), (30, 35)]);
        assert_eq!(spans(&maps, other), [(0, 99)]);
        // Refilled, the storage forgets what it held.
        let maps = maps.refill(&[(r, 40, 41)]);
        assert_eq!(spans(&maps, r), [(40, 41)]);
        assert!(spans(&maps, other).is_empty());
    }

    #[test]
    fn whole_bundles_interleave_and_leave_in_one_pass() {
        let r = PReg::new(3, RegClass::Float);
        let mut maps = RegMaps::default().refill(&[]);
        let evens: Vec<_> = (0..40).map(|i| (i * 10, i * 10 + 5)).collect();
        let odds: Vec<_> = (0..40).map(|i| (i * 10 + 5, i * 10 + 9)).collect();
        maps.insert_all(r, &evens[10..30], 1);
        maps.insert_all(r, &odds, 2);
        maps.insert_all(r, &evens[..10], 1);
        maps.insert_all(r, &evens[30..], 3);
        let starts: Vec<_> = maps.maps[r.index()].iter().map(|h| h.start).collect();
        let mut want: Vec<_> = evens.iter().chain(&odds).map(|e| e.0).collect();
        want.sort_unstable();
        assert_eq!(starts, want);
        // Walks gallop over many ranges and visit each overlap once per
        // query range, latest first within one.
        assert_eq!(
            seen(&maps, r, &[(7, 12), (300, 301), (396, 420)]),
            [(10, 1), (7, 2), (300, 3), (396, 2)]
        );
        assert_eq!(seen(&maps, r, &[(399, 500), (600, 700)]), []);
        maps.remove_all(r, &odds, 2);
        assert_eq!(maps.maps[r.index()].len(), 40);
        assert!(maps.maps[r.index()].iter().all(|h| h.owner != 2));
        assert_eq!(seen(&maps, r, &[(5, 10), (103, 107)]), [(103, 1)]);
    }
}
