//! Loop nesting depth per block, defined for irreducible control flow too.
//!
//! Definition (the loop-nesting forest of Ramalingam / Havlak style): a
//! *loop* is a strongly connected component of the CFG with more than one
//! block or with a self edge. Its *entries* are its blocks with a reachable
//! predecessor outside it (and the function entry, whose caller is an
//! implicit predecessor). The loops nested in a loop are the loops of its
//! blocks with the edges into its entries removed. A block's depth is the
//! number of loops that contain it. For reducible CFGs the entry of each loop
//! is its single header and the depth is the usual natural-loop depth (with
//! loops that share a header merged); an irreducible region with several
//! entries counts once.

use crate::ir::function::Function;
use crate::ir::index::Block;

/// Marks "no loop" in [`LoopForest`].
pub const NO_LOOP: u32 = u32::MAX;

/// The loop-nesting forest of the module doc: which loop each block is
/// innermost in, and how loops nest. Loops are numbered so that a loop's
/// parent has a smaller number.
pub struct LoopForest {
    /// Per block: its innermost loop, or [`NO_LOOP`].
    pub innermost: Vec<u32>,
    /// Per block: the number of loops that contain it.
    pub depth: Vec<u32>,
    /// Per loop: the loop it is nested in, or [`NO_LOOP`].
    pub parent: Vec<u32>,
    /// Per loop: how many blocks it contains (its nested loops' included).
    pub size: Vec<u32>,
}

impl LoopForest {
    /// The forest of `f`'s reachable blocks.
    pub fn new(f: &Function) -> LoopForest {
        let n = f.num_blocks();
        let mut forest = LoopForest {
            innermost: vec![NO_LOOP; n],
            depth: vec![0; n],
            parent: Vec::new(),
            size: Vec::new(),
        };
        let reach = crate::analysis::cfg::reachable(f);
        // region[b]: id of the innermost region being split that contains b
        // (0 is the whole function, loop `l` is region `l + 1`);
        // entry[b]: id of the region in which b is an entry.
        let mut region = vec![0u32; n];
        let mut entry = vec![u32::MAX; n];
        let top: Vec<Block> = f.blocks().filter(|b| reach[b.index()]).collect();
        let mut work: Vec<(u32, Vec<Block>)> = vec![(0, top)];
        let mut tarjan = Tarjan::new(n);
        while let Some((id, members)) = work.pop() {
            for &b in &members {
                region[b.index()] = id;
            }
            tarjan.run(f, &members, |s| {
                region[s.index()] == id && entry[s.index()] != id
            });
            let mut from = 0;
            for &end in &tarjan.ends {
                let scc = &tarjan.found[from..end as usize];
                from = end as usize;
                let is_loop = scc.len() > 1 || {
                    let b = scc[0];
                    entry[b.index()] != id && f.block_succs(b).contains(&b)
                };
                if !is_loop {
                    continue;
                }
                let l = forest.parent.len() as u32;
                forest.parent.push(id.wrapping_sub(1));
                forest.size.push(scc.len() as u32);
                let sub = l + 1;
                for &b in scc {
                    forest.depth[b.index()] += 1;
                    forest.innermost[b.index()] = l;
                    region[b.index()] = sub;
                }
                for &b in scc {
                    let outside = f
                        .block_preds(b)
                        .iter()
                        .any(|p| reach[p.index()] && region[p.index()] != sub);
                    if outside || b == f.entry_block() {
                        entry[b.index()] = sub;
                    }
                }
                work.push((sub, scc.to_vec()));
            }
        }
        forest
    }

    /// Whether `block` lies in loop `l` or in a loop nested in it.
    pub fn contains(&self, l: u32, block: Block) -> bool {
        let mut k = self.innermost[block.index()];
        // Parents have smaller numbers, so the walk can stop below `l`.
        while k != NO_LOOP && k > l {
            k = self.parent[k as usize];
        }
        k == l
    }
}

/// Loop depth of every block (0 outside loops and for unreachable blocks).
pub fn loop_depths(f: &Function) -> Vec<u32> {
    LoopForest::new(f).depth
}

/// Tarjan's strongly connected components, iterative, reusable across runs
/// without allocating again.
struct Tarjan {
    index: Vec<u32>,
    low: Vec<u32>,
    on_stack: Vec<bool>,
    stack: Vec<Block>,
    /// The depth-first path: each block with the index of its next
    /// successor to visit.
    frames: Vec<(Block, usize)>,
    /// The components of the last run, one after another; `ends[k]` is where
    /// component `k` ends in `found`.
    found: Vec<Block>,
    ends: Vec<u32>,
}

impl Tarjan {
    fn new(n: usize) -> Self {
        Tarjan {
            index: vec![u32::MAX; n],
            low: vec![0; n],
            on_stack: vec![false; n],
            stack: Vec::new(),
            frames: Vec::new(),
            found: Vec::new(),
            ends: Vec::new(),
        }
    }

    fn visit(&mut self, b: Block, counter: &mut u32) {
        self.index[b.index()] = *counter;
        self.low[b.index()] = *counter;
        *counter += 1;
        self.on_stack[b.index()] = true;
        self.stack.push(b);
        self.frames.push((b, 0));
    }

    /// SCCs of the subgraph of `f` on `nodes` with the edges into the blocks
    /// `keep` accepts, into `found` and `ends`.
    fn run(&mut self, f: &Function, nodes: &[Block], keep: impl Fn(Block) -> bool) {
        for &b in nodes {
            self.index[b.index()] = u32::MAX;
        }
        self.found.clear();
        self.ends.clear();
        let mut counter = 0u32;
        for &root in nodes {
            if self.index[root.index()] != u32::MAX {
                continue;
            }
            self.visit(root, &mut counter);
            while let Some(frame) = self.frames.last_mut() {
                let b = frame.0;
                if let Some(&s) = f.block_succs(b).get(frame.1) {
                    frame.1 += 1;
                    if !keep(s) {
                        continue;
                    }
                    if self.index[s.index()] == u32::MAX {
                        self.visit(s, &mut counter);
                    } else if self.on_stack[s.index()] {
                        self.low[b.index()] = self.low[b.index()].min(self.index[s.index()]);
                    }
                    continue;
                }
                self.frames.pop();
                if let Some(parent) = self.frames.last() {
                    let p = parent.0.index();
                    self.low[p] = self.low[p].min(self.low[b.index()]);
                }
                if self.low[b.index()] == self.index[b.index()] {
                    loop {
                        let x = self.stack.pop().expect("tarjan stack");
                        self.on_stack[x.index()] = false;
                        self.found.push(x);
                        if x == b {
                            break;
                        }
                    }
                    self.ends.push(self.found.len() as u32);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::function::Function;

    fn cfg(succs: &[&[usize]]) -> Function {
        Function::from_successors(succs)
    }

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
    fn forest_records_nesting_and_sizes() {
        let f = cfg(&[&[1], &[2, 5], &[3], &[3, 4], &[1], &[]]);
        let forest = LoopForest::new(&f);
        let outer = forest.innermost[1];
        let inner = forest.innermost[3];
        assert_eq!(forest.innermost[2], outer);
        assert_eq!(forest.innermost[4], outer);
        assert_eq!(forest.innermost[0], NO_LOOP);
        assert_eq!(forest.innermost[5], NO_LOOP);
        assert_eq!(forest.parent[inner as usize], outer);
        assert_eq!(forest.parent[outer as usize], NO_LOOP);
        assert_eq!(forest.size[outer as usize], 4);
        assert_eq!(forest.size[inner as usize], 1);
        assert!(forest.contains(outer, Block::new(3)));
        assert!(!forest.contains(inner, Block::new(2)));
        assert!(!forest.contains(outer, Block::new(5)));
    }

    #[test]
    fn an_unreachable_predecessor_makes_no_entry() {
        // Outer loop {1, 2, 3, 4} with header 1, inner loop {2, 3} with
        // header 2; the unreachable block 6 branches into block 3.
        let f = cfg(&[&[1], &[2], &[3], &[2, 4], &[1, 5], &[], &[3]]);
        assert_eq!(loop_depths(&f), vec![0, 1, 2, 2, 1, 0, 0]);
    }

    #[test]
    fn loop_through_the_entry_and_unreachable_blocks() {
        let f = cfg(&[&[1], &[0, 2], &[], &[3]]);
        assert_eq!(loop_depths(&f), vec![1, 1, 0, 0]);
    }
}
