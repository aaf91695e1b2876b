//! The symbolic checker: proves that an allocation keeps the program's
//! dataflow and honours every constraint.
//!
//! Lattice: for each location (register or spill slot) the set of vregs it
//! is known to hold; a block not yet reached is Top ("all vregs", kept as a
//! distinct value); meet is intersection. Transfer: a move `to := from` gives
//! `to` the set of `from`; a def of `v` into `a` removes `v` everywhere, then
//! `a = {v}`; clobbers empty their registers; along an edge, block
//! parameters are a parallel substitution (remove the parameters from every
//! set, then add parameter `p_k` to every set that held argument `a_k`).
//! The fixpoint is solved by round-robin sweeps in reverse postorder
//! (irreducible loops included), then every use is checked: its location's
//! set must contain its vreg.
//!
//! Within one instruction: edits before it; early uses read; early defs
//! write; late uses read; clobbers destroy; late defs write; edits after it.
//! Along an edge: the predecessor's edits (before its branch), the parameter
//! substitution, the successor's edits (before its first instruction).
//!
//! A correct allocation is proved so first, without the fixpoint
//! ([`proof`]); the dataflow gives every other verdict, and every error.
//!
//! Besides dataflow it checks every operand against its constraint and the
//! machine, spill slot bounds, register classes, interference inside one
//! instruction, defs in clobbered registers and the placement of edits.

mod boundary;
mod dataflow;
mod error;
mod observe;
mod proof;
mod structural;
pub mod trace;

pub use dataflow::Checker;
pub use error::{CheckError, ErrorKind};

use allocator::{Function, MachineEnv, Output};

/// Checks `out` as an allocation of `f` on `env` (both valid); returns
/// every error, in program order.
pub fn check(f: &Function, env: &MachineEnv, out: &Output) -> Vec<CheckError> {
    Checker::default().check(f, env, out)
}
