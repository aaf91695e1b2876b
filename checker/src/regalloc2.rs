//! The symbolic checker over regalloc2's own types (feature `regalloc2`):
//! what a compiler that calls regalloc2 (Cranelift) runs in-process where it
//! would turn on regalloc2's checker (`regalloc_checker`), on the same
//! `Function`, `MachineEnv` and `Output`.
//!
//! The function is read once through regalloc2's trait into our IR, with
//! every index kept (blocks, instructions, operands and vregs: an error
//! names what regalloc2 and the compiler's own dumps call them), validated
//! with every rule but dense vreg indices
//! ([`allocator::ir::validate::validate_as_read`]; Cranelift's vregs start
//! at 192), and checked as any allocation is; reachability, definedness
//! and dominance are proved from the checker's liveness rather than a
//! dominator tree and a walk over the uses
//! (see [`Ra2Checker::check`]). [`function`], which makes a
//! case of it, numbers the vregs densely, as the text format wants.
//! The output is read as regalloc2's clients read it: moves from a location
//! to itself, which regalloc2 emits only to relabel a location for debug
//! info, and edits after a block's last instruction, which its own
//! `Output::block_insts_and_edits` never yields, are left out.

use crate::{CheckError, Checker};
use ::regalloc2 as ra2;
use allocator::ir::validate::{self, ValidationError, Validator};
use allocator::{
    Allocation, Function, FunctionBuilder, Inst, InstPosition, MachineEnv, Move, Opcode, Operand,
    OperandConstraint, OperandKind, OperandPos, Output, PReg, PerClass, ProgPoint, RegClass,
    SlotGeometry, SpillSlot, VReg,
};
use std::fmt;

/// Why [`Ra2Checker::check`] does not accept an allocation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejection {
    /// The function or the machine is outside what the checker judges (not
    /// a valid case of our IR: an entry block that is not block 0, blocks
    /// out of instruction order, a slot size that is not a power of two up
    /// to 64, or a rule of the validator): each reason. Nothing is said
    /// about the allocation.
    Unjudgeable(Vec<String>),
    /// The allocation is wrong: every error, in program order.
    Wrong(Vec<CheckError>),
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rejection::Unjudgeable(why) => {
                write!(
                    f,
                    "the checker cannot judge this function: {}",
                    why.join("; ")
                )
            }
            Rejection::Wrong(errs) => {
                write!(f, "the allocation is wrong ({} errors)", errs.len())?;
                for e in errs {
                    write!(f, "\n  {}", e.message)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for Rejection {}

/// The checker for regalloc2's allocations. Keep one and call
/// [`Ra2Checker::check`] for every function: its buffers are reused, and
/// the machine, the same for every function a compiler compiles for one
/// target, is read and validated once while it stays the same.
#[derive(Default)]
pub struct Ra2Checker {
    checker: Checker,
    /// The last function and output read, whose storage the next reuses.
    func: Function,
    out: Output,
    machine: Option<MachineRead>,
    /// The vregs of the block parameters or branch arguments being read.
    list: Vec<VReg>,
}

/// A machine as the last call read it.
struct MachineRead {
    /// What it was read from: regalloc2's machine and the function's
    /// answers about slots.
    from: ra2::MachineEnv,
    slots: SlotGeometry,
    /// Our machine, and the function rules on it.
    validator: Validator,
    /// The machine's rules broken ([`allocator::ir::validate::validate_machine`]).
    invalid: Vec<ValidationError>,
}

impl MachineRead {
    fn new(env: &ra2::MachineEnv, slots: SlotGeometry) -> MachineRead {
        let ours = machine_with(env, slots);
        MachineRead {
            from: env.clone(),
            slots,
            invalid: validate::validate_machine(&ours),
            validator: Validator::new(&ours),
        }
    }

    fn is_of(&self, env: &ra2::MachineEnv, slots: &SlotGeometry) -> bool {
        self.slots == *slots
            && self.from.preferred_regs_by_class == env.preferred_regs_by_class
            && self.from.non_preferred_regs_by_class == env.non_preferred_regs_by_class
            && self.from.scratch_by_class == env.scratch_by_class
            && self.from.fixed_stack_slots == env.fixed_stack_slots
    }
}

impl Ra2Checker {
    /// Checks `out`, regalloc2's allocation of `func` on `env`.
    ///
    /// The function is validated by every rule but reachability,
    /// definedness and dominance, which the checker's own liveness proves in
    /// passing ([`Checker::uses_dominated`]); only when it does not are they
    /// checked by the full validator, so that an unjudgeable function is
    /// reported with the validator's every reason, as ever.
    pub fn check<F: ra2::Function + ?Sized>(
        &mut self,
        func: &F,
        env: &ra2::MachineEnv,
        out: &ra2::Output,
    ) -> Result<(), Rejection> {
        let storage = FunctionBuilder::reusing(std::mem::take(&mut self.func));
        let f = read_function(func, storage, &mut self.list)
            .map_err(|e| Rejection::Unjudgeable(vec![e]))?;
        self.func = f;
        let f = &self.func;
        let slots = slot_geometry(env, func).map_err(|e| Rejection::Unjudgeable(vec![e]))?;
        if !self.machine.as_ref().is_some_and(|m| m.is_of(env, &slots)) {
            self.machine = None;
        }
        let machine = self
            .machine
            .get_or_insert_with(|| MachineRead::new(env, slots));
        let unjudgeable = |f: &Function, env: &MachineEnv| {
            let invalid = validate::validate_as_read(f, env);
            (!invalid.is_empty())
                .then(|| Rejection::Unjudgeable(invalid.into_iter().map(|e| e.message).collect()))
        };
        let broken = machine.validator.read_function_but_dominance(f);
        let env = machine.validator.env();
        if !machine.invalid.is_empty() || !broken.is_empty() {
            // The full validation reports these and more.
            return Err(unjudgeable(f, env).unwrap_or_else(|| {
                Rejection::Unjudgeable(broken.into_iter().map(|e| e.message).collect())
            }));
        }
        read_output(f, out, &mut self.out);
        let errs = self.checker.check(f, env, &self.out);
        if !self.checker.uses_dominated() {
            if let Some(r) = unjudgeable(f, env) {
                return Err(r);
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(Rejection::Wrong(errs))
        }
    }
}

/// [`Ra2Checker::check`] with a checker of its own.
pub fn check<F: ra2::Function + ?Sized>(
    func: &F,
    env: &ra2::MachineEnv,
    out: &ra2::Output,
) -> Result<(), Rejection> {
    Ra2Checker::default().check(func, env, out)
}

pub fn class(c: ra2::RegClass) -> RegClass {
    match c {
        ra2::RegClass::Int => RegClass::Int,
        ra2::RegClass::Float => RegClass::Float,
        ra2::RegClass::Vector => RegClass::Vector,
    }
}

pub fn preg(r: ra2::PReg) -> PReg {
    PReg::new(r.hw_enc(), class(r.class()))
}

pub fn vreg(v: ra2::VReg) -> VReg {
    VReg::new(v.vreg(), class(v.class()))
}

pub fn allocation(a: ra2::Allocation) -> Allocation {
    match (a.as_reg(), a.as_stack()) {
        (Some(r), _) => Allocation::Reg(preg(r)),
        (None, Some(s)) => Allocation::Stack(SpillSlot::new(s.index())),
        (None, None) => Allocation::None,
    }
}

pub fn point(p: ra2::ProgPoint) -> ProgPoint {
    let inst = Inst::new(p.inst().index());
    match p.pos() {
        ra2::InstPosition::Before => ProgPoint::before(inst),
        ra2::InstPosition::After => ProgPoint::after(inst),
    }
}

/// One operand in our encoding; `Err` for a `Reuse` index or a `Limit`
/// bound our operands cannot hold.
pub fn operand(op: ra2::Operand) -> Result<Operand, String> {
    match op.as_fixed_nonallocatable() {
        Some(r) => Ok(Operand::nonalloc(preg(r))),
        None => operand_of(op, vreg(op.vreg())),
    }
}

/// [`operand`] of an operand that names a vreg, naming `v` instead.
#[inline]
fn operand_of(op: ra2::Operand, v: VReg) -> Result<Operand, String> {
    let c = match op.constraint() {
        ra2::OperandConstraint::Any => OperandConstraint::Any,
        ra2::OperandConstraint::Reg => OperandConstraint::Reg,
        ra2::OperandConstraint::Stack => OperandConstraint::Stack,
        ra2::OperandConstraint::FixedReg(r) => OperandConstraint::FixedReg(preg(r)),
        ra2::OperandConstraint::Reuse(k) if k <= Operand::MAX_REUSE => OperandConstraint::Reuse(k),
        ra2::OperandConstraint::Limit(n) if n.is_power_of_two() && n <= 64 => {
            OperandConstraint::Limit(n as u8)
        }
        c => return Err(out_of_range(op, c)),
    };
    let kind = match op.kind() {
        ra2::OperandKind::Use => OperandKind::Use,
        ra2::OperandKind::Def => OperandKind::Def,
    };
    let pos = match op.pos() {
        ra2::OperandPos::Early => OperandPos::Early,
        ra2::OperandPos::Late => OperandPos::Late,
    };
    Ok(Operand::new(v, kind, pos, c))
}

#[cold]
fn out_of_range(op: ra2::Operand, c: ra2::OperandConstraint) -> String {
    format!("operand {op:?}: constraint {c:?} out of range")
}

/// `func` as a case of our IR: blocks, instructions and operands keep
/// their indices; vregs are numbered densely, in their order, as the text
/// format wants. `Err` when it cannot be: its entry is not block 0, its
/// blocks do not hold its instructions in order, or a vreg is not below
/// `num_vregs`.
pub fn function<F: ra2::Function + ?Sized>(func: &F) -> Result<Function, String> {
    let b = FunctionBuilder::with_capacity(func.num_blocks(), func.num_insts(), 0);
    let mut f = read_function(func, b, &mut Vec::new())?;
    number_densely(&mut f);
    Ok(f)
}

/// `func` in our IR as the entry point reads it: every index kept, vregs
/// too, so that it may not be a case of the text format (valid by
/// [`allocator::ir::validate::validate_as_read`]). `Err` as for
/// [`function`].
pub fn function_as_read<F: ra2::Function + ?Sized>(func: &F) -> Result<Function, String> {
    let b = FunctionBuilder::with_capacity(func.num_blocks(), func.num_insts(), 0);
    read_function(func, b, &mut Vec::new())
}

/// Renumbers `f`'s vregs so that they are dense from 0 in their order:
/// each index becomes the number of mentioned indices below it.
fn number_densely(f: &mut Function) {
    let n = f.num_vregs();
    let mut map = vec![0u32; n + 1];
    let mut mention = |v: VReg| map[v.index() + 1] = 1;
    for b in f.blocks() {
        f.block_params(b).iter().for_each(|&v| mention(v));
    }
    for i in f.insts() {
        for op in f.inst_operands(i).iter().filter(|op| !op.is_nonalloc()) {
            mention(op.vreg());
        }
        for t in 0..f.num_targets(i) {
            f.target(i, t).1.iter().for_each(|&v| mention(v));
        }
    }
    for k in 1..=n {
        map[k] += map[k - 1];
    }
    f.renumber_vregs(&map[..n], map[n] as usize);
}

/// `func` in our IR with every index kept, vregs too (so that some indices
/// may be mentioned nowhere), built into `b` (which may reuse an earlier
/// function's storage) in one walk of `func`; `list` is scratch.
fn read_function<F: ra2::Function + ?Sized>(
    func: &F,
    mut b: FunctionBuilder,
    list: &mut Vec<VReg>,
) -> Result<Function, String> {
    if func.entry_block().index() != 0 {
        return Err(format!(
            "the entry block is block{}, not block0",
            func.entry_block().index()
        ));
    }
    let n = func.num_vregs();
    let raw = |v: ra2::VReg| {
        if v.vreg() >= n {
            return Err(format!("{v:?} is not below num_vregs ({n})"));
        }
        Ok(VReg::new(v.vreg(), class(v.class())))
    };
    let mut next = 0;
    for k in 0..func.num_blocks() {
        let block = ra2::Block::new(k);
        list.clear();
        for &v in func.block_params(block) {
            list.push(raw(v)?);
        }
        b.block(list);
        let insts = func.block_insns(block);
        if insts.len() == 0 {
            return Err(format!("block{k} has no instruction"));
        }
        if insts.first().index() != next {
            return Err(format!(
                "block{k} starts at inst{}, not at inst{next}: blocks out of instruction order",
                insts.first().index()
            ));
        }
        next = insts.last().index() + 1;
        for i in insts.iter() {
            for &op in func.inst_operands(i) {
                b.push_operand(match op.as_fixed_nonallocatable() {
                    Some(_) => operand(op)?,
                    None => operand_of(op, raw(op.vreg())?)?,
                });
            }
            let clobbers = func.inst_clobbers(i);
            if clobbers != ra2::PRegSet::empty() {
                for r in clobbers {
                    b.push_clobber(preg(r));
                }
            }
            let opcode = if func.is_ret(i) {
                Opcode::Ret
            } else if func.is_branch(i) {
                for (t, &s) in func.block_succs(block).iter().enumerate() {
                    list.clear();
                    for &v in func.branch_blockparams(block, i, t) {
                        list.push(raw(v)?);
                    }
                    b.push_target(allocator::Block::new(s.index()), list);
                }
                Opcode::Branch
            } else {
                Opcode::Op
            };
            b.end_inst(opcode);
        }
    }
    if next != func.num_insts() {
        return Err(format!(
            "the blocks hold {next} instructions, the function {}",
            func.num_insts()
        ));
    }
    b.finish().map_err(|e| e.to_string())
}

/// The machine in our IR: the same register lists, fixed stack locations
/// by class, and the slot sizes `func` gives each class that has a
/// register. A class with none holds no value (the validator sees to it),
/// and its size is not asked: Cranelift's x86-64 and aarch64 backends, which
/// declare no vector register, answer it with `unreachable!`.
pub fn machine<F: ra2::Function + ?Sized>(
    env: &ra2::MachineEnv,
    func: &F,
) -> Result<MachineEnv, String> {
    Ok(machine_with(env, slot_geometry(env, func)?))
}

/// The slot sizes of [`machine`].
fn slot_geometry<F: ra2::Function + ?Sized>(
    env: &ra2::MachineEnv,
    func: &F,
) -> Result<SlotGeometry, String> {
    let mut slots = SlotGeometry::default();
    for c in [
        ra2::RegClass::Int,
        ra2::RegClass::Float,
        ra2::RegClass::Vector,
    ] {
        let k = c as usize;
        let empty = ra2::PRegSet::empty();
        if env.preferred_regs_by_class[k] == empty && env.non_preferred_regs_by_class[k] == empty {
            continue;
        }
        let n = func.spillslot_size(c);
        if !n.is_power_of_two() || n > SlotGeometry::MAX_SIZE {
            return Err(format!("class {c:?} fills {n} spill slots"));
        }
        slots.set_size(class(c), n);
    }
    slots.named_by_last = func.multi_spillslot_named_by_last_slot();
    Ok(slots)
}

/// [`machine`] with its slot sizes.
fn machine_with(env: &ra2::MachineEnv, slots: SlotGeometry) -> MachineEnv {
    let list = |s: ra2::PRegSet| s.into_iter().map(preg).collect::<Vec<_>>();
    let mut fixed_stack = PerClass::from_fn(|_| Vec::new());
    for &r in &env.fixed_stack_slots {
        fixed_stack[class(r.class())].push(preg(r));
    }
    MachineEnv {
        preferred: PerClass::from_fn(|c| list(env.preferred_regs_by_class[c.index()])),
        nonpreferred: PerClass::from_fn(|c| list(env.non_preferred_regs_by_class[c.index()])),
        scratch: PerClass::from_fn(|c| env.scratch_by_class[c.index()].map(preg)),
        fixed_stack,
        slots,
    }
}

/// regalloc2's output as its clients run it (see the module
/// documentation for the two kinds of edit left out).
pub fn output(func: &Function, out: &ra2::Output) -> Output {
    let mut ours = Output::default();
    read_output(func, out, &mut ours);
    ours
}

/// [`output`], into `ours`'s storage.
fn read_output(func: &Function, out: &ra2::Output, ours: &mut Output) {
    ours.allocs.clear();
    ours.allocs
        .extend(out.allocs.iter().map(|&a| allocation(a)));
    ours.edits.clear();
    ours.edits.extend(out.edits.iter().filter_map(|(p, e)| {
        let ra2::Edit::Move { from, to } = e;
        let at = point(*p);
        let dropped = at.pos() == InstPosition::After
            && at.inst().index() < func.num_insts()
            && func.opcode(at.inst()).is_terminator();
        (from != to && !dropped).then(|| {
            (
                at,
                Move {
                    from: allocation(*from),
                    to: allocation(*to),
                },
            )
        })
    }));
    ours.num_spillslots = out.num_spillslots;
}
