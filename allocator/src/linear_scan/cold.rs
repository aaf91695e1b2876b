//! Cold joins: blocks entered over edges whose moves must run before a
//! branch that needs registers, so every value enters them in its slot.

use crate::analysis::cfg;
use crate::interface::AllocError;
use crate::ir::function::Function;
use crate::ir::index::PReg;
use crate::ir::operand::OperandConstraint;

/// Blocks whose incoming edge moves must leave every value in its slot.
///
/// An edge from a block with one successor into a join runs its moves
/// *before* the branch (there is no room after it), and the branch then
/// reads its operands and clobbers its registers. Any register the moves
/// fill could be one the branch reads or clobbers. When one of those
/// branches needs a register for an operand or clobbers an allocatable
/// register, every live value and every parameter of the join starts in
/// its spill slot, so the moves write only slots. Such a branch's other
/// operands, and every operand of the other branches into joins, read
/// memory (see the scan's operand placement). A branch that defines values flowing
/// into a join has nowhere to move them before it runs: unsupported.
pub fn cold_blocks(f: &Function, alloc_mask: &[u64; 3]) -> Result<Vec<bool>, AllocError> {
    let is_alloc = |r: PReg| alloc_mask[r.class().index()] & (1 << r.hw()) != 0;
    let mut cold = vec![false; f.num_blocks()];
    for b in f.blocks() {
        let Some(join) = cfg::join_successor(f, b) else {
            continue;
        };
        let k = f.block_insts(b).last();
        let ops = f.inst_operands(k);
        if ops.iter().any(|o| o.is_def()) {
            return Err(AllocError::Unsupported(format!(
                "{k} defines a value and jumps to {}, which has several predecessors",
                join
            )));
        }
        let needs_reg = ops.iter().any(|o| match o.constraint() {
            OperandConstraint::Reg | OperandConstraint::Limit(_) => true,
            OperandConstraint::FixedReg(r) => is_alloc(r),
            _ => false,
        });
        if needs_reg || f.inst_clobbers(k).iter().any(|&r| is_alloc(r)) {
            cold[join.index()] = true;
        }
    }
    Ok(cold)
}
