//! How far the interpreter oracle looks at one allocation: a leaf, so that
//! an adapter that runs the oracles itself (the `regalloc` crate's, to tell
//! its checker's false alarms apart) uses the judge's bounds without
//! importing the judge.

/// Interpreter paths tried per allocation.
pub const PATHS: u64 = 3;
/// Steps per interpreter path.
pub const MAX_STEPS: usize = 5_000;
