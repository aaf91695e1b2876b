//! The interface every allocator under test implements: one call from a
//! valid function and machine to an allocation, or an [`AllocError`] saying
//! why there is none.

use crate::ir::function::Function;
use crate::ir::machine::MachineEnv;
use crate::ir::output::Output;
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
    /// The allocator is known to get this combination wrong: a bug already
    /// reported, which the harness counts apart instead of finding it again
    /// (a suppression, as sanitizers have). Outside allocators' adapters
    /// return it; rafuzz's `--no-suppress` runs the allocator anyway.
    Suppressed(String),
    /// The allocator itself broke: an outside program crashed, timed out or
    /// answered something that is not an allocation.
    Failed(String),
}

impl fmt::Display for AllocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AllocError::Impossible(m) => write!(f, "allocation impossible: {m}"),
            AllocError::Unsupported(m) => write!(f, "unsupported: {m}"),
            AllocError::Suppressed(m) => write!(f, "suppressed: {m}"),
            AllocError::Failed(m) => write!(f, "allocator failed: {m}"),
        }
    }
}

impl std::error::Error for AllocError {}

/// An allocator's own counters, by name.
pub type Counters = Vec<(&'static str, u64)>;

/// A register allocator under test.
pub trait Allocator: Send + Sync {
    /// The name used on the command line and in reports.
    fn name(&self) -> &'static str;

    /// Allocates a valid function for a valid machine.
    fn run(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError>;

    /// As [`Allocator::run`], with the allocator's own counters (splits,
    /// evictions, ...) by name, for `rafuzz alloc`; none by default.
    fn run_with_counters(
        &self,
        func: &Function,
        env: &MachineEnv,
    ) -> Result<(Output, Counters), AllocError> {
        self.run(func, env).map(|o| (o, Vec::new()))
    }
}

/// A borrowed allocator is one too, so that a harness can hold a static
/// allocator and one built for its settings alike (`Arc<dyn Allocator>`).
impl<A: Allocator + ?Sized> Allocator for &A {
    fn name(&self) -> &'static str {
        (**self).name()
    }

    fn run(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        (**self).run(func, env)
    }

    fn run_with_counters(
        &self,
        func: &Function,
        env: &MachineEnv,
    ) -> Result<(Output, Counters), AllocError> {
        (**self).run_with_counters(func, env)
    }
}
