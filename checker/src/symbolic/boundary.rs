//! The value sets of the dataflow: a location's vregs while a block runs
//! ([`VSet`]), block boundary states as sorted location-vreg pairs
//! ([`Boundary`]), and the operations on them (meet, the parameter
//! substitution along an edge, pruning by liveness marks).

use allocator::analysis::bitset::dense;
use allocator::{Allocation, PReg, VReg};
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

/// What [`substitute`] looks vregs up in, clear between edges: one bit per
/// vreg for the edge's parameters and arguments (the one test most pairs
/// take), one for its parameters, and per vreg the first position it is
/// passed at, chained to the next, so that a pair of an argument finds its
/// parameters without a search (Go's switches pass dozens of values to
/// blocks with hundreds of predecessors). Besides, for
/// [`retain_substituted`], each parameter's position among the parameters
/// of the block whose in-state is being met ([`EdgeScratch::bind_params`]).
#[derive(Default)]
pub(super) struct EdgeScratch {
    marks: Vec<u64>,
    params: Vec<u64>,
    first: Vec<u32>,
    next: Vec<u32>,
    param_at: Vec<u32>,
}

const NO_ARG: u32 = u32::MAX;

impl EdgeScratch {
    /// Clear room for a function of `num_vregs` vregs.
    pub(super) fn reset(&mut self, num_vregs: usize) {
        for m in [&mut self.marks, &mut self.params] {
            m.clear();
            m.resize(dense::words(num_vregs), 0);
        }
        for v in [&mut self.first, &mut self.param_at] {
            v.clear();
            v.resize(num_vregs, NO_ARG);
        }
    }

    /// Notes the position of each of a block's parameters, for
    /// [`retain_substituted`] on the edges into it.
    pub(super) fn bind_params(&mut self, params: &[VReg]) {
        for (k, p) in params.iter().enumerate() {
            self.param_at[p.index()] = k as u32;
        }
    }

    /// Forgets what [`EdgeScratch::bind_params`] noted.
    pub(super) fn unbind_params(&mut self, params: &[VReg]) {
        for p in params {
            self.param_at[p.index()] = NO_ARG;
        }
    }
}

/// Writes into `edge` an out-state passed through an edge's parameter
/// substitution: the parameters leave every location, then each parameter
/// joins every location that held its argument. `scratch` must be clear
/// (see [`EdgeScratch::reset`]); it is clear again on return.
pub(super) fn substitute(
    out: &[u64],
    params: &[VReg],
    args: &[VReg],
    scratch: &mut EdgeScratch,
    edge: &mut Boundary,
) {
    let EdgeScratch {
        marks,
        params: param_marks,
        first,
        next,
        ..
    } = scratch;
    next.clear();
    next.resize(args.len(), NO_ARG);
    for (k, a) in args.iter().enumerate().rev() {
        dense::insert(marks, a.index());
        next[k] = first[a.index()];
        first[a.index()] = k as u32;
    }
    for p in params {
        dense::insert(marks, p.index());
        dense::insert(param_marks, p.index());
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
        if !dense::contains(param_marks, v as usize) {
            edge.push(x);
        }
        let mut k = first[v as usize];
        while k != NO_ARG {
            edge.push(pair(l, params[k as usize].index() as u32));
            grew = true;
            k = next[k as usize];
        }
    }
    if grew {
        edge[group..].sort_unstable();
    }
    for a in args {
        dense::remove(marks, a.index());
        first[a.index()] = NO_ARG;
    }
    for p in params {
        dense::remove(marks, p.index());
        dense::remove(param_marks, p.index());
    }
}

/// Keeps in `acc` the pairs that `out` passed through an edge's
/// substitution holds (what [`intersect`] of `acc` with [`substitute`]'s
/// result keeps) by one search of `out` per pair of `acc`: a pair of
/// parameter `p_k` is held where `out` holds argument `a_k` in the same
/// location, a pair of any other vreg where `out` holds that pair. `scratch`
/// must have the target block's parameters bound
/// ([`EdgeScratch::bind_params`]); `args` are the edge's.
pub(super) fn retain_substituted(
    acc: &mut Boundary,
    out: &[u64],
    args: &[VReg],
    scratch: &EdgeScratch,
) {
    acc.retain(|&x| {
        let (l, v) = (pair_loc(x), pair_vreg(x));
        let held = match scratch.param_at[v as usize] {
            NO_ARG => v,
            k => args[k as usize].index() as u32,
        };
        out.binary_search(&pair(l, held)).is_ok()
    });
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

/// The dense location of an allocation, as states and proofs number them:
/// a register by its index, then the spill slots below `nslots`; `None`
/// for `none` and for slots not tracked.
#[inline]
pub(super) fn location_key(a: Allocation, nslots: usize) -> Option<u32> {
    match a {
        Allocation::Reg(r) => Some(r.index() as u32),
        Allocation::Stack(s) if s.index() < nslots => Some((PReg::NUM_INDEX + s.index()) as u32),
        _ => None,
    }
}

/// Sorts a block's touched locations, or the facts its uses ask: by
/// insertion while they are few (a block writes a handful, a call's
/// clobbers already in order), which costs a fraction of a general sort's
/// set-up; by the library's sort beyond.
pub(super) fn sort_small<T: Ord + Copy>(ls: &mut [T]) {
    if ls.len() > 64 {
        ls.sort_unstable();
        return;
    }
    for k in 1..ls.len() {
        let x = ls[k];
        let mut j = k;
        while j > 0 && ls[j - 1] > x {
            ls[j] = ls[j - 1];
            j -= 1;
        }
        ls[j] = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator::RegClass;

    fn v(i: usize) -> VReg {
        VReg::new(i, RegClass::Int)
    }

    #[test]
    fn substitution_renames_arguments_drops_parameters_and_clears_its_marks() {
        // Location 1 holds {v5, v7, v9}, 2 holds {v5}, 3 holds {v9}; the
        // edge passes v9 to parameter v2 and v5 to parameter v7.
        let out = vec![pair(1, 5), pair(1, 7), pair(1, 9), pair(2, 5), pair(3, 9)];
        let mut scratch = EdgeScratch::default();
        scratch.reset(10);
        let mut edge = Vec::new();
        substitute(&out, &[v(2), v(7)], &[v(9), v(5)], &mut scratch, &mut edge);
        assert_eq!(
            edge,
            vec![
                pair(1, 2),
                pair(1, 5),
                pair(1, 7),
                pair(1, 9),
                pair(2, 5),
                pair(2, 7),
                pair(3, 2),
                pair(3, 9),
            ]
        );
        assert!(is_clear(&scratch), "the scratch is clear again");
        // Without parameters nothing changes.
        substitute(&out, &[], &[], &mut scratch, &mut edge);
        assert_eq!(edge, out);
        // One parameter and one argument, each alone in its word of marks.
        scratch.reset(71);
        substitute(&[pair(4, 3)], &[v(70)], &[v(3)], &mut scratch, &mut edge);
        assert_eq!(edge, vec![pair(4, 3), pair(4, 70)]);
        assert!(is_clear(&scratch), "the scratch is clear again");
        // One value passed to two parameters, one of them its own.
        substitute(
            &[pair(1, 3)],
            &[v(3), v(8)],
            &[v(3), v(3)],
            &mut scratch,
            &mut edge,
        );
        assert_eq!(edge, vec![pair(1, 3), pair(1, 8)]);
        assert!(is_clear(&scratch), "the scratch is clear again");
    }

    fn is_clear(s: &EdgeScratch) -> bool {
        s.marks.iter().chain(&s.params).all(|&w| w == 0)
            && s.first.iter().chain(&s.param_at).all(|&k| k == NO_ARG)
    }

    /// The search keeps what the meet with the substitution keeps, on
    /// every pair a state of these locations and vregs can hold: the
    /// edges of the substitution test, a value passed to two parameters,
    /// one of them its own, and no parameters.
    #[test]
    fn searching_the_state_keeps_what_the_meet_with_its_substitution_keeps() {
        let out = vec![
            pair(1, 3),
            pair(1, 5),
            pair(1, 7),
            pair(1, 9),
            pair(2, 5),
            pair(3, 9),
        ];
        let every: Vec<u64> = (0..4)
            .flat_map(|l| [2, 3, 5, 7, 8, 9].map(|x| pair(l, x)))
            .collect();
        let edges: [(&[VReg], &[VReg]); 3] = [
            (&[v(2), v(7)], &[v(9), v(5)]),
            (&[v(3), v(8)], &[v(3), v(3)]),
            (&[], &[]),
        ];
        let mut scratch = EdgeScratch::default();
        scratch.reset(10);
        for (params, args) in edges {
            let mut edge = Vec::new();
            substitute(&out, params, args, &mut scratch, &mut edge);
            let mut met = every.clone();
            intersect(&mut met, &edge);
            let mut searched = every.clone();
            scratch.bind_params(params);
            retain_substituted(&mut searched, &out, args, &scratch);
            scratch.unbind_params(params);
            assert_eq!(searched, met, "{params:?} <- {args:?}");
            assert!(!met.is_empty());
            assert!(is_clear(&scratch), "the scratch is clear again");
        }
    }

    #[test]
    fn intersection_keeps_common_pairs() {
        let mut acc = vec![pair(0, 1), pair(0, 2), pair(1, 1), pair(4, 4)];
        intersect(&mut acc, &[pair(0, 2), pair(1, 1), pair(2, 0), pair(4, 4)]);
        assert_eq!(acc, vec![pair(0, 2), pair(1, 1), pair(4, 4)]);
        intersect(&mut acc, &[]);
        assert!(acc.is_empty());
    }
}
