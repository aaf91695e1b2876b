//! Decisions drawn from the fuzzer's bytes, with a safe default for every
//! decision once the bytes run out, so that generation never fails.

use arbitrary::Unstructured;

/// A thin wrapper over [`Unstructured`] whose every method succeeds. When the
/// bytes are exhausted, `int` returns the low bound, `chance` returns false and
/// `pick` returns the first element: generation then winds down to the
/// smallest complete case instead of failing.
pub struct Choices<'a, 'b> {
    u: &'b mut Unstructured<'a>,
}

impl<'a, 'b> Choices<'a, 'b> {
    pub fn new(u: &'b mut Unstructured<'a>) -> Self {
        Choices { u }
    }

    pub fn is_empty(&self) -> bool {
        self.u.is_empty()
    }

    /// A number in `lo..=hi` (requires `lo <= hi`).
    #[inline]
    pub fn int(&mut self, lo: usize, hi: usize) -> usize {
        debug_assert!(lo <= hi);
        if lo >= hi {
            return lo;
        }
        let span = (hi - lo) as u32;
        lo + self.u.int_in_range(0..=span).unwrap_or(0) as usize
    }

    /// True with probability `n / d`; false once the bytes are exhausted.
    #[inline]
    pub fn chance(&mut self, n: u32, d: u32) -> bool {
        debug_assert!(n <= d && d > 0);
        if self.u.is_empty() {
            return false;
        }
        self.u.int_in_range(1..=d).unwrap_or(d) <= n
    }

    /// An element of `xs`, or `None` when it is empty (never fails).
    #[inline]
    pub fn pick<T: Copy>(&mut self, xs: &[T]) -> Option<T> {
        if xs.is_empty() {
            return None;
        }
        Some(xs[self.int(0, xs.len() - 1)])
    }

    /// An index drawn with the given weights (all zero weights pick 0).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u32 = weights.iter().sum();
        if total == 0 {
            return 0;
        }
        let mut x = self.int(0, total as usize - 1) as u32;
        for (i, &w) in weights.iter().enumerate() {
            if x < w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }

    /// A set bit of `mask`, or `None` when it is zero.
    #[inline]
    pub fn bit(&mut self, mask: u64) -> Option<usize> {
        if mask == 0 {
            return None;
        }
        let n = self.int(0, mask.count_ones() as usize - 1);
        let mut m = mask;
        for _ in 0..n {
            m &= m - 1;
        }
        Some(m.trailing_zeros() as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausted_input_gives_defaults() {
        let mut u = Unstructured::new(&[]);
        let mut c = Choices::new(&mut u);
        assert_eq!(c.int(3, 9), 3);
        assert!(!c.chance(1, 1));
        assert_eq!(c.pick(&[7, 8]), Some(7));
        assert_eq!(c.pick::<u8>(&[]), None);
        assert_eq!(c.weighted(&[0, 5, 1]), 1);
        assert_eq!(c.bit(0b1010_0000), Some(5));
        assert_eq!(c.bit(0), None);
    }

    #[test]
    fn values_stay_in_range() {
        let data: Vec<u8> = (0..=255).collect();
        let mut u = Unstructured::new(&data);
        let mut c = Choices::new(&mut u);
        for _ in 0..100 {
            let x = c.int(2, 5);
            assert!((2..=5).contains(&x));
            let b = c.bit(0b1001_0110).unwrap();
            assert!([1, 2, 4, 7].contains(&b));
            assert!(c.weighted(&[1, 0, 3]) != 1);
        }
    }
}
