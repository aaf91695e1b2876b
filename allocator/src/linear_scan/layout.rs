//! The linear order the scan walks and the positions it numbers.
//!
//! Blocks are laid out by [`crate::analysis::block_order`]: defs before uses, and every loop
//! of a reducible CFG in one contiguous run of blocks. Instruction `n` of
//! that order (counting from 0) has two positions: `2n`, its early point,
//! and `2n + 1`, its late point. Moves happen between positions: the moves
//! "before" instruction `n` run between `2n - 1` and `2n`. A block covers
//! the half-open range from its first instruction's early point to one past
//! its last instruction's late point.

use crate::ir::function::Function;
use crate::ir::index::{Block, Inst};

/// Positions of every instruction and block; see the module doc.
pub struct Layout {
    /// Blocks in linear order.
    pub order: Vec<Block>,
    /// Early point of each instruction, by instruction index.
    pub pos: Vec<u32>,
    /// The instruction at each linear slot (`position / 2`).
    pub inst_at: Vec<Inst>,
    /// Per block: `(start, end)` positions.
    pub span: Vec<(u32, u32)>,
    /// Per linear slot: whether its instruction is the first of its block.
    pub block_start: Vec<bool>,
}

impl Layout {
    /// Lays out a valid function.
    pub fn new(f: &Function) -> Layout {
        let order = crate::analysis::block_order::compute(f);
        let mut pos = vec![0u32; f.num_insts()];
        let mut inst_at = Vec::with_capacity(f.num_insts());
        let mut span = vec![(0, 0); f.num_blocks()];
        let mut block_start = Vec::with_capacity(f.num_insts());
        for &b in &order {
            let start = 2 * inst_at.len() as u32;
            for (k, i) in f.block_insts(b).iter().enumerate() {
                pos[i.index()] = 2 * inst_at.len() as u32;
                inst_at.push(i);
                block_start.push(k == 0);
            }
            span[b.index()] = (start, 2 * inst_at.len() as u32);
        }
        Layout {
            order,
            pos,
            inst_at,
            span,
            block_start,
        }
    }

    /// The instruction whose early point is `p` (or whose late point is).
    #[inline]
    pub fn inst(&self, p: u32) -> Inst {
        self.inst_at[(p / 2) as usize]
    }

    /// Whether `p` is the first position of a block.
    #[inline]
    pub fn is_block_start(&self, p: u32) -> bool {
        p.is_multiple_of(2) && self.block_start[(p / 2) as usize]
    }
}
