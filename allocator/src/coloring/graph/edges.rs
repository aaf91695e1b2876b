//! The interference relation, first over vregs and then, as coalescing
//! merges them, over groups, in one of two representations chosen by size.
//!
//! - [`Edges::Matrix`]: a square bit matrix, one row per vreg. A test is one
//!   bit, but it holds `n²` bits: 169 MB at the 36,784 vregs of esbuild's
//!   49,743-instruction function, where ion peaks at 70 MB.
//! - [`Edges::Lists`]: sorted neighbour lists (built by collecting the pairs,
//!   then sorting and deduplicating them once) for the graph as built, plus
//!   an unsorted list per node of the pairs merges added. It holds what the
//!   graph has: at most a few neighbours per live value at each def.
//!
//! Both keep one invariant for representatives `a` and `b`: they interfere
//! exactly when `b` is among `a`'s raw neighbours (and `a` among `b`'s). Raw
//! neighbours may also name vregs merged away; callers filter them. The
//! tests build every graph both ways and compare them.

use crate::analysis::bitset::dense;

/// Up to this many bytes of bit matrix (8 MB, about 8,000 vregs), a graph
/// is a matrix: faster to build and to query than lists.
const MATRIX_BYTES: usize = 8 << 20;

/// Bytes the lists hold at their peak per pair added while building: the
/// pair, and its two entries in the sorted lists (the vector of pairs may
/// hold up to twice its length; the bound on the pairs is loose enough).
const LIST_BYTES_PER_PAIR: usize = 16;

pub enum Edges {
    Matrix {
        words: usize,
        bits: Vec<u64>,
    },
    Lists {
        /// While the graph is built: every pair added, `min << 32 | max`,
        /// duplicates included; sorted into `start`/`adj` by
        /// [`Edges::seal`].
        pairs: Vec<u64>,
        /// The built graph's neighbours of node `v`, in increasing order:
        /// `adj[start[v]..start[v + 1]]`.
        start: Vec<u32>,
        adj: Vec<u32>,
        /// Per node, the neighbours merges added (none of them in `adj`'s
        /// list for the node).
        extra: Vec<Vec<u32>>,
    },
}

impl Edges {
    /// No edges among `n` nodes, of which about `pairs` will be added:
    /// as a matrix when it fits [`MATRIX_BYTES`] or would be smaller than the
    /// lists (a dense graph: a long function whose values live long), or
    /// when `matrix` asks for one regardless; else as lists.
    pub fn new(n: usize, pairs: usize, matrix: Option<bool>) -> Edges {
        let words = dense::words(n);
        let bytes = n.saturating_mul(words).saturating_mul(8);
        let smaller = bytes <= MATRIX_BYTES || bytes <= pairs.saturating_mul(LIST_BYTES_PER_PAIR);
        if matrix.unwrap_or(smaller) {
            Edges::Matrix {
                words,
                bits: vec![0u64; n * words],
            }
        } else {
            Edges::Lists {
                pairs: Vec::new(),
                start: vec![0; n + 1],
                adj: Vec::new(),
                extra: vec![Vec::new(); n],
            }
        }
    }

    /// Adds the edge `a`–`b` (`a != b`) while the graph is built.
    #[inline]
    pub fn add(&mut self, a: usize, b: usize) {
        debug_assert_ne!(a, b);
        match self {
            Edges::Matrix { words, bits, .. } => {
                let w = *words;
                dense::insert(&mut bits[a * w..(a + 1) * w], b);
                dense::insert(&mut bits[b * w..(b + 1) * w], a);
            }
            Edges::Lists { pairs, .. } => {
                let (lo, hi) = (a.min(b) as u64, a.max(b) as u64);
                pairs.push(lo << 32 | hi);
            }
        }
    }

    /// Ends the building: lists sort their pairs into neighbour lists.
    pub fn seal(&mut self) {
        let Edges::Lists {
            pairs, start, adj, ..
        } = self
        else {
            return;
        };
        pairs.sort_unstable();
        pairs.dedup();
        let n = start.len() - 1;
        start.fill(0);
        for &p in pairs.iter() {
            start[(p >> 32) as usize + 1] += 1;
            start[(p & u32::MAX as u64) as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        // Pairs come sorted by low end, then high end: each node's list is
        // filled with its lower neighbours first (as the high end, in
        // increasing order of the low end), then its higher ones (as the
        // low end, in increasing order), so every list ends up sorted.
        let mut fill: Vec<u32> = start[..n].to_vec();
        adj.clear();
        adj.resize(pairs.len() * 2, 0);
        for &p in pairs.iter() {
            let (lo, hi) = ((p >> 32) as usize, (p & u32::MAX as u64) as usize);
            adj[fill[hi] as usize] = lo as u32;
            fill[hi] += 1;
        }
        for &p in pairs.iter() {
            let (lo, hi) = ((p >> 32) as usize, (p & u32::MAX as u64) as u32);
            adj[fill[lo] as usize] = hi;
            fill[lo] += 1;
        }
        *pairs = Vec::new();
        debug_assert!((0..n).all(|v| {
            let l = &adj[start[v] as usize..start[v + 1] as usize];
            l.windows(2).all(|w| w[0] < w[1])
        }));
    }

    /// Whether `b` is among `a`'s raw neighbours.
    #[inline]
    pub fn contains(&self, a: usize, b: usize) -> bool {
        match self {
            Edges::Matrix { words, bits, .. } => {
                dense::contains(&bits[a * words..(a + 1) * words], b)
            }
            Edges::Lists {
                start, adj, extra, ..
            } => {
                let built = &adj[start[a] as usize..start[a + 1] as usize];
                if built.binary_search(&(b as u32)).is_ok() {
                    return true;
                }
                // Added pairs are listed at both ends: scan the shorter.
                let (x, y) = if extra[a].len() <= extra[b].len() {
                    (a, b)
                } else {
                    (b, a)
                };
                extra[x].contains(&(y as u32))
            }
        }
    }

    /// `a`'s raw neighbours: the matrix's in increasing order, the lists'
    /// built ones in increasing order and then the added ones.
    #[inline]
    pub fn raw(&self, a: usize) -> Raw<'_> {
        match self {
            Edges::Matrix { words, bits, .. } => Raw::Bits {
                row: &bits[a * words..(a + 1) * words],
                word: 0,
                left: 0,
            },
            Edges::Lists {
                start, adj, extra, ..
            } => Raw::Lists {
                built: adj[start[a] as usize..start[a + 1] as usize].iter(),
                extra: extra[a].iter(),
            },
        }
    }

    /// Merging representative `x` into representative `y` on a matrix:
    /// adds `y`–`z` for each representative `z` (`rep`) among `x`'s
    /// neighbours and not `y`'s, a word of both rows at a time; `false`
    /// for lists, which the caller merges edge by edge.
    pub fn merge_rows(&mut self, x: usize, y: usize, rep: impl Fn(usize) -> bool) -> bool {
        let Edges::Matrix { words, bits } = self else {
            return false;
        };
        let w = *words;
        for k in 0..w {
            // Representatives are symmetric: `z` is in `y`'s row exactly
            // when `y` is in `z`'s, so one word of each row tells.
            let mut new = bits[x * w + k] & !bits[y * w + k];
            while new != 0 {
                let z = k * 64 + new.trailing_zeros() as usize;
                new &= new - 1;
                if z == y || !rep(z) {
                    continue;
                }
                dense::insert(&mut bits[y * w..(y + 1) * w], z);
                dense::insert(&mut bits[z * w..(z + 1) * w], y);
            }
        }
        true
    }

    /// Adds the edge `a`–`b` during merging; the caller has checked it is
    /// not there.
    pub fn add_merged(&mut self, a: usize, b: usize) {
        debug_assert!(!self.contains(a, b));
        match self {
            Edges::Matrix { words, bits } => {
                let w = *words;
                dense::insert(&mut bits[a * w..(a + 1) * w], b);
                dense::insert(&mut bits[b * w..(b + 1) * w], a);
            }
            Edges::Lists { extra, .. } => {
                extra[a].push(b as u32);
                extra[b].push(a as u32);
            }
        }
    }
}

/// The iterator of [`Edges::raw`].
pub enum Raw<'a> {
    Bits {
        row: &'a [u64],
        word: usize,
        left: u64,
    },
    Lists {
        built: std::slice::Iter<'a, u32>,
        extra: std::slice::Iter<'a, u32>,
    },
}

impl Iterator for Raw<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            Raw::Bits { row, word, left } => {
                while *left == 0 {
                    *left = *row.get(*word)?;
                    *word += 1;
                }
                let b = left.trailing_zeros() as usize;
                *left &= *left - 1;
                Some((*word - 1) * 64 + b)
            }
            Raw::Lists { built, extra } => {
                built.next().or_else(|| extra.next()).map(|&z| z as usize)
            }
        }
    }
}
