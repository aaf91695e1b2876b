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

/// Rows per chunk of saved rows.
const SAVED_CHUNK: usize = 64;

/// Bytes the lists hold at their peak per pair added while building: the
/// pair, and its two entries in the sorted lists (the vector of pairs may
/// hold up to twice its length; the bound on the pairs is loose enough).
const LIST_BYTES_PER_PAIR: usize = 16;

pub enum Edges {
    Matrix {
        words: usize,
        bits: Vec<u64>,
        /// While merging: each row a merge changed, as it was before.
        saved: SavedRows,
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
        /// list for the node); `added` logs each pair in order.
        extra: Vec<Vec<u32>>,
        added: Vec<(u32, u32)>,
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
                saved: SavedRows {
                    chunks: Vec::new(),
                    rows: Vec::new(),
                    is_saved: vec![0u64; words],
                },
            }
        } else {
            Edges::Lists {
                pairs: Vec::new(),
                start: vec![0; n + 1],
                adj: Vec::new(),
                extra: vec![Vec::new(); n],
                added: Vec::new(),
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

    /// Adds the edge `a`–`b` during merging, to be taken back by
    /// [`Edges::undo`]; the caller has checked it is not there.
    pub fn add_merged(&mut self, a: usize, b: usize) {
        debug_assert!(!self.contains(a, b));
        match self {
            Edges::Matrix { words, bits, saved } => {
                let w = *words;
                for (row, col) in [(a, b), (b, a)] {
                    saved.save(bits, w, row);
                    dense::insert(&mut bits[row * w..(row + 1) * w], col);
                }
            }
            Edges::Lists { extra, added, .. } => {
                extra[a].push(b as u32);
                extra[b].push(a as u32);
                added.push((a as u32, b as u32));
            }
        }
    }

    /// Takes back every [`Edges::add_merged`] since the graph was sealed.
    pub fn undo(&mut self) {
        match self {
            Edges::Matrix { words, bits, saved } => saved.restore(bits, *words),
            Edges::Lists { extra, added, .. } => {
                for &(a, b) in added.iter().rev() {
                    extra[a as usize].pop();
                    extra[b as usize].pop();
                }
                added.clear();
            }
        }
    }
}

/// A matrix's rows as they were before their first change while merging:
/// the `k`th saved, row `rows[k]`, is at `chunks[k / SAVED_CHUNK][k %
/// SAVED_CHUNK * words..]`, and one bit per row says it is saved. A long
/// group merged into another gives it thousands of neighbours: a log of
/// bits would outgrow the matrix, the saved rows never do (but for a
/// chunk). Chunks of a fixed size, not one growing vector, which would
/// hold up to twice the rows.
pub struct SavedRows {
    chunks: Vec<Vec<u64>>,
    rows: Vec<u32>,
    is_saved: Vec<u64>,
}

impl SavedRows {
    /// Saves `row` of `bits` (`w` words a row) unless it is saved already.
    fn save(&mut self, bits: &[u64], w: usize, row: usize) {
        if dense::contains(&self.is_saved, row) {
            return;
        }
        dense::insert(&mut self.is_saved, row);
        if self.rows.len().is_multiple_of(SAVED_CHUNK) {
            self.chunks.push(Vec::with_capacity(SAVED_CHUNK * w));
        }
        self.rows.push(row as u32);
        let chunk = self.chunks.last_mut().expect("pushed above");
        chunk.extend_from_slice(&bits[row * w..(row + 1) * w]);
    }

    /// Puts every saved row back into `bits` and forgets them.
    fn restore(&mut self, bits: &mut [u64], w: usize) {
        for (k, &row) in self.rows.iter().enumerate() {
            let (row, at) = (row as usize, k % SAVED_CHUNK * w);
            let old = &self.chunks[k / SAVED_CHUNK][at..at + w];
            bits[row * w..(row + 1) * w].copy_from_slice(old);
        }
        self.chunks = Vec::new();
        self.rows.clear();
        self.is_saved.fill(0);
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
