//! Per-register allocation maps: which bundle holds each register over which
//! points. One ordered map per register, keyed by the start of each
//! occupied range; ranges in one map never overlap, so their ends are
//! sorted too and the ranges overlapping a query are found by walking back
//! from the query's end.

use super::points::Point;
use crate::ir::index::PReg;
use std::collections::BTreeMap;

/// Owner of a reservation (a clobber, a `nonalloc` register, a register
/// kept free at a block entry): nothing can evict it.
pub const RESERVED: u32 = u32::MAX;

/// The maps of every register of every class.
pub struct RegMaps {
    maps: Vec<BTreeMap<Point, (Point, u32)>>,
}

impl RegMaps {
    pub fn new() -> RegMaps {
        RegMaps {
            maps: (0..PReg::NUM_INDEX).map(|_| BTreeMap::new()).collect(),
        }
    }

    /// Reserves `[from, to)` of `r`, merged with reservations it touches.
    /// Reservations are made before any bundle is placed.
    pub fn reserve(&mut self, r: PReg, mut from: Point, mut to: Point) {
        let map = &mut self.maps[r.index()];
        let touching: Vec<Point> = map
            .range(..=to)
            .rev()
            .take_while(|(_, &(end, _))| end >= from)
            .map(|(&s, _)| s)
            .collect();
        for s in touching {
            let (end, owner) = map.remove(&s).expect("present");
            debug_assert_eq!(owner, RESERVED);
            from = from.min(s);
            to = to.max(end);
        }
        map.insert(from, (to, RESERVED));
    }

    pub fn insert(&mut self, r: PReg, from: Point, to: Point, bundle: u32) {
        let old = self.maps[r.index()].insert(from, (to, bundle));
        debug_assert!(old.is_none(), "{r} already holds a range at {from}");
    }

    pub fn remove(&mut self, r: PReg, from: Point) {
        let old = self.maps[r.index()].remove(&from);
        debug_assert!(old.is_some(), "{r} holds no range at {from}");
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
        for (&s, &(end, owner)) in self.maps[r.index()].range(..to).rev() {
            if end <= from || !visit(s.max(from), owner) {
                return;
            }
        }
    }

    /// Whether anything occupies `r` anywhere in `[from, to)`.
    pub fn occupied_in(&self, r: PReg, from: Point, to: Point) -> bool {
        self.maps[r.index()]
            .range(..to)
            .next_back()
            .is_some_and(|(_, &(end, _))| end > from)
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
