//! A linear order of the blocks for allocators that walk the function in
//! one pass (the linear scan): definitions before uses, and loops kept
//! contiguous.

use crate::analysis::cfg;
use crate::analysis::loops::{LoopForest, NO_LOOP};
use crate::ir::function::Function;
use crate::ir::index::Block;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The reachable blocks in an order that keeps loops contiguous (Wimmer and
/// Franz's block order), so a value live through a loop is one range over
/// it rather than pieces around blocks from outside.
///
/// The order is a topological order of the CFG without the back edges of a
/// depth-first search (the edges that do not go forward in reverse
/// postorder); such an order puts every block after its dominators, so
/// definitions precede uses. Among the blocks whose forward predecessors
/// are all placed, it takes one of the innermost loop still being laid out,
/// earliest in reverse postorder, and only then leaves that loop. A natural
/// loop always has such a block until it is complete, because only its
/// header has predecessors outside it. An irreducible loop entered first at
/// one entry may need a block outside it before its other entries become
/// ready; it is then left unfinished and the order goes on. That happens
/// only where no order keeping forward edges forward could keep the loop
/// whole (a path of forward edges leaves it and comes back in, which a
/// loop nested in an irreducible one can have), or inside a loop that is
/// itself split: an outermost loop is always one run of blocks.
pub fn compute(f: &Function) -> Vec<Block> {
    compute_in(f, &LoopForest::new(f))
}

/// [`compute`] with `f`'s loop-nesting forest already built, for a caller
/// that needs it too.
pub fn compute_in(f: &Function, forest: &LoopForest) -> Vec<Block> {
    let rpo = cfg::reverse_postorder(f);
    let n = f.num_blocks();
    let mut num = vec![u32::MAX; n];
    for (k, b) in rpo.iter().enumerate() {
        num[b.index()] = k as u32;
    }
    // waiting[b]: forward predecessors of b not yet placed.
    let mut waiting = vec![0u32; n];
    for &b in &rpo {
        for &s in f.block_succs(b) {
            if num[b.index()] < num[s.index()] {
                waiting[s.index()] += 1;
            }
        }
    }
    // The ready blocks by reverse postorder number, once per loop holding
    // them and once at the top level (`heaps[top]`): the earliest ready
    // block of the innermost open loop is the top of that loop's heap, not
    // a scan of every ready block (thousands after a large switch). Placed
    // blocks are dropped from the other heaps when they come up.
    let top = forest.parent.len();
    let mut heaps: Vec<BinaryHeap<Reverse<u32>>> = vec![BinaryHeap::new(); top + 1];
    let mut placed = vec![false; n];
    let make_ready = |b: Block, heaps: &mut Vec<BinaryHeap<Reverse<u32>>>| {
        let k = num[b.index()];
        heaps[top].push(Reverse(k));
        let mut l = forest.innermost[b.index()];
        while l != NO_LOOP {
            heaps[l as usize].push(Reverse(k));
            l = forest.parent[l as usize];
        }
    };
    make_ready(f.entry_block(), &mut heaps);
    // The loops being laid out, innermost last; a loop is opened by its
    // first block and left once no ready block lies in it.
    let mut opened = vec![false; forest.parent.len()];
    let mut open: Vec<u32> = Vec::new();
    let mut order = Vec::with_capacity(rpo.len());
    let mut chain: Vec<u32> = Vec::new();
    while order.len() < rpo.len() {
        let b = loop {
            let heap = &mut heaps[open.last().map_or(top, |&l| l as usize)];
            while heap
                .peek()
                .is_some_and(|k| placed[rpo[k.0 as usize].index()])
            {
                heap.pop();
            }
            match heap.pop() {
                Some(Reverse(k)) => break rpo[k as usize],
                None => {
                    if open.pop().is_none() {
                        unreachable!("every block is placed or waits for a placed one");
                    }
                }
            }
        };
        placed[b.index()] = true;
        order.push(b);
        chain.clear();
        let mut l = forest.innermost[b.index()];
        while l != NO_LOOP && !opened[l as usize] {
            opened[l as usize] = true;
            chain.push(l);
            l = forest.parent[l as usize];
        }
        open.extend(chain.iter().rev());
        for &s in f.block_succs(b) {
            if num[b.index()] < num[s.index()] {
                waiting[s.index()] -= 1;
                if waiting[s.index()] == 0 {
                    make_ready(s, &mut heaps);
                }
            }
        }
    }
    debug_assert_eq!(order.len(), rpo.len());
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::function::Function;

    fn cfg(succs: &[&[usize]]) -> Function {
        Function::from_successors(succs)
    }

    fn order(succs: &[&[usize]]) -> Vec<usize> {
        compute(&cfg(succs)).iter().map(|b| b.index()).collect()
    }

    #[test]
    fn a_loop_body_comes_before_the_loop_exit() {
        // 0 -> 1; 1 -> {2, 3}; 2 -> 1. Reverse postorder visits the exit
        // block3 before the latch block2 (0, 1, 3, 2).
        let succs: &[&[usize]] = &[&[1], &[2, 3], &[1], &[]];
        let rpo: Vec<usize> = cfg::reverse_postorder(&cfg(succs))
            .iter()
            .map(|b| b.index())
            .collect();
        assert_eq!(rpo, vec![0, 1, 3, 2]);
        assert_eq!(order(succs), vec![0, 1, 2, 3]);
    }

    #[test]
    fn nested_loops_stay_inside_their_parents() {
        // Outer loop {1, 2, 3, 4, 5} with header 1 and exit 6; inner loop
        // {2, 3} with header 2, exit 4 and latch 3; 5 is the outer latch.
        let succs: &[&[usize]] = &[&[1], &[2, 6], &[3, 4], &[2], &[5], &[1], &[]];
        assert_eq!(order(succs), vec![0, 1, 2, 3, 4, 5, 6]);
    }

    #[test]
    fn an_irreducible_loop_keeps_forward_edges_forward() {
        // 0 -> {1, 2}; a cycle 1 -> 3 -> 2 -> 4 -> 1 with two entries.
        let succs: &[&[usize]] = &[&[1, 2], &[3], &[4, 5], &[2], &[1], &[]];
        let o = order(succs);
        assert_eq!(o.len(), 6);
        assert_eq!(o[0], 0);
        let at = |b: usize| o.iter().position(|&x| x == b).unwrap();
        assert!(at(1) < at(3) && at(2) < at(4) && at(2) < at(5));
    }

    #[test]
    fn unreachable_blocks_are_left_out() {
        assert_eq!(order(&[&[1], &[], &[1]]), vec![0, 1]);
    }
}
