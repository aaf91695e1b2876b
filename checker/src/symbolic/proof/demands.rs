//! The demands of a function's blocks (see [`super::search`]), each a
//! range of one store, and the union of two sorted sets they are built by.

/// The demands of a function's blocks, each a range of one store.
/// A demand that grows is appended whole, leaving its old range dead; when
/// the dead outgrow the live, the live are moved down to the store's start
/// (in the order they lie), so that the store stays within twice the
/// facts demanded, plus [`Demands::SLACK`].
#[derive(Default)]
pub(super) struct Demands {
    store: Vec<u64>,
    at: Vec<(u32, u32)>,
    /// How many facts the blocks demand, in all.
    live: usize,
    /// Scratch: the blocks with a demand, in the order their ranges lie.
    order: Vec<u32>,
}

impl Demands {
    /// Every one of `nb` blocks demanding nothing.
    pub(super) fn clear(&mut self, nb: usize) {
        self.store.clear();
        self.at.clear();
        self.at.resize(nb, (0, 0));
        self.live = 0;
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
        self.live += new.len() - was.len();
        self.at[b] = (from as u32, self.store.len() as u32);
        if self.store.len() > 2 * self.live + Self::SLACK {
            self.compact();
        }
        true
    }

    /// Dead facts the store may hold beyond as many as the live ones.
    const SLACK: usize = 1 << 12;

    /// Moves every live demand down to the start of the store, in the
    /// order they lie, and drops the rest.
    fn compact(&mut self) {
        self.order.clear();
        self.order.extend(
            (0..self.at.len() as u32).filter(|&b| self.at[b as usize].0 < self.at[b as usize].1),
        );
        let at = &self.at;
        self.order.sort_unstable_by_key(|&b| at[b as usize].0);
        let mut to = 0;
        for &b in &self.order {
            let (from, end) = self.at[b as usize];
            self.store.copy_within(from as usize..end as usize, to);
            let n = (end - from) as usize;
            self.at[b as usize] = (to as u32, (to + n) as u32);
            to += n;
        }
        debug_assert_eq!(to, self.live);
        self.store.truncate(to);
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

#[cfg(test)]
mod tests {
    use super::Demands;

    /// Demands that grow again and again leave dead ranges behind; the
    /// store is compacted within twice the live facts plus the slack, and
    /// every block still demands what it last grew to.
    #[test]
    fn a_store_of_growing_demands_stays_within_twice_the_live_ones() {
        let mut d = Demands::default();
        d.clear(3);
        let mut peak = 0;
        for n in 1..=200u64 {
            for b in 0..3 {
                let old: Vec<u64> = d[b].to_vec();
                let new: Vec<u64> = (0..n * (b as u64 + 1)).collect();
                assert!(d.grow(b, &old, &new));
                assert!(!d.grow(b, &new, &[]));
                peak = peak.max(d.store.len());
            }
        }
        for b in 0..3 {
            assert_eq!(d[b], (0..200 * (b as u64 + 1)).collect::<Vec<_>>()[..]);
        }
        assert_eq!(d.live, 1200);
        assert!(peak <= 2 * 1200 + Demands::SLACK + 600, "{peak}");
    }
}
