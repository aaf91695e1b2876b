//! Loop nesting depth per block, defined for irreducible control flow too.
//!
//! Definition (the loop-nesting forest of Ramalingam / Havlak style): a
//! *loop* is a strongly connected component of the CFG with more than one
//! block or with a self edge. Its *entries* are its blocks with a
//! predecessor outside it (and the function entry, whose caller is an
//! implicit predecessor). The loops nested in a loop are the loops of its
//! blocks with the edges into its entries removed. A block's depth is the
//! number of loops that contain it. For reducible CFGs the entry of each loop
//! is its single header and the depth is the usual natural-loop depth (with
//! loops that share a header merged); an irreducible region with several
//! entries counts once.

use crate::function::Function;
use crate::index::Block;

/// Loop depth of every block (0 outside loops and for unreachable blocks).
pub fn loop_depths(f: &Function) -> Vec<u32> {
    let n = f.num_blocks();
    let mut depth = vec![0u32; n];
    let reach = crate::cfg::reachable(f);
    // region[b]: id of the innermost region being split that contains b;
    // entry[b]: id of the region in which b is an entry.
    let mut region = vec![0u32; n];
    let mut entry = vec![u32::MAX; n];
    let mut next_id = 1u32;
    let top: Vec<Block> = f.blocks().filter(|b| reach[b.index()]).collect();
    let mut work: Vec<(u32, Vec<Block>)> = vec![(0, top)];
    let mut tarjan = Tarjan::new(n);
    while let Some((id, members)) = work.pop() {
        for &b in &members {
            region[b.index()] = id;
        }
        let sccs = tarjan.run(&members, |b, out| {
            for &s in f.block_succs(b) {
                if region[s.index()] == id && entry[s.index()] != id {
                    out.push(s);
                }
            }
        });
        for scc in sccs {
            let is_loop = scc.len() > 1 || {
                let b = scc[0];
                entry[b.index()] != id && f.block_succs(b).contains(&b)
            };
            if !is_loop {
                continue;
            }
            let sub = next_id;
            next_id += 1;
            for &b in &scc {
                depth[b.index()] += 1;
                region[b.index()] = sub;
            }
            for &b in &scc {
                let outside = f.block_preds(b).iter().any(|p| region[p.index()] != sub);
                if outside || b == f.entry_block() {
                    entry[b.index()] = sub;
                }
            }
            work.push((sub, scc));
        }
    }
    depth
}

/// Tarjan's strongly connected components, iterative, reusable across runs.
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
}

impl Tarjan {
    fn new(n: usize) -> Self {
        Tarjan {
            index: vec![u32::MAX; n],
            low: vec![0; n],
            on_stack: vec![false; n],
        }
    }

    /// SCCs of the subgraph on `nodes` whose edges `succ` lists.
    fn run(&mut self, nodes: &[Block], succ: impl Fn(Block, &mut Vec<Block>)) -> Vec<Vec<Block>> {
        for &b in nodes {
            self.index[b.index()] = u32::MAX;
        }
        let mut out = Vec::new();
        let mut stack: Vec<Block> = Vec::new();
        let mut counter = 0u32;
        let mut frames: Vec<(Block, Vec<Block>, usize)> = Vec::new();
        let mut visit =
            |b: Block, this: &mut Tarjan, stack: &mut Vec<Block>, frames: &mut Vec<_>| {
                this.index[b.index()] = counter;
                this.low[b.index()] = counter;
                counter += 1;
                this.on_stack[b.index()] = true;
                stack.push(b);
                let mut s = Vec::new();
                succ(b, &mut s);
                frames.push((b, s, 0));
            };
        for &root in nodes {
            if self.index[root.index()] != u32::MAX {
                continue;
            }
            visit(root, self, &mut stack, &mut frames);
            while let Some(frame) = frames.last_mut() {
                let b = frame.0;
                if let Some(&s) = frame.1.get(frame.2) {
                    frame.2 += 1;
                    if self.index[s.index()] == u32::MAX {
                        visit(s, self, &mut stack, &mut frames);
                    } else if self.on_stack[s.index()] {
                        self.low[b.index()] = self.low[b.index()].min(self.index[s.index()]);
                    }
                    continue;
                }
                frames.pop();
                if let Some(parent) = frames.last() {
                    let p = parent.0.index();
                    self.low[p] = self.low[p].min(self.low[b.index()]);
                }
                if self.low[b.index()] == self.index[b.index()] {
                    let mut scc = Vec::new();
                    loop {
                        let x = stack.pop().expect("tarjan stack");
                        self.on_stack[x.index()] = false;
                        scc.push(x);
                        if x == b {
                            break;
                        }
                    }
                    out.push(scc);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cfg::tests::cfg;

    #[test]
    fn straight_line_has_no_loops() {
        assert_eq!(loop_depths(&cfg(&[&[1], &[2], &[]])), vec![0, 0, 0]);
    }

    #[test]
    fn natural_and_nested_loops() {
        // 0 -> 1; 1 -> {2, 5}; 2 -> 3; 3 -> {2, 4}... keep edges split:
        // outer loop 1..4 with header 1, inner self-looping block 3.
        let f = cfg(&[&[1], &[2, 5], &[3], &[3, 4], &[1], &[]]);
        assert_eq!(loop_depths(&f), vec![0, 1, 1, 2, 1, 0]);
    }

    #[test]
    fn irreducible_loop_counts_once() {
        // 0 -> {1, 2}; 1 <-> 2 (two entries); 2 -> 3.
        let f = cfg(&[&[1, 2], &[2], &[1, 3], &[]]);
        assert_eq!(loop_depths(&f), vec![0, 1, 1, 0]);
    }

    #[test]
    fn loop_through_the_entry_and_unreachable_blocks() {
        let f = cfg(&[&[1], &[0, 2], &[], &[3]]);
        assert_eq!(loop_depths(&f), vec![1, 1, 0, 0]);
    }
}
