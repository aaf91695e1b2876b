//! The order the generator fills a CFG skeleton in: its blocks renumbered
//! in preorder of the dominator tree, so that every block's dominators, and
//! the values they define, come before it.

use crate::cfg::Skeleton;
use allocator::analysis::cfg::Graph;
use allocator::analysis::domtree::DomTree;
use allocator::Block;

/// The skeleton's blocks renumbered in preorder of its dominator tree
/// (children in block order): `order[new]` is the skeleton block, `idom[new]`
/// the new number of its immediate dominator (the entry's own for the entry),
/// `succs[succ_start[new]..succ_start[new + 1]]` its successors, renumbered.
/// In this order every block's dominators come before it, so values can be
/// drawn block by block straight into the function.
pub struct Preorder {
    pub order: Vec<u32>,
    pub idom: Vec<u32>,
    pub succs: Vec<Block>,
    pub succ_start: Vec<u32>,
    /// Whether block `new` is a join: several predecessors, the entry's
    /// implicit one counted.
    pub join: Vec<bool>,
}

impl Preorder {
    pub fn of(sk: &Skeleton) -> Preorder {
        let n = sk.num_blocks();
        let tree = DomTree::of_graph(sk);
        let order: Vec<u32> = tree.preorder().iter().map(|b| b.0).collect();
        debug_assert_eq!(order.len(), n, "every skeleton block is reachable");
        let mut new_of = vec![0u32; n];
        for (k, &old) in order.iter().enumerate() {
            new_of[old as usize] = k as u32;
        }
        let idom = order
            .iter()
            .map(|&old| tree.idom(Block(old)).map_or(0, |d| new_of[d.index()]))
            .collect();
        let mut succs = Vec::with_capacity(2 * n);
        let mut succ_start = Vec::with_capacity(n + 1);
        succ_start.push(0);
        for &old in &order {
            succs.extend(
                sk.succs(Block(old))
                    .iter()
                    .map(|s| Block(new_of[s.index()])),
            );
            succ_start.push(succs.len() as u32);
        }
        let mut preds = vec![0u32; n];
        preds[0] = 1;
        for s in &succs {
            preds[s.index()] += 1;
        }
        Preorder {
            order,
            idom,
            succs,
            succ_start,
            join: preds.iter().map(|&p| p > 1).collect(),
        }
    }
}
