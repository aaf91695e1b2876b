//! Live range groups and their interference graph (seed 004's LRGs and
//! IFG): one node per vreg at first, built backwards per block from
//! liveness; aggressive coalescing then unites the vregs joined by block
//! parameters and `reuse` pairs where they do not interfere and their
//! register masks meet.
//!
//! The graph is a square bit matrix (the triangular one "squared up", so a
//! row lists a node's neighbours) plus a union-find: merging `x` into `y`
//! ORs `x`'s row into `y`'s and sets `y` in each neighbour's row, so that
//! interference tests on representatives stay one bit lookup.
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

use super::facts::{Facts, Row};
use crate::analysis::bitset::dense;
use crate::analysis::cfg::join_successor;
use crate::ir::function::Function;
use crate::ir::index::{Inst, VReg};
use crate::ir::machine::MachineEnv;
use crate::ir::operand::{limit_mask, OperandConstraint, OperandPos};

/// The groups, their masks, costs and interference.
pub struct Graph {
    pub n: usize,
    words: usize,
    bits: Vec<u64>,
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
    /// Copies the conservative tests kept (conservative coalescing only).
    pub refused: u64,
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

    pub fn row(&self, g: usize) -> &[u64] {
        &self.bits[g * self.words..(g + 1) * self.words]
    }

    /// Whether groups (representatives) `a` and `b` interfere.
    pub fn interferes(&self, a: usize, b: usize) -> bool {
        dense::contains(self.row(a), b)
    }

    fn add_edge(&mut self, a: usize, b: usize) {
        if a == b || self.class[a] != self.class[b] {
            return;
        }
        let w = self.words;
        dense::insert(&mut self.bits[a * w..(a + 1) * w], b);
        dense::insert(&mut self.bits[b * w..(b + 1) * w], a);
    }

    /// The representatives that interfere with representative `g`.
    pub fn neighbours(&self, g: usize) -> impl Iterator<Item = usize> + '_ {
        dense::members(self.row(g)).filter(|&z| self.parent[z] as usize == z)
    }

    /// Merges group `x` into group `y` (both representatives).
    fn union(&mut self, x: usize, y: usize) {
        let w = self.words;
        let xs: Row = self.row(x).to_vec();
        for z in dense::members(&xs) {
            dense::insert(&mut self.bits[z * w..(z + 1) * w], y);
        }
        for (k, word) in xs.into_iter().enumerate() {
            self.bits[y * w + k] |= word;
        }
        self.parent[x] = y as u32;
        self.mask[y] &= self.mask[x];
        self.cost[y] += self.cost[x];
        self.area[y] += self.area[x];
        self.prefer[y] |= self.prefer[x];
        self.in_register[y] |= self.in_register[x];
    }

    /// Coalesces `a` and `b` if they do not interfere and their masks meet
    /// and, conservatively, if Briggs' or George's test says the merged
    /// group stays colourable.
    fn try_coalesce(&mut self, a: VReg, b: VReg, how: Coalescing) {
        let (x, y) = (self.find_compress(a.index()), self.find_compress(b.index()));
        if x == y
            || self.class[x] != self.class[y]
            || self.interferes(x, y)
            || self.mask[x] & self.mask[y] == 0
        {
            return;
        }
        if how == Coalescing::Conservative
            && !self.briggs(x, y)
            && !self.george(x, y)
            && !self.george(y, x)
        {
            self.refused += 1;
            return;
        }
        // The smaller index stays the representative, as in C2.
        let (from, into) = if x < y { (y, x) } else { (x, y) };
        self.union(from, into);
        self.coalesced += 1;
    }

    /// George's test: merging `x` into `y` is safe when every neighbour of
    /// `x` already interferes with `y` or has fewer neighbours than
    /// registers in its mask.
    fn george(&self, x: usize, y: usize) -> bool {
        self.neighbours(x).all(|t| {
            self.interferes(t, y) || (self.neighbours(t).count() as u32) < self.mask[t].count_ones()
        })
    }

    /// Briggs' test: merging groups `x` and `y` cannot make the graph
    /// harder to colour when fewer of the merged group's neighbours than it
    /// has registers are of significant degree (at least as many
    /// neighbours, after the merge, as registers in their own mask).
    fn briggs(&self, x: usize, y: usize) -> bool {
        let k = (self.mask[x] & self.mask[y]).count_ones();
        let both: Row = self
            .row(x)
            .iter()
            .zip(self.row(y))
            .map(|(a, b)| a | b)
            .collect();
        let mut significant = 0;
        for z in dense::members(&both) {
            if self.parent[z] as usize != z || z == x || z == y {
                continue;
            }
            let mut degree = self.neighbours(z).count() as u32;
            if self.interferes(z, x) && self.interferes(z, y) {
                degree -= 1;
            }
            if degree >= self.mask[z].count_ones() {
                significant += 1;
            }
        }
        significant < k
    }
}

/// How [`build`] coalesces copies: every one it can (the first round), or
/// only those Briggs' or George's test allows (the rounds after a spill, so that a
/// merge does not make a group uncolourable again).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coalescing {
    Aggressive,
    Conservative,
}

/// Builds the graph of `f` and coalesces.
pub fn build(f: &Function, env: &MachineEnv, facts: &Facts, how: Coalescing) -> Graph {
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
        words,
        bits: vec![0u64; n * words],
        parent: (0..n as u32).collect(),
        mask: class.iter().map(|&c| alloc[c as usize]).collect(),
        cost: vec![0.0; n],
        area: vec![0.0; n],
        prefer: vec![0; n],
        in_register: vec![false; n],
        class,
        coalesced: 0,
        refused: 0,
        alloc,
        excluded: Vec::new(),
        copies: Vec::new(),
    };
    let mut live: Row = Vec::with_capacity(words);
    let mut present: Row = vec![0; words];
    for b in f.blocks() {
        let freq = facts.freq[b.index()];
        let from = g.excluded.len();
        facts.walk(f, b, &mut live, |i, live| {
            inst(f, &mut g, i, live, freq, &mut present);
        });
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
    // Aggressive coalescing, most frequent copies first. `true` marks a
    // copy on an edge.
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
    for &(_, a, b, _) in &copies {
        g.try_coalesce(a, b, how);
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
    g
}

/// Edges, masks, cost and area of instruction `i`; `live` holds the vregs
/// live just after it.
fn inst(f: &Function, g: &mut Graph, i: Inst, live: &[u64], freq: f64, present: &mut Row) {
    let ops = f.inst_operands(i);
    let mut clobbered = [0u64; 3];
    for r in f.inst_clobbers(i) {
        clobbered[r.class().index()] |= 1 << r.hw();
    }
    for v in dense::members(live) {
        g.area[v] += freq;
        // Live after the instruction: across its clobbers (defs of `i`
        // included, which may not be written to a clobbered register).
        g.exclude(v, i, clobbered[g.class[v] as usize]);
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
mod tests {
    use super::*;

    fn graph(src: &str) -> Graph {
        let (case, _) = crate::ir::text::parse_and_validate(src.as_bytes()).unwrap();
        let facts = Facts::new(&case.func);
        build(&case.func, &case.machine, &facts, Coalescing::Aggressive)
    }

    const MACHINE: &str = "machine
  int    preferred p0i-p2i nonpreferred none scratch none
  float  preferred p0f nonpreferred none scratch none
  vector preferred p0v nonpreferred none scratch none
end
";

    #[test]
    fn a_group_needs_a_register_for_operands_that_ask_and_for_copies() {
        let g = graph(&format!(
            "{MACHINE}function
  block0:
    inst0: op def:v0i:any
    inst1: op def:v1i:stack
    inst2: op use:v1i:stack def:v2i:reuse(0)
    inst3: op def:v3i:any
    inst4: op use:v3i:reg def:v4i:reuse(0)
    inst5: op def:v5i:any
    inst6: op def:v8i:any
    inst7: branch -> block1(v0i, v5i, v8i)
  block1(v6i, v7i, v9i):
    inst8: op use:v6i:reg use:v7i:any use:v5i:any use:v9i:any
    inst9: ret use:v2i:any use:v4i:any
end
"
        ));
        let needs = |v: usize| g.in_register[g.find(v)];
        // v1i and v2i are one group, the def reusing a slot read; v0i
        // (written anywhere) and v6i (read in a register) one too, v0i
        // its representative.
        assert_eq!(g.find(1), g.find(2));
        assert!(!needs(1) && !needs(2));
        assert_eq!(g.find(6), 0);
        assert!(g.in_register[0]);
        // v3i is read in a register; v4i is where v3i was, and with it.
        assert!(needs(3) && needs(4));
        // v5i is read after block1's entry: the copy to v7i stays.
        assert_ne!(g.find(5), g.find(7));
        assert!(needs(5) && needs(7));
        // v8i and v9i are one group, the copy between them gone.
        assert_eq!(g.find(8), g.find(9));
        assert!(!needs(8));
    }

    #[test]
    fn a_group_asks_for_every_register_its_operands_name() {
        // v0i and v1i coalesce across the edge; v0i's limit(1) def asks for
        // p0i, v1i's fixed read for p2i, and a parameter nothing reads for
        // nothing.
        let g = graph(&format!(
            "{MACHINE}function
  block0:
    inst0: op def:v0i:limit(1)
    inst1: branch -> block1(v0i, v0i)
  block1(v1i, v2i):
    inst2: ret use:v1i:fixed(p2i)
end
"
        ));
        let r = g.find(0);
        assert_eq!(g.find(1), r);
        assert_eq!(g.prefer[r], 0b101);
        assert_eq!(g.prefer[2], 0);
        assert!(!g.interferes(r, g.find(2)) || g.find(2) == r);
    }

    #[test]
    fn cost_area_and_masks_follow_uses_loops_and_clobbers() {
        let g = graph(&format!(
            "{MACHINE}function
  block0:
    inst0: op def:v0i:any
    inst1: branch -> block1()
  block1:
    inst2: op use:v0i:any clobbers(p1i)
    inst3: branch -> block2(), block3()
  block2:
    inst4: branch -> block1()
  block3:
    inst5: ret use:v0i:any
end
"
        ));
        // One def (1), a use in the loop (2 x 4) and one after it (2).
        assert_eq!(g.cost[0], 1.0 + 8.0 + 2.0);
        // Live after inst0, inst1 (1 each) and inst2, inst3, inst4 (4 each).
        assert_eq!(g.area[0], 2.0 + 12.0);
        // Live across the clobber of p1i.
        assert_eq!(g.mask[0], 0b101);
    }

    #[test]
    fn copies_coalesce_only_without_interference_and_with_a_common_register() {
        // v1i's argument v0i is read after v1i is defined: no merge.
        let g = graph(&format!(
            "{MACHINE}function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1(v0i)
  block1(v1i):
    inst2: op use:v1i:reg use:v0i:reg
    inst3: ret
end
"
        ));
        assert!(g.interferes(0, 1) && g.find(0) != g.find(1));
        // v0i lives across a clobber of p0i and p2i, v1i across one of p1i
        // and p2i: their masks do not meet.
        let g = graph(&format!(
            "{MACHINE}function
  block0:
    inst0: op def:v0i:any
    inst1: op clobbers(p0i, p2i)
    inst2: branch -> block1(v0i)
  block1(v1i):
    inst3: op clobbers(p1i, p2i)
    inst4: ret use:v1i:any
end
"
        ));
        assert_eq!((g.mask[0], g.mask[1]), (0b010, 0b001));
        assert!(!g.interferes(0, 1) && g.find(0) != g.find(1));
        assert_eq!(g.coalesced, 0);
    }

    #[test]
    fn a_joins_parameters_interfere_with_what_the_branch_into_it_reads() {
        let g = graph(&format!(
            "{MACHINE}function
  block0:
    inst0: op def:v0i:any
    inst1: branch -> block1(v0i)
  block1(v1i):
    inst2: op def:v2i:any use:v1i:any
    inst3: branch -> block2(), block3()
  block2:
    inst4: branch use:v2i:reg -> block1(v2i)
  block3:
    inst5: ret
end
"
        ));
        // v1i dies where v2i is born, but the back edge's moves write v1i
        // before inst4 reads v2i: they interfere, and stay apart.
        assert!(g.interferes(g.find(1), g.find(2)));
        assert_ne!(g.find(1), g.find(2));
    }

    #[test]
    fn a_merged_group_sums_costs_and_areas_and_meets_masks() {
        // v0i passes to v1i: no interference; masks {p0i, p1i} (v0i across
        // a clobber of p2i) and {p0i, p2i} (v1i across one of p1i) meet in
        // p0i.
        let g = graph(&format!(
            "{MACHINE}function
  block0:
    inst0: op def:v0i:reg
    inst1: op def:v2i:reg clobbers(p2i)
    inst2: branch -> block1(v0i)
  block1(v1i):
    inst3: op clobbers(p1i)
    inst4: ret use:v1i:reg use:v2i:reg
end
"
        ));
        let r = g.find(0);
        assert_eq!(g.find(1), r);
        assert_eq!(g.coalesced, 1);
        assert_eq!(r, 0, "the smaller index stays the representative");
        assert_eq!(g.mask[r], 0b001);
        // Def (1) and the parameter (1), the read (2).
        assert_eq!(g.cost[r], 1.0 + 1.0 + 2.0);
        // v0i live after inst0, inst1, inst2; v1i after inst3.
        assert_eq!(g.area[r], 4.0);
        // The merged group interferes with what either did (v2i).
        assert!(g.interferes(r, 2) && g.interferes(2, r));
        assert_eq!(g.neighbours(2).collect::<Vec<_>>(), vec![0]);
    }

    /// More vregs than a row word holds: the matrix is read per word.
    #[test]
    fn rows_of_several_words() {
        let mut src = format!("{MACHINE}function\n  block0:\n");
        for v in 0..70 {
            src += &format!("    inst{v}: op def:v{v}i:any\n");
        }
        src += "    inst70: ret use:v0i:any use:v69i:any use:v65i:any\nend\n";
        let g = graph(&src);
        assert!(g.interferes(0, 69) && g.interferes(69, 0));
        assert!(g.interferes(65, 69) && g.interferes(0, 65));
        assert!(!g.interferes(1, 69) && !g.interferes(64, 65));
        assert_eq!(g.neighbours(69).collect::<Vec<_>>(), vec![0, 65]);
        assert_eq!(g.neighbours(66).collect::<Vec<_>>(), vec![0, 65]);
    }

    /// One register: a copy whose merged group would keep a neighbour of
    /// significant degree is kept by both conservative tests, and merged
    /// by the aggressive coalescing.
    #[test]
    fn conservative_coalescing_keeps_a_copy_that_could_cost_a_colour() {
        let one = "machine
  int    preferred p0i nonpreferred none scratch none
  float  preferred p0f nonpreferred none scratch none
  vector preferred p0v nonpreferred none scratch none
end
";
        let text = format!(
            "{one}function
  block0:
    inst0: op def:v0i:reg
    inst1: op def:v1i:reg
    inst2: op use:v1i:reg use:v0i:any
    inst3: branch -> block1(v0i)
  block1(v2i):
    inst4: op def:v3i:reg
    inst5: op use:v3i:reg use:v2i:any
    inst6: ret use:v2i:reg
end
"
        );
        let (case, _) = crate::ir::text::parse_and_validate(text.as_bytes()).unwrap();
        let facts = Facts::new(&case.func);
        let aggressive = build(&case.func, &case.machine, &facts, Coalescing::Aggressive);
        assert_eq!((aggressive.coalesced, aggressive.refused), (1, 0));
        let g = build(&case.func, &case.machine, &facts, Coalescing::Conservative);
        assert_eq!((g.coalesced, g.refused), (0, 1));
        assert!(!g.briggs(0, 2) && !g.george(0, 2) && !g.george(2, 0));
        // With two registers, v1i and v3i are of insignificant degree.
        let two = text.replace(
            "preferred p0i nonpreferred",
            "preferred p0i-p1i nonpreferred",
        );
        let (case, _) = crate::ir::text::parse_and_validate(two.as_bytes()).unwrap();
        let facts = Facts::new(&case.func);
        let g = build(&case.func, &case.machine, &facts, Coalescing::Conservative);
        assert_eq!((g.coalesced, g.refused), (1, 0));
        let g = build(&case.func, &case.machine, &facts, Coalescing::Aggressive);
        assert!(g.briggs(0, 2) && g.george(0, 2) && g.george(2, 0));
    }

    /// Briggs counts significant neighbours against the common registers;
    /// George asks each neighbour of one side to be insignificant or a
    /// neighbour of the other.
    #[test]
    fn briggs_and_george_on_a_small_graph() {
        // Two registers. v0i and v3i can merge (no interference); v1i and
        // v2i interfere with both and with each other.
        let g = graph(
            "machine
  int    preferred p0i-p1i nonpreferred none scratch none
  float  preferred p0f nonpreferred none scratch none
  vector preferred p0v nonpreferred none scratch none
end
function
  block0:
    inst0: op def:v0i:reg
    inst1: op def:v1i:reg
    inst2: op def:v2i:reg
    inst3: op use:v0i:reg
    inst4: op def:v3i:reg
    inst5: ret use:v1i:reg use:v2i:reg use:v3i:reg
end
",
        );
        assert!(!g.interferes(0, 3));
        for (a, b) in [(0, 1), (0, 2), (1, 2), (3, 1), (3, 2)] {
            assert!(g.interferes(a, b), "v{a} v{b}");
        }
        // Merged, {v0, v3} has neighbours v1i and v2i, each of degree 2
        // (significant on two registers): Briggs says no. Each neighbour of
        // v0i is a neighbour of v3i: George says yes.
        assert!(!g.briggs(0, 3));
        assert!(g.george(0, 3) && g.george(3, 0));
    }
}
