//! Sorted, merged sets of instruction intervals, the shape of a group's
//! presence and of its holes: membership, and the set operations passive
//! splitting prices holes with.

/// Sorted, merged instruction intervals (inclusive).
pub type Intervals = Vec<(u32, u32)>;

/// Whether instruction `i` lies in one of `iv`.
pub fn inside(iv: &[(u32, u32)], i: u32) -> bool {
    let k = iv.partition_point(|s| s.1 < i);
    k < iv.len() && iv[k].0 <= i
}

/// Whether any of the sorted instructions `refs` lies in `iv`: each of the
/// shorter side looked up in the longer, so that a group referred to all
/// over a large function (checked against the presence of each of its
/// thousands of neighbours) costs the neighbour's few intervals, not its
/// own references, per check.
pub(super) fn any_inside(iv: &[(u32, u32)], refs: &[u32]) -> bool {
    if refs.len() <= iv.len() {
        return refs.iter().any(|&i| inside(iv, i));
    }
    iv.iter().any(|&(s, e)| {
        let k = refs.partition_point(|&i| i < s);
        k < refs.len() && refs[k] <= e
    })
}

/// Sorts and merges `iv` (touching intervals join).
pub(super) fn merge(iv: &mut Intervals) {
    iv.sort_unstable();
    let mut out: Intervals = Vec::with_capacity(iv.len());
    for &(s, e) in iv.iter() {
        match out.last_mut() {
            Some(last) if s <= last.1.saturating_add(1) => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    *iv = out;
}

/// The intersection of two sorted, merged sets of intervals.
pub(super) fn intersect(a: &[(u32, u32)], b: &[(u32, u32)]) -> Intervals {
    let mut out = Intervals::new();
    let (mut x, mut y) = (0, 0);
    while x < a.len() && y < b.len() {
        let (s, e) = (a[x].0.max(b[y].0), a[x].1.min(b[y].1));
        if s <= e {
            out.push((s, e));
        }
        if a[x].1 < b[y].1 {
            x += 1;
        } else {
            y += 1;
        }
    }
    out
}

/// The points of `a` outside `b` (both sorted and merged).
pub(super) fn difference(a: &[(u32, u32)], b: &[(u32, u32)]) -> Intervals {
    let mut out = Intervals::new();
    for &(s, e) in a {
        let mut from = s;
        let k = b.partition_point(|x| x.1 < s);
        for &(bs, be) in b[k..].iter().take_while(|x| x.0 <= e) {
            if bs > from {
                out.push((from, bs - 1));
            }
            from = from.max(be.saturating_add(1));
        }
        if from <= e {
            out.push((from, e));
        }
    }
    out
}

/// The union of two sorted, merged sets of intervals, merged.
pub(super) fn union(a: &[(u32, u32)], b: &[(u32, u32)]) -> Intervals {
    let mut out: Intervals = Vec::with_capacity(a.len() + b.len());
    let (mut x, mut y) = (0, 0);
    while x < a.len() || y < b.len() {
        let next = if y == b.len() || (x < a.len() && a[x] <= b[y]) {
            x += 1;
            a[x - 1]
        } else {
            y += 1;
            b[y - 1]
        };
        match out.last_mut() {
            Some(last) if next.0 <= last.1.saturating_add(1) => last.1 = last.1.max(next.1),
            _ => out.push(next),
        }
    }
    out
}
