//! The checker's errors and how their messages are worded.

use super::boundary::VSet;
use allocator::ir::validate::Site;
use allocator::{Function, Operand};
use std::fmt;

/// The kind of a checker error: what reduction must preserve and what the
/// fuzzer counts as a feature.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ErrorKind {
    /// The output has the wrong number of allocations.
    AllocCount,
    /// An operand or a move location is `none`.
    NoneAllocation,
    /// A register of another class than the value.
    WrongClass,
    /// A register the machine does not offer for this use.
    NotInMachine,
    /// An operand's allocation breaks its constraint.
    Constraint,
    /// A spill slot at or above the declared count.
    SpillSlotRange,
    /// A move from memory to memory.
    StackToStack,
    /// An edit after a branch or ret, or at an instruction that does not exist.
    EditPlacement,
    /// Edits not sorted by program point.
    EditOrder,
    /// Two values live at one point of an instruction share a location.
    Interference,
    /// A def, or a late use, is in a register its instruction clobbers.
    ClobberedDef,
    /// A use reads a location that does not hold its vreg.
    WrongValue,
}

impl ErrorKind {
    pub const ALL: [ErrorKind; 12] = [
        ErrorKind::AllocCount,
        ErrorKind::NoneAllocation,
        ErrorKind::WrongClass,
        ErrorKind::NotInMachine,
        ErrorKind::Constraint,
        ErrorKind::SpillSlotRange,
        ErrorKind::StackToStack,
        ErrorKind::EditPlacement,
        ErrorKind::EditOrder,
        ErrorKind::Interference,
        ErrorKind::ClobberedDef,
        ErrorKind::WrongValue,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::AllocCount => "alloc-count",
            ErrorKind::NoneAllocation => "none-allocation",
            ErrorKind::WrongClass => "wrong-class",
            ErrorKind::NotInMachine => "not-in-machine",
            ErrorKind::Constraint => "constraint",
            ErrorKind::SpillSlotRange => "spill-slot-range",
            ErrorKind::StackToStack => "stack-to-stack",
            ErrorKind::EditPlacement => "edit-placement",
            ErrorKind::EditOrder => "edit-order",
            ErrorKind::Interference => "interference",
            ErrorKind::ClobberedDef => "clobbered-def",
            ErrorKind::WrongValue => "wrong-value",
        }
    }
}

/// One error, in plain words, with where it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckError {
    pub kind: ErrorKind,
    pub site: Site,
    pub message: String,
    /// A `WrongValue` read of a location that holds no live value at all
    /// (nothing the program still needs), rather than another value.
    pub read_nothing: bool,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

pub(super) fn vname(op: Operand) -> String {
    if op.is_nonalloc() {
        op.to_string()
    } else {
        op.vreg().to_string()
    }
}

/// A location's set in words: `nothing`, or its vregs with their classes
/// (found by a scan of the definitions: this runs only for messages).
pub(super) fn describe_set(set: &VSet, f: &Function) -> String {
    if set.is_empty() {
        return "no live value".into();
    }
    let class_of = |v: u32| {
        f.blocks()
            .flat_map(|b| f.block_params(b).iter().copied())
            .chain(f.insts().flat_map(|i| {
                f.inst_operands(i)
                    .iter()
                    .filter(|o| o.is_def())
                    .map(|o| o.vreg())
            }))
            .find(|x| x.index() == v as usize)
            .map_or(allocator::RegClass::Int, |x| x.class())
    };
    let mut names: Vec<String> = set
        .iter()
        .map(|&v| allocator::VReg::new(v as usize, class_of(v)).to_string())
        .collect();
    names.sort();
    format!("{{{}}}", names.join(", "))
}

pub(super) fn article(c: allocator::RegClass) -> &'static str {
    match c {
        allocator::RegClass::Int => "an",
        _ => "a",
    }
}

pub(super) fn slots(n: usize) -> String {
    if n == 1 {
        "1 spill slot".into()
    } else {
        format!("{n} spill slots")
    }
}

/// A message prefix built only when an error is reported.
pub(super) struct Lazy<F: Fn() -> String>(pub(super) F);

impl<F: Fn() -> String> fmt::Display for Lazy<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&(self.0)())
    }
}
