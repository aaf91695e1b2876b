//! Per-register allocation maps: which bundle holds each register over which
//! points. One vector per register of the ranges it holds, sorted by start;
//! ranges in one map never overlap, so their ends are sorted too and the
//! ranges overlapping a query are found by a binary search for the query's
//! end and a walk back from there. A sorted vector rather than a search
//! tree: probes far outnumber insertions, and a binary search over
//! contiguous entries is several times cheaper than a tree descent
//! (`cargo bench -p fuzz_targets --bench allocate`); an insertion moves the
//! entries after it, a few hundred bytes in the functions the fuzzers make.

use super::points::Point;
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
}

impl RegMaps {
    pub fn new() -> RegMaps {
        RegMaps {
            maps: vec![Vec::new(); PReg::NUM_INDEX],
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

    pub fn insert(&mut self, r: PReg, from: Point, to: Point, bundle: u32) {
        let map = &mut self.maps[r.index()];
        let at = map.partition_point(|h| h.start < from);
        debug_assert!(
            map.get(at).is_none_or(|h| h.start != from),
            "{r} already holds a range at {from}"
        );
        map.insert(
            at,
            Held {
                start: from,
                end: to,
                owner: bundle,
            },
        );
    }

    pub fn remove(&mut self, r: PReg, from: Point) {
        let map = &mut self.maps[r.index()];
        let at = map.partition_point(|h| h.start < from);
        debug_assert!(
            map.get(at).is_some_and(|h| h.start == from),
            "{r} holds no range at {from}"
        );
        map.remove(at);
    }

    /// Calls `visit(start, owner)` for each range of `r` overlapping
    /// `[from, to)`, latest first, until it returns `false`.
    #[inline]
    pub fn overlaps(
        &self,
        r: PReg,
        from: Point,
        to: Point,
        mut visit: impl FnMut(Point, u32) -> bool,
    ) {
        let map = &self.maps[r.index()];
        let hi = map.partition_point(|h| h.start < to);
        for h in map[..hi].iter().rev() {
            if h.end <= from || !visit(h.start.max(from), h.owner) {
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

    #[test]
    fn overlaps_and_reservations() {
        let r = PReg::new(0, RegClass::Int);
        let mut maps = RegMaps::new();
        maps.insert(r, 10, 20, 1);
        maps.insert(r, 20, 25, 2);
        maps.reserve(r, 30, 31);
        maps.reserve(r, 31, 33);
        maps.reserve(r, 29, 30);
        let mut seen = Vec::new();
        maps.overlaps(r, 15, 40, |s, o| {
            seen.push((s, o));
            true
        });
        assert_eq!(seen, vec![(29, RESERVED), (20, 2), (15, 1)]);
        seen.clear();
        maps.overlaps(r, 25, 29, |s, o| {
            seen.push((s, o));
            true
        });
        assert!(seen.is_empty());
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
        maps.remove(r, 20);
        assert!(!maps.occupied_in(r, 22, 23));
        let mut first = None;
        maps.overlaps(r, 0, 100, |s, _| {
            first = Some(s);
            false
        });
        assert_eq!(first, Some(29));
    }
}
