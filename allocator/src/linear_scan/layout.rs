//! The linear order the scan walks and the positions it numbers.
//!
//! Blocks are laid out by [`crate::analysis::block_order`]: defs before uses, and every loop
//! of a reducible CFG in one contiguous run of blocks. Instruction `n` of
//! that order (counting from 0) has two positions: `2n`, its early point,
//! and `2n + 1`, its late point. Moves happen between positions: the moves
//! "before" instruction `n` run between `2n - 1` and `2n`. A block covers
//! the half-open range from its first instruction's early point to one past
//! its last instruction's late point.

use crate::analysis::block_order;
use crate::analysis::loops::LoopForest;
use crate::ir::function::Function;
use crate::ir::index::{Block, Inst};
use std::fmt;
use std::ops::{Add, Sub};

/// A position in the linear order: `2n` is the early point of the
/// instruction in linear slot `n`, `2n + 1` its late point.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pos(u32);

impl Pos {
    /// Past every position: "never" where a position is asked for.
    pub const MAX: Pos = Pos(u32::MAX);

    /// Position number `n`, for tests that write positions out.
    #[cfg(test)]
    pub fn raw(n: u32) -> Pos {
        Pos(n)
    }

    /// The early point of linear slot `n`.
    #[inline]
    pub fn early(n: usize) -> Pos {
        Pos(2 * n as u32)
    }

    /// The linear slot the position belongs to.
    #[inline]
    pub fn slot(self) -> usize {
        (self.0 / 2) as usize
    }

    /// The early point of the position's slot.
    #[inline]
    pub fn early_point(self) -> Pos {
        Pos(self.0 & !1)
    }

    /// The first linear slot whose early point is at or after the
    /// position.
    #[inline]
    pub fn first_slot_from(self) -> usize {
        self.0.div_ceil(2) as usize
    }

    #[inline]
    pub fn is_early(self) -> bool {
        self.0.is_multiple_of(2)
    }
}

/// `p + k`: `k` positions later (`+ 1` from an early point is the late
/// point, `+ 2` the next instruction's early point).
impl Add<u32> for Pos {
    type Output = Pos;
    #[inline]
    fn add(self, k: u32) -> Pos {
        Pos(self.0 + k)
    }
}

impl Sub<u32> for Pos {
    type Output = Pos;
    #[inline]
    fn sub(self, k: u32) -> Pos {
        Pos(self.0 - k)
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Positions of every instruction and block; see the module doc.
pub struct Layout {
    /// Blocks in linear order.
    pub order: Vec<Block>,
    /// Early point of each instruction, by instruction index.
    pub pos: Vec<Pos>,
    /// The instruction at each linear slot (`position / 2`).
    pub inst_at: Vec<Inst>,
    /// Per block: `(start, end)` positions.
    pub span: Vec<(Pos, Pos)>,
    /// Per linear slot: whether its instruction is the first of its block.
    pub block_start: Vec<bool>,
    /// Per block: how often it runs, estimated as `4^depth` of its loop
    /// depth capped at 5 (the weights of the loop-weighted cost).
    pub freq: Vec<u32>,
}

impl Layout {
    /// Lays out a valid function.
    pub fn new(f: &Function) -> Layout {
        let forest = LoopForest::new(f);
        let order = block_order::compute_in(f, &forest);
        let mut pos = vec![Pos::default(); f.num_insts()];
        let mut inst_at = Vec::with_capacity(f.num_insts());
        let mut span = vec![(Pos::default(), Pos::default()); f.num_blocks()];
        let mut block_start = Vec::with_capacity(f.num_insts());
        for &b in &order {
            let start = Pos::early(inst_at.len());
            for (k, i) in f.block_insts(b).iter().enumerate() {
                pos[i.index()] = Pos::early(inst_at.len());
                inst_at.push(i);
                block_start.push(k == 0);
            }
            span[b.index()] = (start, Pos::early(inst_at.len()));
        }
        Layout {
            order,
            pos,
            inst_at,
            span,
            block_start,
            freq: forest.depth.iter().map(|&d| 4u32.pow(d.min(5))).collect(),
        }
    }

    /// The instruction whose early point is `p` (or whose late point is).
    #[inline]
    pub fn inst(&self, p: Pos) -> Inst {
        self.inst_at[p.slot()]
    }

    /// Whether `p` is the first position of a block.
    #[inline]
    pub fn is_block_start(&self, p: Pos) -> bool {
        p.is_early() && self.block_start[p.slot()]
    }
}
