//! Edge coverage of the allocator under test, from the counters that
//! SanitizerCoverage adds to an instrumented build of `rafuzz`
//! (`scripts/coverage-build.sh`: stable rustc flags for inline 8-bit
//! counters and the PC table, and the cargo feature `coverage`).
//!
//! The contract: [`counters`] receives every module's counters and PC
//! table when the program starts and reads them; [`sites`] tells, from the
//! binary's debug info, the file, function and line of each counter and
//! the crate it belongs to; [`edges`] keeps the counters of the crates under
//! test, turns what one input reached into features (hit counts bucketed
//! as libFuzzer and AFL bucket them) and accumulates what a corpus reached;
//! [`report`] tells per file and function what was reached, as text and
//! HTML. An uninstrumented build has no counters: [`counters::instrumented`]
//! says so, and nothing else changes.

pub mod counters;
pub mod edges;
pub mod report;
pub mod sites;
