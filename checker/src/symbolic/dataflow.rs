//! The checker's dataflow over one allocation: block boundary states
//! solved to a fixpoint, each block run from its in-state, and every use
//! checked against the location it reads (see the [module
//! documentation](super)).

use super::boundary::*;
use super::error::{describe_set, CheckError, ErrorKind};
use super::observe::{Observe, Quiet, TracePoint};
use super::proof::Proof;
use super::structural::{site_order, structural, Roles};
use allocator::analysis::bitset::dense;
use allocator::analysis::cfg::Dfs;
use allocator::analysis::liveness;
use allocator::counting_sort::counting_sort;
use allocator::ir::validate::Site;
use allocator::{
    Allocation, Block, Function, Inst, InstPosition, MachineEnv, Operand, OperandConstraint,
    OperandPos, Output, PReg, ProgPoint, RegClass, SlotGeometry,
};

mod run;

/// Largest number of spill slots the dataflow tracks; slots above are
/// reported and ignored.
pub(super) const MAX_TRACKED_SLOTS: usize = 1 << 20;

/// Dense liveness rows cost `blocks × ⌈vregs / 64⌉` words a pass whatever
/// the live sets hold, sparse sets what they hold: rows are used while
/// they are at most this many words per instruction. Go's largest
/// functions (esbuild's, 10 to 19 words per instruction) check in 6% fewer
/// machine instructions on sparse sets, SQLite's (at most 6) in 8% fewer
/// on rows; between, the two are within 1%.
const ROW_WORDS_PER_INST: usize = 8;

/// A meet searches the state it meets per pair of its own, rather than
/// substituting and passing over all of it, once that state has more than
/// this many times its pairs. At 2, esbuild's largest functions check in
/// 3.6% fewer machine instructions and 12% less time; at 16, 0.1% fewer;
/// SQLite's are unchanged at either.
const SEARCH_RATIO: usize = 2;

/// In [`Checker`]'s `from`: the block keeps its own in-state.
const OWN: u32 = u32::MAX;

/// The checker. Keep one and call [`Checker::check`] repeatedly: its buffers
/// are reused, so a check allocates little beyond its errors.
///
/// While a block runs, its state is its in-state (never copied) overlaid by
/// the locations the block has written so far (`touched`, their sets in
/// `cells`): a block of a few instructions writes a few locations while the
/// state holds every live value, so nothing is done per location it leaves
/// alone until its out-state is built. A block entered by one edge that
/// passes no parameters has its predecessor's out-state as its in-state
/// (`from`), read where it lies: most blocks of compiled code are such, and
/// for them no meet is built, copied or compared.
#[derive(Default)]
pub struct Checker {
    /// The set of each touched location as a [`Cell`].
    cells: Vec<u32>,
    /// The sets of more than one vreg the cells name, in increasing order;
    /// never changed once made (cells share them), dropped per block.
    multi: Vec<VSet>,
    num_multi: usize,
    /// The locations written since the block started, each once.
    touched: Vec<u32>,
    is_touched: Vec<bool>,
    /// The block running.
    pub(super) cur: usize,
    /// Per block: the in-state its last run started from (unless `from`
    /// names its predecessor) and the out-state it ended with, meaningful
    /// once `reached`.
    ins: Vec<Boundary>,
    outs: Vec<Boundary>,
    /// Per block: the predecessor whose out-state is its in-state, for a
    /// block other than the entry with one incoming edge and no parameters;
    /// [`OWN`] for the others, whose in-state is a meet kept in `ins`.
    from: Vec<u32>,
    pub(super) reached: Vec<bool>,
    /// Scratch boundary states: the meet being built, one edge's
    /// substitution, the out-state being built.
    acc: Boundary,
    edge: Boundary,
    next_out: Boundary,
    /// One bit per vreg: those the current block's out-state keeps.
    marks: Vec<u64>,
    /// What an edge's substitution looks its vregs up in.
    edge_scratch: EdgeScratch,
    /// Which liveness prunes the boundary states: chosen per function,
    /// or one way for the tests (see [`Checker::check_both_ways`]).
    pruning: Pruning,
    /// Edits grouped by instruction: `by_inst[edit_start[i]..edit_start[i + 1]]`.
    edit_start: Vec<u32>,
    by_inst: Vec<(ProgPoint, u32)>,
    /// Storage kept from check to check: the liveness rows or sets, each
    /// block's place in reverse postorder, the blocks due to run, each
    /// block's errors from its last run, the search that orders the blocks
    /// and its order, and each vreg's class.
    rows: liveness::LiveRows,
    sparse: liveness::Liveness,
    dfs: Dfs,
    order: Vec<Block>,
    vclass: Vec<RegClass>,
    rpo_index: Vec<u32>,
    pending: Vec<bool>,
    block_errs: Vec<Vec<CheckError>>,
    /// The last machine checked on and what it says of each register,
    /// found again only when the machine changes.
    roles: Option<(MachineEnv, Roles)>,
    /// Of the last function checked: every block reached from the entry,
    /// and no vreg live into the entry (see [`Checker::uses_dominated`]).
    uses_dominated: bool,
    /// The proof tried before the dataflow, whether it settled the last
    /// check, and whether it is skipped (for the ways the tests force and
    /// for traces, which read the dataflow's states).
    proof: Proof,
    proved: bool,
    dataflow_only: bool,
}

/// A touched location's set in one word: [`EMPTY`], a single vreg (the
/// common case: a def or a copy of one), or [`MULTI`]` | k` for the set
/// `multi[k]` (a location holding a block argument and its parameter).
type Cell = u32;
const EMPTY: Cell = u32::MAX;
const MULTI: Cell = 1 << 31;

/// How [`Checker::check`] chooses the liveness that prunes boundary
/// states.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub(super) enum Pruning {
    /// Dense rows where they pay ([`ROW_WORDS_PER_INST`]), sparse sets
    /// elsewhere.
    #[default]
    Cheaper,
    /// Dense rows whenever the function fits them.
    Rows,
    /// Sparse sets always.
    Sparse,
}

/// The liveness that prunes boundary states: [`Checker`]'s dense rows or
/// its sparse sets.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Live {
    Rows,
    Sparse,
}

impl Checker {
    pub fn check(&mut self, f: &Function, env: &MachineEnv, out: &Output) -> Vec<CheckError> {
        let mut errs = Vec::new();
        self.uses_dominated = false;
        self.proved = false;
        if out.allocs.len() != f.num_operands() {
            errs.push(CheckError {
                kind: ErrorKind::AllocCount,
                site: Site::Function,
                message: format!(
                    "the allocation has {} operand allocations, but the function has {} operands",
                    out.allocs.len(),
                    f.num_operands()
                ),
                read_nothing: false,
            });
            return errs;
        }
        let roles = match &mut self.roles {
            Some((m, roles)) if m == env => roles,
            kept => &mut kept.insert((env.clone(), Roles::new(env))).1,
        };
        let wide_in_slots = structural(f, env, roles, out, &mut errs);
        // A correct allocation is proved so without the dataflow; the
        // dataflow judges the rest, and the ways the tests force.
        self.proved = errs.is_empty()
            && out.num_spillslots <= MAX_TRACKED_SLOTS
            && !self.dataflow_only
            && self.proof.holds(f, out, wide_in_slots.then_some(env.slots));
        if self.proved {
            self.uses_dominated = true;
            if cfg!(debug_assertions) {
                self.dataflow(f, env, out, wide_in_slots, &mut errs);
                assert!(
                    errs.is_empty() && self.uses_dominated,
                    "the proof accepts what the dataflow does not: {errs:?}"
                );
            }
            return errs;
        }
        self.dataflow(f, env, out, wide_in_slots, &mut errs);
        errs.sort_by_key(|e| site_order(out, e.site));
        errs
    }

    /// Whether, in the function of the last [`Checker::check`], every block
    /// is reached from the entry and every use and branch argument is
    /// dominated by its definition: true when the proof said yes (see
    /// [`super::proof`]), else whether no vreg is live into the entry by the
    /// dataflow's liveness; `false` also when the check ended before either
    /// (an allocation with the wrong number of operands). Given at most one
    /// definition per vreg the two agree: a use that a path from the entry
    /// reaches without passing a definition makes its vreg live into the
    /// entry, and only such a use does. The
    /// entry point over regalloc2's types checks definedness and dominance
    /// so, with no dominator tree or walk over the uses of its own
    /// ([`allocator::ir::validate::validate_read_function_but_dominance`]);
    /// the checker itself needs no dominance to run, and a use no definition
    /// reaches fails its check.
    pub fn uses_dominated(&self) -> bool {
        self.uses_dominated
    }

    /// Whether the last [`Checker::check`] was settled by the proof that
    /// runs before the dataflow (see [`super::proof`]): it proves a correct
    /// allocation so, in one walk and a search, and leaves anything else
    /// to the dataflow.
    pub fn proved(&self) -> bool {
        self.proved
    }

    /// [`Checker::check`] by the dataflow, with the liveness pruning
    /// forced one way.
    pub(super) fn check_pruned(
        &mut self,
        f: &Function,
        env: &MachineEnv,
        out: &Output,
        pruning: Pruning,
    ) -> Vec<CheckError> {
        self.pruning = pruning;
        self.dataflow_only = true;
        let errs = self.check(f, env, out);
        self.pruning = Pruning::Cheaper;
        self.dataflow_only = false;
        errs
    }

    /// [`Checker::check`] with the sparse liveness sets that functions
    /// with costly dense rows take; the verdict must be the same.
    pub fn check_with_sparse_liveness(
        &mut self,
        f: &Function,
        env: &MachineEnv,
        out: &Output,
    ) -> Vec<CheckError> {
        self.check_pruned(f, env, out, Pruning::Sparse)
    }

    /// [`Checker::check`] every way: as it runs (the proof first), then by
    /// the dataflow with dense liveness rows and with sparse sets, panicking
    /// when they disagree on the errors or on dominance: what every test
    /// that judges allocations calls, so that every path, whichever a
    /// function of its size takes, is tried on every case.
    pub fn check_both_ways(
        &mut self,
        f: &Function,
        env: &MachineEnv,
        out: &Output,
    ) -> Vec<CheckError> {
        let first = self.check(f, env, out);
        let (proved, dominated) = (self.proved, self.uses_dominated);
        let dense = self.check_pruned(f, env, out, Pruning::Rows);
        assert_eq!(first, dense, "the proof and the dataflow disagree");
        assert_eq!(
            dominated, self.uses_dominated,
            "the proof (ran: {proved}) and the dataflow disagree on dominance"
        );
        let sparse = self.check_with_sparse_liveness(f, env, out);
        assert_eq!(dense, sparse, "dense and sparse liveness disagree");
        self.proved = proved;
        dense
    }

    /// Groups the edits by instruction (a counting sort), skipping edits at
    /// instructions that do not exist (reported by the structural checks).
    fn group_edits(&mut self, f: &Function, out: &Output) {
        let n = f.num_insts();
        let edits = &out.edits;
        counting_sort(
            n,
            edits.len(),
            |e| Some(edits[e].0.inst().index()).filter(|&i| i < n),
            |e| (edits[e].0, e as u32),
            &mut self.edit_start,
            &mut self.by_inst,
        );
    }

    fn dataflow(
        &mut self,
        f: &Function,
        env: &MachineEnv,
        out: &Output,
        wide_in_slots: bool,
        errs: &mut Vec<CheckError>,
    ) {
        let nslots = out.num_spillslots.min(MAX_TRACKED_SLOTS);
        let nlocs = PReg::NUM_INDEX + nslots;
        self.touched.clear();
        self.num_multi = 0;
        self.cells.clear();
        self.cells.resize(nlocs, EMPTY);
        self.is_touched.clear();
        self.is_touched.resize(nlocs, false);
        self.marks.clear();
        self.marks.resize(dense::words(f.num_vregs()), 0);
        self.edge_scratch.reset(f.num_vregs());
        self.group_edits(f, out);
        let nb = f.num_blocks();
        // Block states keep their storage from check to check, past this
        // function's last block too (a smaller function must not drop what
        // the next bigger one reuses); each is written before it is read
        // (`ins` before its block runs, `outs` before it is `reached`).
        if self.ins.len() < nb {
            self.ins.resize(nb, Vec::new());
            self.outs.resize(nb, Vec::new());
        }
        self.from.clear();
        self.from.extend(f.blocks().map(|b| match f.block_preds(b) {
            [p] if b != f.entry_block() && f.block_params(b).is_empty() => p.index() as u32,
            _ => OWN,
        }));
        self.reached.clear();
        self.reached.resize(nb, false);

        // Block boundary states keep only the vregs live out of the block
        // and its branch arguments: a location whose vregs are all dead can
        // neither satisfy nor fail a later use. This keeps the
        // states small whatever the allocator leaves lying around.
        let mut po = std::mem::take(&mut self.order);
        self.dfs.postorder_into(f, &mut po);
        let rows = match self.pruning {
            Pruning::Cheaper => {
                f.num_blocks().saturating_mul(dense::words(f.num_vregs()))
                    <= ROW_WORDS_PER_INST * f.num_insts()
            }
            Pruning::Rows => true,
            Pruning::Sparse => false,
        };
        let live = if rows && self.rows.recompute(f, &po) {
            Live::Rows
        } else {
            self.sparse.recompute_sparse(f, &po);
            Live::Sparse
        };
        self.uses_dominated = po.len() == nb
            && match &live {
                Live::Rows => self.rows.live_in(f.entry_block()).iter().all(|&w| w == 0),
                Live::Sparse => self.sparse.live_in[f.entry_block().index()].is_empty(),
            };
        let mut rpo = po;
        rpo.reverse();
        let mut rpo_index = std::mem::take(&mut self.rpo_index);
        rpo_index.clear();
        rpo_index.resize(nb, u32::MAX);
        for (k, b) in rpo.iter().enumerate() {
            rpo_index[b.index()] = k as u32;
        }
        // Uses are checked on every run and each block keeps the errors of
        // its last run: states only shrink as the fixpoint is approached, so
        // the last run, made with the final state, gives the final verdict.
        let mut pending = std::mem::take(&mut self.pending);
        pending.clear();
        pending.resize(rpo.len(), false);
        if let Some(p) = pending.first_mut() {
            *p = true;
        }
        // Each check ends by appending every block's errors, which leaves
        // their lists empty for the next.
        let mut block_errs = std::mem::take(&mut self.block_errs);
        debug_assert!(block_errs.iter().all(Vec::is_empty));
        block_errs.resize(nb, Vec::new());
        let mut run_errs = Vec::new();
        // The class of every vreg, for an allocation that puts values filling
        // several slots in slots (as the structural checks found): a write
        // to a slot cuts the values whose slots it overlaps. Without such
        // values no write overlaps another value, and no class is needed.
        let mut vclass = std::mem::take(&mut self.vclass);
        if wide_in_slots {
            f.vreg_classes_into(&mut vclass);
        } else {
            vclass.clear();
        }
        let ctx = Ctx {
            f,
            out,
            nslots,
            slots: env.slots,
            vclass: &vclass,
        };
        // Sweeps in reverse postorder until nothing is pending: one sweep for
        // acyclic code, one more per level of loop nesting that changes.
        let mut any = true;
        while any {
            any = false;
            for k in 0..rpo.len() {
                if !std::mem::replace(&mut pending[k], false) {
                    continue;
                }
                any = true;
                let b = rpo[k];
                // A block entered by one edge is pending only when its
                // predecessor's out-state, its in-state, changed.
                if self.from[b.index()] == OWN {
                    self.block_in(f, b);
                    if self.reached[b.index()] && self.ins[b.index()] == self.acc {
                        continue;
                    }
                    // Copied, not swapped: each block's state keeps its own
                    // storage from run to run and check to check, so a state
                    // costs a copy, not an allocation.
                    let ins = &mut self.ins[b.index()];
                    ins.clear();
                    ins.extend_from_slice(&self.acc);
                }
                self.cur = b.index();
                run_errs.clear();
                self.run_block(&ctx, b, &mut run_errs, &mut Quiet);
                std::mem::swap(&mut block_errs[b.index()], &mut run_errs);
                self.store(f, b, live);
                if !self.reached[b.index()] || self.outs[b.index()] != self.next_out {
                    let outs = &mut self.outs[b.index()];
                    outs.clear();
                    outs.extend_from_slice(&self.next_out);
                    self.reached[b.index()] = true;
                    for &s in f.block_succs(b) {
                        pending[rpo_index[s.index()] as usize] = true;
                    }
                }
            }
        }
        for e in &mut block_errs {
            errs.append(e);
        }
        self.rpo_index = rpo_index;
        self.pending = pending;
        self.block_errs = block_errs;
        self.order = rpo;
        self.vclass = vclass;
    }

    /// Builds in `acc` the meet over `b`'s incoming edges of the reached
    /// predecessors' out-states, each passed through the edge's parameter
    /// substitution; the entry block also meets the empty state of the
    /// function's start.
    fn block_in(&mut self, f: &Function, b: Block) {
        let Checker {
            outs,
            reached,
            acc,
            edge,
            edge_scratch,
            ..
        } = self;
        acc.clear();
        let mut first = b != f.entry_block();
        let params = f.block_params(b);
        edge_scratch.bind_params(params);
        // The meet starts from the smallest out-state: the larger ones are
        // then searched per pair of the meet rather than passed over (a
        // switch's target meets hundreds of states of every size).
        let preds = f.block_preds(b);
        let smallest = preds
            .iter()
            .copied()
            .filter(|p| first && reached[p.index()])
            .min_by_key(|p| outs[p.index()].len());
        let rest = preds.iter().copied().filter(|&p| Some(p) != smallest);
        for p in smallest.into_iter().chain(rest) {
            if !reached[p.index()] {
                continue;
            }
            if !first && acc.is_empty() {
                break;
            }
            let out = &outs[p.index()];
            let args = match params {
                [] => &[][..],
                _ => {
                    let k = f.block_succs(p).iter().position(|&s| s == b).unwrap_or(0);
                    f.branch_args(p, k)
                }
            };
            // Once the meet is far smaller than the state it meets (a join
            // of hundreds of predecessors keeps what all of them share), a
            // search of that state per pair of the meet is cheaper than a
            // pass over all of it.
            if !first && acc.len() * SEARCH_RATIO < out.len() {
                retain_substituted(acc, out, args, edge_scratch);
                continue;
            }
            let from: &[u64] = if params.is_empty() {
                out
            } else {
                substitute(out, params, args, edge_scratch, edge);
                edge
            };
            if first {
                acc.extend_from_slice(from);
                first = false;
            } else {
                intersect(acc, from);
            }
        }
        edge_scratch.unbind_params(params);
    }

    /// The in-state of block `b`, once it has run.
    #[inline]
    pub(super) fn in_state(&self, b: usize) -> &[u64] {
        Self::in_of(&self.ins, &self.outs, &self.from, b)
    }

    /// [`Checker::in_state`] over the fields it reads, for callers that
    /// hold others mutably.
    #[inline]
    fn in_of<'a>(ins: &'a [Boundary], outs: &'a [Boundary], from: &[u32], b: usize) -> &'a [u64] {
        match from[b] {
            OWN => &ins[b],
            p => &outs[p as usize],
        }
    }

    /// The pairs of location `l` in `base`.
    #[inline]
    fn pairs_of(base: &[u64], l: u32) -> &[u64] {
        let lo = base.partition_point(|&x| x < pair(l, 0));
        let mut hi = lo;
        while hi < base.len() && pair_loc(base[hi]) == l {
            hi += 1;
        }
        &base[lo..hi]
    }

    /// The vregs of a cell, in increasing order.
    #[inline]
    fn cell_vregs<'a>(multi: &'a [VSet], cell: &'a Cell) -> &'a [u32] {
        match *cell {
            EMPTY => &[],
            c if c & MULTI != 0 => &multi[(c & !MULTI) as usize],
            _ => std::slice::from_ref(cell),
        }
    }

    /// Whether location `l` holds `v` now.
    #[inline]
    fn holds(&self, l: u32, v: u32) -> bool {
        if self.is_touched[l as usize] {
            match self.cells[l as usize] {
                EMPTY => false,
                c if c & MULTI != 0 => self.multi[(c & !MULTI) as usize].contains(&v),
                c => c == v,
            }
        } else {
            self.in_state(self.cur).binary_search(&pair(l, v)).is_ok()
        }
    }

    /// The lowest vreg location `l` holds now, if any: all its vregs hold
    /// one value, so they share its class.
    #[inline]
    fn first_vreg(&self, l: u32) -> Option<u32> {
        if self.is_touched[l as usize] {
            Self::cell_vregs(&self.multi, &self.cells[l as usize])
                .first()
                .copied()
        } else {
            Self::pairs_of(self.in_state(self.cur), l)
                .first()
                .map(|&x| pair_vreg(x))
        }
    }

    /// The set location `l` holds now (for messages).
    fn set_of(&self, l: u32) -> VSet {
        if self.is_touched[l as usize] {
            Self::cell_vregs(&self.multi, &self.cells[l as usize]).into()
        } else {
            Self::pairs_of(self.in_state(self.cur), l)
                .iter()
                .map(|&x| pair_vreg(x))
                .collect()
        }
    }

    /// Makes location `l` hold `cell`.
    #[inline]
    fn set(&mut self, l: u32, cell: Cell) {
        if !self.is_touched[l as usize] {
            self.is_touched[l as usize] = true;
            self.touched.push(l);
        }
        self.cells[l as usize] = cell;
    }

    /// Builds in `next_out` the state at the end of block `b`, restricted
    /// to the vregs live out of it and its branch arguments, and forgets the
    /// block's writes.
    fn store(&mut self, f: &Function, b: Block, live: Live) {
        // Rows overwrite every word; sparse sets write only theirs, onto
        // marks left clear by the last store (a function big enough for
        // sparse sets has thousands of words).
        match live {
            Live::Rows => self.marks.copy_from_slice(self.rows.live_out(b)),
            Live::Sparse => {
                debug_assert!(self.marks.iter().all(|&w| w == 0));
                for (w, bits) in self.sparse.live_out[b.index()].words() {
                    self.marks[w] = bits;
                }
            }
        }
        for t in 0..f.block_succs(b).len() {
            for a in f.branch_args(b, t) {
                dense::insert(&mut self.marks, a.index());
            }
        }
        self.merge_out();
        self.forget_writes();
        if live == Live::Sparse {
            for (w, _) in self.sparse.live_out[b.index()].words() {
                self.marks[w] = 0;
            }
            for t in 0..f.block_succs(b).len() {
                for a in f.branch_args(b, t) {
                    self.marks[a.index() / 64] = 0;
                }
            }
        }
    }

    /// Drops the running block's writes: its state is its in-state again.
    pub(super) fn forget_writes(&mut self) {
        for &l in &self.touched {
            self.is_touched[l as usize] = false;
        }
        self.touched.clear();
        self.num_multi = 0;
    }

    /// Merges the untouched part of the in-state with the touched
    /// locations, in location order, keeping the marked vregs.
    fn merge_out(&mut self) {
        let Checker {
            cells,
            multi,
            touched,
            ins,
            outs,
            from,
            cur,
            marks,
            next_out,
            ..
        } = self;
        sort_small(touched);
        let base = Self::in_of(ins, outs, from, *cur);
        let extra: usize = touched
            .iter()
            .map(|&l| Self::cell_vregs(multi, &cells[l as usize]).len())
            .sum();
        // Written by index into room for everything, then cut: a kept pair
        // advances the end, a dropped one is overwritten (no branch per pair).
        // Every slot is written before it is read, so the room is only grown
        // (what the last state left there needs no zeroing).
        let room = base.len() + extra;
        if next_out.len() < room {
            next_out.resize(room, 0);
        }
        let (mut i, mut w) = (0, 0);
        for &l in touched.iter() {
            let start = i;
            while i < base.len() && pair_loc(base[i]) < l {
                i += 1;
            }
            w = keep_marked(&base[start..i], marks, next_out, w);
            while i < base.len() && pair_loc(base[i]) == l {
                i += 1;
            }
            for &v in Self::cell_vregs(multi, &cells[l as usize]) {
                next_out[w] = pair(l, v);
                w += dense::contains(marks, v as usize) as usize;
            }
        }
        w = keep_marked(&base[i..], marks, next_out, w);
        next_out.truncate(w);
        debug_assert!(next_out.windows(2).all(|w| w[0] < w[1]));
    }

    /// Empties location `l`.
    fn clear_loc(&mut self, l: u32) {
        self.set(l, EMPTY);
    }

    fn mv(&mut self, from: u32, to: u32) {
        if from == to {
            return;
        }
        let cell = if self.is_touched[from as usize] {
            self.cells[from as usize]
        } else {
            let base = Self::in_of(&self.ins, &self.outs, &self.from, self.cur);
            match Self::pairs_of(base, from) {
                [] => EMPTY,
                [x] => pair_vreg(*x),
                xs => {
                    if self.num_multi == self.multi.len() {
                        self.multi.push(VSet::new());
                    }
                    let m = &mut self.multi[self.num_multi];
                    m.clear();
                    m.extend(xs.iter().map(|&x| pair_vreg(x)));
                    self.num_multi += 1;
                    MULTI | (self.num_multi - 1) as u32
                }
            }
        };
        self.set(to, cell);
    }

    /// Defines `v` into `l`. The lattice's "remove `v` from every location"
    /// is a no-op here, which saves a scan per def: boundary states keep only
    /// live vregs, a vreg live at a point is dominated by its definition, so
    /// no state entering the block that defines `v` holds `v` (on every path
    /// from outside `v` is dead and pruned; the meet drops it), and SSA
    /// defines `v` once. The checker runs on validated functions only.
    fn def(&mut self, v: u32, l: u32) {
        debug_assert!(
            self.touched.iter().all(|&x| x == l || !self.holds(x, v))
                && self.in_state(self.cur).iter().all(|&x| pair_vreg(x) != v
                    || pair_loc(x) == l
                    || self.is_touched[pair_loc(x) as usize]),
            "v{v} is already somewhere at its definition"
        );
        debug_assert!(v & MULTI == 0);
        self.set(l, v);
    }
}

/// Read-only context of one check.
pub(super) struct Ctx<'a> {
    pub(super) f: &'a Function,
    pub(super) out: &'a Output,
    pub(super) nslots: usize,
    pub(super) slots: SlotGeometry,
    /// Each vreg's class when values fill several slots; empty otherwise.
    pub(super) vclass: &'a [RegClass],
}

impl Ctx<'_> {
    /// The dense location of an allocation, if tracked.
    #[inline]
    fn key(&self, a: Allocation) -> Option<u32> {
        location_key(a, self.nslots)
    }
}

#[cfg(test)]
mod tests;
