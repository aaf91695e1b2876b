//! CFG skeletons: units of one block (A) or three blocks (A -> B, A -> C) are
//! glued into a spine (the exit of each unit, A or B, jumps to the next
//! unit's A), then each C block either returns or jumps to the A block of some
//! unit. Every block is reachable along the spine, and no edge is critical:
//! the only blocks with two successors are triad A blocks, whose successors
//! B and C have a single predecessor each, while every edge into an A block
//! comes from a block with a single successor.
//!
//! In structured mode a C block's target is checked against every edge so far
//! so that no forward jump enters a loop past its header (which keeps the CFG
//! reducible); in irreducible mode targets are free.

use crate::choices::Choices;
use crate::config::Config;

/// Successor lists per block (empty: the block returns), blocks numbered in
/// spine order, block 0 the entry.
#[derive(Clone, Debug, Default)]
pub struct Skeleton {
    pub succs: Vec<Vec<u32>>,
}

/// An edge between units: `from` unit's exit (or C block) to `to` unit's A.
#[derive(Clone, Copy)]
struct UnitEdge {
    from: usize,
    to: usize,
}

/// Whether adding `e` keeps every loop entered through its header, given the
/// jumps already placed. A back edge `i -> j` (j <= i) makes units `j..=i` a
/// loop headed by `j`; a forward jump `s -> t` (t > s + 1) enters it past its
/// header when `s < j < t <= i`.
fn keeps_structure(e: UnitEdge, placed: &[UnitEdge]) -> bool {
    let bypasses = |fwd: UnitEdge, back: UnitEdge| {
        let (s, t) = (fwd.from, fwd.to);
        let (i, j) = (back.from, back.to);
        s < j && j < t && t <= i
    };
    placed.iter().all(|&p| {
        if e.to <= e.from && p.to > p.from {
            !bypasses(p, e)
        } else if e.to > e.from && p.to <= p.from {
            !bypasses(e, p)
        } else {
            true
        }
    })
}

pub fn generate(c: &mut Choices, cfg: &Config, input_len: usize) -> Skeleton {
    let max_units = (1 + input_len / cfg.bytes_per_unit.max(1)).min(cfg.max_blocks.max(1));
    let n_units = c.int(1, max_units);
    let budget = cfg.max_blocks.max(1);
    // Per unit: its A block, and its C block when it is a triad.
    let mut a_block = Vec::with_capacity(n_units);
    let mut c_block = Vec::with_capacity(n_units);
    let mut succs: Vec<Vec<u32>> = Vec::with_capacity(3 * n_units);
    for u in 0..n_units {
        let remaining_units = n_units - u - 1;
        let triad = succs.len() + 3 + remaining_units <= budget && c.chance(1, 2);
        let a = succs.len() as u32;
        a_block.push(a);
        succs.push(Vec::new());
        if triad {
            let (b, cb) = (a + 1, a + 2);
            succs.push(Vec::new());
            succs.push(Vec::new());
            succs[a as usize] = if c.chance(1, 2) {
                vec![b, cb]
            } else {
                vec![cb, b]
            };
            c_block.push(Some(cb));
        } else {
            c_block.push(None);
        }
    }
    // The spine.
    for u in 0..n_units {
        let exit = if c_block[u].is_some() {
            a_block[u] + 1
        } else {
            a_block[u]
        };
        if u + 1 < n_units {
            succs[exit as usize] = vec![a_block[u + 1]];
        }
    }
    // The C blocks' jumps.
    let mut placed: Vec<UnitEdge> = Vec::new();
    for (u, &cb) in c_block.iter().enumerate() {
        let Some(cb) = cb else { continue };
        if c.chance(1, 4) {
            continue; // returns
        }
        let mut to = c.int(0, n_units - 1);
        if !cfg.irreducible && !keeps_structure(UnitEdge { from: u, to }, &placed) {
            to = u; // a loop of A and C alone never bypasses anything
        }
        let e = UnitEdge { from: u, to };
        if e.to > e.from + 1 || e.to <= e.from {
            placed.push(e);
        }
        succs[cb as usize] = vec![a_block[to]];
    }
    Skeleton { succs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use arbitrary::Unstructured;

    #[test]
    fn a_self_loop_never_breaks_structure() {
        let placed = [UnitEdge { from: 0, to: 5 }, UnitEdge { from: 7, to: 2 }];
        for u in 0..10 {
            assert!(keeps_structure(UnitEdge { from: u, to: u }, &placed));
        }
        // Jumping from before a loop's header into its body is refused...
        assert!(!keeps_structure(UnitEdge { from: 1, to: 4 }, &placed));
        // ...and so is a back edge whose body a placed jump enters.
        assert!(!keeps_structure(UnitEdge { from: 6, to: 3 }, &placed));
        // Jumping to the header itself, or over the whole loop, is fine.
        assert!(keeps_structure(UnitEdge { from: 1, to: 2 }, &placed));
        assert!(keeps_structure(UnitEdge { from: 1, to: 9 }, &placed));
    }

    #[test]
    fn empty_input_gives_one_returning_block() {
        let mut u = Unstructured::new(&[]);
        let s = generate(&mut Choices::new(&mut u), &Config::default(), 0);
        assert_eq!(s.succs, vec![Vec::<u32>::new()]);
    }
}
