//! Galloping search: the partition point of a sorted slice found from a
//! known lower bound by doubling steps, then bisecting the last step. A
//! walk of sorted queries over a sorted slice (a bundle's ranges over a
//! register's map, one bundle's ranges over another's) costs the logarithms
//! of the gaps between consecutive answers, not a full search per query.

/// The first index at or after `from` where `pred` is false, for a `pred`
/// that holds for a prefix of `items` covering at least `..from`. From 0,
/// with no earlier answer to start near, it is a plain bisection: doubling
/// first would only add a second logarithm.
#[inline]
pub fn partition_from<T>(items: &[T], from: usize, pred: impl Fn(&T) -> bool) -> usize {
    debug_assert!(from <= items.len());
    if from == 0 {
        return items.partition_point(pred);
    }
    let (mut lo, mut step) = (from, 1);
    while lo + step <= items.len() && pred(&items[lo + step - 1]) {
        lo += step;
        step *= 2;
    }
    let end = (lo + step).min(items.len());
    lo + items[lo..end].partition_point(pred)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_partition_point_from_any_lower_bound() {
        let items: Vec<u32> = (0..37).map(|i| i * 2).collect();
        for to in 0..80 {
            let want = items.partition_point(|&x| x < to);
            for from in 0..=want {
                assert_eq!(
                    partition_from(&items, from, |&x| x < to),
                    want,
                    "{from} {to}"
                );
            }
        }
        assert_eq!(partition_from(&[] as &[u32], 0, |_| true), 0);
    }
}
