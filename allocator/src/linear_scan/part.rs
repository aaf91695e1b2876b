//! Interval parts: a window of one vreg's lifetime interval (holes
//! included) with one home, the unit the scan allocates and splits, and
//! what it hands to `homes` and `assemble`.

use super::layout::Pos;
use crate::ir::index::{PReg, SpillSlot};
use crate::ir::output::Allocation;

/// A part's index in the scan's list of [`Parts`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct PartId(u32);

impl PartId {
    /// No part: the end of a vreg's chain, a vreg with no interval, a free
    /// register.
    pub const NONE: PartId = PartId(u32::MAX);

    #[inline]
    pub fn new(index: usize) -> PartId {
        debug_assert!(index < u32::MAX as usize);
        PartId(index as u32)
    }

    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for PartId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "part{}", self.0)
    }
}

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
    pub start: Pos,
    pub end: Pos,
    pub loc: Loc,
    pub next: PartId,
}

/// Every part, indexed by [`PartId`].
#[derive(Default)]
pub struct Parts(Vec<Part>);

impl Parts {
    pub fn with_capacity(n: usize) -> Parts {
        Parts(Vec::with_capacity(n))
    }

    /// Adds a part: its id.
    pub fn push(&mut self, x: Part) -> PartId {
        self.0.push(x);
        PartId::new(self.0.len() - 1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Part> {
        self.0.iter()
    }
}

impl std::ops::Index<PartId> for Parts {
    type Output = Part;
    #[inline]
    fn index(&self, p: PartId) -> &Part {
        &self.0[p.index()]
    }
}

impl std::ops::IndexMut<PartId> for Parts {
    #[inline]
    fn index_mut(&mut self, p: PartId) -> &mut Part {
        &mut self.0[p.index()]
    }
}

/// The placeholder allocation for vreg `v`'s spill slot; `assemble`
/// renumbers slots densely once the spilled values are known. Placeholders
/// from the number of vregs on are temporaries of one instruction.
#[inline]
pub fn slot_of(v: usize) -> Allocation {
    Allocation::Stack(SpillSlot::new(v))
}
