//! The unit every stage of the pipeline hands on: a machine, a function and,
//! once an allocator has run, its allocation. The generator makes one, the
//! text format reads and prints one, allocators fill in `output`, and the
//! oracles judge it.

use crate::ir::function::Function;
use crate::ir::machine::MachineEnv;
use crate::ir::output::Output;

/// One case: a machine, a function and, optionally, an allocation of it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Case {
    pub machine: MachineEnv,
    pub func: Function,
    pub output: Option<Output>,
}
