//! The value sets of the dataflow: a location's vregs while a block runs
//! ([`VSet`]), block boundary states as sorted location-vreg pairs
//! ([`Boundary`]), and the operations on them (meet, the parameter
//! substitution along an edge, pruning by liveness marks).

use allocator::analysis::bitset::dense;
use allocator::VReg;
use smallvec::SmallVec;

/// A location's vregs while a block runs. Four inline (the size of the
/// spilled form anyway): copies of block arguments rarely make more.
pub(super) type VSet = SmallVec<[u32; 4]>;

/// A block boundary state: one `location << 32 | vreg` pair per vreg a
/// location holds, in increasing order. Flat and sorted, so the meet is a
/// merge, equality a slice comparison, and no set is allocated per location.
pub(super) type Boundary = Vec<u64>;

#[inline]
pub(super) fn pair(l: u32, v: u32) -> u64 {
    ((l as u64) << 32) | v as u64
}

#[inline]
pub(super) fn pair_loc(p: u64) -> u32 {
    (p >> 32) as u32
}

#[inline]
pub(super) fn pair_vreg(p: u64) -> u32 {
    p as u32
}

/// Copies the pairs of `src` whose vreg is marked to `dst[w..]` and returns
/// the new end; `dst` must have room for all of `src`.
#[inline]
pub(super) fn keep_marked(src: &[u64], marks: &[u64], dst: &mut [u64], mut w: usize) -> usize {
    for &x in src {
        dst[w] = x;
        w += dense::contains(marks, pair_vreg(x) as usize) as usize;
    }
    w
}

/// Writes into `edge` an out-state passed through an edge's parameter
/// substitution: the parameters leave every location, then each parameter
/// joins every location that held its argument. `marks` must be clear; it
/// is clear again on return.
pub(super) fn substitute(
    out: &[u64],
    params: &[VReg],
    args: &[VReg],
    marks: &mut [u64],
    edge: &mut Boundary,
) {
    for v in params.iter().chain(args) {
        dense::insert(marks, v.index());
    }
    edge.clear();
    // A parameter joins the location group of its argument's pair: sort
    // that group (a few pairs) when it is complete.
    let (mut group, mut group_loc, mut grew) = (0, u32::MAX, false);
    for &x in out {
        let (l, v) = (pair_loc(x), pair_vreg(x));
        if l != group_loc {
            if grew {
                edge[group..].sort_unstable();
                grew = false;
            }
            (group, group_loc) = (edge.len(), l);
        }
        if !dense::contains(marks, v as usize) {
            edge.push(x);
            continue;
        }
        if !params.iter().any(|p| p.index() as u32 == v) {
            edge.push(x);
        }
        for (a, p) in args.iter().zip(params) {
            if a.index() as u32 == v {
                edge.push(pair(l, p.index() as u32));
                grew = true;
            }
        }
    }
    if grew {
        edge[group..].sort_unstable();
    }
    for v in params.iter().chain(args) {
        dense::remove(marks, v.index());
    }
}

/// Keeps in `acc` the pairs also in `other` (both sorted): the meet.
pub(super) fn intersect(acc: &mut Boundary, other: &[u64]) {
    let (mut i, mut j, mut w) = (0, 0, 0);
    while i < acc.len() && j < other.len() {
        match acc[i].cmp(&other[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                acc[w] = acc[i];
                w += 1;
                i += 1;
                j += 1;
            }
        }
    }
    acc.truncate(w);
}
