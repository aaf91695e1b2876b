//! Which def reuses each operand of an instruction (`reuse(k)`), the
//! question the conflict table and the operand placement both ask.

use super::part::NONE;
use crate::ir::operand::{Operand, OperandConstraint};

/// Marks an operand that two defs reuse (the scan then refuses the
/// instruction).
pub const SEVERAL: u32 = u32::MAX - 1;

/// `reused[k]` = the def operand reusing operand `k`, [`NONE`], or
/// [`SEVERAL`].
pub fn mark_reused(ops: &[Operand], reused: &mut Vec<u32>) {
    reused.clear();
    reused.resize(ops.len(), NONE);
    for (k, op) in ops.iter().enumerate() {
        if let OperandConstraint::Reuse(t) = op.constraint() {
            if reused[t] == NONE {
                reused[t] = k as u32;
            } else {
                reused[t] = SEVERAL;
            }
        }
    }
}
