//! The CFG analyses against their naive references on random functions.

mod common;

use allocator::analysis::{block_order, cfg, domtree, liveness, loops};
use allocator::Block;
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
    // Sets kept from function to function, as a checker keeps them.
    let mut kept = liveness::Liveness::default();
    for seed in 0..2000 {
        let f = random_function(seed);
        let po = cfg::postorder(&f);
        let reference = liveness::naive(&f);
        let reach = cfg::reachable(&f);
        kept.recompute_sparse(&f, &po);
        for (how, live) in [
            ("dense", liveness::compute(&f, &po)),
            ("sparse", liveness::compute_sparse(&f, &po)),
            ("kept sparse", kept.clone()),
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

/// Whether every order that keeps `f`'s forward edges (forward in reverse
/// postorder) forward must split loop `l`: a path of forward edges leaves
/// it and comes back in, so the blocks outside on that path come after
/// some of its blocks and before others.
fn must_split(f: &allocator::Function, num: &[usize], forest: &loops::LoopForest, l: u32) -> bool {
    let inside = |b: Block| num[b.index()] != usize::MAX && forest.contains(l, b);
    let mut seen = vec![false; f.num_blocks()];
    let mut stack: Vec<Block> = f.blocks().filter(|&b| inside(b)).collect();
    while let Some(b) = stack.pop() {
        for &s in f.block_succs(b) {
            if num[b.index()] >= num[s.index()] {
                continue;
            }
            if inside(s) && !inside(b) {
                return true;
            }
            if !inside(s) && !seen[s.index()] {
                seen[s.index()] = true;
                stack.push(s);
            }
        }
    }
    false
}

#[test]
fn block_order_is_topological_and_splits_only_loops_it_must() {
    let mut split = 0;
    for seed in 0..2000 {
        let f = random_function(seed);
        let order = block_order::compute(&f);
        let rpo = cfg::reverse_postorder(&f);
        let mut at = vec![usize::MAX; f.num_blocks()];
        for (k, b) in order.iter().enumerate() {
            assert_eq!(at[b.index()], usize::MAX, "seed {seed}: {b} twice");
            at[b.index()] = k;
        }
        assert_eq!(
            order.len(),
            rpo.len(),
            "seed {seed}: not every reachable block"
        );
        assert_eq!(order[0], f.entry_block());
        // Edges that go forward in reverse postorder go forward here too,
        // so every block follows its dominators.
        let mut num = vec![usize::MAX; f.num_blocks()];
        for (k, b) in rpo.iter().enumerate() {
            num[b.index()] = k;
        }
        let dom = domtree::DomTree::new(&f);
        for &b in &rpo {
            for &s in f.block_succs(b) {
                if num[b.index()] < num[s.index()] {
                    assert!(at[b.index()] < at[s.index()], "seed {seed}: {b} -> {s}");
                }
            }
            if let Some(d) = dom.idom(b) {
                assert!(at[d.index()] < at[b.index()], "seed {seed}: idom of {b}");
            }
        }
        // Every loop is one run of blocks, unless no such order exists
        // (only in irreducible CFGs) or the loop it is nested in is split.
        let reducible = domtree::is_reducible(&f, &dom);
        let forest = loops::LoopForest::new(&f);
        let mut is_split = vec![false; forest.size.len()];
        for l in 0..forest.size.len() as u32 {
            let places: Vec<usize> = order
                .iter()
                .filter(|&&b| forest.contains(l, b))
                .map(|b| at[b.index()])
                .collect();
            assert_eq!(places.len(), forest.size[l as usize] as usize);
            let (lo, hi) = (places[0], places[places.len() - 1]);
            if hi - lo + 1 == places.len() {
                continue;
            }
            split += 1;
            is_split[l as usize] = true;
            assert!(!reducible, "seed {seed}: loop {l} of a reducible CFG split");
            let parent = forest.parent[l as usize];
            assert!(
                (parent != loops::NO_LOOP && is_split[parent as usize])
                    || must_split(&f, &num, &forest, l),
                "seed {seed}: loop {l} split, though an order could keep it whole"
            );
        }
    }
    // The random functions include loops that must be split.
    assert!(split > 0);
}
