//! Per-register allocation maps: which bundle holds each register over which
//! points. One vector per register of the ranges it holds, sorted by start;
//! ranges in one map never overlap, so their ends are sorted too and the
//! ranges overlapping a query are found by a search for the query's end and
//! a walk back from there. A sorted vector rather than a search tree:
//! probes far outnumber insertions, and a search over contiguous entries is
//! several times cheaper than a tree descent. The operations that take a
//! whole bundle (its ranges sorted by start) walk the map once: the search
//! for each range gallops forward from the previous one's, and a bundle's
//! ranges go in or out of a map in one merge, so that a bundle of thousands
//! of ranges (a value live across a large function) costs one pass over the
//! map, not one shift of its tail per range.

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

impl RegMaps {
    pub fn new() -> RegMaps {
        RegMaps {
            maps: vec![Vec::new(); PReg::NUM_INDEX],
            scratch: Vec::new(),
        }
    }

    /// Reserves `[from, to)` of `r`, merged with reservations it touches.
    /// Reservations are made before any bundle is placed.
    pub fn reserve(&mut self, r: PReg, mut from: Point, mut to: Point) {
        let map = &mut self.maps[r.index()];
        // The ranges touching `[from, to]` are the contiguous run that
        // starts no later than `to` and ends no earlier than `from`.
        let hi = map.partition_point(|h| h.start <= to);
        let lo = map[..hi].partition_point(|h| h.end < from);
        for h in &map[lo..hi] {
            debug_assert_eq!(h.owner, RESERVED);
            from = from.min(h.start);
            to = to.max(h.end);
        }
        map.splice(
            lo..hi,
            [Held {
                start: from,
                end: to,
                owner: RESERVED,
            }],
        );
    }

    /// Gives `r` the sorted, disjoint `ranges` of `bundle`, merged into its
    /// map in one pass over the entries they interleave with.
    pub fn insert_all(&mut self, r: PReg, ranges: &[(Point, Point, u32)], bundle: u32) {
        let (Some(first), Some(last)) = (ranges.first(), ranges.last()) else {
            return;
        };
        let map = &mut self.maps[r.index()];
        let lo = map.partition_point(|h| h.start < first.0);
        let hi = lo + map[lo..].partition_point(|h| h.start < last.0);
        let held = |&(start, end, _): &(Point, Point, u32)| Held {
            start,
            end,
            owner: bundle,
        };
        if lo == hi {
            map.splice(lo..lo, ranges.iter().map(held));
            return;
        }
        self.scratch.clear();
        let (mut i, mut j) = (lo, 0);
        while i < hi && j < ranges.len() {
            if map[i].start < ranges[j].0 {
                self.scratch.push(map[i]);
                i += 1;
            } else {
                debug_assert!(
                    map[i].start != ranges[j].0,
                    "{r} already holds a range at {}",
                    map[i].start
                );
                self.scratch.push(held(&ranges[j]));
                j += 1;
            }
        }
        self.scratch.extend_from_slice(&map[i..hi]);
        self.scratch.extend(ranges[j..].iter().map(held));
        map.splice(lo..hi, self.scratch.drain(..));
    }

    /// Takes the sorted `ranges` of `bundle` out of `r`'s map, compacting
    /// the span they cover in one pass.
    pub fn remove_all(&mut self, r: PReg, ranges: &[(Point, Point, u32)], bundle: u32) {
        let (Some(first), Some(last)) = (ranges.first(), ranges.last()) else {
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
            ranges.len(),
            "{r} does not hold every range of {bundle}"
        );
        map.drain(kept..hi);
    }

    /// Calls `visit(start, owner)` for each range of `r` overlapping one of
    /// the sorted, disjoint `ranges`, latest first within each, until it
    /// returns `false`. A range of `r` overlapping two of them is visited
    /// for each.
    #[inline]
    pub fn overlaps_all(
        &self,
        r: PReg,
        ranges: &[(Point, Point, u32)],
        mut visit: impl FnMut(Point, u32) -> bool,
    ) {
        let map = &self.maps[r.index()];
        if map.is_empty() {
            return;
        }
        let mut hi = 0;
        for &(from, to, _) in ranges {
            hi = partition_from(map, hi, |h| h.start < to);
            for h in map[..hi].iter().rev() {
                if h.end <= from {
                    break;
                }
                if !visit(h.start.max(from), h.owner) {
                    return;
                }
            }
            if hi == map.len() && map[hi - 1].end <= from {
                return;
            }
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

    fn seen(maps: &RegMaps, r: PReg, ranges: &[(Point, Point)]) -> Vec<(Point, u32)> {
        let ranges: Vec<_> = ranges.iter().map(|&(f, t)| (f, t, 0)).collect();
        let mut seen = Vec::new();
        maps.overlaps_all(r, &ranges, |s, o| {
            seen.push((s, o));
            true
        });
        seen
    }

    #[test]
    fn overlaps_and_reservations() {
        let r = PReg::new(0, RegClass::Int);
        let mut maps = RegMaps::new();
        maps.insert_all(r, &[(10, 20, 0)], 1);
        maps.insert_all(r, &[(20, 25, 0)], 2);
        maps.reserve(r, 30, 31);
        maps.reserve(r, 31, 33);
        maps.reserve(r, 29, 30);
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
        maps.remove_all(r, &[(20, 25, 0)], 2);
        assert!(!maps.occupied_in(r, 22, 23));
        let mut first = None;
        maps.overlaps_all(r, &[(0, 100, 0)], |s, _| {
            first = Some(s);
            false
        });
        assert_eq!(first, Some(29));
    }

    #[test]
    fn whole_bundles_interleave_and_leave_in_one_pass() {
        let r = PReg::new(3, RegClass::Float);
        let mut maps = RegMaps::new();
        let evens: Vec<_> = (0..40).map(|i| (i * 10, i * 10 + 5, 0)).collect();
        let odds: Vec<_> = (0..40).map(|i| (i * 10 + 5, i * 10 + 9, 0)).collect();
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
