//! Bundles: groups of non-overlapping live ranges that want one location,
//! and spill sets, the original bundles whose pieces share one spill slot.
//!
//! Merging is the only place bundles grow. A vreg starts as one bundle;
//! then a reused input joins its def, and a branch argument joins the
//! block parameter it feeds, whenever their ranges do not overlap and their
//! requirements meet. Copy values never merge.

use super::kept::reuse;
use super::liveranges::Ranges;
use super::operands::Rewrites;
use super::points::Point;
use super::requirement::Req;
use crate::gallop::partition_from;
use crate::ir::function::Function;
use crate::ir::index::{PReg, RegClass};
use smallvec::{smallvec, SmallVec};

pub const NONE: u32 = u32::MAX;

/// A bundle's ranges, `(from, to, range)`. Most bundles are one value's
/// few ranges: held inline, they cost no allocation of their own.
pub type RangeList = SmallVec<[(Point, Point, u32); 4]>;

/// A bundle's ranges with touching ones joined (see [`Bundle::runs`]).
pub type RunList = SmallVec<[(Point, Point); 4]>;

/// The values of a spill set, inline while they are few.
pub type ValueList = SmallVec<[u32; 4]>;

/// Where a bundle ended up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    None,
    Reg(PReg),
    /// In its spill set's slot.
    Spilled,
}

/// A set of non-overlapping ranges that get one location.
#[derive(Clone, Debug)]
pub struct Bundle {
    /// `(from, to, range)`, sorted by `from` (a spill bundle's only once
    /// second-chance allocation starts).
    pub ranges: RangeList,
    /// The ranges with touching ones joined, as of the last
    /// [`Bundle::join_runs`]: what a register map holds for the bundle and
    /// what a probe looks up. A value live through a chain of blocks has a
    /// range per block, most touching the next: real functions' long-lived
    /// bundles have some thirty ranges per run.
    pub runs: RunList,
    pub home: Home,
    pub spillset: u32,
    /// Register to probe first.
    pub hint: Option<PReg>,
    /// Spill weight, as of the bundle's last queueing.
    pub weight: u32,
    /// The meet of its uses' requirements and, when that is `Conflict`,
    /// the point of the use that made it so, as of its last queueing (a
    /// bundle's ranges change only by a split, which queues both halves).
    pub req: (Req, Point),
}

impl Bundle {
    /// A bundle of `ranges`, not yet placed; its runs are joined when it is
    /// queued or offered a second chance.
    pub fn new(ranges: RangeList, spillset: u32, hint: Option<PReg>) -> Bundle {
        Bundle {
            ranges,
            runs: RunList::new(),
            home: Home::None,
            spillset,
            hint,
            weight: 0,
            req: (Req::Top, 0),
        }
    }

    /// Recomputes [`Bundle::runs`] from the ranges, sorted by start. Room
    /// left from before a split took most of them is given back.
    pub fn join_runs(&mut self) {
        self.runs.clear();
        join(&self.ranges, &mut self.runs);
        if self.runs.capacity() > 2 * self.runs.len() + 4 {
            self.runs.shrink_to_fit();
        }
    }

    /// Whether [`Bundle::runs`] is up to date with the ranges (for debug
    /// assertions where a bundle goes into or is looked up in the maps).
    pub fn runs_current(&self) -> bool {
        let mut runs = RunList::new();
        join(&self.ranges, &mut runs);
        runs == self.runs
    }
}

/// Appends to `runs` the `ranges` (sorted by start) with touching ones
/// joined.
fn join(ranges: &[(Point, Point, u32)], runs: &mut RunList) {
    for &(from, to, _) in ranges {
        match runs.last_mut() {
            Some(run) if run.1 == from => run.1 = to,
            _ => runs.push((from, to)),
        }
    }
}

/// The pieces of one original bundle: they share a spill slot and a hint.
#[derive(Clone, Debug)]
pub struct SpillSet {
    pub class: RegClass,
    /// The values whose ranges the slot is reserved for.
    pub values: ValueList,
    pub hint: Option<PReg>,
    /// The bundle that collects pieces with no register need, or [`NONE`].
    pub spill_bundle: u32,
    /// Whether some piece lives in the slot.
    pub needed: bool,
}

/// The bundles after merging.
pub struct Bundles {
    pub bundles: Vec<Bundle>,
    pub spillsets: Vec<SpillSet>,
    /// Bundle of every range.
    pub range_bundle: Vec<u32>,
}

/// The meet of the requirements of `uses`.
fn req_of(r: &Ranges, ranges: &[(Point, Point, u32)]) -> Req {
    let mut acc = Req::Top;
    for &(_, _, k) in ranges {
        let (a, b) = r.ranges[k as usize].uses;
        for u in &r.uses[a as usize..b as usize] {
            acc = acc.meet(u.req);
        }
    }
    acc
}

/// Whether two lists of disjoint ranges sorted by start overlap: each range
/// of the shorter list is looked up in the longer by a galloping search, so
/// that a bundle grown by a long chain of merges is not walked whole at
/// each one.
fn overlap(a: &[(Point, Point, u32)], b: &[(Point, Point, u32)]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let mut j = 0;
    for &(from, to, _) in short {
        // The first range of `long` ending after `from` (ends are sorted
        // too, the ranges being disjoint).
        j = partition_from(long, j, |r| r.1 <= from);
        match long.get(j) {
            None => return false,
            Some(r) if r.0 < to => return true,
            Some(_) => {}
        }
    }
    false
}

/// The union of two lists of disjoint ranges sorted by start, sorted by
/// start, built in the longer one: only its entries after the shorter
/// one's first start are moved.
fn merge_sorted<A: smallvec::Array<Item = (u32, u32, T)>, T: Copy>(
    a: SmallVec<A>,
    b: SmallVec<A>,
) -> SmallVec<A> {
    let (short, mut long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let Some(first) = short.first() else {
        return long;
    };
    let lo = long.partition_point(|r| r.0 < first.0);
    let tail: SmallVec<A> = long.drain(lo..).collect();
    long.reserve(tail.len() + short.len());
    let (mut i, mut j) = (0, 0);
    while i < tail.len() && j < short.len() {
        if tail[i].0 <= short[j].0 {
            long.push(tail[i]);
            i += 1;
        } else {
            long.push(short[j]);
            j += 1;
        }
    }
    long.extend_from_slice(&tail[i..]);
    long.extend_from_slice(&short[j..]);
    long
}

/// [`merge`]'s storage kept from one allocation to the next: its
/// temporaries, and the vectors of earlier [`Bundles`] given back by
/// [`Spare::keep`]. A merge refills them whatever they hold.
#[derive(Default)]
pub struct Spare {
    value_bundle: Vec<u32>,
    members: Vec<ValueList>,
    reqs: Vec<Req>,
    bundles: Vec<Bundle>,
    spillsets: Vec<SpillSet>,
    range_bundle: Vec<u32>,
}

impl Spare {
    /// Takes back the vectors of bundles as the main loop handed them on.
    pub fn keep(&mut self, bundles: Vec<Bundle>, spillsets: Vec<SpillSet>, range_bundle: Vec<u32>) {
        (self.bundles, self.spillsets, self.range_bundle) = (bundles, spillsets, range_bundle);
    }
}

/// One bundle per value, then the merges.
pub fn merge(f: &Function, r: &Ranges, rw: &Rewrites, spare: &mut Spare) -> Bundles {
    let nv = r.values.class.len();
    let mut value_bundle = reuse(&mut spare.value_bundle);
    value_bundle.resize(nv, NONE);
    let mut bundles = reuse(&mut spare.bundles);
    bundles.reserve(nv);
    let mut members = reuse(&mut spare.members);
    members.reserve(nv);
    let mut reqs = reuse(&mut spare.reqs);
    reqs.reserve(nv);
    for v in 0..nv {
        let (a, b) = (r.value_start[v] as usize, r.value_start[v + 1] as usize);
        if a == b {
            continue;
        }
        let ranges: RangeList = (a..b)
            .map(|k| (r.extents[k].0, r.extents[k].1, k as u32))
            .collect();
        value_bundle[v] = bundles.len() as u32;
        reqs.push(req_of(r, &ranges));
        bundles.push(Bundle::new(ranges, NONE, None));
        members.push(smallvec![v as u32]);
    }
    // Only vregs are offered: copy values are never reused inputs, defs or
    // branch arguments.
    let mut try_merge = |x: u32, y: u32| {
        let (a, b) = (value_bundle[x as usize], value_bundle[y as usize]);
        // The validator gives both sides of a reuse and of a branch
        // argument one class.
        debug_assert_eq!(r.values.class[x as usize], r.values.class[y as usize]);
        if a == NONE || b == NONE || a == b {
            return;
        }
        let (a, b) = (a as usize, b as usize);
        if overlap(&bundles[a].ranges, &bundles[b].ranges) {
            return;
        }
        let req = reqs[a].meet(reqs[b]);
        if req == Req::Conflict {
            return;
        }
        // Keep the bigger one; merge the two sorted lists (they do not
        // overlap), in one pass: a bundle grown by a long chain of merges
        // (a value passed around a loop of many blocks) is not re-sorted
        // at each one.
        let (keep, gone) = if bundles[a].ranges.len() >= bundles[b].ranges.len() {
            (a, b)
        } else {
            (b, a)
        };
        let moved = std::mem::take(&mut bundles[gone].ranges);
        let kept = std::mem::take(&mut bundles[keep].ranges);
        bundles[keep].ranges = merge_sorted(kept, moved);
        reqs[keep] = req;
        let gone_members = std::mem::take(&mut members[gone]);
        for &v in &gone_members {
            value_bundle[v as usize] = keep as u32;
        }
        members[keep].extend(gone_members);
    };
    for ru in &rw.reuses {
        try_merge(ru.input, ru.def);
    }
    for b in f.blocks() {
        for (k, &s) in f.block_succs(b).iter().enumerate() {
            for (a, p) in f.branch_args(b, k).iter().zip(f.block_params(s)) {
                try_merge(a.index() as u32, p.index() as u32);
            }
        }
    }
    // Spill sets: one per surviving bundle.
    let mut spillsets = reuse(&mut spare.spillsets);
    spillsets.reserve(bundles.len());
    let mut k = 0;
    bundles.retain_mut(|bnd| {
        let members = std::mem::take(&mut members[k]);
        k += 1;
        if bnd.ranges.is_empty() {
            return false;
        }
        bnd.spillset = spillsets.len() as u32;
        spillsets.push(SpillSet {
            class: r.values.class[members[0] as usize],
            values: members,
            hint: None,
            spill_bundle: NONE,
            needed: false,
        });
        true
    });
    (spare.value_bundle, spare.members, spare.reqs) = (value_bundle, members, reqs);
    let mut range_bundle = reuse(&mut spare.range_bundle);
    range_bundle.resize(r.ranges.len(), NONE);
    for (k, b) in bundles.iter().enumerate() {
        for &(_, _, x) in &b.ranges {
            range_bundle[x as usize] = k as u32;
        }
    }
    Bundles {
        bundles,
        spillsets,
        range_bundle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::block_sets::BlockSets;
    use crate::analysis::{cfg, loops};
    use crate::backtracking::edge_branch::EdgeBranches;
    use crate::backtracking::liveranges;
    use crate::backtracking::requirement::Masks;

    #[test]
    fn overlap_is_found_wherever_the_lists_meet() {
        let o = |a: &[(Point, Point)], b: &[(Point, Point)]| {
            let t = |x: &[(Point, Point)]| x.iter().map(|&(f, t)| (f, t, 0)).collect::<Vec<_>>();
            (overlap(&t(a), &t(b)), overlap(&t(b), &t(a)))
        };
        assert_eq!(o(&[(1, 3)], &[(5, 7)]), (false, false));
        assert_eq!(o(&[(1, 4)], &[(4, 7)]), (false, false));
        assert_eq!(o(&[(1, 5)], &[(4, 7)]), (true, true));
        assert_eq!(o(&[(1, 3), (8, 9)], &[(4, 6), (9, 12)]), (false, false));
        assert_eq!(o(&[(1, 3), (8, 10)], &[(4, 6), (9, 12)]), (true, true));
        assert_eq!(o(&[], &[(4, 6)]), (false, false));
        // A short list against a long one, met in its middle, its last
        // range, and nowhere.
        let long: Vec<_> = (0..50).map(|i| (i * 10, i * 10 + 5)).collect();
        assert_eq!(o(&long, &[(6, 9), (254, 256)]), (true, true));
        assert_eq!(o(&long, &[(486, 489), (494, 600)]), (true, true));
        assert_eq!(o(&long, &[(5, 10), (255, 260), (495, 900)]), (false, false));
    }

    #[test]
    fn runs_join_touching_ranges_only() {
        let mut b = Bundle::new(
            smallvec![(0, 3, 0), (3, 6, 1), (7, 9, 2), (9, 12, 3)],
            0,
            None,
        );
        assert!(b.runs.is_empty() && !b.runs_current());
        b.join_runs();
        assert_eq!(b.runs[..], [(0, 6), (7, 12)]);
        b.ranges.pop();
        assert!(!b.runs_current());
    }

    #[test]
    fn merging_keeps_every_range_sorted() {
        let t = |x: &[u32]| x.iter().map(|&f| (f, f + 1, f)).collect::<RangeList>();
        let long = t(&[0, 10, 20, 30, 40, 50]);
        for short in [t(&[]), t(&[5]), t(&[25, 45]), t(&[60, 70]), t(&[1, 2, 3])] {
            let mut want: Vec<_> = long.iter().chain(&short).copied().collect();
            want.sort_unstable();
            assert_eq!(merge_sorted(long.clone(), short.clone())[..], want);
            assert_eq!(merge_sorted(short.clone(), long.clone())[..], want);
        }
    }

    /// The values of each spill set after merging the unit case `name`,
    /// each bundle's ranges checked sorted.
    fn merged(name: &str) -> Vec<Vec<u32>> {
        let case = crate::fixtures::unit_case(name);
        let f = &case.func;
        let masks = Masks::new(&case.machine);
        let (live_in, live_out) = BlockSets::liveness(f, &cfg::postorder(f), |_| true);
        let depth = loops::loop_depths(f);
        let edges = EdgeBranches::plan(f, &masks, &live_in).unwrap();
        let mut rw = Rewrites::default();
        let r = liveranges::build(
            f,
            &masks,
            &live_out,
            &depth,
            &edges,
            &mut rw,
            &mut Default::default(),
        )
        .unwrap();
        let b = merge(f, &r, &rw, &mut Spare::default());
        for (k, bnd) in b.bundles.iter().enumerate() {
            assert!(bnd.ranges.windows(2).all(|w| w[0].1 <= w[1].0), "{bnd:?}");
            assert_eq!(bnd.spillset, k as u32);
            for &(_, _, x) in &bnd.ranges {
                assert_eq!(b.range_bundle[x as usize], k as u32);
            }
        }
        b.spillsets
            .iter()
            .map(|ss| {
                let mut v = ss.values.to_vec();
                v.sort_unstable();
                v
            })
            .collect()
    }

    #[test]
    fn arguments_params_and_reused_inputs_merge_where_they_may() {
        // v0 -> v2 -> v7 (argument, then reused input); v1 fixed to p0
        // cannot join v3 fixed to p1; v6 joins v4, and then v5 overlaps it.
        let sets = merged("backtracking/arguments_params_and_reused_inputs_merge_where_they_may");
        // In the order of the bundles that kept the ranges (the one with
        // more; the offered value's on a tie); the dead v8 has none.
        assert_eq!(sets, [vec![1], vec![0, 2, 7], vec![3], vec![5], vec![4, 6]]);
    }

    #[test]
    fn the_bundle_with_more_ranges_keeps_them() {
        // v2 has two ranges (two blocks), v0 one: the merged bundle is v2's,
        // after v1's.
        let sets = merged("backtracking/the_bundle_with_more_ranges_keeps_them");
        assert_eq!(sets, [vec![1], vec![0, 2]]);
    }
}
