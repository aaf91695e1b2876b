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
use crate::config::{Config, Sizes};
use allocator::analysis::cfg::Graph;
use allocator::Block;

/// A CFG without instructions: at most two successors per block (none: the
/// block returns), blocks numbered in spine order, block 0 the entry (the
/// function built on it renumbers them in dominator-tree preorder).
#[derive(Clone, Debug, Default)]
pub struct Skeleton {
    succs: Vec<[Block; 2]>,
    nsucc: Vec<u8>,
    pred_start: Vec<u32>,
    preds: Vec<Block>,
}

impl Skeleton {
    fn new(succs: Vec<[Block; 2]>, nsucc: Vec<u8>) -> Skeleton {
        let n = succs.len();
        let mut pred_start = vec![0u32; n + 1];
        for (s, &k) in succs.iter().zip(&nsucc) {
            for t in &s[..k as usize] {
                pred_start[t.index() + 1] += 1;
            }
        }
        for b in 0..n {
            pred_start[b + 1] += pred_start[b];
        }
        let mut fill = pred_start.clone();
        let mut preds = vec![Block::INVALID; pred_start[n] as usize];
        for (b, (s, &k)) in succs.iter().zip(&nsucc).enumerate() {
            for t in &s[..k as usize] {
                preds[fill[t.index()] as usize] = Block::new(b);
                fill[t.index()] += 1;
            }
        }
        Skeleton {
            succs,
            nsucc,
            pred_start,
            preds,
        }
    }
}

impl Graph for Skeleton {
    fn num_blocks(&self) -> usize {
        self.succs.len()
    }
    fn succs(&self, b: Block) -> &[Block] {
        &self.succs[b.index()][..self.nsucc[b.index()] as usize]
    }
    fn preds(&self, b: Block) -> &[Block] {
        &self.preds[self.pred_start[b.index()] as usize..self.pred_start[b.index() + 1] as usize]
    }
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

/// Units drawn as [`Sizes::Skewed`] says.
fn skewed_units(
    c: &mut Choices,
    (typical, largest, smallest): (usize, usize, usize),
    max_blocks: usize,
) -> usize {
    let tail = c.int(0, 63) == 0;
    let x = c.int(0, 1 << 16) as f64 / (1 << 16) as f64;
    let units = if tail {
        (largest.max(1) as f64).powf(x)
    } else {
        (typical.max(1) as f64).powf(x.powf(2.5))
    };
    (units.round() as usize)
        .max(smallest)
        .clamp(1, max_blocks.max(1))
}

pub fn generate(c: &mut Choices, cfg: &Config, input_len: usize) -> Skeleton {
    let n_units = match cfg.sizes {
        Sizes::ByInput => {
            let max = (1 + input_len / cfg.bytes_per_unit.max(1)).min(cfg.max_blocks.max(1));
            c.int(1, max)
        }
        Sizes::Skewed {
            typical,
            largest,
            smallest,
        } => skewed_units(c, (typical, largest, smallest), cfg.max_blocks),
    };
    let budget = cfg.max_blocks.max(1);
    // Per unit: its A block, and its C block when it is a triad.
    let mut a_block = Vec::with_capacity(n_units);
    let mut c_block = Vec::with_capacity(n_units);
    let mut succs: Vec<[Block; 2]> = Vec::with_capacity(3 * n_units);
    let mut nsucc: Vec<u8> = Vec::with_capacity(3 * n_units);
    let set = |succs: &mut Vec<[Block; 2]>, nsucc: &mut Vec<u8>, b: u32, to: &[u32]| {
        for (k, &t) in to.iter().enumerate() {
            succs[b as usize][k] = Block(t);
        }
        nsucc[b as usize] = to.len() as u8;
    };
    for u in 0..n_units {
        let remaining_units = n_units - u - 1;
        let triad = succs.len() + 3 + remaining_units <= budget && c.chance(1, 2);
        let a = succs.len() as u32;
        a_block.push(a);
        let blocks = if triad { 3 } else { 1 };
        succs.extend(std::iter::repeat_n([Block::INVALID; 2], blocks));
        nsucc.extend(std::iter::repeat_n(0, blocks));
        if triad {
            let (b, cb) = (a + 1, a + 2);
            let order = if c.chance(1, 2) { [b, cb] } else { [cb, b] };
            set(&mut succs, &mut nsucc, a, &order);
            c_block.push(Some(cb));
        } else {
            c_block.push(None);
        }
    }
    // The spine.
    for (u, (&a, cb)) in a_block.iter().zip(&c_block).enumerate() {
        let exit = if cb.is_some() { a + 1 } else { a };
        if let Some(&next) = a_block.get(u + 1) {
            set(&mut succs, &mut nsucc, exit, &[next]);
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
        if to <= u && !c.sixteenths(cfg.back_edge_sixteenths) {
            continue; // returns instead of closing a loop
        }
        if !cfg.irreducible && !keeps_structure(UnitEdge { from: u, to }, &placed) {
            to = u; // a loop of A and C alone never bypasses anything
        }
        let e = UnitEdge { from: u, to };
        if e.to > e.from + 1 || e.to <= e.from {
            placed.push(e);
        }
        set(&mut succs, &mut nsucc, cb, &[a_block[to]]);
    }
    Skeleton::new(succs, nsucc)
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
        assert_eq!(s.num_blocks(), 1);
        assert!(s.succs(Block(0)).is_empty());
    }
}
