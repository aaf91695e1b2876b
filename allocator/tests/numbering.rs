//! Block numbering: renumbering keeps the function, and the three
//! numberings are told apart by what they promise (a renumbered
//! allocation: `fuzz_targets/tests/profile_domain.rs`).

use allocator::analysis::cfg::reverse_postorder;
use allocator::analysis::domtree::DomTree;
use allocator::analysis::numbering::{
    block_before_its_preds, classify, dominators_first, renumber_function, rpo_order, Numbering,
    Numberings,
};
use allocator::{Block, Function};

/// A reachable random CFG of `n` blocks from a linear congruential stream.
fn random_cfg(n: usize, seed: u64) -> Function {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |m: usize| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((x >> 33) as usize) % m
    };
    // A spine keeps every block reachable; extra edges go anywhere.
    let succs: Vec<Vec<usize>> = (0..n)
        .map(|b| {
            let mut s = Vec::new();
            if b + 1 < n {
                s.push(b + 1);
            }
            if next(3) == 0 {
                s.push(next(n));
            }
            s
        })
        .collect();
    // Shuffle the blocks after the entry so the spine is not the order.
    let mut perm: Vec<usize> = (0..n).collect();
    for k in (2..n).rev() {
        let j = 1 + next(k);
        perm.swap(k, j);
    }
    let mut shuffled = vec![Vec::new(); n];
    for b in 0..n {
        shuffled[perm[b]] = succs[b].iter().map(|&s| perm[s]).collect();
    }
    let refs: Vec<&[usize]> = shuffled.iter().map(|v| v.as_slice()).collect();
    Function::from_successors(&refs)
}

#[test]
fn reverse_postorder_keeps_dominators_and_a_predecessor_first() {
    for seed in 0..300 {
        let f = random_cfg(2 + (seed as usize % 12), seed);
        let g = renumber_function(&f, &rpo_order(&f));
        assert_eq!(g.num_blocks(), f.num_blocks());
        assert!(dominators_first(&g, &DomTree::new(&g)), "seed {seed}");
        assert_eq!(block_before_its_preds(&g), None, "seed {seed}");
        assert_ne!(classify(&g), Numbering::Free, "seed {seed}");
        assert!(Numberings::only(Numbering::ReversePostorder).admits(&g));
        // Renumbering is a relabelling: the same number of edges, and
        // renumbering back in the original order's image gives the same
        // reverse postorder again.
        let edges = |h: &Function| h.blocks().map(|b| h.block_succs(b).len()).sum::<usize>();
        assert_eq!(edges(&f), edges(&g));
        let again = renumber_function(&g, &rpo_order(&g));
        assert_eq!(reverse_postorder(&again).len(), g.num_blocks());
    }
}

#[test]
fn the_dominator_tree_preorder_is_a_preorder_and_free_orders_are_seen() {
    let mut free = 0;
    for seed in 0..300 {
        let f = random_cfg(3 + (seed as usize % 10), seed);
        let pre: Vec<Block> = DomTree::new(&f).preorder().to_vec();
        let g = renumber_function(&f, &pre);
        assert_eq!(classify(&g), Numbering::DomPreorder, "seed {seed}");
        assert!(Numberings::only(Numbering::DomPreorder).admits(&g));
        free += usize::from(classify(&f) == Numbering::Free);
        assert_eq!(
            Numberings::DOMINATORS_FIRST.admits(&f),
            dominators_first(&f, &DomTree::new(&f))
        );
        assert!(Numberings::ALL.admits(&f));
    }
    assert!(free > 100, "{free}");
}
