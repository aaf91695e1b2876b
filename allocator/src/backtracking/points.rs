//! Program points of the backtracking allocator: three per instruction.
//!
//! - `M(i) = 3i`: the boundary before instruction `i` once the moves that
//!   enter a block have run. A value entering a block lives at the block's
//!   first `M` point in the location the edge moves put it in.
//! - `E(i) = 3i + 1`: the early point, where uses are read (and early defs
//!   written). Every split happens at an `E` point, so a move between two
//!   pieces of a value always runs "before inst i", after the edge moves.
//! - `L(i) = 3i + 2`: the late point, where defs are written, late uses
//!   read and clobbers happen.
//!
//! Live ranges are half-open `[from, to)` over these points and never cross
//! a block boundary.

use crate::ir::index::{Inst, RegClass};
use crate::ir::output::Allocation;

/// A program point (see the module documentation).
pub type Point = u32;

#[inline]
pub fn m(i: Inst) -> Point {
    3 * i.0
}

#[inline]
pub fn e(i: Inst) -> Point {
    3 * i.0 + 1
}

#[inline]
pub fn l(i: Inst) -> Point {
    3 * i.0 + 2
}

#[inline]
pub fn inst_of(p: Point) -> Inst {
    Inst(p / 3)
}

#[inline]
pub fn is_e(p: Point) -> bool {
    p % 3 == 1
}

/// The last `E` point at or before `p`, if any.
#[inline]
pub fn e_at_or_before(p: Point) -> Option<Point> {
    match p % 3 {
        0 => p.checked_sub(2),
        1 => Some(p),
        _ => Some(p - 1),
    }
}

/// The first `E` point strictly after the instruction holding `p`.
#[inline]
pub fn e_after_inst(p: Point) -> Point {
    3 * (p / 3 + 1) + 1
}

/// Priority classes of the moves that run at one boundary, in the order
/// they run: each class is one parallel move set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum MovePrio {
    /// Edge moves into a block with one predecessor, at its top.
    InEdge = 0,
    /// The moves of the instruction's own boundary, as one parallel set
    /// that reads the `M` point and writes what starts at the `E` point:
    /// between the split pieces of a value, into copy values, and reused
    /// inputs into their def's location.
    Before = 1,
    /// Edge moves out of a block whose successor has several predecessors,
    /// before its branch, with the branch's operand copies.
    OutEdge = 2,
}

impl MovePrio {
    /// How many classes there are: moves group by `(inst, class)` keys
    /// below `num_insts * COUNT`.
    pub const COUNT: usize = 3;
}

/// A move to make: at the boundary before `.0`, in its priority class
/// `.1`, `.3 := .2`, of register class `.4`; `.5` is the value when the
/// move carries one value from one of its pieces to another (else
/// [`NO_VALUE`]).
pub type PendingMove = (Inst, MovePrio, Allocation, Allocation, RegClass, u32);

/// See [`PendingMove`].
pub const NO_VALUE: u32 = u32::MAX;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e_points_round_as_documented() {
        let i = Inst(4);
        assert_eq!((m(i), e(i), l(i)), (12, 13, 14));
        assert_eq!(e_at_or_before(12), Some(10));
        assert_eq!(e_at_or_before(13), Some(13));
        assert_eq!(e_at_or_before(14), Some(13));
        assert_eq!(e_at_or_before(0), None);
        assert_eq!(e_after_inst(14), 16);
        assert_eq!(e_after_inst(12), 16);
        assert!(is_e(13) && !is_e(12) && !is_e(14));
        assert_eq!(inst_of(14), i);
        assert!(MovePrio::InEdge < MovePrio::Before && MovePrio::Before < MovePrio::OutEdge);
    }
}
