//! Oracles for register allocations: they decide whether an allocator's
//! output keeps the program's meaning.
//!
//! - [`symbolic`]: the symbolic checker, a dataflow fixpoint over the
//!   powerset lattice of vregs per location, plus every constraint.
//! - [`interp`]: the concrete interpreter, which runs the program before and
//!   after allocation along the same path and compares every use.
//! - [`moves`]: an abstract interpreter for resolved parallel moves.

pub mod interp;
pub mod moves;
pub mod symbolic;

pub use symbolic::{check, CheckError, Checker, ErrorKind};
