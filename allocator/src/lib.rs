//! The IR every stage of the harness shares (functions, operands, machine
//! environments, allocation outputs), its text format, the CFG analyses,
//! the validator, and the register allocators under test.
//!
//! The model is regalloc2's: SSA over virtual registers, block parameters
//! instead of phi nodes, operands carrying constraints, and an output made of
//! one allocation per operand plus moves inserted between instructions.

pub mod bitset;
pub mod block_order;
pub mod cfg;
pub mod domtree;
pub mod function;
pub mod index;
pub mod inst_regs;
pub mod linear_scan;
pub mod liveness;
pub mod loops;
pub mod machine;
pub mod moves;
pub mod operand;
pub mod output;
pub mod registry;
pub mod spill_everywhere;
pub mod text;
pub mod validate;

pub use function::{Function, FunctionBuilder, InstRange, Opcode};
pub use index::{Block, Inst, InstPosition, PReg, PRegSet, ProgPoint, RegClass, SpillSlot, VReg};
pub use machine::{MachineEnv, PRegRole};
pub use operand::{Operand, OperandConstraint, OperandKind, OperandPos};
pub use output::{Allocation, Move, Output, Stats};
pub use registry::{allocator_by_name, allocators, AllocError, Allocator};
pub use text::Case;
