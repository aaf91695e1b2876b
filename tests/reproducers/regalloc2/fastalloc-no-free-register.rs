//! regalloc2 0.15.2, Fastalloc: `fastalloc-no-free-register`.
//!
//! Feasible (v1i in p0i, v0i read from its slot at the late point), but
//! fastalloc gives up with TooManyLiveRegs: the class's one register goes to
//! the late any use, and the reg def finds none; the dedicated scratch register
//! does not help. Reduced by rafuzz reduce --predicate (fastalloc refuses,
//! every class keeps a scratch register, linear_scan allocates) from profile
//! regalloc2_fastalloc, seed 48.
//!
//! A standalone reproducer: it uses regalloc2's public API alone. Put it in
//! regalloc2's `tests/` folder (or any crate that depends on regalloc2 0.15.2)
//! and run `cargo test`: it fails on the release and says what is wrong.
//! Written by `rafuzz export` from tests/regressions/regalloc2/fastalloc-no-free-register.ra.

#![allow(unused_imports, dead_code)]

use regalloc2::OperandConstraint::{Any, FixedReg, Limit, Reg, Reuse, Stack};
use regalloc2::OperandKind::{Def, Use};
use regalloc2::OperandPos::{Early, Late};
use regalloc2::{
    Algorithm, Allocation, Block, Edit, Function, Inst, InstPosition, InstRange, MachineEnv,
    Operand, OperandConstraint, OperandKind, OperandPos, Output, PReg, PRegSet, ProgPoint,
    RegClass, RegallocOptions, SpillSlot, VReg,
};
use std::collections::HashMap;

const I: RegClass = RegClass::Int;
const F: RegClass = RegClass::Float;
const V: RegClass = RegClass::Vector;

fn v(index: usize, class: RegClass) -> VReg {
    VReg::new(index, class)
}
fn p(hw: usize, class: RegClass) -> PReg {
    PReg::new(hw, class)
}
fn op(v: VReg, c: OperandConstraint, kind: OperandKind, pos: OperandPos) -> Operand {
    Operand::new(v, c, kind, pos)
}
fn regs(r: &[PReg]) -> PRegSet {
    r.iter().fold(PRegSet::empty(), |s, &r| s.with(r))
}

struct Blk {
    insts: (usize, usize),
    preds: Vec<Block>,
    succs: Vec<Block>,
    params: Vec<VReg>,
    /// The arguments passed to each successor.
    args: Vec<Vec<VReg>>,
}

struct Ins {
    ops: Vec<Operand>,
    clobbers: Vec<PReg>,
    ret: bool,
    branch: bool,
}

struct Func {
    num_vregs: usize,
    slot_sizes: [usize; 3],
    slots_named_by_last: bool,
    blocks: Vec<Blk>,
    insts: Vec<Ins>,
}

impl Function for Func {
    fn num_insts(&self) -> usize {
        self.insts.len()
    }
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn entry_block(&self) -> Block {
        Block::new(0)
    }
    fn block_insns(&self, b: Block) -> InstRange {
        let (s, e) = self.blocks[b.index()].insts;
        InstRange::new(Inst::new(s), Inst::new(e))
    }
    fn block_succs(&self, b: Block) -> &[Block] {
        &self.blocks[b.index()].succs
    }
    fn block_preds(&self, b: Block) -> &[Block] {
        &self.blocks[b.index()].preds
    }
    fn block_params(&self, b: Block) -> &[VReg] {
        &self.blocks[b.index()].params
    }
    fn is_ret(&self, i: Inst) -> bool {
        self.insts[i.index()].ret
    }
    fn is_branch(&self, i: Inst) -> bool {
        self.insts[i.index()].branch
    }
    fn branch_blockparams(&self, b: Block, _: Inst, k: usize) -> &[VReg] {
        &self.blocks[b.index()].args[k]
    }
    fn inst_operands(&self, i: Inst) -> &[Operand] {
        &self.insts[i.index()].ops
    }
    fn inst_clobbers(&self, i: Inst) -> PRegSet {
        regs(&self.insts[i.index()].clobbers)
    }
    fn num_vregs(&self) -> usize {
        self.num_vregs
    }
    fn spillslot_size(&self, c: RegClass) -> usize {
        self.slot_sizes[c as usize]
    }
    fn multi_spillslot_named_by_last_slot(&self) -> bool {
        self.slots_named_by_last
    }
}

fn function() -> Func {
    Func {
        num_vregs: 2,
        slot_sizes: [1, 1, 1],
        slots_named_by_last: false,
        blocks: vec![
            Blk { insts: (0, 3), preds: vec![], succs: vec![], params: vec![], args: vec![] },
        ],
        insts: vec![
            Ins { ops: vec![op(v(0, I), Any, Def, Late)], clobbers: vec![], ret: false, branch: false },
            Ins { ops: vec![op(v(0, I), Any, Use, Late), op(v(1, I), Reg, Def, Late)], clobbers: vec![], ret: false, branch: false },
            Ins { ops: vec![], clobbers: vec![], ret: true, branch: false },
        ],
    }
}

fn machine() -> MachineEnv {
    MachineEnv {
        preferred_regs_by_class: [regs(&[p(0, I)]), regs(&[p(0, F)]), regs(&[p(1, V)])],
        non_preferred_regs_by_class: [regs(&[]), regs(&[]), regs(&[])],
        scratch_by_class: [Some(p(1, I)), Some(p(4, F)), Some(p(10, V))],
        fixed_stack_slots: vec![],
    }
}

/// An allocation of the function, by rafuzz's `spill_everywhere`: it exists.
fn proof() -> Option<Output> {
    Some(Output {
        num_spillslots: 4,
        edits: vec![
            (ProgPoint::after(Inst::new(1)), Edit::Move { from: Allocation::reg(p(0, I)), to: Allocation::stack(SpillSlot::new(1)) }),
        ],
        allocs: vec![Allocation::stack(SpillSlot::new(0)), Allocation::stack(SpillSlot::new(0)), Allocation::reg(p(0, I))],
        inst_alloc_offsets: vec![0, 1, 3],
        ..Output::default()
    })
}

/// Runs the allocated function along one path (successors drawn from
/// `seed`): every def makes a fresh value, every edit copies one, a clobber
/// destroys one, and every use must find its vreg's value in its
/// allocation. Block arguments pass their values to the parameters.
fn run_path(f: &Func, out: &Output, seed: u64) -> Result<(), String> {
    let mut holds: HashMap<Allocation, u64> = HashMap::new();
    let mut value: Vec<Option<u64>> = vec![None; f.num_vregs];
    let mut made_by: Vec<VReg> = Vec::new();
    let mut rng = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let (mut block, mut steps) = (0usize, 0);
    let describe = |x: Option<&u64>, made_by: &Vec<VReg>| match x {
        Some(&x) => format!("a value of {}", made_by[x as usize]),
        None => "no value".to_string(),
    };
    loop {
        let (first, end) = f.blocks[block].insts;
        for i in first..end {
            steps += 1;
            if steps > 10_000 {
                return Ok(());
            }
            let inst = Inst::new(i);
            let allocs = out.inst_allocs(inst);
            let edits = |pos: InstPosition, holds: &mut HashMap<Allocation, u64>| {
                for (at, Edit::Move { from, to }) in &out.edits {
                    if at.inst() == inst && at.pos() == pos {
                        match holds.get(from).copied() {
                            Some(x) => holds.insert(*to, x),
                            None => holds.remove(to),
                        };
                    }
                }
            };
            edits(InstPosition::Before, &mut holds);
            for pos in [OperandPos::Early, OperandPos::Late] {
                for (k, o) in f.insts[i].ops.iter().enumerate() {
                    if o.kind() != OperandKind::Use || o.pos() != pos || o.as_fixed_nonallocatable().is_some() {
                        continue;
                    }
                    let want = value[o.vreg().vreg()];
                    let got = holds.get(&allocs[k]);
                    if want.is_none() || got != want.as_ref() {
                        return Err(format!(
                            "inst{i} operand {k} ({o}) reads {} from {}, which holds {} (path {seed})",
                            o.vreg(),
                            allocs[k],
                            describe(got, &made_by)
                        ));
                    }
                }
                if pos == OperandPos::Late {
                    for &r in &f.insts[i].clobbers {
                        holds.remove(&Allocation::reg(r));
                    }
                }
                for (k, o) in f.insts[i].ops.iter().enumerate() {
                    if o.kind() == OperandKind::Def && o.pos() == pos && o.as_fixed_nonallocatable().is_none() {
                        let x = made_by.len() as u64;
                        made_by.push(o.vreg());
                        value[o.vreg().vreg()] = Some(x);
                        holds.insert(allocs[k], x);
                    }
                }
            }
            edits(InstPosition::After, &mut holds);
        }
        let last = &f.insts[end - 1];
        if last.ret || f.blocks[block].succs.is_empty() {
            return Ok(());
        }
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        let k = (rng % f.blocks[block].succs.len() as u64) as usize;
        let next = f.blocks[block].succs[k].index();
        let passed: Vec<Option<u64>> =
            f.blocks[block].args[k].iter().map(|a| value[a.vreg()]).collect();
        for (param, x) in f.blocks[next].params.iter().zip(passed) {
            value[param.vreg()] = x;
        }
        block = next;
    }
}

/// Allocates the function with regalloc2 and judges the result: `Err` with
/// what is wrong.
pub fn reproduce() -> Result<(), String> {
    let (f, env) = (function(), machine());
    let options = RegallocOptions {
        algorithm: Algorithm::Fastalloc,
        validate_ssa: true,
        ..RegallocOptions::default()
    };
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| regalloc2::run(&f, &env, &options)));
    let out = match run {
        Err(_) => return Err("regalloc2 panicked on a valid function (message above)".to_string()),
        Ok(Err(e)) => {
            let Some(proof) = proof() else {
                return Err(format!("regalloc2 refused the function ({e:?})"));
            };
            let mut checker = regalloc2::checker::Checker::new(&f, &env);
            checker.prepare(&proof);
            let theirs = match checker.run() {
                Ok(()) => "regalloc2's own checker accepts it".to_string(),
                Err(c) => format!("regalloc2's checker rejects it: {c:?}"),
            };
            let ours = match (0..16).try_for_each(|seed| run_path(&f, &proof, seed)) {
                Ok(()) => "it runs right along 16 paths".to_string(),
                Err(e) => format!("but it runs wrong: {e}"),
            };
            return Err(format!(
                "regalloc2 refused the function ({e:?}), which has an allocation, `proof()`: \
                 {theirs}, and {ours}"
            ));
        }
        Ok(Ok(out)) => out,
    };
    let mut checker = regalloc2::checker::Checker::new(&f, &env);
    checker.prepare(&out);
    let theirs = match checker.run() {
        Ok(()) => "regalloc2's checker accepts it".to_string(),
        Err(e) => format!("regalloc2's checker rejects it too: {e:?}"),
    };
    for seed in 0..16 {
        run_path(&f, &out, seed).map_err(|e| format!("wrong allocation: {e}; {theirs}"))?;
    }
    Ok(())
}

#[test]
fn fastalloc_no_free_register() {
    if let Err(e) = reproduce() {
        panic!("{e}");
    }
}
