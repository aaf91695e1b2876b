//! The demands of a function's blocks (see [`super::search`]), each a
//! range of one store, and the union of two sorted sets they are built by.

/// The demands of a function's blocks, each a range of one store.
#[derive(Default)]
pub(super) struct Demands {
    store: Vec<u64>,
    at: Vec<(u32, u32)>,
}

impl Demands {
    /// Every one of `nb` blocks demanding nothing.
    pub(super) fn clear(&mut self, nb: usize) {
        self.store.clear();
        self.at.clear();
        self.at.resize(nb, (0, 0));
    }

    /// Makes block `b` demand `a ∪ c` (both sorted without repeats), which
    /// holds what it demanded (demands only grow); whether that is more.
    pub(super) fn grow(&mut self, b: usize, a: &[u64], c: &[u64]) -> bool {
        if a.is_empty() && c.is_empty() {
            return false;
        }
        let from = self.store.len();
        merge(a, c, &mut self.store);
        let (was, new) = (&self[b], &self.store[from..]);
        debug_assert!(was.iter().all(|x| new.binary_search(x).is_ok()));
        if new.len() == was.len() {
            self.store.truncate(from);
            return false;
        }
        self.at[b] = (from as u32, self.store.len() as u32);
        true
    }
}

impl std::ops::Index<usize> for Demands {
    type Output = [u64];

    #[inline]
    fn index(&self, b: usize) -> &[u64] {
        let (from, to) = self.at[b];
        &self.store[from as usize..to as usize]
    }
}

/// Appends `a ∪ b` to `out`, both sorted without repeats.
pub(super) fn merge(a: &[u64], b: &[u64], out: &mut Vec<u64>) {
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        out.push(x.min(y));
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}
