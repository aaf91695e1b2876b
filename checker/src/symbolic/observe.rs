//! What the dataflow reports as it runs a block, besides its errors: a
//! hook that the plain check compiles away and [`super::trace`] fills in.

use allocator::Inst;

/// Where a [`Change`](super::trace::Change) happens: after edit `e` of the
/// output, or after an instruction (its clobbers and defs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TracePoint {
    Edit(usize),
    Inst(Inst),
}

/// What a block's run reports, besides its errors.
pub(super) trait Observe {
    /// Whether anything is reported (the check's observer is off).
    const ON: bool;
    fn wrote(&mut self, at: TracePoint, loc: u32, set: &[u32]);
}

/// The observer of a plain check.
pub(super) struct Quiet;

impl Observe for Quiet {
    const ON: bool = false;
    fn wrote(&mut self, _: TracePoint, _: u32, _: &[u32]) {}
}
