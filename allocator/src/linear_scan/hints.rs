//! What each value is known ahead to want, before the scan gives it a
//! register: the parameter a back edge passes it to (whose register the
//! scan has fixed by the time the value is written), and the register of
//! its first `fixed` read. A def that takes the register its value must be
//! in later saves the move there.

use super::layout::Layout;
use crate::ir::function::Function;
use crate::ir::index::PReg;
use crate::ir::operand::OperandConstraint;

/// Per vreg, the registers it is known ahead to want.
pub struct Ahead {
    /// The first parameter it is passed to on a back edge in the layout's
    /// order (the target laid out no later than the source), or `u32::MAX`.
    pub back_param: Vec<u32>,
    /// The allocatable register of its first `fixed` read in the layout's
    /// order.
    pub fixed_use: Vec<Option<PReg>>,
}

impl Ahead {
    pub fn new(f: &Function, layout: &Layout, alloc_mask: &[u64; 3]) -> Ahead {
        let nv = f.num_vregs();
        let mut back_param = vec![u32::MAX; nv];
        for b in f.blocks() {
            for (t, &s) in f.block_succs(b).iter().enumerate() {
                if layout.span[s.index()].0 > layout.span[b.index()].0 {
                    continue;
                }
                for (a, p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                    let x = &mut back_param[a.index()];
                    if *x == u32::MAX && a != p {
                        *x = p.index() as u32;
                    }
                }
            }
        }
        let mut fixed_use = vec![None; nv];
        for &i in &layout.inst_at {
            for op in f.inst_operands(i) {
                if let OperandConstraint::FixedReg(r) = op.constraint() {
                    let x = &mut fixed_use[op.vreg().index()];
                    if op.is_use()
                        && x.is_none()
                        && alloc_mask[r.class().index()] & (1 << r.hw()) != 0
                    {
                        *x = Some(r);
                    }
                }
            }
        }
        Ahead {
            back_param,
            fixed_use,
        }
    }
}
