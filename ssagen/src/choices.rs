//! Decisions drawn from the fuzzer's bytes, with a safe default for every
//! decision once the bytes run out, so that generation never fails.

use arbitrary::Unstructured;

/// A thin reader over the fuzzer's bytes whose every method succeeds. When
/// the bytes are exhausted, `int` returns the low bound, `chance` returns
/// false and `pick` returns the first element: generation then winds down to
/// the smallest complete case instead of failing.
///
/// It reads the [`Unstructured`]'s bytes directly (one to four bytes per
/// number, by the width of the range) and, when dropped, advances the
/// `Unstructured` past what it consumed, so a caller can go on drawing from
/// the rest.
pub struct Choices<'a, 'b> {
    u: &'b mut Unstructured<'a>,
    data: &'a [u8],
    pos: usize,
    /// Once the bytes run out, a splitmix64 stream seeded by them, if the
    /// caller asked for one ([`Choices::extend`]).
    stream: Option<u64>,
}

impl<'a, 'b> Choices<'a, 'b> {
    pub fn new(u: &'b mut Unstructured<'a>) -> Self {
        let data = u.peek_bytes(u.len()).unwrap_or(&[]);
        Choices {
            u,
            data,
            pos: 0,
            stream: None,
        }
    }

    /// Goes on drawing, once the bytes run out, from a deterministic stream
    /// seeded by all the bytes: a short input then stands for a function of
    /// any size (the profiles that reach real code's largest functions),
    /// and the same input always gives the same case.
    pub fn extend(&mut self) {
        let seed = self.data.iter().fold(0x9e37_79b9_7f4a_7c15u64, |h, &b| {
            (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
        });
        self.stream = Some(seed);
    }

    pub fn is_empty(&self) -> bool {
        self.stream.is_none() && self.pos >= self.data.len()
    }

    /// Bytes not consumed yet (unbounded once extended).
    pub fn remaining(&self) -> usize {
        match self.stream {
            Some(_) => usize::MAX / 8,
            None => self.data.len().saturating_sub(self.pos),
        }
    }

    /// The next byte of the extension stream.
    fn streamed(&mut self) -> Option<u8> {
        let s = self.stream.as_mut()?;
        *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Some((z ^ (z >> 31)) as u8)
    }

    /// Bytes consumed so far.
    pub fn consumed(&self) -> usize {
        self.pos
    }

    #[inline]
    fn take(&mut self, n: usize) -> u32 {
        if let Some(bytes) = self.data.get(self.pos..self.pos + n) {
            self.pos += n;
            return bytes.iter().fold(0, |x, &b| (x << 8) | b as u32);
        }
        let mut x = 0u32;
        for _ in 0..n {
            let b = match self.data.get(self.pos) {
                Some(&b) => {
                    self.pos += 1;
                    b
                }
                None => match self.streamed() {
                    Some(b) => b,
                    None => break,
                },
            };
            x = (x << 8) | b as u32;
        }
        x
    }

    /// A number in `lo..=hi` (requires `lo <= hi`).
    #[inline]
    pub fn int(&mut self, lo: usize, hi: usize) -> usize {
        debug_assert!(lo <= hi);
        if lo >= hi {
            return lo;
        }
        // Scale the drawn bits onto the span by multiply-shift (no division).
        let span = (hi - lo) as u64 + 1;
        let bits = if span <= 1 << 8 {
            8
        } else if span <= 1 << 16 {
            16
        } else {
            32
        };
        let x = self.take(bits / 8) as u64;
        lo + ((x * span) >> bits) as usize
    }

    /// The next byte (0 once exhausted). Callers that split one byte into
    /// several decisions make 0 mean the plainest choice of each.
    #[inline]
    pub fn byte(&mut self) -> u8 {
        self.take(1) as u8
    }

    /// The next two bytes as one number (0 once exhausted).
    #[inline]
    pub fn word(&mut self) -> u16 {
        self.take(2) as u16
    }

    /// True `n` times in 16, for the config's `*_sixteenths` knobs; at 16
    /// or more, true without drawing a byte, so a knob at its full value
    /// leaves the decoding of an input as it was without the knob.
    #[inline]
    pub fn sixteenths(&mut self, n: u8) -> bool {
        n >= 16 || self.chance(u32::from(n), 16)
    }

    /// True with probability `n / d`; false once the bytes are exhausted.
    #[inline]
    pub fn chance(&mut self, n: u32, d: u32) -> bool {
        debug_assert!(n <= d && d > 0);
        if self.is_empty() {
            return false;
        }
        self.int(1, d as usize) <= n as usize
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
        let b = self.byte();
        weighted_from(b, weights)
    }
}

/// An index chosen by byte `b` with the given weights: `b` scaled onto the
/// total weight (0 picks the first index with a weight).
#[inline]
pub fn weighted_from(b: u8, weights: &[u32]) -> usize {
    let total: u32 = weights.iter().sum();
    if total == 0 {
        return 0;
    }
    let mut x = (b as u32 * total) >> 8;
    for (i, &w) in weights.iter().enumerate() {
        if x < w {
            return i;
        }
        x -= w;
    }
    weights.len() - 1
}

impl Choices<'_, '_> {
    /// A set bit of `mask`, or `None` when it is zero: the first set bit at
    /// or after a drawn position, wrapping around (constant time; bits after
    /// long gaps are a little likelier, which does not matter here).
    #[inline]
    pub fn bit(&mut self, mask: u64) -> Option<usize> {
        if mask == 0 {
            return None;
        }
        let r = self.int(0, 63) as u32;
        Some((mask.rotate_right(r).trailing_zeros() + r) as usize % 64)
    }
}

impl Drop for Choices<'_, '_> {
    fn drop(&mut self) {
        let _ = self.u.bytes(self.pos);
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

    #[test]
    fn dropping_advances_the_unstructured() {
        let data = [1u8, 2, 3, 4, 5];
        let mut u = Unstructured::new(&data);
        {
            let mut c = Choices::new(&mut u);
            c.int(0, 10);
            c.int(0, 1000);
            assert_eq!(c.consumed(), 3);
        }
        assert_eq!(u.len(), 2);
    }
}
