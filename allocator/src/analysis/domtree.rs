//! Dominator tree by the iterative algorithm of Cooper, Harvey and Kennedy
//! ("A Simple, Fast Dominance Algorithm"), with constant-time `dominates`
//! through pre/post numbers of the tree.

use crate::analysis::cfg::{reachable, reverse_postorder, Graph};
use crate::counting_sort::counting_sorted;
use crate::ir::function::Function;
use crate::ir::index::Block;

/// Immediate dominators of the reachable blocks. Unreachable blocks have no
/// dominator and dominate nothing but themselves.
#[derive(Clone, Debug)]
pub struct DomTree {
    idom: Vec<Block>,
    pre: Vec<u32>,
    post: Vec<u32>,
    /// The reachable blocks in preorder of the tree, children in block order.
    preorder: Vec<Block>,
}

impl DomTree {
    pub fn new(f: &Function) -> DomTree {
        Self::of_graph(f)
    }

    /// The dominator tree of any [`Graph`].
    pub fn of_graph<G: Graph + ?Sized>(f: &G) -> DomTree {
        let n = f.num_blocks();
        let rpo = reverse_postorder(f);
        let mut rpo_num = vec![u32::MAX; n];
        for (k, b) in rpo.iter().enumerate() {
            rpo_num[b.index()] = k as u32;
        }
        let mut idom = vec![Block::INVALID; n];
        if let Some(&entry) = rpo.first() {
            idom[entry.index()] = entry;
        }
        let intersect = |idom: &[Block], mut a: Block, mut b: Block| {
            while a != b {
                while rpo_num[a.index()] > rpo_num[b.index()] {
                    a = idom[a.index()];
                }
                while rpo_num[b.index()] > rpo_num[a.index()] {
                    b = idom[b.index()];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new = Block::INVALID;
                for &p in f.preds(b) {
                    if !idom[p.index()].is_valid() {
                        continue; // unreachable, or not processed yet
                    }
                    new = if new.is_valid() {
                        intersect(&idom, p, new)
                    } else {
                        p
                    };
                }
                if new != idom[b.index()] {
                    idom[b.index()] = new;
                    changed = true;
                }
            }
        }
        // Pre/post numbering of the tree: a dominates b iff a's interval
        // encloses b's.
        // Children of each block as ranges of one array (a counting sort by
        // immediate dominator), then an iterative preorder walk.
        let entry = rpo.first().copied();
        let is_child = |b: usize| idom[b].is_valid() && Some(Block::new(b)) != entry;
        let (child_start, children) =
            counting_sorted(n, n, |b| is_child(b).then(|| idom[b].index()), Block::new);
        let (mut pre, mut post) = (vec![u32::MAX; n], vec![u32::MAX; n]);
        let mut preorder = Vec::with_capacity(rpo.len());
        let mut clock = 0u32;
        let mut stack: Vec<(Block, u32)> = Vec::with_capacity(n);
        if let Some(e) = entry {
            pre[e.index()] = clock;
            clock += 1;
            preorder.push(e);
            stack.push((e, child_start[e.index()]));
        }
        while let Some(top) = stack.last_mut() {
            let (b, k) = *top;
            if k < child_start[b.index() + 1] {
                top.1 += 1;
                let c = children[k as usize];
                pre[c.index()] = clock;
                clock += 1;
                preorder.push(c);
                stack.push((c, child_start[c.index()]));
            } else {
                post[b.index()] = clock;
                clock += 1;
                stack.pop();
            }
        }
        if let Some(&e) = rpo.first() {
            idom[e.index()] = Block::INVALID;
        }
        DomTree {
            idom,
            pre,
            post,
            preorder,
        }
    }

    /// The reachable blocks in preorder of the tree (every block after its
    /// dominators), the children of a block in block order.
    pub fn preorder(&self) -> &[Block] {
        &self.preorder
    }

    /// The immediate dominator; `None` for the entry and unreachable blocks.
    pub fn idom(&self, b: Block) -> Option<Block> {
        let d = self.idom[b.index()];
        d.is_valid().then_some(d)
    }

    pub fn is_reachable(&self, b: Block) -> bool {
        self.pre[b.index()] != u32::MAX
    }

    /// Whether every path from the entry to `b` passes through `a` (a block
    /// dominates itself).
    pub fn dominates(&self, a: Block, b: Block) -> bool {
        if a == b {
            return true;
        }
        if !self.is_reachable(a) || !self.is_reachable(b) {
            return false;
        }
        self.pre[a.index()] <= self.pre[b.index()] && self.post[b.index()] <= self.post[a.index()]
    }
}

/// Dominance by the textbook dataflow over bit sets (`dom(b) = {b} ∪ ⋂
/// dom(preds)`), quadratic and simple: the reference the fast algorithm is
/// tested against. `result[b][a]` says whether `a` dominates `b`.
pub fn naive_dominators(f: &Function) -> Vec<Vec<bool>> {
    let n = f.num_blocks();
    let reach = crate::analysis::cfg::reachable(f);
    let mut dom: Vec<Vec<bool>> = (0..n)
        .map(|b| {
            if b == 0 {
                (0..n).map(|a| a == 0).collect()
            } else if reach[b] {
                vec![true; n]
            } else {
                (0..n).map(|a| a == b).collect()
            }
        })
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for b in 1..n {
            if !reach[b] {
                continue;
            }
            let mut new = vec![true; n];
            for &p in f.block_preds(Block::new(b)) {
                if !reach[p.index()] {
                    continue;
                }
                for a in 0..n {
                    new[a] &= dom[p.index()][a];
                }
            }
            new[b] = true;
            if new != dom[b] {
                dom[b] = new;
                changed = true;
            }
        }
    }
    dom
}

/// Whether the CFG is reducible: once the edges `u -> v` where `v`
/// dominates `u` (the back edges of natural loops) are removed, the
/// reachable blocks form no cycle.
pub fn is_reducible(f: &Function, dom: &DomTree) -> bool {
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
mod tests {
    use super::*;
    use crate::ir::function::Function;

    fn cfg(succs: &[&[usize]]) -> Function {
        Function::from_successors(succs)
    }

    fn agree(f: &Function) {
        let t = DomTree::new(f);
        let naive = naive_dominators(f);
        for b in f.blocks() {
            for a in f.blocks() {
                assert_eq!(
                    t.dominates(a, b),
                    naive[b.index()][a.index()],
                    "{a} dom {b}"
                );
            }
        }
    }

    #[test]
    fn diamond() {
        let f = cfg(&[&[1, 2], &[3], &[3], &[]]);
        let t = DomTree::new(&f);
        assert_eq!(t.idom(Block(3)), Some(Block(0)));
        assert_eq!(t.idom(Block(0)), None);
        assert!(t.dominates(Block(0), Block(3)));
        assert!(!t.dominates(Block(1), Block(3)));
        agree(&f);
    }

    #[test]
    fn loops_irreducible_and_unreachable() {
        agree(&cfg(&[&[1], &[2, 3], &[1], &[]]));
        // Irreducible: 0 -> {1, 2}, 1 <-> 2.
        let f = cfg(&[&[1, 2], &[2, 3], &[1], &[]]);
        let t = DomTree::new(&f);
        assert_eq!(t.idom(Block(1)), Some(Block(0)));
        assert_eq!(t.idom(Block(2)), Some(Block(0)));
        agree(&f);
        // Block 2 unreachable; a back edge into the entry.
        let g = cfg(&[&[1], &[0], &[1]]);
        let t = DomTree::new(&g);
        assert!(!t.is_reachable(Block(2)));
        assert!(!t.dominates(Block(2), Block(1)));
        assert!(t.dominates(Block(2), Block(2)));
        agree(&g);
    }

    #[test]
    fn preorder_puts_dominators_first_and_children_in_block_order() {
        // 0 -> {3, 1}; 3 -> 2; 1 -> 2; 2 -> 4; 5 unreachable.
        let f = cfg(&[&[3, 1], &[2], &[4], &[2], &[], &[4]]);
        let t = DomTree::new(&f);
        assert_eq!(
            t.preorder(),
            &[Block(0), Block(1), Block(2), Block(4), Block(3)]
        );
        for (k, &b) in t.preorder().iter().enumerate() {
            if let Some(d) = t.idom(b) {
                assert!(t.preorder()[..k].contains(&d), "{d} before {b}");
            }
        }
    }

    #[test]
    fn reducibility() {
        let dom = |f: &Function| DomTree::new(f);
        let natural = cfg(&[&[1], &[2, 3], &[1], &[]]);
        assert!(is_reducible(&natural, &dom(&natural)));
        let two_entries = cfg(&[&[1, 2], &[2], &[1, 3], &[]]);
        assert!(!is_reducible(&two_entries, &dom(&two_entries)));
        let self_loop = cfg(&[&[0]]);
        assert!(is_reducible(&self_loop, &dom(&self_loop)));
    }
}
