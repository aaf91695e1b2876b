//! Basic CFG walks: postorder, reverse postorder, reachability and critical
//! edges.

use crate::ir::function::Function;
use crate::ir::index::Block;

/// A control-flow graph as the walks and the dominator tree see it: blocks
/// `0..num_blocks()`, block 0 the entry. Implemented by [`Function`] and by
/// the generator's CFG skeletons, so they share one dominator algorithm.
pub trait Graph {
    fn num_blocks(&self) -> usize;
    fn succs(&self, b: Block) -> &[Block];
    fn preds(&self, b: Block) -> &[Block];
}

impl Graph for Function {
    fn num_blocks(&self) -> usize {
        Function::num_blocks(self)
    }
    fn succs(&self, b: Block) -> &[Block] {
        self.block_succs(b)
    }
    fn preds(&self, b: Block) -> &[Block] {
        self.block_preds(b)
    }
}

/// The blocks reachable from the entry, in postorder of an iterative
/// depth-first search that visits successors in their listed order.
pub fn postorder<G: Graph + ?Sized>(f: &G) -> Vec<Block> {
    let mut order = Vec::with_capacity(f.num_blocks());
    Dfs::default().postorder_into(f, &mut order);
    order
}

/// The scratch of [`postorder`]'s search, kept by a caller that orders one
/// function after another (a checker inside a compiler).
#[derive(Default)]
pub struct Dfs {
    visited: Vec<bool>,
    /// (block, index of the next successor to visit)
    stack: Vec<(Block, usize)>,
}

impl Dfs {
    /// [`postorder`] of `f` into `order`, which is cleared first.
    pub fn postorder_into<G: Graph + ?Sized>(&mut self, f: &G, order: &mut Vec<Block>) {
        order.clear();
        let n = f.num_blocks();
        if n == 0 {
            return;
        }
        let Dfs { visited, stack } = self;
        visited.clear();
        visited.resize(n, false);
        stack.clear();
        stack.push((Block(0), 0));
        visited[0] = true;
        while let Some(top) = stack.last_mut() {
            let (b, next) = *top;
            let succs = f.succs(b);
            if next < succs.len() {
                top.1 += 1;
                let s = succs[next];
                if !visited[s.index()] {
                    visited[s.index()] = true;
                    stack.push((s, 0));
                }
            } else {
                order.push(b);
                stack.pop();
            }
        }
    }
}

/// The reachable blocks in reverse postorder (the entry first).
pub fn reverse_postorder<G: Graph + ?Sized>(f: &G) -> Vec<Block> {
    let mut po = postorder(f);
    po.reverse();
    po
}

/// `reachable[b]`: whether block `b` can be reached from the entry.
pub fn reachable(f: &Function) -> Vec<bool> {
    let mut r = vec![false; f.num_blocks()];
    for b in postorder(f) {
        r[b.index()] = true;
    }
    r
}

/// Number of predecessors as the critical-edge rule counts them: the entry
/// block has an implicit predecessor (the function's caller), so a branch
/// back to the entry from a block with several successors is critical.
pub fn effective_preds(f: &Function, b: Block) -> usize {
    f.block_preds(b).len() + usize::from(b == f.entry_block())
}

/// The join whose edge moves run before `b`'s branch: `b`'s only successor,
/// when that has several predecessors. On every other edge the moves run at
/// the top of a successor with one predecessor.
pub fn join_successor(f: &Function, b: Block) -> Option<Block> {
    match f.block_succs(b) {
        &[s] if effective_preds(f, s) > 1 => Some(s),
        _ => None,
    }
}

/// Every critical edge, as `(from, successor index)`: an edge from a block
/// with several successors to a block with several predecessors.
pub fn critical_edges(f: &Function) -> Vec<(Block, usize)> {
    let mut out = Vec::new();
    for b in f.blocks() {
        let succs = f.block_succs(b);
        if succs.len() < 2 {
            continue;
        }
        for (k, &s) in succs.iter().enumerate() {
            if effective_preds(f, s) > 1 {
                out.push((b, k));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::function::Function;

    fn cfg(succs: &[&[usize]]) -> Function {
        Function::from_successors(succs)
    }

    #[test]
    fn postorder_visits_reachable_blocks_once() {
        let f = cfg(&[&[1, 2], &[3], &[3], &[], &[0]]);
        let po = postorder(&f);
        assert_eq!(po, vec![Block(3), Block(1), Block(2), Block(0)]);
        assert_eq!(reverse_postorder(&f)[0], Block(0));
        assert_eq!(reachable(&f), vec![true, true, true, true, false]);
    }

    #[test]
    fn critical_edges_count_the_implicit_entry_edge() {
        // 0 -> {1, 2}; 1 -> 2 makes 0->2 critical; 2 -> {0, 3}: 2->0 is
        // critical only because of the entry's implicit predecessor.
        let f = cfg(&[&[1, 2], &[2], &[0, 3], &[]]);
        assert_eq!(critical_edges(&f), vec![(Block(0), 1), (Block(2), 0)]);
        let g = cfg(&[&[1, 2], &[3], &[3], &[]]);
        assert!(critical_edges(&g).is_empty());
    }
}
