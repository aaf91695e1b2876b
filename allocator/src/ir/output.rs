//! What an allocator produces: one allocation per operand, moves inserted
//! between instructions, and the number of spill slots used.

use crate::ir::function::Function;
use crate::ir::index::{Inst, PReg, ProgPoint, RegClass, SpillSlot};
use std::fmt;

/// Where a value lives at one operand: nowhere, a physical register (which
/// may stand for a fixed stack location) or a spill slot.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Allocation {
    #[default]
    None,
    Reg(PReg),
    Stack(SpillSlot),
}

impl Allocation {
    #[inline]
    pub fn is_none(self) -> bool {
        self == Allocation::None
    }

    #[inline]
    pub fn as_reg(self) -> Option<PReg> {
        match self {
            Allocation::Reg(r) => Some(r),
            _ => None,
        }
    }

    #[inline]
    pub fn as_stack(self) -> Option<SpillSlot> {
        match self {
            Allocation::Stack(s) => Some(s),
            _ => None,
        }
    }
}

impl fmt::Display for Allocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Allocation::None => f.write_str("none"),
            Allocation::Reg(r) => write!(f, "{r}"),
            Allocation::Stack(s) => write!(f, "{s}"),
        }
    }
}

/// A move inserted by the allocator: `to := from`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Allocation,
    pub to: Allocation,
}

impl Move {
    /// The class of the value moved: its register end's (a valid move names
    /// at least one register; `None` for one between two stack slots).
    pub fn class(self) -> Option<RegClass> {
        match (self.from, self.to) {
            (Allocation::Reg(r), _) | (_, Allocation::Reg(r)) => Some(r.class()),
            _ => None,
        }
    }
}

/// Counts of the moves an allocation inserted, for comparing allocators.
/// A fixed stack location counts as memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Stats {
    /// All inserted moves.
    pub moves: usize,
    /// Register to memory.
    pub spills: usize,
    /// Memory to register.
    pub reloads: usize,
    /// Register to register.
    pub reg_moves: usize,
}

/// An allocator's result for one function.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Output {
    /// One allocation per operand, in the function's flat operand order
    /// (see [`Function::inst_operand_range`]).
    pub allocs: Vec<Allocation>,
    /// Inserted moves sorted by program point; moves at one point run in
    /// vector order.
    pub edits: Vec<(ProgPoint, Move)>,
    /// Spill slots `stack0..stack<num_spillslots-1>` may be used.
    pub num_spillslots: usize,
}

impl Output {
    /// The allocations of instruction `i`'s operands.
    #[inline]
    pub fn inst_allocs<'a>(&'a self, func: &Function, i: Inst) -> &'a [Allocation] {
        &self.allocs[func.inst_operand_range(i)]
    }

    /// Whether `edits` is sorted by program point (an invariant every
    /// allocator must keep).
    pub fn edits_sorted(&self) -> bool {
        self.edits.windows(2).all(|w| w[0].0 <= w[1].0)
    }

    /// The moves weighted by the loop depth of the block they run in:
    /// `4^depth` each, the depth capped at 5, so a move in an inner loop
    /// counts more. `depth` is [`crate::analysis::loops::loop_depths`] of `func`. This
    /// is the figure to compare allocators by.
    pub fn weighted_moves(&self, func: &Function, depth: &[u32]) -> u64 {
        self.edits
            .iter()
            .filter(|(p, _)| p.inst().index() < func.num_insts())
            .map(|(p, _)| 4u64.pow(depth[func.block_of(p.inst()).index()].min(5)))
            .sum()
    }

    /// The loop-weighted cost of the inserted moves, in tenths: each move
    /// weighted by its kind (register to register 0.2, a reload 4, a spill
    /// store 1: LLVM's RegAllocScore weights) times the frequency of its
    /// block, `4^depth` with the depth capped at 5. `depth` is
    /// [`crate::analysis::loops::loop_depths`] of `func`; `is_memory` says
    /// whether a register stands for memory (a fixed stack location).
    pub fn cost_tenths(
        &self,
        func: &Function,
        depth: &[u32],
        is_memory: impl Fn(PReg) -> bool,
    ) -> u64 {
        let mem = |a: Allocation| match a {
            Allocation::Stack(_) => true,
            Allocation::Reg(r) => is_memory(r),
            Allocation::None => false,
        };
        self.edits
            .iter()
            .filter(|(p, _)| p.inst().index() < func.num_insts())
            .map(|(p, m)| {
                let kind = match (mem(m.from), mem(m.to)) {
                    (false, false) => 2,
                    (true, false) => 40,
                    (false, true) => 10,
                    (true, true) => 50,
                };
                kind * 4u64.pow(depth[func.block_of(p.inst()).index()].min(5))
            })
            .sum()
    }

    /// Counts the inserted moves by kind. `is_memory` says whether a register
    /// stands for memory (a fixed stack location).
    pub fn stats(&self, is_memory: impl Fn(PReg) -> bool) -> Stats {
        let mem = |a: Allocation| match a {
            Allocation::Stack(_) => true,
            Allocation::Reg(r) => is_memory(r),
            Allocation::None => false,
        };
        let mut s = Stats::default();
        for (_, m) in &self.edits {
            s.moves += 1;
            match (mem(m.from), mem(m.to)) {
                (false, true) => s.spills += 1,
                (true, false) => s.reloads += 1,
                (false, false) => s.reg_moves += 1,
                (true, true) => {}
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_classify_moves() {
        let r0 = Allocation::Reg(PReg::new(0, RegClass::Int));
        let r1 = Allocation::Reg(PReg::new(1, RegClass::Int));
        let fs = Allocation::Reg(PReg::new(32, RegClass::Int));
        let s0 = Allocation::Stack(SpillSlot(0));
        let at = ProgPoint::before(Inst(0));
        let out = Output {
            allocs: vec![],
            edits: vec![
                (at, Move { from: r0, to: s0 }),
                (at, Move { from: s0, to: r1 }),
                (at, Move { from: r1, to: r0 }),
                (at, Move { from: fs, to: r0 }),
                (at, Move { from: r0, to: fs }),
            ],
            num_spillslots: 1,
        };
        let s = out.stats(|r| r.hw() == 32);
        assert_eq!(
            s,
            Stats {
                moves: 5,
                spills: 2,
                reloads: 2,
                reg_moves: 1
            }
        );
        assert!(out.edits_sorted());
        let mut b = crate::FunctionBuilder::new();
        b.block(&[]);
        b.inst(crate::Opcode::Ret, &[], &[], &[]);
        let f = b.finish().unwrap();
        assert_eq!(out.weighted_moves(&f, &[2]), 5 * 16);
        assert_eq!(out.weighted_moves(&f, &[0]), 5);
        // Store 1, reload 4, register move 0.2, reload 4, store 1; at depth 1
        // each counts four times.
        assert_eq!(
            out.cost_tenths(&f, &[0], |r| r.hw() == 32),
            10 + 40 + 2 + 40 + 10
        );
        assert_eq!(out.cost_tenths(&f, &[1], |r| r.hw() == 32), 4 * 102);
    }
}
