//! The interface every allocator under test implements, and the registry the
//! command line and the fuzz targets iterate.

use crate::function::Function;
use crate::machine::MachineEnv;
use crate::output::Output;
use std::fmt;

/// Why an allocator gave up on a function. An allocator never panics on a
/// valid function: it returns one of these.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AllocError {
    /// No allocation exists (more values need registers at one point than the
    /// machine has) or the allocator's work bound ran out.
    Impossible(String),
    /// The allocator does not handle this combination of features; counted
    /// apart, never a finding.
    Unsupported(String),
    /// The allocator itself broke: an outside program crashed, timed out or
    /// answered something that is not an allocation.
    Failed(String),
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::Impossible(m) => write!(f, "allocation impossible: {m}"),
            AllocError::Unsupported(m) => write!(f, "unsupported: {m}"),
            AllocError::Failed(m) => write!(f, "allocator failed: {m}"),
        }
    }
}

impl std::error::Error for AllocError {}

/// A register allocator under test.
pub trait Allocator: Send + Sync {
    /// The name used on the command line and in reports.
    fn name(&self) -> &'static str;

    /// Allocates a valid function for a valid machine.
    fn run(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError>;
}

/// Every allocator of this crate, in a fixed order.
pub fn allocators() -> Vec<&'static dyn Allocator> {
    vec![
        &crate::spill_everywhere::SpillEverywhere,
        &crate::linear_scan::LinearScan,
    ]
}

/// The allocator of this crate called `name`.
pub fn allocator_by_name(name: &str) -> Option<&'static dyn Allocator> {
    allocators().into_iter().find(|a| a.name() == name)
}
