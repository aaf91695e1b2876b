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

/// [`assign`]'s storage kept from one allocation to the next (see
/// [`super::Ctx`]): the probing lists, every slot map made so far (the
/// first `count` in use) and a buffer. An assignment refills it whatever it
/// holds.
#[derive(Default)]
pub struct Spare {
    lists: [std::collections::VecDeque<u32>; 3],
    maps: Vec<SlotMap>,
    want: Vec<(Point, Point)>,
}

/// Assigns slots. `extents(v)` lists the ranges of value `v` as built.
pub fn assign<'a>(
    spillsets: &[SpillSet],
    extents: impl Fn(u32) -> &'a [(Point, Point)],
    spare: &mut Spare,
) -> Slots {
    let mut of_spillset = vec![u32::MAX; spillsets.len()];
    // Per class: the slots in probing order (front first).
    let lists = &mut spare.lists;
    for list in lists.iter_mut() {
        list.clear();
    }
    let (maps, want) = (&mut spare.maps, &mut spare.want);
    let mut count = 0;
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
                if count == maps.len() {
                    maps.push(SlotMap::new());
                }
                maps[count].clear();
                count += 1;
                let slot = count as u32 - 1;
                list.push_back(slot);
                slot
            }
        };
        let map = &mut maps[slot as usize];
        for &(f, t) in want.iter() {
            let k = map.partition_point(|x| x.0 < f);
            map.insert(k, (f, t));
        }
        of_spillset[s] = slot;
    }
    Slots {
        of_spillset,
        count: count as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backtracking::bundles::NONE;
    use crate::ir::index::RegClass;

    #[test]
    fn a_range_fits_up_to_the_next_one_and_after_the_last() {
        let map: SlotMap = vec![(10, 20), (30, 40)];
        assert!(fits(&map, 5, 10) && fits(&map, 20, 30) && fits(&map, 40, 50));
        assert!(!fits(&map, 5, 11) && !fits(&map, 19, 30) && !fits(&map, 25, 31));
        assert!(fits(&SlotMap::new(), 0, 100));
    }

    #[test]
    fn spill_sets_share_a_slot_only_where_no_ranges_overlap() {
        // Value v's ranges are `ext[v]`; spill set s holds value s.
        let ext: [&[(Point, Point)]; 7] = [
            &[(20, 30)],
            &[(0, 10)],
            &[(12, 18)],
            &[(25, 28)],
            &[(0, 5)],
            &[(40, 50), (60, 70)],
            &[(15, 16)],
        ];
        let sets: Vec<SpillSet> = (0..7)
            .map(|v| SpillSet {
                class: if v == 4 {
                    RegClass::Float
                } else {
                    RegClass::Int
                },
                values: smallvec::smallvec![v],
                hint: None,
                spill_bundle: NONE,
                needed: v != 5,
            })
            .collect();
        let slots = assign(&sets, |v| ext[v as usize], &mut Spare::default());
        // 1 and 2 fit around 0; 3 overlaps 0; the float needs its own; 5
        // needs none; 6 overlaps 2, and fits beside 3.
        assert_eq!(slots.of_spillset, [0, 0, 0, 1, 2, u32::MAX, 1]);
        assert_eq!(slots.count, 3);
    }
}
