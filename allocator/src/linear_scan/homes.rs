//! Where each value lives over its life: the windows of its parts in
//! position order, each with one location, as `assemble` reads them.

use super::layout::Pos;
use super::part::{Loc, PartId, Parts};
use std::cell::Cell;

/// One window `[start, end)` of a vreg's life and its location there.
pub type Home = (Pos, Pos, Loc);

/// Every vreg's homes, grouped by vreg, in position order.
pub struct Homes {
    list: Vec<Home>,
    of: Vec<(u32, u32)>,
    /// Per vreg: the index in `list` of the home found last. `assemble`
    /// walks the blocks in linear order, so a lookup mostly asks about the
    /// same home or the next one, and starts there before it searches.
    cursor: Vec<Cell<u32>>,
}

impl Homes {
    /// The homes of the scan's parts (`first_part[v]` starts vreg `v`'s
    /// chain of parts, linked through `next` in position order).
    pub fn new(parts: &Parts, first_part: &[PartId]) -> Homes {
        let mut list = Vec::with_capacity(parts.len());
        let mut of = Vec::with_capacity(first_part.len());
        for &first in first_part {
            let a = list.len() as u32;
            let mut p = first;
            while p != PartId::NONE {
                let x = parts[p];
                list.push((x.start, x.end, x.loc));
                p = x.next;
            }
            of.push((a, list.len() as u32));
        }
        let cursor = of.iter().map(|&(a, _)| Cell::new(a)).collect();
        Homes { list, of, cursor }
    }

    /// Vreg `v`'s homes (empty when it is never live).
    #[inline]
    pub fn of(&self, v: usize) -> &[Home] {
        let (a, b) = self.of[v];
        &self.list[a as usize..b as usize]
    }

    /// Vreg `v`'s homes, to change their locations.
    #[inline]
    pub fn of_mut(&mut self, v: usize) -> &mut [Home] {
        let (a, b) = self.of[v];
        &mut self.list[a as usize..b as usize]
    }

    /// Where vreg `v` is at position `pos`, where it is live.
    #[inline]
    pub fn at(&self, v: usize, pos: Pos) -> Loc {
        let (a, b) = self.of[v];
        let c = self.cursor[v].get();
        let h = self.list[c as usize];
        if h.0 <= pos && pos < h.1 {
            return h.2;
        }
        let k = if pos >= h.1 && c + 1 < b && pos < self.list[c as usize + 1].1 {
            c + 1
        } else {
            a + self.list[a as usize..b as usize].partition_point(|x| x.1 <= pos) as u32
        };
        debug_assert!(
            k < b && self.list[k as usize].0 <= pos,
            "v{v} has no home at {pos}"
        );
        self.cursor[v].set(k);
        self.list[k as usize].2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::index::{PReg, RegClass};
    use crate::linear_scan::part::Part;

    const NONE: PartId = PartId::NONE;

    fn part(vreg: u32, start: u32, end: u32, loc: Loc, next: PartId) -> Part {
        Part {
            vreg,
            start: Pos::raw(start),
            end: Pos::raw(end),
            loc,
            next,
        }
    }

    fn id(i: usize) -> PartId {
        PartId::new(i)
    }

    #[test]
    fn lookups_find_the_home_in_any_order() {
        let r = Loc::Reg(PReg::new(1, RegClass::Int));
        // v0: [2, 6) in r, then [8, 12) in its slot, then [12, 20) in r;
        // v1 lives nowhere; v2: [0, 4) in its slot.
        let mut parts = Parts::default();
        for x in [
            part(0, 2, 6, r, id(2)),
            part(2, 0, 4, Loc::Stack, NONE),
            part(0, 8, 12, Loc::Stack, id(3)),
            part(0, 12, 20, r, NONE),
        ] {
            parts.push(x);
        }
        let homes = Homes::new(&parts, &[id(0), NONE, id(1)]);
        assert!(homes.of(1).is_empty());
        assert_eq!(homes.of(0).len(), 3);
        let want = |pos: u32| match pos {
            2..6 | 12..20 => r,
            8..12 => Loc::Stack,
            _ => unreachable!(),
        };
        let forward: Vec<u32> = (2..6).chain(8..20).collect();
        let order = forward
            .iter()
            .copied()
            .chain(forward.iter().rev().copied())
            .chain([19, 2, 12, 3, 9, 5, 18, 8]);
        for pos in order {
            assert_eq!(homes.at(0, Pos::raw(pos)), want(pos), "at {pos}");
        }
        assert_eq!(homes.at(2, Pos::raw(3)), Loc::Stack);
    }
}
