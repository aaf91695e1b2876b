//! The counting sort the analyses, the allocators and the checker share:
//! items grouped by a small integer key into one array, in their original
//! order within each key, in time linear in the items plus the keys, with
//! no hashing and no allocation per key.

/// Groups the items `0..len` by `key(i)` (below `nkeys`; `None` leaves an
/// item out). Afterwards `out[start[k] as usize..start[k + 1] as usize]`
/// holds `value(i)` for the items of key `k`, in increasing `i`; `start` has
/// `nkeys + 1` entries. Both buffers are cleared first, so a caller that
/// sorts often keeps them and allocates nothing. A key not below `nkeys`
/// panics.
#[inline]
pub fn counting_sort<V: Copy>(
    nkeys: usize,
    len: usize,
    key: impl Fn(usize) -> Option<usize>,
    value: impl Fn(usize) -> V,
    start: &mut Vec<u32>,
    out: &mut Vec<V>,
) {
    start.clear();
    start.resize(nkeys + 1, 0);
    for i in 0..len {
        if let Some(k) = key(i) {
            start[k + 1] += 1;
        }
    }
    for k in 0..nkeys {
        start[k + 1] += start[k];
    }
    out.clear();
    let total = start[nkeys] as usize;
    if total == 0 {
        return;
    }
    let placeholder = (0..len)
        .find_map(|i| key(i).map(|_| value(i)))
        .expect("a counted item");
    out.resize(total, placeholder);
    // Filled from the back with `start[k + 1]` as key `k`'s cursor, which so
    // ends where group `k` begins; shifting down by one gives the starts.
    for i in (0..len).rev() {
        if let Some(k) = key(i) {
            start[k + 1] -= 1;
            out[start[k + 1] as usize] = value(i);
        }
    }
    start.rotate_left(1);
    start[nkeys] = total as u32;
}

/// [`counting_sort`] into fresh buffers: `(start, out)`.
pub fn counting_sorted<V: Copy>(
    nkeys: usize,
    len: usize,
    key: impl Fn(usize) -> Option<usize>,
    value: impl Fn(usize) -> V,
) -> (Vec<u32>, Vec<V>) {
    let (mut start, mut out) = (Vec::new(), Vec::new());
    counting_sort(nkeys, len, key, value, &mut start, &mut out);
    (start, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_by_key_keeping_order_and_leaving_out_none() {
        let items = [(2, 'a'), (0, 'b'), (9, 'x'), (2, 'c'), (0, 'd'), (1, 'e')];
        let key = |i: usize| (items[i].0 < 3).then_some(items[i].0);
        let (start, out) = counting_sorted(4, items.len(), key, |i| items[i].1);
        assert_eq!(start, [0, 2, 3, 5, 5]);
        assert_eq!(out, ['b', 'd', 'e', 'a', 'c']);
    }

    #[test]
    fn reuses_buffers_and_handles_no_items() {
        let (mut start, mut out) = (vec![7, 7], vec!['z']);
        counting_sort(3, 0, |_| Some(0), |_| 'q', &mut start, &mut out);
        assert_eq!(start, [0, 0, 0, 0]);
        assert!(out.is_empty());
        let letter = |i: usize| (b'a' + i as u8) as char;
        counting_sort(2, 3, |i| Some(1 - i % 2), letter, &mut start, &mut out);
        assert_eq!(start, [0, 1, 3]);
        assert_eq!(out, ['b', 'a', 'c']);
    }
}
