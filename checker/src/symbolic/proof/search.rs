//! The proof's search: each block's demand, the facts about its start
//! that must hold, built from its successors' and its own uses' asks and
//! swept in postorder until none grows (see the [module
//! documentation](super)).

use super::demands::merge;
use super::{is_at, uncut, Held, Proof, AT_START, DEFINED, EMPTY, LOCATION, NONE, SHARED};
use allocator::{Block, Function, PReg};

impl Proof {
    /// Proves the facts the uses asked about block starts: each block's
    /// demand (the facts about its start that must hold) is what its own
    /// uses ask and what its successors demand, taken back through the
    /// edge's parameters and the block's writes; swept in postorder until
    /// no demand grows, and the entry must be demanded nothing.
    pub(super) fn search(&mut self, f: &Function, po: &[Block]) -> bool {
        let nb = f.num_blocks();
        self.demand.clear(nb);
        self.po_index.clear();
        self.po_index.resize(nb, 0);
        for (k, b) in po.iter().enumerate() {
            self.po_index[b.index()] = k as u32;
        }
        self.pending.clear();
        self.pending.resize(po.len(), true);
        // The entry settles the facts of other blocks: a function of one
        // block has none.
        let settles = nb > 1;
        if settles {
            self.note_entry_alone(f);
        }
        let proved = (!settles || self.settle_asks_by_entry(f))
            && self.sweep(f, po)
            && (!self.seed_unread_arguments(f) || self.sweep(f, po));
        if settles {
            for &e in &self.ends[self.end_range(f.entry_block())] {
                self.entry_alone[(e >> 32) as usize] = SHARED;
            }
        }
        proved
    }

    /// Where in `ends` what block `b` ends with lies.
    fn end_range(&self, b: Block) -> std::ops::Range<usize> {
        self.end_start[b.index()] as usize..self.end_start[b.index() + 1] as usize
    }

    /// Notes in `entry_alone` what the entry leaves in each location that
    /// no other block writes; every other location stays [`SHARED`], as
    /// `search` leaves them all. The blocks are walked in order and the
    /// entry is block 0, the first, so a location the entry writes that no
    /// other block does still has the entry's stamp.
    fn note_entry_alone(&mut self, f: &Function) {
        let nlocs = PReg::NUM_INDEX + self.nslots;
        if self.entry_alone.len() < nlocs {
            debug_assert!(nlocs <= LOCATION as usize);
            self.entry_alone.resize(nlocs, SHARED);
        }
        debug_assert_eq!(f.entry_block().index(), 0);
        for &e in &self.ends[self.end_range(f.entry_block())] {
            let l = (e >> 32) as usize;
            if self.stamp[l] == self.entry_stamp {
                self.entry_alone[l] = e as u32;
            }
        }
    }

    /// Drops from the asks of the blocks but the entry each fact that
    /// [`settled_by_entry`] proves; false when it disproves one.
    fn settle_asks_by_entry(&mut self, f: &Function) -> bool {
        let entry = f.entry_block().index();
        let (mut kept, mut from) = (0, 0);
        for b in 0..f.num_blocks() {
            let to = self.ask_start[b + 1] as usize;
            for k in from..to {
                let x = self.asks[k];
                let settled = if b == entry {
                    None
                } else {
                    settled_by_entry(
                        &self.entry_alone,
                        &self.def_inst,
                        &self.param_at,
                        &self.entry,
                        x,
                    )
                };
                match settled {
                    Some(true) => self.entry_settled += 1,
                    Some(false) => {
                        self.entry_settled += 1;
                        return false;
                    }
                    None => {
                        self.asks[kept] = x;
                        kept += 1;
                    }
                }
            }
            from = to;
            self.ask_start[b + 1] = kept as u32;
        }
        self.asks.truncate(kept);
        true
    }

    /// Sweeps the blocks in postorder until no demand grows.
    fn sweep(&mut self, f: &Function, po: &[Block]) -> bool {
        let mut any = true;
        while any {
            any = false;
            for k in 0..po.len() {
                if !std::mem::replace(&mut self.pending[k], false) {
                    continue;
                }
                any = true;
                let b = po[k];
                if !self.demand_at_start(f, b) {
                    return false;
                }
                if self.demand.grow(b.index(), &self.next, &self.moved) {
                    if b == f.entry_block() {
                        return false;
                    }
                    for &p in f.block_preds(b) {
                        self.pending[self.po_index[p.index()] as usize] = true;
                    }
                }
            }
        }
        true
    }

    /// Adds to the asks of each block that passes an argument defined
    /// elsewhere, to a parameter no fact was asked of, the fact that the
    /// argument is defined at its start, and marks those blocks due;
    /// whether there were any. Facts of definition ask nothing of
    /// parameters, so the parameters asked stay those the search found.
    fn seed_unread_arguments(&mut self, f: &Function) -> bool {
        let Proof {
            far,
            param_asked,
            asks,
            ask_start,
            edge,
            moved,
            pending,
            po_index,
            ..
        } = self;
        far.retain(|&(_, _, p)| !param_asked[p as usize]);
        if far.is_empty() {
            return false;
        }
        std::mem::swap(asks, edge);
        asks.clear();
        let mut seeds = far.iter().peekable();
        let mut from = 0;
        for b in 0..f.num_blocks() {
            let to = ask_start[b + 1] as usize;
            asks.extend_from_slice(&edge[from..to]);
            from = to;
            moved.clear();
            while let Some(&(_, v, _)) = seeds.next_if(|s| s.0 as usize == b) {
                moved.push(((DEFINED as u64) << 32) | v as u64);
            }
            if !moved.is_empty() {
                moved.sort_unstable();
                moved.dedup();
                asks.extend_from_slice(moved);
                pending[po_index[b] as usize] = true;
            }
            ask_start[b + 1] = asks.len() as u32;
        }
        true
    }

    /// Builds the demand at block `b`'s start from its successors' demands
    /// and its own uses, as two sets sorted without repeats whose union it
    /// is: in `next` the facts the block passes through unchanged, in
    /// `moved` the others (taken to another location, or asked by its own
    /// uses); false when a fact demanded at its end fails there.
    fn demand_at_start(&mut self, f: &Function, b: Block) -> bool {
        let Proof {
            demand,
            next,
            edge,
            moved,
            acc,
            def_inst,
            param_at,
            param_asked,
            vclass,
            ends,
            end_start,
            asks,
            ask_start,
            entry_alone,
            entry,
            entry_settled,
            ..
        } = self;
        // A fact about a location only the entry writes is settled at once
        // in any other block.
        let at_entry = b == f.entry_block();
        let settled = |x: u64| {
            if at_entry {
                return None;
            }
            settled_by_entry(entry_alone, def_inst, param_at, entry, x)
        };
        // The demand at the end: the union of the successors', each
        // through its edge's parameters. The first successor without
        // parameters is read in place, and merged with the second.
        let succs = f.block_succs(b);
        let mut first = None;
        let mut started = false;
        for (t, &s) in succs.iter().enumerate() {
            if succs[..t].contains(&s) {
                continue;
            }
            let params = f.block_params(s);
            if !started && params.is_empty() {
                first = Some(s.index());
                started = true;
                continue;
            }
            let from: &[u64] = if params.is_empty() {
                &demand[s.index()]
            } else {
                let args = f.branch_args(b, t);
                edge.clear();
                let mut sorted = true;
                for &x in &demand[s.index()] {
                    let v = x as u32;
                    let k = param_at[v as usize];
                    let y = if is_at(params, k, v) {
                        param_asked[v as usize] = true;
                        sorted = false;
                        let y = (x & !0xFFFF_FFFF) | args[k as usize].index() as u64;
                        match settled(y) {
                            Some(true) => {
                                *entry_settled += 1;
                                continue;
                            }
                            Some(false) => {
                                *entry_settled += 1;
                                return false;
                            }
                            None => y,
                        }
                    } else {
                        x
                    };
                    edge.push(y);
                }
                if !sorted {
                    edge.sort_unstable();
                    edge.dedup();
                }
                edge
            };
            if !started {
                acc.clear();
                acc.extend_from_slice(from);
                started = true;
            } else if let Some(s0) = first.take() {
                acc.clear();
                merge(&demand[s0], from, acc);
            } else {
                union_into(acc, from, moved);
            }
        }
        let at_end: &[u64] = match first {
            Some(s) => &demand[s],
            None if started => acc,
            None => &[],
        };
        // Back through the block's writes: a fact about a location the
        // block leaves alone is one about its start, unless the block
        // defines the vreg; one about a location it writes is settled by
        // the write, or moved to the location the write copied.
        let range = f.block_insts(b);
        let defined_here =
            |v: u32| range.start.0 <= def_inst[v as usize] && def_inst[v as usize] < range.end.0;
        let ends = &ends[end_start[b.index()] as usize..end_start[b.index() + 1] as usize];
        next.clear();
        moved.clear();
        let mut j = 0;
        for &x in at_end {
            let (l, v) = ((x >> 32) as u32, x as u32);
            if l == DEFINED {
                if !(defined_here(v) || is_at(f.block_params(b), param_at[v as usize], v)) {
                    next.push(x);
                }
                continue;
            }
            while j < ends.len() && ((ends[j] >> 32) as u32) < l {
                j += 1;
            }
            let h = match ends.get(j) {
                Some(&e) if (e >> 32) as u32 == l => e as u32,
                _ => AT_START | l,
            };
            match h {
                EMPTY => return false,
                h if h & AT_START != 0 => {
                    if defined_here(v)
                        || (h & !(AT_START | LOCATION) != 0 && !uncut(h, vclass[v as usize] as u8))
                    {
                        return false;
                    }
                    let y = ((h & LOCATION) as u64) << 32 | v as u64;
                    if y == x {
                        next.push(y);
                    } else {
                        match settled(y) {
                            Some(true) => *entry_settled += 1,
                            Some(false) => {
                                *entry_settled += 1;
                                return false;
                            }
                            None => moved.push(y),
                        }
                    }
                }
                h => {
                    if h != v {
                        return false;
                    }
                }
            }
        }
        moved.extend_from_slice(
            &asks[ask_start[b.index()] as usize..ask_start[b.index() + 1] as usize],
        );
        moved.sort_unstable();
        moved.dedup();
        true
    }
}

/// Whether fact `x`, about the start or the end of a block other than the
/// entry, holds, when its vreg is no block's parameter and its location
/// one only the entry writes (`None` when not, for the search to settle;
/// `entry_alone`, `def_inst`, `param_at` and `entry` as in [`Proof`]).
/// Every path to that point leaves the entry and writes the location no
/// more, and no edge renames the vreg, so the fact holds exactly when the
/// entry leaves that vreg there: a location comes to hold a vreg in a block
/// only at that vreg's definition there, so none lies on the way. Anything
/// else the entry leaves fails it where the search would take it: the
/// entry's end.
#[inline]
fn settled_by_entry(
    entry_alone: &[Held],
    def_inst: &[u32],
    param_at: &[u32],
    entry: &std::ops::Range<u32>,
    x: u64,
) -> Option<bool> {
    let (l, v) = ((x >> 32) as usize, x as u32);
    match *entry_alone.get(l)? {
        SHARED => None,
        _ if param_at[v as usize] != NONE => None,
        h if h != v => Some(false),
        _ => entry.contains(&def_inst[v as usize]).then_some(true),
    }
}

/// `a := a ∪ b`, both sorted without repeats; `scratch` is overwritten.
fn union_into(a: &mut Vec<u64>, b: &[u64], scratch: &mut Vec<u64>) {
    scratch.clear();
    merge(a, b, scratch);
    std::mem::swap(a, scratch);
}
