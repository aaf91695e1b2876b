//! Spill slots for the spill sets that need one. A slot is reserved for
//! every range of every value of its spill set (not only the spilled
//! pieces), so a value reloaded and not redefined is still in its slot and
//! redundant-move elimination may drop a second store. Spill sets whose
//! ranges do not overlap share a slot: each class keeps its slots in a
//! round-robin list, a spill set tries a few of them and takes the first
//! that fits, else opens a new slot.

use super::bundles::SpillSet;
use super::points::Point;

/// Slots probed before a new one is opened.
const PROBES: usize = 10;

/// The slot of each spill set (`u32::MAX` when it needs none) and the
/// number of slots.
pub struct Slots {
    pub of_spillset: Vec<u32>,
    pub count: u32,
}

/// The ranges a slot holds, `(start, end)` sorted by start; they never
/// overlap, so their ends are sorted too.
type SlotMap = Vec<(Point, Point)>;

/// Whether `[from, to)` is free in `map`: the last range starting before
/// `to` ends by `from`.
fn fits(map: &SlotMap, from: Point, to: Point) -> bool {
    let k = map.partition_point(|x| x.0 < to);
    k == 0 || map[k - 1].1 <= from
}

/// Assigns slots. `extents(v)` lists the ranges of value `v` as built.
pub fn assign<'a>(spillsets: &[SpillSet], extents: impl Fn(u32) -> &'a [(Point, Point)]) -> Slots {
    let mut of_spillset = vec![u32::MAX; spillsets.len()];
    // Per class: the slots in probing order (front first).
    let mut lists: [std::collections::VecDeque<u32>; 3] = Default::default();
    let mut maps: Vec<SlotMap> = Vec::new();
    let mut want: Vec<(Point, Point)> = Vec::new();
    for (s, ss) in spillsets.iter().enumerate() {
        if !ss.needed {
            continue;
        }
        want.clear();
        for &v in &ss.values {
            want.extend_from_slice(extents(v));
        }
        let c = ss.class.index();
        let list = &mut lists[c];
        let found = list
            .iter()
            .take(PROBES)
            .position(|&slot| want.iter().all(|&(f, t)| fits(&maps[slot as usize], f, t)));
        let slot = match found {
            Some(pos) => {
                let slot = list.remove(pos).expect("probed");
                list.push_back(slot);
                slot
            }
            None => {
                maps.push(SlotMap::new());
                let slot = maps.len() as u32 - 1;
                list.push_back(slot);
                slot
            }
        };
        let map = &mut maps[slot as usize];
        for &(f, t) in &want {
            let k = map.partition_point(|x| x.0 < f);
            map.insert(k, (f, t));
        }
        of_spillset[s] = slot;
    }
    Slots {
        of_spillset,
        count: maps.len() as u32,
    }
}
