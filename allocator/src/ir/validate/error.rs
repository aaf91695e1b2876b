//! What the validator reports: a broken rule's message and the [`Site`]
//! it is at.

use crate::ir::index::{Block, Inst, RegClass};
use std::fmt;

/// The four register lists of a machine line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MachineList {
    Preferred = 0,
    NonPreferred = 1,
    Scratch = 2,
    FixedStack = 3,
}

/// Where in a case an error is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Site {
    Machine,
    MachineClass(RegClass),
    MachineReg {
        class: RegClass,
        list: MachineList,
        index: usize,
    },
    Function,
    Block(Block),
    BlockParam(Block, usize),
    Inst(Inst),
    Operand(Inst, usize),
    Clobber(Inst, usize),
    /// The `t`-th target of a branch.
    Target(Inst, usize),
    /// Argument `k` of target `t`.
    BranchArg(Inst, usize, usize),
    /// The allocation of operand `k` of an instruction.
    Alloc(Inst, usize),
    /// The `e`-th edit of an allocation.
    Edit(usize),
}

/// One broken rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationError {
    pub site: Site,
    pub message: String,
}

impl fmt::Display for ValidationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A [`ValidationError`] at `site`.
pub(super) fn err(site: Site, message: String) -> ValidationError {
    ValidationError { site, message }
}
