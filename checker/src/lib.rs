//! Oracles for register allocations: they decide whether an allocator's
//! output keeps the program's meaning.
//!
//! - [`symbolic`]: the symbolic checker, a dataflow fixpoint over the
//!   powerset lattice of vregs per location, plus every constraint.
//! - [`moves`]: an abstract interpreter for resolved parallel moves.

pub mod moves;
pub mod symbolic;

pub use symbolic::{check, CheckError, Checker, ErrorKind};
