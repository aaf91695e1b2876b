//! Helpers shared by the integration tests: the hand-written case files and a
//! random function builder.

#![allow(dead_code)]

use allocator::{Block, FunctionBuilder, Opcode, Operand, OperandConstraint, RegClass, VReg};
use rand::{Rng, SeedableRng};
use std::path::PathBuf;

/// The `.ra` files of `tests/cases/<sub>`, sorted by name.
pub fn case_files(sub: &str) -> Vec<PathBuf> {
    allocator::fixtures::ra_files(format!("tests/cases/{sub}"))
}

/// A random, structurally sound (not necessarily valid) function: random
/// successor lists (self loops, back edges and unreachable blocks
/// included) and random defs and uses of a few vregs.
pub fn random_function(seed: u64) -> allocator::Function {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let nblocks = rng.gen_range(1..12);
    // Now and then more than one 64-bit word of vregs (dense liveness rows).
    let nvregs = if rng.gen_bool(0.3) {
        rng.gen_range(60..300)
    } else {
        rng.gen_range(1..20)
    };
    let v = |i: usize| VReg::new(i, RegClass::Int);
    let mut b = FunctionBuilder::new();
    for _ in 0..nblocks {
        let params: Vec<VReg> = (0..rng.gen_range(0..3))
            .map(|_| v(rng.gen_range(0..nvregs)))
            .collect();
        b.block(&params);
        for _ in 0..rng.gen_range(0..4) {
            let ops: Vec<Operand> = (0..rng.gen_range(0..4))
                .map(|_| {
                    let x = v(rng.gen_range(0..nvregs));
                    if rng.gen_bool(0.5) {
                        Operand::def(x, OperandConstraint::Any)
                    } else {
                        Operand::use_(x, OperandConstraint::Reg)
                    }
                })
                .collect();
            b.inst(Opcode::Op, &ops, &[], &[]);
        }
        let nsucc = rng.gen_range(0..4);
        if nsucc == 0 {
            b.inst(Opcode::Ret, &[], &[], &[]);
        } else {
            let args: Vec<Vec<VReg>> = (0..nsucc)
                .map(|_| {
                    (0..rng.gen_range(0..3))
                        .map(|_| v(rng.gen_range(0..nvregs)))
                        .collect()
                })
                .collect();
            let targets: Vec<(Block, &[VReg])> = args
                .iter()
                .map(|a| (Block::new(rng.gen_range(0..nblocks)), a.as_slice()))
                .collect();
            b.inst(Opcode::Branch, &[], &[], &targets);
        }
    }
    b.finish().unwrap()
}
