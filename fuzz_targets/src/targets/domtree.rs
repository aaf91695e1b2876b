//! `domtree`: on a generated CFG, the dominator tree must agree exactly with
//! a naive dataflow computation, and along a random path from the entry
//! every dominator of each block must have been visited before it.

use super::target::Input;
use crate::books::context::Context;
use crate::judging::failure::{Failure, Oracle, Signature};
use crate::registry::{Profile, DEFAULT};
use allocator::analysis::domtree::{naive_dominators, DomTree};
use allocator::{Block, Case};
use arbitrary::Unstructured;
use ssagen::{Choices, Config};

/// Control flow only: terminators, no values beyond what block parameters
/// need.
pub static CFG_ONLY: Profile = Profile {
    name: "cfg_only",
    config: Config::cfg_only,
    ..DEFAULT
};

pub fn check(input: &Input, _: &Context) -> Result<(), Failure> {
    let Input::Case { case, rest } = *input else {
        panic!("domtree runs on cases");
    };
    let f = &case.func;
    let tree = check_tree(case)?;
    let Some(rest) = rest else {
        return Ok(());
    };
    crate::books::features::note_bucket("blocks", f.num_blocks() as u64);
    crate::books::features::note(
        "irreducible",
        !allocator::analysis::domtree::is_reducible(f, &tree) as u64,
    );
    let depth = |mut b: Block| {
        let mut d = 0u64;
        while let Some(x) = tree.idom(b) {
            b = x;
            d += 1;
        }
        d
    };
    crate::books::features::note_bucket("domdepth", f.blocks().map(depth).max().unwrap_or(0));
    // A random walk from the entry, restarting at returns.
    let mut u = Unstructured::new(rest);
    let mut c = Choices::new(&mut u);
    let mut visited = vec![false; f.num_blocks()];
    let mut b = f.entry_block();
    let mut path: Vec<Block> = Vec::new();
    for _ in 0..4 * f.num_blocks() {
        path.push(b);
        visited[b.index()] = true;
        let mut d = tree.idom(b);
        while let Some(x) = d {
            if !visited[x.index()] {
                return Err(Failure::new(
                    Signature::new(None, Oracle::Domtree, "path"),
                    format!(
                        "{x} dominates {b} but the path {path:?} reached {b} without it\n{}",
                        allocator::ir::text::print(case)
                    ),
                ));
            }
            d = tree.idom(x);
        }
        b = match c.pick(f.block_succs(b)) {
            Some(s) => s,
            None => {
                visited.iter_mut().for_each(|v| *v = false);
                path.clear();
                f.entry_block()
            }
        };
    }
    Ok(())
}

/// The dominator tree of the case's CFG, which must agree exactly with the
/// naive dataflow.
pub fn check_tree(case: &Case) -> Result<DomTree, Failure> {
    let f = &case.func;
    let tree = DomTree::new(f);
    let naive = naive_dominators(f);
    for b in f.blocks() {
        for a in f.blocks() {
            let fast = tree.dominates(a, b);
            if fast != naive[b.index()][a.index()] {
                return Err(Failure::new(
                    Signature::new(None, Oracle::Domtree, "naive"),
                    format!(
                        "dominates({a}, {b}) is {fast}, the naive dataflow says {}\n{}",
                        !fast,
                        allocator::ir::text::print(case)
                    ),
                ));
            }
        }
    }
    Ok(tree)
}
