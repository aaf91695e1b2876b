//! Oracles for register allocations: they decide whether an allocator's
//! output keeps the program's meaning.
//!
//! - [`symbolic`]: the symbolic checker, a dataflow fixpoint over the
//!   powerset lattice of vregs per location, plus every constraint.
//! - [`interp`]: the concrete interpreter, which runs the program before and
//!   after allocation along the same path and compares every use.
//! - [`moves`]: an abstract interpreter for resolved parallel moves.
//! - `regalloc2` (feature `regalloc2`): the symbolic checker over
//!   regalloc2's `Function`, `MachineEnv` and `Output`, for a compiler to
//!   run in-process.

pub mod interp;
pub mod moves;
#[cfg(feature = "regalloc2")]
pub mod regalloc2;
pub mod symbolic;

pub use symbolic::{check, CheckError, Checker, ErrorKind};

/// [`check`] every way, the proof first and the dataflow with dense
/// liveness rows and with sparse sets, panicking when they disagree
/// ([`Checker::check_both_ways`]): what a test that judges allocations
/// calls, so that the path only huge functions take is tried on every case.
pub fn check_both_ways(
    f: &allocator::Function,
    env: &allocator::MachineEnv,
    out: &allocator::Output,
) -> Vec<CheckError> {
    Checker::default().check_both_ways(f, env, out)
}
