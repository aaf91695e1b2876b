//! Branch arguments a branch defines itself (Cranelift's `try_call` passes
//! its results to the normal-return block this way). The validator allows
//! one only when its target has no other predecessor, so the parameter it
//! feeds is the argument under another name: [`fold`] gives our allocators
//! the function with each such parameter replaced by its argument, which
//! they allocate as an ordinary value defined by the branch and live into
//! the target. The folded function has the same instructions and operands,
//! so its allocation is an allocation of the original: the checker binds
//! the parameter to every location holding the argument after the branch.

use crate::ir::function::{Function, FunctionBuilder};
use crate::ir::index::VReg;
use crate::ir::operand::Operand;

/// `f` with every parameter fed by a value its predecessor's branch defines
/// replaced by that value, or `None` when `f` has none (the usual case,
/// found without allocating). The replaced parameters' indices are left
/// undefined. `f` must be valid.
pub fn fold(f: &Function) -> Option<Function> {
    let mut rename: Vec<u32> = Vec::new();
    for b in f.blocks() {
        let Some(last) = f.block_insts(b).iter().next_back() else {
            continue;
        };
        let ops = f.inst_operands(last);
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                if ops.iter().any(|op| op.is_def() && op.vreg() == a) {
                    if rename.is_empty() {
                        rename = (0..f.num_vregs() as u32).collect();
                    }
                    rename[p.index()] = a.index() as u32;
                }
            }
        }
    }
    if rename.is_empty() {
        return None;
    }
    let to = |v: VReg| VReg::new(rename[v.index()] as usize, v.class());
    let folded = |v: &VReg| rename[v.index()] != v.index() as u32;
    let mut bld = FunctionBuilder::with_capacity(f.num_blocks(), f.num_insts(), f.num_operands());
    let mut params = Vec::new();
    let mut args = Vec::new();
    for b in f.blocks() {
        params.clear();
        params.extend(f.block_params(b).iter().filter(|p| !folded(p)));
        bld.block(&params);
        for i in f.block_insts(b).iter() {
            for &op in f.inst_operands(i) {
                bld.push_operand(if op.is_nonalloc() {
                    op
                } else {
                    Operand::new(to(op.vreg()), op.kind(), op.pos(), op.constraint())
                });
            }
            for &r in f.inst_clobbers(i) {
                bld.push_clobber(r);
            }
            for t in 0..f.num_targets(i) {
                let (s, a) = f.target(i, t);
                args.clear();
                args.extend(
                    a.iter()
                        .zip(f.block_params(s))
                        .filter(|(_, p)| !folded(p))
                        .map(|(&v, _)| to(v)),
                );
                bld.push_target(s, &args);
            }
            bld.end_inst(f.opcode(i));
        }
    }
    let g = bld.finish().expect("a valid function rebuilds");
    debug_assert_eq!(g.num_operands(), f.num_operands());
    Some(g)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::unit_case;

    #[test]
    fn parameter_fed_by_branch_def_becomes_the_def() {
        let case = unit_case("own_def_args/try_call");
        let g = fold(&case.func).expect("the case has an own-def argument");
        let ret = g.block_insts(crate::Block::new(1)).last();
        // block1's parameter is gone; its use reads the call's result.
        assert!(g.block_params(crate::Block::new(1)).is_empty());
        assert_eq!(g.inst_operands(ret)[0].vreg().index(), 1);
        assert_eq!(g.num_operands(), case.func.num_operands());
        assert!(fold(&crate::fixtures::unit_case("own_def_args/plain").func).is_none());
    }
}
