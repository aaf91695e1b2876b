//! Passive live-range splitting (Cooper and Simpson, seed 003): when select
//! finds no register for a group `r`, the neighbours holding some register
//! `h` may step aside for it, each moving to its spill slot wherever `r` is
//! present (its **hole**) and back to `h` after, so that `r` takes `h`
//! instead of being spilled. This is chosen when every neighbour holding `h`
//! can step aside and the stores and reloads at the holes' edges cost less
//! than spilling `r` everywhere.
//!
//! A neighbour `z` can step aside for `r` when `r` is *contained* in it:
//! `z` is not referred to anywhere `r` is present (no operand, no edge move
//! reading or writing it there), so that between the edges of the hole `z`
//! is only carried, never used. This containment relation is read from the
//! presence intervals and references of [`Points`], gathered with the
//! interference graph, and asked only for the neighbours of a group that
//! would spill.
//!
//! The renaming a split needs is the hole itself: `z` is one value in two
//! places, its register outside the hole and its slot inside (SSA never
//! writes it again, so the slot stays good once stored). Where the two
//! names meet, a copy goes in: within a block before the first instruction
//! of the hole (a store) and before the first after it (a reload); on a CFG
//! edge wherever `z` is in the hole at one end and not at the other.
//!
//! Seed 003's two-address pitfall (a splitter and its splittee live at the
//! same time: the splittee stored only at the *write* of a
//! read-modify-write operand, while the splitter was already live at the
//! read) cannot arise: a hole covers every instruction where any vreg of the
//! splitter's group is present, its reused inputs' reads included, since
//! presence comes from liveness and references, not from where values are
//! written.

use super::facts::Facts;
use super::graph::Graph;
use super::points::{needs_register, Points, RELOAD, STORE};
use crate::analysis::cfg::effective_preds;
use crate::ir::function::Function;
use crate::ir::index::{Block, Inst};
use std::rc::Rc;

mod intervals;

use intervals::{any_inside, difference, intersect, merge, union};
pub use intervals::{inside, Intervals};

/// A register out of a group's mask, the points that took it out, and what
/// being in its slot at those points costs alone (`None`: it cannot).
type Exclusion = (u8, Rc<Intervals>, Option<f64>);

/// A group in its register only in the blocks that need it there: where it
/// is in its slot, where in its register, and what the copies between the
/// two cost.
struct InBlocks {
    outside: Intervals,
    inside: Intervals,
    base: f64,
}

/// The blocks instructions `s` to `e` lie in, in order.
fn blocks_between(f: &Function, s: u32, e: u32) -> impl Iterator<Item = Block> {
    let (b0, b1) = (
        f.block_of(Inst::new(s as usize)).index(),
        f.block_of(Inst::new(e as usize)).index(),
    );
    (b0..=b1).map(Block::new)
}

/// The registers of `points` (one entry per point, in order) in classes
/// taken out at exactly the same points, refined point by point: a
/// clobber takes many registers at once, so a few classes stand for many
/// registers.
fn same_points(points: &[(u32, u64)]) -> Vec<u64> {
    debug_assert!(points.windows(2).all(|w| w[0].0 < w[1].0));
    let all = points.iter().fold(0u64, |m, p| m | p.1);
    let mut classes = vec![all];
    let mut last = 0;
    for &(_, regs) in points {
        if regs == last {
            continue;
        }
        last = regs;
        for k in 0..classes.len() {
            let (c, inside) = (classes[k], classes[k] & regs);
            if inside != 0 && inside != c {
                classes[k] = inside;
                classes.push(c & !regs);
            }
        }
    }
    classes.retain(|&c| c != 0);
    classes
}

/// The members of each group, as ranges into one list.
pub struct Members {
    of: Vec<u32>,
    list: Vec<u32>,
}

impl Members {
    pub fn new(g: &Graph) -> Members {
        let mut of = vec![0u32; g.n + 1];
        for v in 0..g.n {
            of[g.find(v) + 1] += 1;
        }
        for v in 0..g.n {
            of[v + 1] += of[v];
        }
        let mut next = of.clone();
        let mut list = vec![0u32; g.n];
        for v in 0..g.n {
            let r = g.find(v);
            list[next[r] as usize] = v as u32;
            next[r] += 1;
        }
        Members { of, list }
    }

    /// The vregs of representative `r`.
    pub fn of(&self, r: usize) -> impl Iterator<Item = usize> + '_ {
        self.list[self.of[r] as usize..self.of[r + 1] as usize]
            .iter()
            .map(|&v| v as usize)
    }
}

/// Select's helper for passive splitting; ends as the holes it chose.
pub struct Splitter<'a> {
    f: &'a Function,
    g: &'a Graph,
    points: &'a Points,
    facts: &'a Facts,
    members: Members,
    /// Per representative: where it lives in its slot instead of its
    /// register (empty: nowhere).
    pub holes: Vec<Intervals>,
    /// Splits made (a group stepping aside for another counts once).
    pub splits: u64,
    /// Each group's region, once asked for.
    regions: Vec<Option<Rc<Intervals>>>,
    /// Each group's [`Splitter::exclusions`], once asked for.
    exclusions: Vec<Option<Rc<[Exclusion]>>>,
    /// Per group, once computed: its plan for [`Splitter::split_in_blocks`].
    in_blocks: Vec<Option<Option<Rc<InBlocks>>>>,
    /// Storage for the excluded points [`Splitter::exclusions`] gathers.
    points_scratch: Vec<(u32, u64)>,
}

impl<'a> Splitter<'a> {
    pub fn new(f: &'a Function, g: &'a Graph, points: &'a Points, facts: &'a Facts) -> Self {
        Splitter {
            f,
            g,
            points,
            facts,
            members: Members::new(g),
            holes: vec![Vec::new(); g.n],
            splits: 0,
            regions: vec![None; g.n],
            exclusions: vec![None; g.n],
            in_blocks: vec![None; g.n],
            points_scratch: Vec::new(),
        }
    }

    /// Where group `r` is present (computed once).
    fn presence(&mut self, r: usize) -> Rc<Intervals> {
        if let Some(iv) = &self.regions[r] {
            return iv.clone();
        }
        let iv = Rc::new(self.region(r));
        self.regions[r] = Some(iv.clone());
        iv
    }

    /// Where group `r` is present.
    pub fn region(&self, r: usize) -> Intervals {
        let mut iv: Intervals = self
            .members
            .of(r)
            .flat_map(|v| self.points.spans(v))
            .collect();
        merge(&mut iv);
        self.close_over_joins(iv)
    }

    /// For each register out of group `r`'s mask: the points that took it
    /// out (a clobber `r` lives across, another value's `fixed` operand),
    /// where `r` would be in its slot to hold the register elsewhere, and
    /// what that costs with no other hole, or `None` when `r` is referred to
    /// at one of them (computed once).
    fn exclusions(&mut self, r: usize) -> Rc<[Exclusion]> {
        if let Some(x) = &self.exclusions[r] {
            return x.clone();
        }
        // (point, registers) of every member, by point, one entry per
        // point: each member's points come in order, so only a group of
        // several needs a sort.
        let mut points = std::mem::take(&mut self.points_scratch);
        points.clear();
        points.extend(
            self.members
                .of(r)
                .flat_map(|v| self.g.excluded(v).iter().map(|e| (e.1, e.2))),
        );
        if !points.is_sorted_by_key(|p| p.0) {
            points.sort_unstable_by_key(|p| p.0);
        }
        points.dedup_by(|later, kept| {
            let same = later.0 == kept.0;
            if same {
                kept.1 |= later.1;
            }
            same
        });
        let out_of_mask = points.iter().fold(0u64, |m, p| m | p.1);
        let classes = same_points(&points);
        // Per class: its points closed over joins, whether the group is
        // contained there, and what being in the slot there costs alone.
        let mut of_class: Vec<(Rc<Intervals>, bool, Option<f64>)> = Vec::new();
        for &c in &classes {
            let h = c.trailing_zeros();
            let mut raw = Intervals::new();
            for &(i, regs) in &points {
                if regs >> h & 1 == 1 {
                    match raw.last_mut() {
                        Some(last) if i <= last.1 + 1 => last.1 = last.1.max(i),
                        _ => raw.push((i, i)),
                    }
                }
            }
            let at = self.close_over_joins(raw);
            let plain = self.contains(r, &at);
            of_class.push((Rc::new(at), plain, None));
        }
        self.points_scratch = points;
        let mut list = Vec::new();
        let mut left = out_of_mask;
        while left != 0 {
            let h = left.trailing_zeros() as u8;
            left &= left - 1;
            let k = classes
                .iter()
                .position(|c| c >> h & 1 == 1)
                .expect("the classes cover every register out of the mask");
            let (at, plain, _) = &of_class[k];
            let at = at.clone();
            if !*plain && !self.contains_but_early_reads(r, &at, h) {
                list.push((h, at, None));
                continue;
            }
            let alone = match of_class[k].2 {
                Some(alone) => alone,
                None => {
                    let hole = std::mem::take(&mut self.holes[r]);
                    let (alone, _) = self.grow(r, &at);
                    self.holes[r] = hole;
                    of_class[k].2 = Some(alone);
                    alone
                }
            };
            list.push((h, at, Some(alone)));
        }
        let x: Rc<[Exclusion]> = list.into();
        self.exclusions[r] = Some(x.clone());
        x
    }

    /// What spilling group `r` everywhere costs.
    fn spill_cost(&self, r: usize) -> f64 {
        self.members.of(r).map(|v| self.points.spill_cost[v]).sum()
    }

    /// What group `r`'s references inside `at` cost when it is in its slot
    /// there: a reload before each use (or edge copy) that needs a
    /// register, a store after each def, times the block frequency.
    fn refs_cost(&self, r: usize, at: &[(u32, u32)]) -> f64 {
        let f = self.f;
        let mut cost = 0.0;
        for v in self.members.of(r) {
            for i in self.points.refs(v).filter(|&i| inside(at, i)) {
                let inst = Inst::new(i as usize);
                let freq = self.facts.freq[f.block_of(inst).index()];
                let mut here = 0.0;
                for op in f.inst_operands(inst) {
                    if !op.is_nonalloc() && op.vreg().index() == v && needs_register(op) {
                        here += if op.is_use() { RELOAD } else { STORE };
                    }
                }
                cost += if here == 0.0 { RELOAD } else { here } * freq;
            }
        }
        cost
    }

    /// A new round: no holes, no splits (what is known of the groups
    /// stays).
    pub fn reset(&mut self) {
        for h in &mut self.holes {
            h.clear();
        }
        self.splits = 0;
    }

    /// `iv` with the top of each join whose predecessor's branch it holds:
    /// the copies on an edge into a join run before the branch, so a group
    /// leaving its hole there would be reloaded before the branch, into a
    /// register the branch or its operands may still need.
    fn close_over_joins(&self, iv: Intervals) -> Intervals {
        let f = self.f;
        let mut tops: Intervals = Vec::new();
        for &(s, e) in &iv {
            for b in blocks_between(f, s, e) {
                let succs = f.block_succs(b);
                let last = f.block_insts(b).last().index() as u32;
                if last <= e && succs.len() == 1 && effective_preds(f, succs[0]) > 1 {
                    let top = f.block_insts(succs[0]).first().index() as u32;
                    tops.push((top, top));
                }
            }
        }
        if tops.is_empty() {
            return iv;
        }
        merge(&mut tops);
        union(&iv, &tops)
    }

    /// Whether group `z` can step aside for a group present at `region`:
    /// nothing in it is referred to there, and no branch defines it.
    pub fn contains(&self, z: usize, region: &[(u32, u32)]) -> bool {
        self.members
            .of(z)
            .all(|v| !self.points.pinned[v] && !any_inside(region, self.points.refs_of(v)))
    }

    /// As [`Splitter::contains`] for group `r` stepping aside at `at`
    /// where register `h` is taken from it, but a reference at the first
    /// point of an interval of `at` is allowed when it is an early read of
    /// `r` at an instruction in the middle of a block that clobbers `h`
    /// (and names it in no operand), with any other read of `r` there an
    /// `any` or `stack` one: the store before the instruction leaves the
    /// value in `h` for the early read and in the slot for the others, and
    /// the clobber comes after.
    fn contains_but_early_reads(&self, r: usize, at: &[(u32, u32)], h: u8) -> bool {
        let f = self.f;
        let allowed = |i: u32| {
            if at.binary_search_by_key(&i, |iv| iv.0).is_err() {
                return false;
            }
            let inst = Inst::new(i as usize);
            let insts = f.block_insts(f.block_of(inst));
            if insts.first() == inst || insts.last() == inst {
                return false;
            }
            let ops = f.inst_operands(inst);
            let clobbers_h = f.inst_clobbers(inst).iter().any(|c| c.hw() == h as usize);
            let names_h = ops.iter().any(|o| {
                matches!(o.constraint(), crate::ir::operand::OperandConstraint::FixedReg(p) if p.hw() == h as usize)
            });
            clobbers_h
                && !names_h
                && ops.iter().enumerate().all(|(k, o)| {
                    o.is_nonalloc()
                        || self.g.find(o.vreg().index()) != r
                        || (o.is_use()
                            && (super::graph::span(ops, k) == (true, false) || !needs_register(o)))
                })
        };
        self.members.of(r).all(|v| {
            !self.points.pinned[v] && self.points.refs(v).all(|i| !inside(at, i) || allowed(i))
        })
    }

    /// The weighted stores and reloads group `z` needs with `hole` at the
    /// places touching `window`: a store where it enters the hole, a reload
    /// where it leaves, within blocks and on edges, times the frequency of
    /// where the copy runs. Places away from `window` are not looked at, so
    /// growing a hole by `window` costs the difference of two calls.
    pub fn cost_near(&mut self, z: usize, hole: &[(u32, u32)], window: &[(u32, u32)]) -> f64 {
        if hole.is_empty() {
            return 0.0;
        }
        let f = self.f;
        let present = self.presence(z);
        let weight = |into_hole: bool| if into_hole { STORE } else { RELOAD };
        let mut cost = 0.0;
        for &(s, e) in window {
            // Within blocks: the hole's ends from `s` to `e + 1`, where `z`
            // is present on both sides.
            let from = hole.partition_point(|h| h.1 + 1 < s);
            for &(hs, he) in hole[from..].iter().take_while(|h| h.0 <= e + 1) {
                for (i, into) in [(hs, true), (he + 1, false)] {
                    if i < s.max(1) || i > e + 1 || i as usize >= f.num_insts() {
                        continue;
                    }
                    let b = f.block_of(Inst::new(i as usize));
                    if f.block_insts(b).first().index() as u32 != i
                        && inside(&present, i - 1)
                        && inside(&present, i)
                        && (into || self.read_again(z, &present, i, b))
                    {
                        cost += weight(into) * self.facts.freq[b.index()];
                    }
                }
            }
            // On edges: into each block whose top is in the window, and out
            // of each whose branch is (unless counted at the other end).
            for b in blocks_between(f, s, e) {
                let insts = f.block_insts(b);
                let (top, last) = (insts.first().index() as u32, insts.last().index() as u32);
                if top >= s {
                    for &q in f.block_preds(b) {
                        cost += self.edge_cost(q, b, &present, hole);
                    }
                }
                if last <= e {
                    for &t in f.block_succs(b) {
                        let t_top = f.block_insts(t).first().index() as u32;
                        if !inside(window, t_top) {
                            cost += self.edge_cost(b, t, &present, hole);
                        }
                    }
                }
            }
        }
        cost
    }

    /// Whether group `z`, leaving a hole just before `i` in block `b`,
    /// needs its register again in `b`: a reference from `i` on, or
    /// presence at the block's end. Otherwise [`lengthen`] runs the hole
    /// on to the group's death and no reload is made.
    fn read_again(&self, z: usize, present: &[(u32, u32)], i: u32, b: Block) -> bool {
        let last = self.f.block_insts(b).last().index() as u32;
        inside(present, last)
            || self.members.of(z).any(|v| {
                let refs = self.points.refs_of(v);
                let k = refs.partition_point(|&r| r < i);
                k < refs.len() && refs[k] <= last
            })
    }

    /// The copy group `z` needs on the edge `q -> b` with `hole`.
    fn edge_cost(&self, q: Block, b: Block, present: &[(u32, u32)], hole: &[(u32, u32)]) -> f64 {
        let f = self.f;
        let br = f.block_insts(q).last().index() as u32;
        let top = f.block_insts(b).first().index() as u32;
        if !inside(present, br) || !inside(present, top) {
            return 0.0;
        }
        let into = inside(hole, top);
        if inside(hole, br) == into {
            return 0.0;
        }
        let at = if effective_preds(f, b) == 1 { b } else { q };
        (if into { STORE } else { RELOAD }) * self.facts.freq[at.index()]
    }

    /// What growing group `z`'s hole by `add` costs, and the grown hole.
    /// Only where `z` is present can a copy be needed, so the places looked
    /// at are those touching `add` there.
    fn grow(&mut self, z: usize, add: &[(u32, u32)]) -> (f64, Intervals) {
        let old = std::mem::take(&mut self.holes[z]);
        let new = union(&old, add);
        let window = intersect(add, &self.presence(z));
        let before = if old.is_empty() {
            0.0
        } else {
            self.cost_near(z, &old, &window)
        };
        let c = self.cost_near(z, &new, &window) - before;
        self.holes[z] = old;
        (c, new)
    }

    /// For group `r`, which found no register: the register `h` for which
    /// `r` and the neighbours holding `h` can keep out of each other's way
    /// at the lowest cost, if that is below the cost of spilling `r`. Each
    /// such neighbour `z` either steps aside for `r` (`z` is not referred
    /// to where `r` is present: `z`'s hole grows by `r`'s region) or `r`
    /// steps aside for it (the other way round), whichever costs less.
    pub fn split_around(&mut self, r: usize, colour: impl Fn(usize) -> Option<u8>) -> Option<u8> {
        let region = self.presence(r);
        if region.is_empty() {
            return None;
        }
        let spill = self.spill_cost(r);
        if spill <= 0.0 {
            // Nothing to save: its operands take the stack as it is.
            return None;
        }
        self.split_in(r, &colour, &region, 0.0, spill)
    }

    /// For group `r`, which found no register even with passive splitting:
    /// a register it can hold in the blocks that need it in one, in its
    /// slot everywhere else, if that costs less than spilling it.
    pub fn split_in_blocks(
        &mut self,
        r: usize,
        colour: impl Fn(usize) -> Option<u8>,
    ) -> Option<u8> {
        let plan = match &self.in_blocks[r] {
            Some(p) => p.clone(),
            None => {
                let p = self.plan_in_blocks(r).map(Rc::new);
                self.in_blocks[r] = Some(p.clone());
                p
            }
        }?;
        let spill = self.spill_cost(r);
        self.holes[r] = plan.outside.clone();
        let got = self.split_in(r, &colour, &plan.inside, plan.base, spill);
        if got.is_none() {
            self.holes[r].clear();
        }
        got
    }

    /// Where group `r` would be in a register and where in its slot for
    /// [`Splitter::split_in_blocks`], and what the copies between cost;
    /// `None` when that is no cheaper than spilling it.
    fn plan_in_blocks(&mut self, r: usize) -> Option<InBlocks> {
        // A branch's def moves home on the edge: it never steps aside.
        if self.members.of(r).any(|v| self.points.pinned[v]) {
            return None;
        }
        let region = self.presence(r);
        let spill = self.spill_cost(r);
        let f = self.f;
        let mut kept: Vec<u32> = self
            .members
            .of(r)
            .flat_map(|v| self.points.refs(v))
            .map(|i| f.block_of(Inst::new(i as usize)).index() as u32)
            .collect();
        kept.sort_unstable();
        kept.dedup();
        // A block it passes through between kept ones (a loop's latch, say)
        // is kept too: in the slot there, it would be stored and reloaded
        // on the way through.
        let top = |b: Block| f.block_insts(b).first().index() as u32;
        let end = |b: Block| f.block_insts(b).last().index() as u32;
        let is_kept = |kept: &[u32], b: Block| kept.binary_search(&(b.index() as u32)).is_ok();
        let mut between = Vec::new();
        for &(s, e) in region.iter() {
            for b in blocks_between(f, s, e) {
                if is_kept(&kept, b) || !inside(&region, top(b)) {
                    continue;
                }
                let preds = f
                    .block_preds(b)
                    .iter()
                    .filter(|&&q| inside(&region, end(q)));
                let succs = f
                    .block_succs(b)
                    .iter()
                    .filter(|&&t| inside(&region, top(t)));
                if preds.chain(succs).all(|&x| is_kept(&kept, x)) {
                    between.push(b.index() as u32);
                }
            }
        }
        kept.extend(between);
        kept.sort_unstable();
        let mut blocks: Intervals = kept
            .iter()
            .map(|&b| (top(Block::new(b as usize)), end(Block::new(b as usize))))
            .collect();
        merge(&mut blocks);
        let outside = self.close_over_joins(difference(&region, &blocks));
        if outside.is_empty() {
            // What split_around has tried already.
            return None;
        }
        // Where it holds its register, the join tops included whose edge
        // copies run before a branch that still reads it there: the
        // neighbours keep out of its way there too.
        let inside = self.close_over_joins(difference(&region, &outside));
        // The copies run where the slot and the register meet, all of them
        // at the edge of the blocks kept.
        let base = self.cost_near(r, &outside, &inside) + self.refs_cost(r, &outside);
        (base < spill).then_some(InBlocks {
            outside,
            inside,
            base,
        })
    }

    /// [`Splitter::split_around`] for group `r` in a register at `region`
    /// (in its slot elsewhere, at a cost of `base`).
    fn split_in(
        &mut self,
        r: usize,
        colour: &impl Fn(usize) -> Option<u8>,
        region: &[(u32, u32)],
        base: f64,
        spill: f64,
    ) -> Option<u8> {
        let mask = self.g.alloc[self.g.class[r] as usize];
        let mut cost = [base; 64];
        let mut blocked = 0u64;
        // (neighbour, its register, which steps aside, the grown hole).
        let mut plan: Vec<(usize, u8, Side, Rc<Intervals>)> = Vec::new();
        // A register out of `r`'s mask: `r` may still hold it away from the
        // points that took it out (a clobber it lives across, another
        // value's `fixed` operand), in its slot at those points.
        for (h, at, alone) in self.exclusions(r).iter() {
            let c = if self.holes[r].is_empty() {
                let Some(alone) = alone else {
                    blocked |= 1 << h;
                    continue;
                };
                *alone
            } else {
                let rest = difference(at, &self.holes[r]);
                if rest.is_empty() {
                    continue;
                }
                // Referred to there, it reads from and writes to its slot
                // (a reload before each read, a store after each write).
                let refs = if alone.is_none() && !self.contains(r, &rest) {
                    self.refs_cost(r, &rest)
                } else {
                    0.0
                };
                self.grow(r, &rest).0 + refs
            };
            cost[*h as usize] += c;
            if cost[*h as usize] >= spill {
                blocked |= 1 << h;
                continue;
            }
            plan.push((r, *h, Side::Itself, at.clone()));
        }
        for z in self.g.neighbours(r) {
            if blocked & mask == mask {
                return None;
            }
            let Some(h) = colour(z) else { continue };
            if blocked >> h & 1 == 1 || mask >> h & 1 == 0 {
                continue;
            }
            let mut best: Option<(f64, Side, Rc<Intervals>)> = None;
            if self.contains(z, region) {
                let (c, hole) = self.grow(z, region);
                best = Some((c, Side::Neighbour, Rc::new(hole)));
            }
            let zone = self.presence(z);
            if self.contains(r, &zone) {
                let (c, _) = self.grow(r, &zone);
                if best.as_ref().is_none_or(|b| c < b.0) {
                    best = Some((c, Side::Itself, zone));
                }
            }
            match best {
                Some((c, side, hole)) => {
                    cost[h as usize] += c;
                    // Already dearer than spilling: `h` cannot win.
                    if cost[h as usize] >= spill {
                        blocked |= 1 << h;
                    }
                    plan.push((z, h, side, hole));
                }
                None => blocked |= 1 << h,
            }
        }
        let best = (0..64u8)
            .filter(|&h| mask >> h & 1 == 1 && blocked >> h & 1 == 0)
            .min_by(|&a, &b| cost[a as usize].total_cmp(&cost[b as usize]))?;
        if cost[best as usize] >= spill {
            return None;
        }
        for (z, h, side, hole) in plan {
            if h != best {
                continue;
            }
            match side {
                Side::Neighbour => self.holes[z] = Rc::unwrap_or_clone(hole),
                Side::Itself => self.holes[r] = union(&self.holes[r], &hole),
            }
            self.splits += 1;
        }
        Some(best)
    }
}

/// Lengthens each hole that ends within a block up to the group's next
/// operand there that needs a register, short of a branch: the reload at
/// the hole's end moves later in the same block (it costs the same) and
/// goes when the group dies before such a reference, its last reads taking
/// the slot as it is. A hole takes in a return this way but never a
/// branch, so the edge copies stay as the splitter priced them.
pub fn lengthen(f: &Function, g: &Graph, holes: &mut [Intervals]) {
    for (z, hole) in holes.iter_mut().enumerate() {
        for h in hole.iter_mut() {
            let b = f.block_of(Inst::new(h.1 as usize));
            let last = f.block_insts(b).last().index() as u32;
            // A return has no edge copies: a hole may take it in.
            let end = last + u32::from(f.block_succs(b).is_empty());
            while h.1 + 1 < end {
                let next = Inst::new(h.1 as usize + 1);
                let needed = f.inst_operands(next).iter().any(|o| {
                    !o.is_nonalloc() && g.find(o.vreg().index()) == z && needs_register(o)
                });
                if needed {
                    break;
                }
                h.1 += 1;
            }
        }
        merge(hole);
    }
}

/// Which of two groups steps aside for the other.
#[derive(Clone, Copy)]
enum Side {
    /// The neighbour moves to its slot where the group being coloured is.
    Neighbour,
    /// The group being coloured moves to its slot where the neighbour is.
    Itself,
}

#[cfg(test)]
mod tests;
