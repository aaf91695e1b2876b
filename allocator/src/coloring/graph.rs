//! Live range groups and their interference graph (seed 004's LRGs and
//! IFG): one node per vreg at first, built backwards per block from
//! liveness; aggressive coalescing then unites the vregs joined by block
//! parameters and `reuse` pairs where they do not interfere and their
//! register masks meet.
//!
//! The graph is its [`edges::Edges`] (a bit matrix for small functions,
//! neighbour lists for large ones) plus a union-find: merging `x` into `y`
//! makes every group that interferes with `x` interfere with `y`, so that
//! interference tests on representatives stay one lookup.
//!
//! Interference (within one class): a def interferes with everything live
//! after its instruction and with the instruction's other defs; an early def
//! also with every use of the instruction, a late use with every def; block
//! parameters with what is live into their block and with each other, and,
//! where the edge moves into a join run before the predecessor's branch,
//! with the values that branch reads.
//!
//! Masks: a value may not live in a register its instruction clobbers while
//! it is live across or written there, nor in the register a `fixed`
//! operand of another value needs at a point where it is present.

mod edges;

use super::facts::{Facts, Row};
use crate::analysis::bitset::dense;
use crate::analysis::cfg::join_successor;
use crate::ir::function::Function;
use crate::ir::index::{Inst, VReg};
use crate::ir::machine::MachineEnv;
use crate::ir::operand::{limit_mask, OperandConstraint, OperandPos};
use edges::Edges;

/// The groups, their masks, costs and interference.
pub struct Graph {
    pub n: usize,
    edges: Edges,
    parent: Vec<u32>,
    /// Per vreg, then per group representative: the registers (hardware
    /// numbers) it may live in.
    pub mask: Vec<u64>,
    /// Spill cost: defs weighted 1, uses 2, times the block frequency.
    pub cost: Vec<f64>,
    /// Area: the frequencies of the instructions it is live across.
    pub area: Vec<f64>,
    /// The registers its own operands ask for (each `fixed` operand's, each
    /// `limit` operand's first ones; 0: none): select tries them first,
    /// and keeps other groups out of them while this one waits.
    pub prefer: Vec<u64>,
    /// Whether anything needs it in a register: an operand other than
    /// `any` or `stack`, or a copy on an edge to or from another group. A
    /// group nothing needs in a register lives in its slot for free (its
    /// `any` and `stack` operands read and write the slot) and takes no
    /// register from the others.
    pub in_register: Vec<bool>,
    pub class: Vec<u8>,
    /// Copies that coalescing removed.
    pub coalesced: u64,
    /// The allocatable registers of each class.
    pub alloc: [u64; 3],
    /// `(vreg, inst, registers)`: the registers the vreg may not be in at
    /// that instruction (clobbers, other values' `fixed` operands), the
    /// points its mask was narrowed at; sorted by vreg, then instruction. Passive splitting reads
    /// them to let a group use such a register away from those points.
    pub excluded: Vec<(u32, u32, u64)>,
    /// `(vreg, vreg)`: the copies between values (an argument and the read
    /// parameter it is passed to, a reused input and its def), most
    /// frequent first. Two groups a copy joins that both end up on the
    /// stack share a slot where they can, and the copy goes.
    pub copies: Vec<(u32, u32)>,
    /// The representatives each representative interferes with, once
    /// coalescing is over: group `g`'s are `adj[adj_start[g]..][..k]`, `k`
    /// the difference to the next start. Simplify and select walk them
    /// several times a round; a bit row costs the number of vregs to
    /// walk, a list its neighbours. Left empty when the edges are a
    /// matrix that the lists would outgrow (a dense graph): its rows are
    /// walked instead.
    adj_start: Vec<u32>,
    adj: Vec<u32>,
    /// Whether coalescing is over ([`Graph::finish`] has run).
    finished: bool,
}

impl Graph {
    pub fn find(&self, v: usize) -> usize {
        let mut k = v;
        while self.parent[k] as usize != k {
            k = self.parent[k] as usize;
        }
        k
    }

    fn find_compress(&mut self, v: usize) -> usize {
        let root = self.find(v);
        let mut k = v;
        while self.parent[k] as usize != root {
            let next = self.parent[k] as usize;
            self.parent[k] = root as u32;
            k = next;
        }
        root
    }

    /// The points where vreg `v` may not be in some registers.
    pub fn excluded(&self, v: usize) -> &[(u32, u32, u64)] {
        let v = v as u32;
        let from = self.excluded.partition_point(|e| e.0 < v);
        let to = self.excluded.partition_point(|e| e.0 <= v);
        &self.excluded[from..to]
    }

    /// Narrows vreg `v`'s mask by `regs` at instruction `i`.
    fn exclude(&mut self, v: usize, i: Inst, regs: u64) {
        let regs = regs & self.alloc[self.class[v] as usize];
        if regs != 0 {
            self.mask[v] &= !regs;
            self.excluded.push((v as u32, i.index() as u32, regs));
        }
    }

    /// Whether groups (representatives) `a` and `b` interfere.
    pub fn interferes(&self, a: usize, b: usize) -> bool {
        self.edges.contains(a, b)
    }

    fn add_edge(&mut self, a: usize, b: usize) {
        if a == b || self.class[a] != self.class[b] {
            return;
        }
        self.edges.add(a, b);
    }

    /// The representatives that interfere with representative `g`, in
    /// increasing order.
    pub fn neighbours(&self, g: usize) -> Neighbours<'_> {
        debug_assert!(self.finished, "the graph is still being built");
        debug_assert_eq!(self.parent[g] as usize, g, "v{g} is not a representative");
        if self.adj_start.is_empty() {
            Neighbours::Rows(self.edges.raw(g), &self.parent)
        } else {
            let (a, b) = (self.adj_start[g] as usize, self.adj_start[g + 1] as usize);
            Neighbours::Listed(self.adj[a..b].iter())
        }
    }

    /// [`Graph::neighbours`] while coalescing changes the groups.
    fn row_neighbours(&self, g: usize) -> impl Iterator<Item = usize> + '_ {
        self.edges.raw(g).filter(|&z| self.parent[z] as usize == z)
    }

    /// Lists every representative's neighbours and points every vreg
    /// straight at its representative, coalescing being over: the later
    /// phases ask for groups per operand and per live vreg at each
    /// instruction.
    fn finish(&mut self) {
        for v in 0..self.n {
            self.parent[v] = self.find(v) as u32;
        }
        self.finished = true;
        let reps = || (0..self.n).filter(|&g| self.parent[g] as usize == g);
        let total: usize = match &self.edges {
            // A row's representatives counted a word at a time.
            Edges::Matrix { words, bits } => {
                let mut among = vec![0u64; *words];
                for g in reps() {
                    dense::insert(&mut among, g);
                }
                let row = |g: usize| &bits[g * words..(g + 1) * words];
                let count = |g| row(g).iter().zip(&among).map(|(r, m)| (r & m).count_ones());
                let total: u64 = reps().map(|g| count(g).map(u64::from).sum::<u64>()).sum();
                if total * 4 > bits.len() as u64 * 8 {
                    return;
                }
                total as usize
            }
            Edges::Lists { .. } => reps().map(|g| self.row_neighbours(g).count()).sum(),
        };
        let mut adj_start = Vec::with_capacity(self.n + 1);
        let mut adj = Vec::with_capacity(total);
        // A matrix row comes in order; lists end with the merges' added
        // neighbours, unsorted.
        let sorted = matches!(self.edges, Edges::Matrix { .. });
        for g in 0..self.n {
            adj_start.push(adj.len() as u32);
            if self.parent[g] as usize == g {
                let from = adj.len();
                adj.extend(self.row_neighbours(g).map(|z| z as u32));
                if sorted {
                    debug_assert!(adj[from..].is_sorted());
                } else {
                    adj[from..].sort_unstable();
                }
            }
        }
        adj_start.push(adj.len() as u32);
        self.adj_start = adj_start;
        self.adj = adj;
    }

    /// Merges group `x` into group `y` (both representatives): each group
    /// that interferes with `x` now interferes with `y`.
    fn union(&mut self, x: usize, y: usize, scratch: &mut Vec<u32>) {
        let parent = &self.parent;
        if !self.edges.merge_rows(x, y, |z| parent[z] as usize == z) {
            scratch.clear();
            scratch.extend(
                self.row_neighbours(x)
                    .filter(|&z| z != y && !self.edges.contains(z, y))
                    .map(|z| z as u32),
            );
            for &z in scratch.iter() {
                self.edges.add_merged(z as usize, y);
            }
        }
        self.parent[x] = y as u32;
        self.mask[y] &= self.mask[x];
        self.cost[y] += self.cost[x];
        self.area[y] += self.area[x];
        self.prefer[y] |= self.prefer[x];
        self.in_register[y] |= self.in_register[x];
    }

    /// Coalesces `a` and `b` if they do not interfere and their masks meet.
    fn try_coalesce(&mut self, a: VReg, b: VReg, scratch: &mut Vec<u32>) {
        let (x, y) = (self.find_compress(a.index()), self.find_compress(b.index()));
        if x == y
            || self.class[x] != self.class[y]
            || self.interferes(x, y)
            || self.mask[x] & self.mask[y] == 0
        {
            return;
        }
        // The smaller index stays the representative, as in C2.
        let (from, into) = if x < y { (y, x) } else { (x, y) };
        self.union(from, into, scratch);
        self.coalesced += 1;
    }
}

/// The iterator of [`Graph::neighbours`]: a list, or a matrix row's
/// representatives.
pub enum Neighbours<'a> {
    Listed(std::slice::Iter<'a, u32>),
    Rows(edges::Raw<'a>, &'a [u32]),
}

impl Iterator for Neighbours<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            Neighbours::Listed(l) => l.next().map(|&z| z as usize),
            Neighbours::Rows(raw, parent) => raw.find(|&z| parent[z] as usize == z),
        }
    }
}

/// Builds the graph of `f` and coalesces.
pub fn build(f: &Function, env: &MachineEnv, facts: &Facts) -> Graph {
    let mut g = interference(f, env, facts);
    coalesce(f, facts, &mut g);
    g
}

/// The graph of one group per vreg: masks, costs, exclusions and
/// interference, before any copy is coalesced.
pub fn interference(f: &Function, env: &MachineEnv, facts: &Facts) -> Graph {
    interference_as(f, env, facts, None)
}

/// [`interference`] with the edges as a bit matrix (`Some(true)`), as
/// lists (`Some(false)`), or as the function's size chooses (`None`).
pub fn interference_as(
    f: &Function,
    env: &MachineEnv,
    facts: &Facts,
    matrix: Option<bool>,
) -> Graph {
    let n = f.num_vregs();
    let words = facts.words;
    let alloc = env.allocatable_set().class_masks();
    let mut class = vec![0u8; n];
    for b in f.blocks() {
        for v in f.block_params(b) {
            class[v.index()] = v.class() as u8;
        }
        for i in f.block_insts(b).iter() {
            for op in f.inst_operands(i).iter().filter(|o| !o.is_nonalloc()) {
                class[op.vreg().index()] = op.class() as u8;
            }
        }
    }
    let mut g = Graph {
        n,
        edges: Edges::new(n, pairs_bound(f, facts), matrix),
        parent: (0..n as u32).collect(),
        mask: class.iter().map(|&c| alloc[c as usize]).collect(),
        cost: vec![0.0; n],
        area: vec![0.0; n],
        prefer: vec![0; n],
        in_register: vec![false; n],
        class,
        coalesced: 0,
        alloc,
        excluded: Vec::new(),
        copies: Vec::new(),
        adj_start: Vec::new(),
        adj: Vec::new(),
        finished: false,
    };
    let mut live: Row = Vec::with_capacity(words);
    let mut present: Row = vec![0; words];
    // A vreg's area grows by its block's frequency for each instruction it
    // is live after, added once per stretch of the backward walk (at its
    // def, or at the top of the block) instead of per live vreg per
    // instruction: `joined[v]` is where its stretch began, in instructions
    // walked, when `stamp[v]` is the block; else it was live at the bottom.
    // The frequencies are powers of 4, so the sums are exact either way.
    let (mut joined, mut stamp) = (vec![0u32; n], vec![u32::MAX; n]);
    let mut walked = 0u32;
    for b in f.blocks() {
        let freq = facts.freq[b.index()];
        let from = g.excluded.len();
        let (bottom, here) = (walked, b.index() as u32);
        let since = |v: usize, joined: &[u32], stamp: &[u32]| {
            if stamp[v] == here {
                joined[v]
            } else {
                bottom
            }
        };
        facts.walk(f, b, &mut live, |i, live| {
            inst(f, &mut g, i, live, freq, &mut present);
            for op in f.inst_operands(i).iter().filter(|o| !o.is_nonalloc()) {
                let v = op.vreg().index();
                if op.is_def() {
                    if dense::contains(live, v) {
                        let stretch = walked + 1 - since(v, &joined, &stamp);
                        g.area[v] += freq * f64::from(stretch);
                    }
                } else if !dense::contains(live, v) {
                    joined[v] = walked + 1;
                    stamp[v] = here;
                }
            }
            walked += 1;
        });
        for v in dense::members(&live) {
            g.area[v] += freq * f64::from(walked - since(v, &joined, &stamp));
        }
        // The walk goes backwards: the block's points, first to last.
        g.excluded[from..].reverse();
        // Parameters are defined at the top of the block, all at once. A
        // parameter nothing reads is never written (no edge move goes to
        // it), so it interferes with nothing.
        let params = f.block_params(b);
        for (k, p) in params.iter().enumerate() {
            if !facts.is_read(*p) {
                continue;
            }
            for v in dense::members(&live) {
                g.add_edge(p.index(), v);
            }
            for q in &params[..k] {
                if facts.is_read(*q) {
                    g.add_edge(p.index(), q.index());
                }
            }
            g.cost[p.index()] += freq;
        }
    }
    // Edge moves into a join run before the predecessor's branch, which
    // reads its operands afterwards: the parameters they write may not
    // share a register with those operands.
    for b in f.blocks() {
        let Some(join) = join_successor(f, b) else {
            continue;
        };
        let last = f.block_insts(b).last();
        for p in f.block_params(join).iter().filter(|&&p| facts.is_read(p)) {
            for op in f.inst_operands(last).iter().filter(|o| o.is_use()) {
                g.add_edge(p.index(), op.vreg().index());
            }
        }
    }
    // By vreg, each vreg's points in order (a stable bucket sort).
    let mut at = vec![0usize; n + 1];
    for e in &g.excluded {
        at[e.0 as usize + 1] += 1;
    }
    for v in 0..n {
        at[v + 1] += at[v];
    }
    let mut sorted = vec![(0, 0, 0); g.excluded.len()];
    for &e in &g.excluded {
        sorted[at[e.0 as usize]] = e;
        at[e.0 as usize] += 1;
    }
    g.excluded = sorted;
    g.edges.seal();
    g
}

/// At least as many pairs as building the graph of `f` adds (each def's
/// with what is live after it and with its instruction's other operands,
/// each read parameter's with what is live into its block and with the
/// other parameters), counted block by block from [`Facts`] so that the
/// representation is chosen before the graph is built: a running count of
/// the live set, so each block costs its row's words and its operands.
fn pairs_bound(f: &Function, facts: &Facts) -> usize {
    // Sets or clears `v`'s bit, answering whether it changed.
    fn flip(live: &mut [u64], v: usize, on: bool) -> bool {
        let changed = dense::contains(live, v) != on;
        if changed {
            live[v / 64] ^= 1 << (v % 64);
        }
        changed
    }
    let mut live: Row = Vec::with_capacity(facts.words);
    let mut pairs = 0;
    for b in f.blocks() {
        facts.load_live_out(b, &mut live);
        let mut count: usize = facts
            .live_out(b)
            .iter()
            .map(|&(_, w)| w.count_ones() as usize)
            .sum();
        let last = f.inst_operands(f.block_insts(b).last()).len();
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            // The edge's parameters with the branch's operands.
            pairs += f.block_params(s).len() * last;
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                if facts.is_read(p) {
                    count += usize::from(flip(&mut live, a.index(), true));
                }
            }
        }
        for i in f.block_insts(b).iter().rev() {
            let ops = f.inst_operands(i);
            let defs = ops.iter().filter(|o| o.is_def()).count();
            pairs += defs * count + ops.len() * ops.len();
            for op in ops.iter().filter(|o| o.is_def() && !o.is_nonalloc()) {
                count -= usize::from(flip(&mut live, op.vreg().index(), false));
            }
            for op in ops.iter().filter(|o| o.is_use() && !o.is_nonalloc()) {
                count += usize::from(flip(&mut live, op.vreg().index(), true));
            }
        }
        let params = f.block_params(b).len();
        pairs += params * (count + params);
    }
    pairs
}

/// Coalesces the copies of `g` (from [`interference`]), most frequent
/// first, and lists the groups' neighbours.
pub fn coalesce(f: &Function, facts: &Facts, g: &mut Graph) {
    // `true` marks a copy on an edge.
    let mut copies: Vec<(f64, VReg, VReg, bool)> = Vec::new();
    for b in f.blocks() {
        let freq = facts.freq[b.index()];
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                copies.push((freq, a, p, true));
            }
        }
        for i in f.block_insts(b).iter() {
            let ops = f.inst_operands(i);
            for op in ops {
                if let OperandConstraint::Reuse(k) = op.constraint() {
                    copies.push((freq, ops[k].vreg(), op.vreg(), false));
                }
            }
        }
    }
    copies.sort_by(|x, y| y.0.total_cmp(&x.0));
    let mut scratch = Vec::new();
    for &(_, a, b, _) in &copies {
        g.try_coalesce(a, b, &mut scratch);
    }
    // A copy on an edge between two groups is a move that a register makes
    // cheap (a slot-to-slot move costs a reload and a store).
    for &(_, a, p, _) in copies.iter().filter(|c| c.3) {
        let (x, y) = (g.find(a.index()), g.find(p.index()));
        if x != y && facts.is_read(p) {
            g.in_register[x] = true;
            g.in_register[y] = true;
        }
    }
    g.copies = copies
        .iter()
        .filter(|c| !c.3 || facts.is_read(c.2))
        .map(|c| (c.1.index() as u32, c.2.index() as u32))
        .collect();
    g.finish();
}

/// Edges, masks and cost of instruction `i`; `live` holds the vregs live
/// just after it.
fn inst(f: &Function, g: &mut Graph, i: Inst, live: &[u64], freq: f64, present: &mut Row) {
    let ops = f.inst_operands(i);
    let clobbered = crate::PRegSet::of(f.inst_clobbers(i)).class_masks();
    if clobbered != [0; 3] {
        for v in dense::members(live) {
            // Live after the instruction: across its clobbers (defs of `i`
            // included, which may not be written to a clobbered register).
            g.exclude(v, i, clobbered[g.class[v] as usize]);
        }
    }
    for (k, op) in ops.iter().enumerate() {
        if op.is_nonalloc() {
            continue;
        }
        let v = op.vreg().index();
        let c = g.class[v] as usize;
        // A reusing def is where its input is.
        let needs = match op.constraint() {
            OperandConstraint::Reuse(j) => super::points::needs_register(&ops[j]),
            _ => super::points::needs_register(op),
        };
        g.in_register[v] |= needs;
        if op.is_def() {
            g.cost[v] += freq;
            g.exclude(v, i, clobbered[c]);
            for w in dense::members(live) {
                g.add_edge(v, w);
            }
            for (j, other) in ops.iter().enumerate() {
                if j == k || other.is_nonalloc() {
                    continue;
                }
                // A reusing def's place holds its input from the early
                // point, while the instruction reads its other uses.
                let early_def = match op.constraint() {
                    OperandConstraint::Reuse(input) => j != input,
                    _ => op.pos() == OperandPos::Early,
                };
                let late_use = other.is_use() && other.pos() == OperandPos::Late;
                if other.is_def() || early_def || late_use {
                    g.add_edge(v, other.vreg().index());
                }
            }
        } else {
            g.cost[v] += 2.0 * freq;
            let reuser = reuser(ops, k);
            if span(ops, k).1 {
                // Read at the late point, or held there for its reusing
                // def: out of clobbered registers, and apart from the
                // instruction's other defs.
                g.exclude(v, i, clobbered[c]);
                for (j, other) in ops.iter().enumerate() {
                    if other.is_def() && Some(j) != reuser {
                        g.add_edge(v, other.vreg().index());
                    }
                }
            }
        }
        if let OperandConstraint::Limit(n) = op.constraint() {
            // A limit every register of the class meets asks for nothing.
            if g.alloc[c] & !limit_mask(n) != 0 {
                g.prefer[v] |= limit_mask(n) & g.alloc[c];
            }
        }
        if let OperandConstraint::FixedReg(r) = op.constraint() {
            g.prefer[v] |= 1 << r.hw() & g.alloc[c];
            // Everything else present at the operand's points keeps out
            // of the register.
            let (early, late) = span(ops, k);
            present_at(f, i, live, early, late, present);
            for w in dense::members(present) {
                if w != v && g.class[w] as usize == c {
                    g.exclude(w, i, 1 << r.hw());
                }
            }
        }
    }
}

/// The points operand `k` occupies: a use from the early point (to the late
/// one if it is late or reused), a def at its point and, early, to the late
/// one.
pub fn span(ops: &[crate::ir::operand::Operand], k: usize) -> (bool, bool) {
    let op = ops[k];
    if op.is_use() {
        (
            true,
            op.pos() == OperandPos::Late || reuser(ops, k).is_some(),
        )
    } else {
        (op.pos() == OperandPos::Early, true)
    }
}

/// The def that reuses operand `k`, if any.
pub fn reuser(ops: &[crate::ir::operand::Operand], k: usize) -> Option<usize> {
    ops.iter()
        .position(|o| matches!(o.constraint(), OperandConstraint::Reuse(j) if j == k))
}

/// The vregs present at instruction `i`'s early point (`early`) and/or late
/// point (`late`), into `out`: what is live after it (but a def not yet
/// written), its uses and its defs, each at the points it occupies.
pub fn present_at(f: &Function, i: Inst, live: &[u64], early: bool, late: bool, out: &mut Row) {
    let ops = f.inst_operands(i);
    out.clear();
    out.extend_from_slice(live);
    for (k, op) in ops.iter().enumerate() {
        if op.is_nonalloc() {
            continue;
        }
        let (e, l) = span(ops, k);
        let v = op.vreg().index();
        if (e && early) || (l && late) {
            dense::insert(out, v);
        } else if op.is_def() {
            dense::remove(out, v);
        }
    }
}

#[cfg(test)]
mod tests;
