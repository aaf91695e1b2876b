//! Basic CFG walks: postorder, reverse postorder, reachability and critical
//! edges.

use crate::function::Function;
use crate::index::Block;

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
    let n = f.num_blocks();
    let mut order = Vec::with_capacity(n);
    if n == 0 {
        return order;
    }
    let mut visited = vec![false; n];
    // (block, index of the next successor to visit)
    let mut stack: Vec<(Block, usize)> = Vec::with_capacity(n);
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
    order
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

/// Whether the CFG is reducible: once the edges `u -> v` where `v`
/// dominates `u` (the back edges of natural loops) are removed, the
/// reachable blocks form no cycle.
pub fn is_reducible(f: &Function, dom: &crate::domtree::DomTree) -> bool {
    let n = f.num_blocks();
    let reach = reachable(f);
    let forward = |u: Block, v: Block| !dom.dominates(v, u);
    let mut indeg = vec![0u32; n];
    for u in f.blocks().filter(|u| reach[u.index()]) {
        for &v in f.block_succs(u) {
            if forward(u, v) {
                indeg[v.index()] += 1;
            }
        }
    }
    let mut ready: Vec<Block> = f
        .blocks()
        .filter(|b| reach[b.index()] && indeg[b.index()] == 0)
        .collect();
    let mut seen = 0;
    while let Some(u) = ready.pop() {
        seen += 1;
        for &v in f.block_succs(u) {
            if forward(u, v) {
                indeg[v.index()] -= 1;
                if indeg[v.index()] == 0 {
                    ready.push(v);
                }
            }
        }
    }
    seen == reach.iter().filter(|&&r| r).count()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::function::{FunctionBuilder, Opcode};

    /// A function with the given successor lists and no values: each block is
    /// one `branch` (or `ret` when it has no successors).
    pub(crate) fn cfg(succs: &[&[usize]]) -> Function {
        let mut b = FunctionBuilder::new();
        for s in succs {
            b.block(&[]);
            if s.is_empty() {
                b.inst(Opcode::Ret, &[], &[], &[]);
            } else {
                let t: Vec<(Block, &[crate::index::VReg])> =
                    s.iter().map(|&x| (Block::new(x), &[][..])).collect();
                b.inst(Opcode::Branch, &[], &[], &t);
            }
        }
        b.finish().unwrap()
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

    #[test]
    fn reducibility() {
        let dom = |f: &Function| crate::domtree::DomTree::new(f);
        let natural = cfg(&[&[1], &[2, 3], &[1], &[]]);
        assert!(is_reducible(&natural, &dom(&natural)));
        let two_entries = cfg(&[&[1, 2], &[2], &[1, 3], &[]]);
        assert!(!is_reducible(&two_entries, &dom(&two_entries)));
        let self_loop = cfg(&[&[0]]);
        assert!(is_reducible(&self_loop, &dom(&self_loop)));
    }
}
