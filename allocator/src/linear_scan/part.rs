//! Interval parts: a window of one vreg's lifetime interval (holes
//! included) with one home, the unit the scan allocates and splits, and
//! what it hands to `homes` and `assemble`.

use crate::ir::index::{PReg, SpillSlot};
use crate::ir::output::Allocation;

/// No part (the end of a list, a vreg with no interval, a free register).
pub const NONE: u32 = u32::MAX;
/// Where a part lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loc {
    Unassigned,
    Reg(PReg),
    Stack,
}

/// A window `[start, end)` of one vreg's interval with one home. `next`
/// links the vreg's parts in position order.
#[derive(Clone, Copy, Debug)]
pub struct Part {
    pub vreg: u32,
    pub start: u32,
    pub end: u32,
    pub loc: Loc,
    pub next: u32,
}

/// The placeholder allocation for vreg `v`'s spill slot; `assemble`
/// renumbers slots densely once the spilled values are known. Placeholders
/// from the number of vregs on are temporaries of one instruction.
#[inline]
pub fn slot_of(v: usize) -> Allocation {
    Allocation::Stack(SpillSlot::new(v))
}
