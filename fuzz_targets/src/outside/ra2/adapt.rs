//! Our IR seen through regalloc2's types: a [`regalloc2::Function`] view of a
//! [`Function`], the machine environment, and allocations converted both ways.
//!
//! The two IRs describe the same thing (SSA with block parameters, operands
//! bit-packed with kind, position and constraint, clobber sets, fixed stack
//! locations as registers), so the conversion is one pass over dense arrays
//! with no renumbering: block, instruction, vreg and operand indices are the
//! same on both sides. That is what makes regalloc2's output directly
//! comparable with ours.

use allocator::{
    Allocation, Function, Inst, InstPosition, MachineEnv, Operand, OperandConstraint, OperandKind,
    OperandPos, Output, PReg, ProgPoint, RegClass, VReg,
};
use regalloc2 as ra2;
use std::ops::Range;

pub fn class(c: RegClass) -> ra2::RegClass {
    match c {
        RegClass::Int => ra2::RegClass::Int,
        RegClass::Float => ra2::RegClass::Float,
        RegClass::Vector => ra2::RegClass::Vector,
    }
}

pub fn preg(r: PReg) -> ra2::PReg {
    ra2::PReg::new(r.hw(), class(r.class()))
}

pub fn vreg(v: VReg) -> ra2::VReg {
    ra2::VReg::new(v.index(), class(v.class()))
}

/// One operand in regalloc2's encoding. A `nonalloc` operand becomes
/// regalloc2's fixed-non-allocatable use (a fixed use of a sentinel vreg).
pub fn operand(op: Operand) -> ra2::Operand {
    let c = match op.constraint() {
        OperandConstraint::NonAlloc(r) => return ra2::Operand::fixed_nonallocatable(preg(r)),
        OperandConstraint::Any => ra2::OperandConstraint::Any,
        OperandConstraint::Reg => ra2::OperandConstraint::Reg,
        OperandConstraint::Stack => ra2::OperandConstraint::Stack,
        OperandConstraint::FixedReg(r) => ra2::OperandConstraint::FixedReg(preg(r)),
        OperandConstraint::Reuse(k) => ra2::OperandConstraint::Reuse(k),
        OperandConstraint::Limit(n) => ra2::OperandConstraint::Limit(n as usize),
    };
    let kind = match op.kind() {
        OperandKind::Use => ra2::OperandKind::Use,
        OperandKind::Def => ra2::OperandKind::Def,
    };
    let pos = match op.pos() {
        OperandPos::Early => ra2::OperandPos::Early,
        OperandPos::Late => ra2::OperandPos::Late,
    };
    ra2::Operand::new(vreg(op.vreg()), c, kind, pos)
}

/// The machine as regalloc2 takes it: the same lists per class, fixed stack
/// locations of every class in one list.
pub fn machine(env: &MachineEnv) -> ra2::MachineEnv {
    let set = |v: &[PReg]| {
        v.iter()
            .fold(ra2::PRegSet::empty(), |s, &r| s.with(preg(r)))
    };
    ra2::MachineEnv {
        preferred_regs_by_class: std::array::from_fn(|c| set(&env.preferred[c])),
        non_preferred_regs_by_class: std::array::from_fn(|c| set(&env.nonpreferred[c])),
        scratch_by_class: std::array::from_fn(|c| env.scratch[c].map(preg)),
        fixed_stack_slots: env.fixed_stack.iter().flatten().map(|&r| preg(r)).collect(),
    }
}

pub fn allocation(a: Allocation) -> ra2::Allocation {
    match a {
        Allocation::None => ra2::Allocation::none(),
        Allocation::Reg(r) => ra2::Allocation::reg(preg(r)),
        Allocation::Stack(s) => ra2::Allocation::stack(ra2::SpillSlot::new(s.index())),
    }
}

fn point(p: ProgPoint) -> ra2::ProgPoint {
    let inst = ra2::Inst::new(p.inst().index());
    match p.pos() {
        InstPosition::Before => ra2::ProgPoint::before(inst),
        InstPosition::After => ra2::ProgPoint::after(inst),
    }
}

/// regalloc2's output as ours, as regalloc2's clients run it: the
/// checker's reading ([`checker::regalloc2::output`]), so that the harness
/// judges exactly what a compiler running the checker in-process would.
pub use checker::regalloc2::output as from_output;

/// Our output as regalloc2's, for its checker. Allocations are grouped per
/// instruction by the function's operand ranges; the allocation count must
/// already match the function's operand count.
pub fn output(func: &Function, out: &Output) -> ra2::Output {
    ra2::Output {
        num_spillslots: out.num_spillslots,
        edits: out
            .edits
            .iter()
            .map(|&(p, m)| {
                (
                    point(p),
                    ra2::Edit::Move {
                        from: allocation(m.from),
                        to: allocation(m.to),
                    },
                )
            })
            .collect(),
        allocs: out.allocs.iter().map(|&a| allocation(a)).collect(),
        inst_alloc_offsets: func
            .insts()
            .map(|i| func.inst_operand_range(i).start as u32)
            .collect(),
        ..Default::default()
    }
}

/// A [`Function`] behind regalloc2's trait. regalloc2 hands out slices of
/// its own index types, so blocks, operands, branch arguments and clobbers
/// are converted once, into dense arrays laid out like ours.
pub struct Adapted<'a> {
    func: &'a Function,
    blocks: Vec<AdaptedBlock>,
    succs: Vec<ra2::Block>,
    preds: Vec<ra2::Block>,
    params: Vec<ra2::VReg>,
    /// Per block, the argument range of each successor, in order.
    arg_ranges: Vec<Range<u32>>,
    args: Vec<ra2::VReg>,
    operands: Vec<ra2::Operand>,
    clobbers: Vec<ra2::PRegSet>,
    slots: allocator::SlotGeometry,
}

struct AdaptedBlock {
    succs: Range<u32>,
    preds: Range<u32>,
    params: Range<u32>,
    /// Into `arg_ranges`, parallel to `succs`.
    targets: u32,
}

fn push_range<T: Copy>(into: &mut Vec<T>, items: impl Iterator<Item = T>) -> Range<u32> {
    let start = into.len() as u32;
    into.extend(items);
    start..into.len() as u32
}

fn at<T>(v: &[T], r: Range<u32>) -> &[T] {
    &v[r.start as usize..r.end as usize]
}

impl<'a> Adapted<'a> {
    /// `func` for a machine whose spill slots are laid out as `slots`.
    pub fn new(func: &'a Function, slots: &allocator::SlotGeometry) -> Adapted<'a> {
        let mut a = Adapted {
            func,
            slots: *slots,
            blocks: Vec::with_capacity(func.num_blocks()),
            succs: Vec::new(),
            preds: Vec::new(),
            params: Vec::new(),
            arg_ranges: Vec::new(),
            args: Vec::new(),
            operands: Vec::with_capacity(func.num_operands()),
            clobbers: Vec::with_capacity(func.num_insts()),
        };
        let block = |b: allocator::Block| ra2::Block::new(b.index());
        for b in func.blocks() {
            let succs = push_range(&mut a.succs, func.block_succs(b).iter().map(|&s| block(s)));
            let preds = push_range(&mut a.preds, func.block_preds(b).iter().map(|&s| block(s)));
            let params = push_range(&mut a.params, func.block_params(b).iter().map(|&v| vreg(v)));
            let targets = a.arg_ranges.len() as u32;
            for t in 0..func.block_succs(b).len() {
                let r = push_range(&mut a.args, func.branch_args(b, t).iter().map(|&v| vreg(v)));
                a.arg_ranges.push(r);
            }
            a.blocks.push(AdaptedBlock {
                succs,
                preds,
                params,
                targets,
            });
        }
        for i in func.insts() {
            a.operands
                .extend(func.inst_operands(i).iter().map(|&op| operand(op)));
            a.clobbers.push(
                func.inst_clobbers(i)
                    .iter()
                    .fold(ra2::PRegSet::empty(), |s, &r| s.with(preg(r))),
            );
        }
        a
    }
}

impl ra2::Function for Adapted<'_> {
    fn num_insts(&self) -> usize {
        self.func.num_insts()
    }

    fn num_blocks(&self) -> usize {
        self.func.num_blocks()
    }

    fn entry_block(&self) -> ra2::Block {
        ra2::Block::new(self.func.entry_block().index())
    }

    fn block_insns(&self, block: ra2::Block) -> ra2::InstRange {
        let r = self.func.block_insts(allocator::Block::new(block.index()));
        ra2::InstRange::new(
            ra2::Inst::new(r.start.index()),
            ra2::Inst::new(r.end.index()),
        )
    }

    fn block_succs(&self, block: ra2::Block) -> &[ra2::Block] {
        at(&self.succs, self.blocks[block.index()].succs.clone())
    }

    fn block_preds(&self, block: ra2::Block) -> &[ra2::Block] {
        at(&self.preds, self.blocks[block.index()].preds.clone())
    }

    fn block_params(&self, block: ra2::Block) -> &[ra2::VReg] {
        at(&self.params, self.blocks[block.index()].params.clone())
    }

    fn is_ret(&self, insn: ra2::Inst) -> bool {
        self.func.is_ret(Inst::new(insn.index()))
    }

    fn is_branch(&self, insn: ra2::Inst) -> bool {
        self.func.is_branch(Inst::new(insn.index()))
    }

    fn branch_blockparams(&self, block: ra2::Block, _: ra2::Inst, succ_idx: usize) -> &[ra2::VReg] {
        let t = self.blocks[block.index()].targets as usize + succ_idx;
        at(&self.args, self.arg_ranges[t].clone())
    }

    fn inst_operands(&self, insn: ra2::Inst) -> &[ra2::Operand] {
        &self.operands[self.func.inst_operand_range(Inst::new(insn.index()))]
    }

    fn inst_clobbers(&self, insn: ra2::Inst) -> ra2::PRegSet {
        self.clobbers[insn.index()]
    }

    fn num_vregs(&self) -> usize {
        self.func.num_vregs()
    }

    fn spillslot_size(&self, class: ra2::RegClass) -> usize {
        let ours = match class {
            ra2::RegClass::Int => allocator::RegClass::Int,
            ra2::RegClass::Float => allocator::RegClass::Float,
            ra2::RegClass::Vector => allocator::RegClass::Vector,
        };
        self.slots.size(ours)
    }

    fn multi_spillslot_named_by_last_slot(&self) -> bool {
        self.slots.named_by_last
    }
}
