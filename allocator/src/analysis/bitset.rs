//! Bit sets over dense indices (vregs), in two layouts that share one bit
//! order (member `i` is bit `i % 64` of 64-bit word `i / 64`):
//!
//! - [`SparseBitSet`], a chunked sparse set: a sorted vector of
//!   `(chunk, bits)` pairs, each chunk covering 64 consecutive indices, and
//!   only non-empty chunks stored. Vreg sets are sparse over the whole
//!   function but dense in small regions (values defined near each other
//!   have near indices), so a few words cover a block's live set. Sorted
//!   chunks, rather than a hash map, make union a linear merge and
//!   iteration ordered. Invariant: chunks are strictly increasing and no
//!   stored word is zero.
//! - [`dense`] rows: plain `[u64]` slices of a fixed number of words, for
//!   sets read and written in hot loops, where a row is a slice of one
//!   flat array and no operation may allocate.

/// See the module documentation.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct SparseBitSet {
    chunks: Vec<(u32, u64)>,
}

impl SparseBitSet {
    pub fn new() -> Self {
        Self::default()
    }

    #[inline]
    fn split(i: usize) -> (u32, u64) {
        ((i >> 6) as u32, 1u64 << (i & 63))
    }

    #[inline]
    fn find(&self, chunk: u32) -> Result<usize, usize> {
        self.chunks.binary_search_by_key(&chunk, |c| c.0)
    }

    fn check(&self) {
        debug_assert!(self.chunks.windows(2).all(|w| w[0].0 < w[1].0));
        debug_assert!(self.chunks.iter().all(|c| c.1 != 0));
    }

    #[inline]
    pub fn contains(&self, i: usize) -> bool {
        let (c, bit) = Self::split(i);
        self.find(c).is_ok_and(|k| self.chunks[k].1 & bit != 0)
    }

    /// Adds `i`; returns whether it was absent.
    pub fn insert(&mut self, i: usize) -> bool {
        let (c, bit) = Self::split(i);
        match self.find(c) {
            Ok(k) => {
                let was = self.chunks[k].1 & bit != 0;
                self.chunks[k].1 |= bit;
                !was
            }
            Err(k) => {
                self.chunks.insert(k, (c, bit));
                true
            }
        }
    }

    /// Removes `i`; returns whether it was present.
    pub fn remove(&mut self, i: usize) -> bool {
        let (c, bit) = Self::split(i);
        let Ok(k) = self.find(c) else { return false };
        let was = self.chunks[k].1 & bit != 0;
        self.chunks[k].1 &= !bit;
        if self.chunks[k].1 == 0 {
            self.chunks.remove(k);
        }
        was
    }

    /// `self ∪= other`; returns whether `self` grew.
    pub fn union_with(&mut self, other: &SparseBitSet) -> bool {
        // Fast path: every chunk of `other` already has a slot here, so the
        // union is an in-place OR with no allocation.
        let mut changed = false;
        let mut k = 0;
        let mut in_place = true;
        for &(c, bits) in &other.chunks {
            while k < self.chunks.len() && self.chunks[k].0 < c {
                k += 1;
            }
            if k < self.chunks.len() && self.chunks[k].0 == c {
                changed |= bits & !self.chunks[k].1 != 0;
            } else {
                in_place = false;
                break;
            }
        }
        if in_place {
            if changed {
                let mut k = 0;
                for &(c, bits) in &other.chunks {
                    while self.chunks[k].0 < c {
                        k += 1;
                    }
                    self.chunks[k].1 |= bits;
                }
            }
            return changed;
        }
        // Merged in place from the back, into room for every chunk of
        // both, so that the set keeps its storage; then closed up.
        let (mut i, mut j) = (self.chunks.len(), other.chunks.len());
        self.chunks.resize(i + j, (0, 0));
        let mut w = self.chunks.len();
        while j > 0 {
            let b = other.chunks[j - 1];
            w -= 1;
            if i > 0 && self.chunks[i - 1].0 >= b.0 {
                let a = self.chunks[i - 1];
                i -= 1;
                if a.0 == b.0 {
                    self.chunks[w] = (a.0, a.1 | b.1);
                    j -= 1;
                } else {
                    self.chunks[w] = a;
                }
            } else {
                self.chunks[w] = b;
                j -= 1;
            }
        }
        // `chunks[..i]` are in place; the merged rest starts at `w`.
        self.chunks.copy_within(w.., i);
        self.chunks.truncate(self.chunks.len() - (w - i));
        self.check();
        true
    }

    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    pub fn len(&self) -> usize {
        self.chunks.iter().map(|c| c.1.count_ones() as usize).sum()
    }

    pub fn clear(&mut self) {
        self.chunks.clear();
    }

    /// The non-empty 64-bit words, as (word index, bits) in increasing
    /// order: member `i` is bit `i % 64` of word `i / 64`, the layout of a
    /// dense bit vector, so a caller can OR the set into one word by word.
    #[inline]
    pub fn words(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        self.chunks.iter().map(|&(c, bits)| (c as usize, bits))
    }

    /// Makes this the set of the given words (word index, bits), in
    /// increasing index order; zero words are left out. Keeps the storage.
    pub fn set_words(&mut self, words: impl Iterator<Item = (usize, u64)>) {
        self.chunks.clear();
        self.chunks.extend(
            words
                .filter(|&(_, bits)| bits != 0)
                .map(|(c, bits)| (c as u32, bits)),
        );
        self.check();
    }

    /// The set whose member `i` is bit `i % 64` of `words[i / 64]`.
    pub fn from_words(words: &[u64]) -> SparseBitSet {
        let mut set = SparseBitSet::new();
        set.set_words(words.iter().copied().enumerate());
        set
    }

    /// The members in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.chunks.iter().flat_map(|&(c, bits)| {
            let mut bits = bits;
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(((c as usize) << 6) | b)
            })
        })
    }
}

/// Dense bit rows: member `i` of a row is bit `i % 64` of `row[i / 64]`,
/// the layout of [`SparseBitSet::words`]. A row is any `[u64]` slice (often
/// one of many in a flat array); nothing here allocates.
pub mod dense {
    /// The words a row of members `0..n` needs.
    #[inline]
    pub fn words(n: usize) -> usize {
        n.div_ceil(64)
    }

    #[inline]
    pub fn contains(row: &[u64], i: usize) -> bool {
        row[i / 64] >> (i % 64) & 1 == 1
    }

    #[inline]
    pub fn insert(row: &mut [u64], i: usize) {
        row[i / 64] |= 1 << (i % 64);
    }

    #[inline]
    pub fn remove(row: &mut [u64], i: usize) {
        row[i / 64] &= !(1 << (i % 64));
    }

    /// The members of a row, in increasing order.
    pub fn members(row: &[u64]) -> impl Iterator<Item = usize> + '_ {
        row.iter().enumerate().flat_map(|(w, &bits)| {
            let mut m = bits;
            std::iter::from_fn(move || {
                (m != 0).then(|| {
                    let b = m.trailing_zeros() as usize;
                    m &= m - 1;
                    w * 64 + b
                })
            })
        })
    }
}

impl std::fmt::Debug for SparseBitSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use std::collections::BTreeSet;

    #[test]
    fn matches_a_btreeset_under_random_operations() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for _ in 0..200 {
            let (mut a, mut b) = (SparseBitSet::new(), SparseBitSet::new());
            let (mut ra, mut rb) = (BTreeSet::new(), BTreeSet::new());
            let span = [64usize, 300, 5000][rng.gen_range(0..3)];
            for _ in 0..rng.gen_range(0..60) {
                let x = rng.gen_range(0..span);
                match rng.gen_range(0..4) {
                    0 | 1 => assert_eq!(a.insert(x), ra.insert(x)),
                    2 => assert_eq!(a.remove(x), ra.remove(&x)),
                    _ => assert_eq!(b.insert(x), rb.insert(x)),
                }
            }
            let before = ra.len();
            ra.extend(rb.iter().copied());
            assert_eq!(a.union_with(&b), ra.len() != before);
            assert_eq!(
                a.iter().collect::<Vec<_>>(),
                ra.iter().copied().collect::<Vec<_>>()
            );
            assert_eq!(a.len(), ra.len());
            for x in 0..span {
                assert_eq!(a.contains(x), ra.contains(&x));
            }
            let mut dense = vec![0u64; span.div_ceil(64)];
            for (w, bits) in a.words() {
                assert_ne!(bits, 0, "words() yields only non-empty words");
                dense[w] |= bits;
            }
            for x in 0..span {
                assert_eq!(dense[x / 64] & (1 << (x % 64)) != 0, ra.contains(&x));
            }
            assert_eq!(SparseBitSet::from_words(&dense), a);
            assert!(!a.union_with(&b), "second union changes nothing");
            a.check();
        }
    }

    #[test]
    fn empty_chunks_are_dropped() {
        let mut s = SparseBitSet::new();
        s.insert(130);
        s.remove(130);
        assert!(s.is_empty());
        assert_eq!(s, SparseBitSet::new());
    }

    #[test]
    fn dense_rows_match_a_btreeset() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        for _ in 0..100 {
            let span = [1usize, 64, 65, 300][rng.gen_range(0..4)];
            let mut row = vec![0u64; dense::words(span)];
            let mut reference = BTreeSet::new();
            for _ in 0..rng.gen_range(0..80) {
                let x = rng.gen_range(0..span);
                if rng.gen_bool(0.6) {
                    dense::insert(&mut row, x);
                    reference.insert(x);
                } else {
                    dense::remove(&mut row, x);
                    reference.remove(&x);
                }
            }
            for x in 0..span {
                assert_eq!(dense::contains(&row, x), reference.contains(&x));
            }
            assert_eq!(
                dense::members(&row).collect::<Vec<_>>(),
                reference.iter().copied().collect::<Vec<_>>()
            );
        }
    }
}
