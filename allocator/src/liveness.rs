//! Per-block liveness by backward iterative dataflow over chunked sparse bit
//! sets.
//!
//! Model: a block parameter is defined at the top of its block; a branch
//! argument is a use at the end of the predecessor (read before the branch
//! writes its own defs); within an instruction uses are read before defs
//! are written (SSA forbids an instruction to use what it defines, so the
//! order only matters for invalid input).

use crate::bitset::SparseBitSet;
use crate::function::Function;
use crate::index::Block;

/// Live-in and live-out vreg sets (by vreg index) for every block.
#[derive(Clone, Debug)]
pub struct Liveness {
    pub live_in: Vec<SparseBitSet>,
    pub live_out: Vec<SparseBitSet>,
}

/// Computes liveness for a valid function. `postorder` is the order from
/// [`crate::cfg::postorder`]; blocks absent from it stay empty.
pub fn compute(f: &Function, postorder: &[Block]) -> Liveness {
    let n = f.num_blocks();
    let mut live_in = vec![SparseBitSet::new(); n];
    let mut live_out = vec![SparseBitSet::new(); n];
    let mut queued = vec![false; n];
    // Processing in postorder visits successors before predecessors, so an
    // acyclic CFG settles in one pass.
    let mut work: std::collections::VecDeque<Block> = postorder.iter().copied().collect();
    for &b in postorder {
        queued[b.index()] = true;
    }
    let mut live = SparseBitSet::new();
    while let Some(b) = work.pop_front() {
        queued[b.index()] = false;
        live.clone_from(&live_out[b.index()]);
        transfer_block(f, b, &mut live);
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
    Liveness { live_in, live_out }
}

/// Turns the block's live-out set into its live-in set.
pub fn transfer_block(f: &Function, b: Block, live: &mut SparseBitSet) {
    let insts = f.block_insts(b);
    for (k, _) in f.block_succs(b).iter().enumerate() {
        for v in f.branch_args(b, k) {
            live.insert(v.index());
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
    let reach = crate::cfg::reachable(f);
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
