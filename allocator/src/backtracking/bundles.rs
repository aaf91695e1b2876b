//! Bundles: groups of non-overlapping live ranges that want one location,
//! and spill sets, the original bundles whose pieces share one spill slot.
//!
//! Merging is the only place bundles grow. A vreg starts as one bundle;
//! then a reused input joins its def, and a branch argument joins the
//! block parameter it feeds, whenever their ranges do not overlap and their
//! requirements meet. Copy values never merge.

use super::liveranges::Ranges;
use super::operands::Rewrites;
use super::points::Point;
use super::requirement::Req;
use crate::ir::function::Function;
use crate::ir::index::{PReg, RegClass};

pub const NONE: u32 = u32::MAX;

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
    pub ranges: Vec<(Point, Point, u32)>,
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

/// The pieces of one original bundle: they share a spill slot and a hint.
#[derive(Clone, Debug)]
pub struct SpillSet {
    pub class: RegClass,
    /// The values whose ranges the slot is reserved for.
    pub values: Vec<u32>,
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

fn overlap(a: &[(Point, Point, u32)], b: &[(Point, Point, u32)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].1 <= b[j].0 {
            i += 1;
        } else if b[j].1 <= a[i].0 {
            j += 1;
        } else {
            return true;
        }
    }
    false
}

/// The union of two lists of ranges sorted by start, sorted by start; the
/// first is extended in place when the second starts after it ends.
fn merge_sorted<T: Copy>(mut a: Vec<(u32, u32, T)>, b: Vec<(u32, u32, T)>) -> Vec<(u32, u32, T)> {
    match (a.last(), b.first()) {
        (_, None) => return a,
        (None, _) => return b,
        (Some(x), Some(y)) if x.0 <= y.0 => {
            a.extend(b);
            return a;
        }
        _ => {}
    }
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].0 <= b[j].0 {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

/// One bundle per value, then the merges.
pub fn merge(f: &Function, r: &Ranges, rw: &Rewrites) -> Bundles {
    let nv = r.values.class.len();
    let mut value_bundle = vec![NONE; nv];
    let mut bundles = Vec::with_capacity(nv);
    let mut members: Vec<Vec<u32>> = Vec::with_capacity(nv);
    let mut reqs = Vec::with_capacity(nv);
    for v in 0..nv {
        let (a, b) = (r.value_start[v] as usize, r.value_start[v + 1] as usize);
        if a == b {
            continue;
        }
        let ranges: Vec<_> = (a..b)
            .map(|k| (r.extents[k].0, r.extents[k].1, k as u32))
            .collect();
        value_bundle[v] = bundles.len() as u32;
        reqs.push(req_of(r, &ranges));
        bundles.push(Bundle {
            ranges,
            home: Home::None,
            spillset: NONE,
            hint: None,
            weight: 0,
            req: (Req::Top, 0),
        });
        members.push(vec![v as u32]);
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
    let mut spillsets = Vec::new();
    let mut out = Vec::with_capacity(bundles.len());
    for (k, mut bnd) in bundles.into_iter().enumerate() {
        if bnd.ranges.is_empty() {
            continue;
        }
        bnd.spillset = spillsets.len() as u32;
        let class = r.values.class[members[k][0] as usize];
        spillsets.push(SpillSet {
            class,
            values: std::mem::take(&mut members[k]),
            hint: None,
            spill_bundle: NONE,
            needed: false,
        });
        out.push(bnd);
    }
    let mut range_bundle = vec![NONE; r.ranges.len()];
    for (k, b) in out.iter().enumerate() {
        for &(_, _, x) in &b.ranges {
            range_bundle[x as usize] = k as u32;
        }
    }
    Bundles {
        bundles: out,
        spillsets,
        range_bundle,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::{cfg, liveness, loops};
    use crate::backtracking::edge_branch::EdgeBranches;
    use crate::backtracking::liveranges;
    use crate::backtracking::requirement::Masks;

    #[test]
    fn overlap_walks_both_sorted_lists() {
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
    }

    /// The values of each spill set after merging the unit case `name`,
    /// each bundle's ranges checked sorted.
    fn merged(name: &str) -> Vec<Vec<u32>> {
        let case = crate::fixtures::unit_case(name);
        let f = &case.func;
        let masks = Masks::new(&case.machine);
        let live = liveness::compute(f, &cfg::postorder(f));
        let depth = loops::loop_depths(f);
        let edges = EdgeBranches::plan(f, &masks, &live.live_in).unwrap();
        let mut rw = Rewrites::default();
        let r = liveranges::build(f, &masks, &live.live_out, &depth, &edges, &mut rw).unwrap();
        let b = merge(f, &r, &rw);
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
                let mut v = ss.values.clone();
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
