//! Oracles for register allocations: they decide whether an allocator's
//! output keeps the program's meaning.
//!
//! - [`moves`]: an abstract interpreter for resolved parallel moves.

pub mod moves;
