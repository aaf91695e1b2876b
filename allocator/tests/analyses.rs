//! The CFG analyses against their naive references on random functions.

mod common;

use allocator::{cfg, domtree, liveness, loops, Block};
use common::random_function;

#[test]
fn dominator_tree_matches_naive_dataflow() {
    for seed in 0..2000 {
        let f = random_function(seed);
        let tree = domtree::DomTree::new(&f);
        let naive = domtree::naive_dominators(&f);
        for b in f.blocks() {
            for a in f.blocks() {
                assert_eq!(
                    tree.dominates(a, b),
                    naive[b.index()][a.index()],
                    "seed {seed}: {a} dom {b}"
                );
            }
            // The immediate dominator is the closest strict dominator.
            if let Some(d) = tree.idom(b) {
                assert!(d != b && naive[b.index()][d.index()]);
                for a in f.blocks() {
                    if a != b && naive[b.index()][a.index()] {
                        assert!(
                            naive[d.index()][a.index()],
                            "seed {seed}: idom({b}) = {d} misses {a}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn liveness_matches_naive_walk() {
    for seed in 0..2000 {
        let f = random_function(seed);
        let po = cfg::postorder(&f);
        let reference = liveness::naive(&f);
        let reach = cfg::reachable(&f);
        for (how, live) in [
            ("dense", liveness::compute(&f, &po)),
            ("sparse", liveness::compute_sparse(&f, &po)),
        ] {
            for b in f.blocks().filter(|b| reach[b.index()]) {
                assert_eq!(
                    live.live_in[b.index()],
                    reference.live_in[b.index()],
                    "seed {seed}, {how}: live-in {b}"
                );
                assert_eq!(
                    live.live_out[b.index()],
                    reference.live_out[b.index()],
                    "seed {seed}, {how}: live-out {b}"
                );
            }
        }
    }
}

#[test]
fn loop_depth_is_zero_exactly_outside_cycles() {
    // A block is in some loop iff it lies on a cycle of reachable blocks.
    for seed in 0..2000 {
        let f = random_function(seed);
        let depth = loops::loop_depths(&f);
        let reach = cfg::reachable(&f);
        for b in f.blocks() {
            let on_cycle = reach[b.index()] && reaches(&f, b, b);
            assert_eq!(depth[b.index()] > 0, on_cycle, "seed {seed}: {b}");
        }
        // Nesting: a loop's body is deeper than or as deep as its entries'
        // neighbours outside; depth never exceeds the number of blocks.
        assert!(depth.iter().all(|&d| (d as usize) <= f.num_blocks()));
    }
}

/// Whether there is a non-empty path from `a` to `b`.
fn reaches(f: &allocator::Function, a: Block, b: Block) -> bool {
    let mut seen = vec![false; f.num_blocks()];
    let mut stack: Vec<Block> = f.block_succs(a).to_vec();
    while let Some(x) = stack.pop() {
        if x == b {
            return true;
        }
        if !std::mem::replace(&mut seen[x.index()], true) {
            stack.extend_from_slice(f.block_succs(x));
        }
    }
    false
}

#[test]
fn critical_edges_match_the_definition() {
    for seed in 0..500 {
        let f = random_function(seed);
        let crit = cfg::critical_edges(&f);
        for b in f.blocks() {
            for (k, &s) in f.block_succs(b).iter().enumerate() {
                let preds = f.block_preds(s).len() + usize::from(s == Block(0));
                let expect = f.block_succs(b).len() > 1 && preds > 1;
                assert_eq!(crit.contains(&(b, k)), expect, "seed {seed}: {b} -> {s}");
            }
        }
    }
}
