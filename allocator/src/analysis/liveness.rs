//! Per-block liveness by backward iterative dataflow: over dense bit rows
//! for functions of ordinary size, over chunked sparse bit sets beyond.
//!
//! Model: a block parameter is defined at the top of its block; a branch
//! argument is a use at the end of the predecessor, after the branch (it may
//! be a value the branch defines, which is then not live into the block);
//! within an instruction uses are read before defs
//! are written (SSA forbids an instruction to use what it defines, so the
//! order only matters for invalid input).

use crate::analysis::bitset::{dense, SparseBitSet};
use crate::ir::function::Function;
use crate::ir::index::{Block, VReg};

/// Live-in and live-out vreg sets (by vreg index) for every block.
#[derive(Clone, Debug, Default)]
pub struct Liveness {
    pub live_in: Vec<SparseBitSet>,
    pub live_out: Vec<SparseBitSet>,
}

/// Largest `blocks × ⌈vregs / 64⌉` solved with dense bit rows; bigger
/// functions use [`compute_sparse`], whose memory follows the live sets.
const DENSE_WORDS: usize = 1 << 18;

/// Live-in and live-out sets as dense bit rows, one row of `words` 64-bit
/// words per block (vreg `v` is bit `v % 64` of word `v / 64`): what the
/// dense solution gives without converting it, for callers that test
/// membership often.
#[derive(Clone, Debug, Default)]
pub struct LiveRows {
    pub words: usize,
    live_in: Vec<u64>,
    live_out: Vec<u64>,
    /// Scratch of the solution, kept for [`LiveRows::recompute`]: `gen`
    /// and `kill` rows, the worklist and its membership.
    gen_kill: Vec<u64>,
    queued: Vec<bool>,
    work: std::collections::VecDeque<Block>,
}

impl LiveRows {
    /// [`compute_rows`] into this value's storage, for a caller that
    /// solves one function after another (a checker inside a compiler):
    /// `false`, and the rows left meaningless, for a function bigger than
    /// dense rows are for.
    pub fn recompute(&mut self, f: &Function, postorder: &[Block]) -> bool {
        if !fits_rows(f) {
            return false;
        }
        solve_rows(f, postorder, |_| true, self);
        true
    }

    #[inline]
    pub fn live_in(&self, b: Block) -> &[u64] {
        &self.live_in[b.index() * self.words..(b.index() + 1) * self.words]
    }

    #[inline]
    pub fn live_out(&self, b: Block) -> &[u64] {
        &self.live_out[b.index() * self.words..(b.index() + 1) * self.words]
    }
}

/// Computes liveness for a valid function. `postorder` is the order from
/// [`crate::analysis::cfg::postorder`]; blocks absent from it stay empty.
pub fn compute(f: &Function, postorder: &[Block]) -> Liveness {
    match compute_rows(f, postorder) {
        Some(rows) => Liveness {
            live_in: f
                .blocks()
                .map(|b| SparseBitSet::from_words(rows.live_in(b)))
                .collect(),
            live_out: f
                .blocks()
                .map(|b| SparseBitSet::from_words(rows.live_out(b)))
                .collect(),
        },
        None => compute_sparse(f, postorder),
    }
}

/// Whether `f` is small enough for dense rows ([`DENSE_WORDS`]): beyond,
/// a solve over rows costs more than one over sparse sets.
pub fn fits_rows(f: &Function) -> bool {
    f.num_blocks().saturating_mul(dense::words(f.num_vregs())) <= DENSE_WORDS
}

/// Liveness as dense rows, or `None` for a function bigger than
/// [`DENSE_WORDS`] (then use [`compute_sparse`]).
///
/// Each block's upward-exposed uses (`gen`) and definitions (`kill`) are
/// gathered in one backward pass, then `in = gen ∪ (out − kill)` is solved
/// word by word, with no per-vreg work in the fixpoint.
pub fn compute_rows(f: &Function, postorder: &[Block]) -> Option<LiveRows> {
    if !fits_rows(f) {
        return None;
    }
    Some(rows_where(f, postorder, |_| true))
}

/// Liveness as dense rows at any size, where a branch argument is a use
/// only when `param_read` says so of the parameter it is passed to: an
/// allocator that writes no parameter nothing reads passes `false` for
/// those, and a value passed only to them is live nowhere.
pub fn rows_where(
    f: &Function,
    postorder: &[Block],
    param_read: impl Fn(VReg) -> bool,
) -> LiveRows {
    let mut rows = LiveRows::default();
    solve_rows(f, postorder, param_read, &mut rows);
    // Solved once, it keeps no scratch: the `gen` and `kill` rows are as
    // large as the solution, and a caller that goes on to allocate would
    // hold both.
    rows.gen_kill = Vec::new();
    rows
}

/// [`rows_where`] into `rows`, reusing its storage.
fn solve_rows(
    f: &Function,
    postorder: &[Block],
    param_read: impl Fn(VReg) -> bool,
    rows: &mut LiveRows,
) {
    let words = dense::words(f.num_vregs());
    let n = f.num_blocks();
    let row = |b: Block| b.index() * words..(b.index() + 1) * words;
    let LiveRows {
        words: rows_words,
        live_in,
        live_out,
        gen_kill,
        queued,
        work,
    } = rows;
    *rows_words = words;
    for v in [&mut *gen_kill, &mut *live_in, &mut *live_out] {
        v.clear();
    }
    gen_kill.resize(2 * n * words, 0);
    live_in.resize(n * words, 0);
    live_out.resize(n * words, 0);
    let (gen, kill) = gen_kill.split_at_mut(n * words);
    for &b in postorder {
        let (g, k) = (&mut gen[row(b)], &mut kill[row(b)]);
        // Backwards: `gen := (gen − defs) ∪ uses`, instruction by instruction,
        // starting from the branch arguments read at the end.
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            let params = f.block_params(s);
            for (k, v) in f.branch_args(b, t).iter().enumerate() {
                if params.get(k).is_none_or(|&p| param_read(p)) {
                    dense::insert(g, v.index());
                }
            }
        }
        for i in f.block_insts(b).iter().rev() {
            let ops = f.inst_operands(i);
            for op in ops.iter().filter(|op| op.is_def()) {
                dense::remove(g, op.vreg().index());
                dense::insert(k, op.vreg().index());
            }
            for op in ops.iter().filter(|op| op.is_use()) {
                dense::insert(g, op.vreg().index());
            }
        }
        for v in f.block_params(b) {
            dense::remove(g, v.index());
            dense::insert(k, v.index());
        }
    }
    // A worklist seeded in postorder (successors first: an acyclic CFG
    // settles in one pass); a block is queued again when a successor's
    // live-in grows.
    queued.clear();
    queued.resize(n, false);
    work.clear();
    work.extend(postorder.iter().copied());
    for &b in postorder {
        queued[b.index()] = true;
    }
    while let Some(b) = work.pop_front() {
        queued[b.index()] = false;
        let r = row(b);
        let out = &mut live_out[r.clone()];
        for &s in f.block_succs(b) {
            for (o, i) in out.iter_mut().zip(&live_in[row(s)]) {
                *o |= i;
            }
        }
        let mut grew = false;
        for (((i, o), g), k) in live_in[r.clone()]
            .iter_mut()
            .zip(&*out)
            .zip(&gen[r.clone()])
            .zip(&kill[r])
        {
            let x = g | (o & !k);
            grew |= x != *i;
            *i = x;
        }
        if grew {
            for &p in f.block_preds(b) {
                if !queued[p.index()] {
                    queued[p.index()] = true;
                    work.push_back(p);
                }
            }
        }
    }
}

/// [`compute`] over sparse sets, for functions too big for dense rows: a
/// worklist in postorder re-runs a block's instructions whenever its
/// live-out set grows, over one dense row that holds the block's set while
/// they run.
pub fn compute_sparse(f: &Function, postorder: &[Block]) -> Liveness {
    sparse_where(f, postorder, |_| true)
}

/// [`compute_sparse`] where a branch argument is a use only when
/// `param_read` says so of the parameter it is passed to, as
/// [`rows_where`].
pub fn sparse_where(
    f: &Function,
    postorder: &[Block],
    param_read: impl Fn(VReg) -> bool,
) -> Liveness {
    let mut l = Liveness::default();
    solve_sparse(f, postorder, param_read, &mut l);
    l
}

impl Liveness {
    /// [`compute_sparse`] into this value's storage, for a caller that
    /// solves one function after another (a checker inside a compiler):
    /// each set keeps its room.
    pub fn recompute_sparse(&mut self, f: &Function, postorder: &[Block]) {
        solve_sparse(f, postorder, |_| true, self);
    }
}

/// [`sparse_where`] into `l`, reusing its sets' storage.
fn solve_sparse(
    f: &Function,
    postorder: &[Block],
    param_read: impl Fn(VReg) -> bool,
    l: &mut Liveness,
) {
    let n = f.num_blocks();
    let Liveness { live_in, live_out } = l;
    for sets in [&mut *live_in, &mut *live_out] {
        sets.iter_mut().for_each(SparseBitSet::clear);
        sets.resize_with(n, SparseBitSet::new);
    }
    let mut queued = vec![false; n];
    // Processing in postorder visits successors before predecessors, so an
    // acyclic CFG settles in one pass.
    let mut work: std::collections::VecDeque<Block> = postorder.iter().copied().collect();
    for &b in postorder {
        queued[b.index()] = true;
    }
    let mut row = Row::new(f.num_vregs());
    let mut live = SparseBitSet::new();
    while let Some(b) = work.pop_front() {
        queued[b.index()] = false;
        row.load(&live_out[b.index()]);
        transfer_block(f, b, &param_read, &mut row);
        row.store(&mut live);
        if live == live_in[b.index()] {
            continue;
        }
        live_in[b.index()].clone_from(&live);
        for &p in f.block_preds(b) {
            if live_out[p.index()].union_with(&live) && !queued[p.index()] {
                queued[p.index()] = true;
                work.push_back(p);
            }
        }
    }
}

/// One block's live set while its instructions are walked: a dense row
/// over every vreg, so that a def or a use costs one bit whatever the set
/// holds, and the words written, so that loading the live-out set and
/// storing the live-in set cost what the sets hold, not the row's width
/// (thousands of words in Go's largest functions). All zero between
/// blocks.
struct Row {
    bits: Vec<u64>,
    /// Every word that may be non-zero, some more than once.
    written: Vec<u32>,
}

impl Row {
    fn new(num_vregs: usize) -> Row {
        Row {
            bits: vec![0; dense::words(num_vregs)],
            written: Vec::new(),
        }
    }

    fn load(&mut self, set: &SparseBitSet) {
        // Every non-zero word is in `written` (a word enters it as it
        // leaves zero), so `store` left the row all zero.
        debug_assert!(self.written.is_empty());
        for (w, bits) in set.words() {
            self.bits[w] = bits;
            self.written.push(w as u32);
        }
    }

    #[inline]
    fn insert(&mut self, v: usize) {
        let w = v / 64;
        if self.bits[w] == 0 {
            self.written.push(w as u32);
        }
        self.bits[w] |= 1 << (v % 64);
    }

    #[inline]
    fn remove(&mut self, v: usize) {
        dense::remove(&mut self.bits, v);
    }

    /// Writes the row into `set` and clears it.
    fn store(&mut self, set: &mut SparseBitSet) {
        self.written.sort_unstable();
        self.written.dedup();
        set.set_words(
            self.written
                .iter()
                .map(|&w| (w as usize, self.bits[w as usize])),
        );
        for &w in &self.written {
            self.bits[w as usize] = 0;
        }
        self.written.clear();
    }
}

/// Turns the block's live-out set into its live-in set; a branch argument
/// is a use when `param_read` says so of its parameter.
fn transfer_block(f: &Function, b: Block, param_read: impl Fn(VReg) -> bool, live: &mut Row) {
    let insts = f.block_insts(b);
    for (t, &s) in f.block_succs(b).iter().enumerate() {
        let params = f.block_params(s);
        for (k, v) in f.branch_args(b, t).iter().enumerate() {
            if params.get(k).is_none_or(|&p| param_read(p)) {
                live.insert(v.index());
            }
        }
    }
    for i in insts.iter().rev() {
        let ops = f.inst_operands(i);
        for op in ops {
            if op.is_def() {
                live.remove(op.vreg().index());
            }
        }
        for op in ops {
            if op.is_use() {
                live.insert(op.vreg().index());
            }
        }
    }
    for v in f.block_params(b) {
        live.remove(v.index());
    }
}

/// Liveness the slow, obvious way: from every use walk backwards through
/// the CFG until the definition, marking the vreg live across each block
/// boundary crossed. The reference [`compute`] is tested against.
pub fn naive(f: &Function) -> Liveness {
    let n = f.num_blocks();
    let mut live_in = vec![SparseBitSet::new(); n];
    let mut live_out = vec![SparseBitSet::new(); n];
    let defined_in = |b: Block, v: usize| {
        f.block_params(b).iter().any(|p| p.index() == v)
            || f.block_insts(b).iter().any(|i| {
                f.inst_operands(i)
                    .iter()
                    .any(|op| op.is_def() && op.vreg().index() == v)
            })
    };
    let reach = crate::analysis::cfg::reachable(f);
    // Every (block, vreg) whose value is read in the block before any
    // definition in it: the vreg is live into the block.
    let mut starts = Vec::new();
    for b in f.blocks() {
        if !reach[b.index()] {
            continue;
        }
        let mut defined = Vec::new();
        for i in f.block_insts(b).iter() {
            for op in f.inst_operands(i) {
                if op.is_use() && !defined.contains(&op.vreg().index()) {
                    starts.push((b, op.vreg().index()));
                }
            }
            for op in f.inst_operands(i) {
                if op.is_def() {
                    defined.push(op.vreg().index());
                }
            }
        }
        for (k, _) in f.block_succs(b).iter().enumerate() {
            for v in f.branch_args(b, k) {
                if !defined.contains(&v.index()) {
                    starts.push((b, v.index()));
                }
            }
        }
    }
    for (b, v) in starts {
        if f.block_params(b).iter().any(|p| p.index() == v) {
            continue;
        }
        let mut stack = vec![b];
        while let Some(x) = stack.pop() {
            if !live_in[x.index()].insert(v) {
                continue;
            }
            for &p in f.block_preds(x) {
                live_out[p.index()].insert(v);
                if !defined_in(p, v) {
                    stack.push(p);
                }
            }
        }
    }
    Liveness { live_in, live_out }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_counts_only_where_its_parameter_is_read() {
        let case = crate::fixtures::unit_case(
            "analysis_liveness/an_argument_counts_only_where_its_parameter_is_read",
        );
        let f = &case.func;
        let po = crate::analysis::cfg::postorder(f);
        let all = rows_where(f, &po, |_| true);
        assert_eq!(all.live_out(Block::new(0)), &[0b11]);
        assert_eq!(
            Some(&all.live_in),
            compute_rows(f, &po).map(|r| r.live_in).as_ref()
        );
        // v2i is read nowhere: v0i, passed only to it, is live nowhere.
        let some = rows_where(f, &po, |p| p.index() != 2);
        assert_eq!(some.live_out(Block::new(0)), &[0b10]);
        assert_eq!(some.live_in(Block::new(1)), &[0b10]);
    }
}
