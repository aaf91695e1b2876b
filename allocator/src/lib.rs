//! The IR every stage of the harness shares, its text format and validator
//! ([`ir`]), the CFG analyses ([`analysis`]), the parallel move resolver
//! every allocator uses ([`moves`]), the [`Allocator`] interface, and the
//! register allocators under test.
//!
//! The model is regalloc2's: SSA over virtual registers, block parameters
//! instead of phi nodes, operands carrying constraints, and an output made of
//! one allocation per operand plus moves inserted between instructions.
//!
//! `docs/architecture.md` maps the stages and what each hands to the next.

pub mod analysis;
pub mod backtracking;
pub mod coloring;
pub mod counting_sort;
pub mod fixed_clobbered;
pub mod fixtures;
pub mod framing;
pub mod gallop;
pub mod inst_regs;
pub mod interface;
pub mod ir;
pub mod linear_scan;
pub mod move_sets;
pub mod moves;
pub mod own_def_args;
pub mod redundant;
pub mod slot_cache;
pub mod slot_layout;
pub mod spill_everywhere;

pub use interface::{AllocError, Allocator};
pub use ir::case::Case;
pub use ir::function::{Function, FunctionBuilder, InstRange, Opcode};
pub use ir::index::{
    Block, Inst, InstPosition, PReg, PRegSet, ProgPoint, RegClass, SpillSlot, VReg,
};
pub use ir::machine::{MachineEnv, PRegRole, SlotGeometry};
pub use ir::operand::{Operand, OperandConstraint, OperandKind, OperandPos};
pub use ir::output::{Allocation, Move, Output, Stats};
pub use ir::per_class::PerClass;
