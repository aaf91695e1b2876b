//! Which def reuses each operand of an instruction (`reuse(k)`), the
//! question the conflict table and the operand placement both ask.

use crate::ir::operand::{Operand, OperandConstraint};

/// Marks an operand no def reuses.
pub const NOT_REUSED: u32 = u32::MAX;

/// Marks an operand that two defs reuse (the scan then refuses the
/// instruction).
pub const SEVERAL: u32 = u32::MAX - 1;

/// `reused[k]` = the def operand reusing operand `k`, [`NOT_REUSED`], or
/// [`SEVERAL`].
pub fn mark_reused(ops: &[Operand], reused: &mut Vec<u32>) {
    reused.clear();
    reused.resize(ops.len(), NOT_REUSED);
    for (k, op) in ops.iter().enumerate() {
        if let OperandConstraint::Reuse(t) = op.constraint() {
            if reused[t] == NOT_REUSED {
                reused[t] = k as u32;
            } else {
                reused[t] = SEVERAL;
            }
        }
    }
}
