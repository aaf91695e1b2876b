//! The function under allocation: blocks as contiguous instruction ranges,
//! block parameters, branch arguments per successor, operands and clobbers per
//! instruction, all in dense flat arrays indexed by ranges.
//!
//! A `Function` is *structurally* sound by construction (every index it holds
//! is in range), but need not be *valid*: terminators in the middle of a block,
//! unreachable blocks, critical edges, broken SSA and the like are
//! representable so that [`crate::ir::validate`] can report them. Analyses other
//! than the validator assume a valid function.

use crate::ir::index::{Block, Inst, PReg, RegClass, VReg};
use crate::ir::operand::Operand;
use std::fmt;
use std::ops::Range;

/// What an instruction is, as far as the allocator cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// An ordinary instruction.
    Op,
    /// Ends a block and transfers control to one or more targets.
    Branch,
    /// Ends a block and leaves the function.
    Ret,
}

impl Opcode {
    #[inline]
    pub fn name(self) -> &'static str {
        match self {
            Opcode::Op => "op",
            Opcode::Branch => "branch",
            Opcode::Ret => "ret",
        }
    }

    #[inline]
    pub fn is_terminator(self) -> bool {
        self != Opcode::Op
    }
}

impl fmt::Display for Opcode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A half-open range of instructions, `first..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct InstRange {
    pub start: Inst,
    pub end: Inst,
}

impl InstRange {
    #[inline]
    pub fn len(self) -> usize {
        self.end.index() - self.start.index()
    }

    #[inline]
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// The first instruction; the range must not be empty.
    #[inline]
    pub fn first(self) -> Inst {
        debug_assert!(!self.is_empty());
        self.start
    }

    /// The last instruction; the range must not be empty.
    #[inline]
    pub fn last(self) -> Inst {
        debug_assert!(!self.is_empty());
        Inst(self.end.0 - 1)
    }

    #[inline]
    pub fn contains(self, i: Inst) -> bool {
        self.start <= i && i < self.end
    }

    #[inline]
    pub fn iter(self) -> impl DoubleEndedIterator<Item = Inst> + ExactSizeIterator {
        (self.start.0..self.end.0).map(Inst)
    }
}

type R = (u32, u32);

#[inline]
fn slice<T>(v: &[T], r: R) -> &[T] {
    &v[r.0 as usize..r.1 as usize]
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct BlockData {
    insts: R,
    params: R,
    succs: R,
    preds: R,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct InstData {
    opcode: Opcode,
    operands: R,
    clobbers: R,
    targets: R,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct TargetData {
    block: Block,
    args: R,
}

/// A function in SSA form with block parameters; see the module doc.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Function {
    num_vregs: usize,
    blocks: Vec<BlockData>,
    block_params: Vec<VReg>,
    succs: Vec<Block>,
    preds: Vec<Block>,
    insts: Vec<InstData>,
    inst_block: Vec<Block>,
    operands: Vec<Operand>,
    clobbers: Vec<PReg>,
    targets: Vec<TargetData>,
    branch_args: Vec<VReg>,
}

impl Function {
    /// Renumbers every vreg mention (parameters, operands, branch
    /// arguments): index `v` becomes `map[v]`, classes kept, and the
    /// function has `num_vregs` vregs. For a reader of a foreign function
    /// whose vreg numbers have gaps: it builds with the foreign numbers and
    /// makes them dense here, in one pass over the stored lists rather than
    /// a second walk of the source. `map` must cover every index mentioned.
    pub fn renumber_vregs(&mut self, map: &[u32], num_vregs: usize) {
        let remap = |v: VReg| VReg::new(map[v.index()] as usize, v.class());
        for v in self.block_params.iter_mut().chain(&mut self.branch_args) {
            *v = remap(*v);
        }
        for op in &mut self.operands {
            if !op.is_nonalloc() {
                *op = op.with_vreg(remap(op.vreg()));
            }
        }
        self.num_vregs = num_vregs;
    }

    /// A function with the given successor lists and no values: block `i`
    /// is one `branch` to `succs[i]`, or a `ret` when that is empty. The CFG
    /// analyses' tests describe their graphs this way.
    pub fn from_successors(succs: &[&[usize]]) -> Function {
        let mut b = FunctionBuilder::new();
        for s in succs {
            b.block(&[]);
            if s.is_empty() {
                b.inst(Opcode::Ret, &[], &[], &[]);
            } else {
                let t: Vec<(Block, &[VReg])> =
                    s.iter().map(|&x| (Block::new(x), &[][..])).collect();
                b.inst(Opcode::Branch, &[], &[], &t);
            }
        }
        b.finish().expect("a bare CFG always builds")
    }

    #[inline]
    pub fn num_blocks(&self) -> usize {
        self.blocks.len()
    }

    #[inline]
    pub fn num_insts(&self) -> usize {
        self.insts.len()
    }

    /// One more than the largest vreg index mentioned (vreg indices are meant
    /// to be dense; the validator checks that every one is defined).
    #[inline]
    pub fn num_vregs(&self) -> usize {
        self.num_vregs
    }

    /// Total number of operands over all instructions.
    #[inline]
    pub fn num_operands(&self) -> usize {
        self.operands.len()
    }

    #[inline]
    pub fn entry_block(&self) -> Block {
        Block(0)
    }

    #[inline]
    pub fn blocks(&self) -> impl DoubleEndedIterator<Item = Block> + ExactSizeIterator {
        (0..self.blocks.len() as u32).map(Block)
    }

    #[inline]
    pub fn insts(&self) -> impl DoubleEndedIterator<Item = Inst> + ExactSizeIterator {
        (0..self.insts.len() as u32).map(Inst)
    }

    #[inline]
    pub fn block_insts(&self, b: Block) -> InstRange {
        let r = self.blocks[b.index()].insts;
        InstRange {
            start: Inst(r.0),
            end: Inst(r.1),
        }
    }

    #[inline]
    pub fn block_params(&self, b: Block) -> &[VReg] {
        slice(&self.block_params, self.blocks[b.index()].params)
    }

    /// Per vreg, the block it is a parameter of and its index among that
    /// block's parameters; `(Block::INVALID, 0)` for the others. For passes
    /// that follow a value across edges into the parameter it feeds.
    pub fn param_positions(&self) -> Vec<(Block, u32)> {
        let mut at = vec![(Block::INVALID, 0); self.num_vregs()];
        for b in self.blocks() {
            for (k, p) in self.block_params(b).iter().enumerate() {
                at[p.index()] = (b, k as u32);
            }
        }
        at
    }

    /// The targets of the block's terminator when it is a branch, in order
    /// (with repetition if a block is targeted twice).
    #[inline]
    pub fn block_succs(&self, b: Block) -> &[Block] {
        slice(&self.succs, self.blocks[b.index()].succs)
    }

    /// Every edge into the block, one entry per edge (with repetition).
    #[inline]
    pub fn block_preds(&self, b: Block) -> &[Block] {
        slice(&self.preds, self.blocks[b.index()].preds)
    }

    /// Each vreg's class, from its definition (a parameter or a def
    /// operand); `Int` for an index nothing defines.
    pub fn vreg_classes(&self) -> Vec<RegClass> {
        let mut class = Vec::new();
        self.vreg_classes_into(&mut class);
        class
    }

    /// [`Function::vreg_classes`] into `class`'s storage.
    pub fn vreg_classes_into(&self, class: &mut Vec<RegClass>) {
        class.clear();
        class.resize(self.num_vregs(), RegClass::Int);
        for &p in &self.block_params {
            class[p.index()] = p.class();
        }
        for op in &self.operands {
            if op.is_def() && !op.is_nonalloc() {
                class[op.vreg().index()] = op.class();
            }
        }
    }

    /// The arguments block `b` passes to its `succ_idx`-th successor.
    #[inline]
    pub fn branch_args(&self, b: Block, succ_idx: usize) -> &[VReg] {
        let last = self.block_insts(b).last();
        let t = &slice(&self.targets, self.insts[last.index()].targets)[succ_idx];
        slice(&self.branch_args, t.args)
    }

    #[inline]
    pub fn block_of(&self, i: Inst) -> Block {
        self.inst_block[i.index()]
    }

    #[inline]
    pub fn opcode(&self, i: Inst) -> Opcode {
        self.insts[i.index()].opcode
    }

    #[inline]
    pub fn is_branch(&self, i: Inst) -> bool {
        self.opcode(i) == Opcode::Branch
    }

    #[inline]
    pub fn is_ret(&self, i: Inst) -> bool {
        self.opcode(i) == Opcode::Ret
    }

    #[inline]
    pub fn inst_operands(&self, i: Inst) -> &[Operand] {
        slice(&self.operands, self.insts[i.index()].operands)
    }

    /// Where the instruction's operands sit in the flat array of all operands
    /// (an [`crate::Output`] keeps its allocations in the same order).
    #[inline]
    pub fn inst_operand_range(&self, i: Inst) -> Range<usize> {
        let r = self.insts[i.index()].operands;
        r.0 as usize..r.1 as usize
    }

    #[inline]
    pub fn inst_clobbers(&self, i: Inst) -> &[PReg] {
        slice(&self.clobbers, self.insts[i.index()].clobbers)
    }

    /// Number of targets the instruction names (only a branch has any).
    #[inline]
    pub fn num_targets(&self, i: Inst) -> usize {
        let r = self.insts[i.index()].targets;
        (r.1 - r.0) as usize
    }

    /// The `t`-th target of instruction `i`: its block and its arguments.
    #[inline]
    pub fn target(&self, i: Inst, t: usize) -> (Block, &[VReg]) {
        let td = &slice(&self.targets, self.insts[i.index()].targets)[t];
        (td.block, slice(&self.branch_args, td.args))
    }
}

/// Why [`FunctionBuilder::finish`] refused to build a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    /// Target `target` of instruction `inst` names a block that does not exist.
    NoSuchBlock {
        inst: Inst,
        target: usize,
        block: Block,
    },
    /// A vreg index above [`VReg::MAX_INDEX`] (cannot happen through `VReg::new`).
    TooManyVRegs,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::NoSuchBlock { block, .. } => write!(f, "{block} does not exist"),
            BuildError::TooManyVRegs => f.write_str("too many vregs"),
        }
    }
}

/// Builds a [`Function`] block by block, instruction by instruction, in
/// program order; predecessors and successors are derived by `finish`.
#[derive(Default)]
pub struct FunctionBuilder {
    f: Function,
}

impl FunctionBuilder {
    pub fn new() -> Self {
        Self::default()
    }

    /// A builder with room for the given numbers of blocks, instructions
    /// and operands, for callers that know them (the generator).
    pub fn with_capacity(blocks: usize, insts: usize, operands: usize) -> Self {
        let mut b = Self::default();
        b.f.blocks.reserve(blocks);
        b.f.insts.reserve(insts);
        b.f.inst_block.reserve(insts);
        b.f.operands.reserve(operands);
        b.f.succs.reserve(2 * blocks);
        b.f.targets.reserve(2 * blocks);
        b
    }

    /// Room for the given numbers of clobbers, branch arguments and block
    /// parameters, beside [`FunctionBuilder::with_capacity`].
    pub fn reserve_lists(&mut self, clobbers: usize, branch_args: usize, params: usize) {
        self.f.clobbers.reserve(clobbers);
        self.f.branch_args.reserve(branch_args);
        self.f.block_params.reserve(params);
    }

    /// A builder that builds into `old`'s storage: its lists are emptied
    /// and keep their capacity, so a reader that builds one function after
    /// another (a checker inside a compiler) allocates nothing once they
    /// are large enough.
    pub fn reusing(old: Function) -> Self {
        let mut f = old;
        f.num_vregs = 0;
        f.blocks.clear();
        f.block_params.clear();
        f.succs.clear();
        f.preds.clear();
        f.insts.clear();
        f.inst_block.clear();
        f.operands.clear();
        f.clobbers.clear();
        f.targets.clear();
        f.branch_args.clear();
        FunctionBuilder { f }
    }

    #[inline]
    fn note_vreg(&mut self, v: VReg) {
        self.f.num_vregs = self.f.num_vregs.max(v.index() + 1);
    }

    /// Starts the next block; its instructions are those added until the next
    /// call.
    pub fn block(&mut self, params: &[VReg]) -> Block {
        let b = Block::new(self.f.blocks.len());
        let n = self.f.insts.len() as u32;
        let p0 = self.f.block_params.len() as u32;
        for &v in params {
            self.note_vreg(v);
        }
        self.f.block_params.extend_from_slice(params);
        self.f.blocks.push(BlockData {
            insts: (n, n),
            params: (p0, self.f.block_params.len() as u32),
            succs: (0, 0),
            preds: (0, 0),
        });
        b
    }

    /// Appends an instruction to the current block. Panics if no block was
    /// started (a builder-usage error, not an input error).
    pub fn inst(
        &mut self,
        opcode: Opcode,
        operands: &[Operand],
        clobbers: &[PReg],
        targets: &[(Block, &[VReg])],
    ) -> Inst {
        for op in operands {
            if !op.is_nonalloc() {
                self.note_vreg(op.vreg());
            }
        }
        self.f.operands.extend_from_slice(operands);
        self.f.clobbers.extend_from_slice(clobbers);
        for &(block, args) in targets {
            self.push_target(block, args);
        }
        self.end_inst(opcode)
    }

    /// Where the instruction being assembled starts in the operand, clobber
    /// and target lists: where the last finished one ends.
    #[inline]
    fn open_starts(&self) -> (u32, u32, u32) {
        self.f
            .insts
            .last()
            .map_or((0, 0, 0), |d| (d.operands.1, d.clobbers.1, d.targets.1))
    }

    /// Adds an operand to the instruction being assembled, which
    /// [`FunctionBuilder::end_inst`] closes: the streaming form of
    /// [`FunctionBuilder::inst`], for a caller that draws operands one by one
    /// and so need not gather them in a list of its own first (the generator).
    #[inline]
    pub fn push_operand(&mut self, op: Operand) {
        if !op.is_nonalloc() {
            self.note_vreg(op.vreg());
        }
        self.f.operands.push(op);
    }

    /// Adds a clobber to the instruction being assembled.
    #[inline]
    pub fn push_clobber(&mut self, r: PReg) {
        self.f.clobbers.push(r);
    }

    /// Adds a target with its branch arguments to the instruction being
    /// assembled.
    #[inline]
    pub fn push_target(&mut self, block: Block, args: &[VReg]) {
        let a0 = self.f.branch_args.len() as u32;
        for &v in args {
            self.note_vreg(v);
        }
        self.f.branch_args.extend_from_slice(args);
        self.f.targets.push(TargetData {
            block,
            args: (a0, self.f.branch_args.len() as u32),
        });
    }

    /// Closes the instruction assembled by the `push_` methods since the last
    /// one and appends it to the current block. Panics if no block was started
    /// (a builder-usage error, not an input error).
    #[inline]
    pub fn end_inst(&mut self, opcode: Opcode) -> Inst {
        let b = self
            .f
            .blocks
            .len()
            .checked_sub(1)
            .expect("inst before block");
        let (o0, c0, t0) = self.open_starts();
        let i = Inst::new(self.f.insts.len());
        self.f.insts.push(InstData {
            opcode,
            operands: (o0, self.f.operands.len() as u32),
            clobbers: (c0, self.f.clobbers.len() as u32),
            targets: (t0, self.f.targets.len() as u32),
        });
        self.f.inst_block.push(Block::new(b));
        self.f.blocks[b].insts.1 = self.f.insts.len() as u32;
        i
    }

    /// Number of blocks started so far.
    pub fn num_blocks(&self) -> usize {
        self.f.blocks.len()
    }

    /// Derives successors and predecessors; fails if a target names a block
    /// that was never started.
    pub fn finish(self) -> Result<Function, BuildError> {
        let mut f = self.f;
        let nb = f.blocks.len();
        if let Some(e) = no_such_block(&f) {
            return Err(e);
        }
        if f.num_vregs > VReg::MAX_INDEX + 1 {
            return Err(BuildError::TooManyVRegs);
        }
        // Successors: the targets of the block's last instruction when it is
        // a branch. Predecessors: a counting sort of all edges by
        // destination, in place (counts, then starts, then each edge at its
        // destination's next free place), so that a reused function
        // allocates nothing; each block's come in order of source.
        for b in 0..nb {
            let (s, e) = f.blocks[b].insts;
            let s0 = f.succs.len() as u32;
            if e > s && f.insts[e as usize - 1].opcode == Opcode::Branch {
                let (t0, t1) = f.insts[e as usize - 1].targets;
                for t in t0..t1 {
                    let to = f.targets[t as usize].block;
                    f.succs.push(to);
                    f.blocks[to.index()].preds.1 += 1;
                }
            }
            f.blocks[b].succs = (s0, f.succs.len() as u32);
        }
        let mut start = 0;
        for bd in &mut f.blocks {
            let count = bd.preds.1;
            bd.preds = (start, start);
            start += count;
        }
        f.preds.clear();
        f.preds.resize(f.succs.len(), Block::new(0));
        for b in 0..nb {
            let (s0, s1) = f.blocks[b].succs;
            for k in s0..s1 {
                let to = f.succs[k as usize].index();
                let at = &mut f.blocks[to].preds.1;
                f.preds[*at as usize] = Block::new(b);
                *at += 1;
            }
        }
        Ok(f)
    }
}

/// The first target of `f` naming a block it does not have, as the error
/// [`FunctionBuilder::finish`] reports: found among all targets at once,
/// and only then its instruction (the one still open, if no finished one
/// holds it).
fn no_such_block(f: &Function) -> Option<BuildError> {
    let nb = f.blocks.len();
    let t = f.targets.iter().position(|t| t.block.index() >= nb)?;
    let i = f.insts.partition_point(|d| d.targets.1 as usize <= t);
    let first = match f.insts.get(i) {
        Some(d) => d.targets.0,
        None => f.insts.last().map_or(0, |d| d.targets.1),
    };
    Some(BuildError::NoSuchBlock {
        inst: Inst::new(i),
        target: t - first as usize,
        block: f.targets[t].block,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::index::RegClass;
    use crate::ir::operand::OperandConstraint;

    #[test]
    fn builder_derives_succs_and_preds() {
        let v0 = VReg::new(0, RegClass::Int);
        let v1 = VReg::new(1, RegClass::Int);
        let mut b = FunctionBuilder::new();
        let b0 = b.block(&[]);
        b.inst(
            Opcode::Op,
            &[Operand::def(v0, OperandConstraint::Reg)],
            &[],
            &[],
        );
        b.inst(
            Opcode::Branch,
            &[],
            &[],
            &[(Block(1), &[v0]), (Block(2), &[])],
        );
        let b1 = b.block(&[v1]);
        b.inst(Opcode::Branch, &[], &[], &[(Block(2), &[])]);
        b.block(&[]);
        b.inst(Opcode::Ret, &[], &[], &[]);
        let f = b.finish().unwrap();
        assert_eq!(f.num_blocks(), 3);
        assert_eq!(f.num_insts(), 4);
        assert_eq!(f.num_vregs(), 2);
        assert_eq!(f.block_succs(b0), &[Block(1), Block(2)]);
        assert_eq!(f.block_preds(Block(2)), &[Block(0), Block(1)]);
        assert_eq!(f.block_preds(b1), &[Block(0)]);
        assert_eq!(f.branch_args(b0, 0), &[v0]);
        assert_eq!(f.branch_args(b0, 1), &[] as &[VReg]);
        assert_eq!(f.block_params(b1), &[v1]);
        assert_eq!(f.block_of(Inst(2)), b1);
        assert_eq!(f.block_insts(Block(2)).last(), Inst(3));
        assert_eq!(f.inst_operand_range(Inst(1)), 1..1);
    }

    /// Builds `block0(): def v{a}; branch block1(v{a})`, `block1(v{p}): use
    /// v{p}; ret` into `b`.
    fn two_blocks(mut b: FunctionBuilder, a: usize, p: usize) -> Function {
        let (va, vp) = (VReg::new(a, RegClass::Int), VReg::new(p, RegClass::Float));
        b.block(&[]);
        b.inst(
            Opcode::Op,
            &[Operand::def(va, OperandConstraint::Reg)],
            &[],
            &[],
        );
        b.inst(Opcode::Branch, &[], &[], &[(Block(1), &[va])]);
        b.block(&[vp]);
        b.inst(
            Opcode::Op,
            &[Operand::use_(vp, OperandConstraint::Reg)],
            &[],
            &[],
        );
        b.inst(Opcode::Ret, &[], &[], &[]);
        b.finish().unwrap()
    }

    #[test]
    fn a_reused_builder_builds_what_a_new_one_does() {
        let old = two_blocks(FunctionBuilder::new(), 7, 9);
        let fresh = two_blocks(FunctionBuilder::new(), 0, 1);
        let reused = two_blocks(FunctionBuilder::reusing(old), 0, 1);
        assert_eq!(reused, fresh);
    }

    #[test]
    fn renumbering_maps_every_mention_and_keeps_classes() {
        let mut f = two_blocks(FunctionBuilder::new(), 192, 195);
        let mut map = vec![u32::MAX; 196];
        (map[192], map[195]) = (0, 1);
        f.renumber_vregs(&map, 2);
        assert_eq!(f, two_blocks(FunctionBuilder::new(), 0, 1));
    }

    #[test]
    fn builder_rejects_missing_target() {
        let mut b = FunctionBuilder::new();
        b.block(&[]);
        b.inst(Opcode::Branch, &[], &[], &[(Block(5), &[])]);
        assert_eq!(
            b.finish(),
            Err(BuildError::NoSuchBlock {
                inst: Inst(0),
                target: 0,
                block: Block(5)
            })
        );
    }

    #[test]
    fn streamed_instructions_equal_whole_ones() {
        let v = |i| VReg::new(i, RegClass::Int);
        let r0 = PReg::new(0, RegClass::Int);
        let ops = [
            Operand::def(v(3), OperandConstraint::Reg),
            Operand::nonalloc(PReg::new(9, RegClass::Float)),
        ];
        let mut whole = FunctionBuilder::new();
        whole.block(&[]);
        whole.inst(Opcode::Op, &ops, &[r0], &[]);
        whole.inst(
            Opcode::Branch,
            &[],
            &[],
            &[(Block(1), &[v(3)]), (Block(0), &[])],
        );
        whole.block(&[v(7)]);
        whole.inst(
            Opcode::Ret,
            &[Operand::use_(v(7), OperandConstraint::Any)],
            &[],
            &[],
        );
        let mut streamed = FunctionBuilder::new();
        streamed.block(&[]);
        for &op in &ops {
            streamed.push_operand(op);
        }
        streamed.push_clobber(r0);
        assert_eq!(streamed.end_inst(Opcode::Op), Inst(0));
        streamed.push_target(Block(1), &[v(3)]);
        streamed.push_target(Block(0), &[]);
        assert_eq!(streamed.end_inst(Opcode::Branch), Inst(1));
        streamed.block(&[v(7)]);
        streamed.push_operand(Operand::use_(v(7), OperandConstraint::Any));
        streamed.end_inst(Opcode::Ret);
        let (whole, streamed) = (whole.finish().unwrap(), streamed.finish().unwrap());
        assert_eq!(streamed, whole);
        assert_eq!(streamed.num_vregs(), 8);
        assert_eq!(streamed.inst_operand_range(Inst(2)), 2..3);
        assert_eq!(streamed.target(Inst(1), 1), (Block(0), &[] as &[VReg]));
    }

    /// The first target naming a missing block is found among all targets,
    /// then named by its instruction and its index there: past earlier
    /// instructions' targets, and in an instruction not yet ended.
    #[test]
    fn a_missing_block_is_named_by_its_instruction_and_target() {
        let mut b = FunctionBuilder::new();
        b.block(&[]);
        b.inst(
            Opcode::Branch,
            &[],
            &[],
            &[(Block(0), &[]), (Block(0), &[])],
        );
        b.inst(Opcode::Op, &[], &[], &[]);
        b.inst(
            Opcode::Branch,
            &[],
            &[],
            &[(Block(0), &[]), (Block(9), &[]), (Block(8), &[])],
        );
        let bad = |inst, target, block| {
            Err(BuildError::NoSuchBlock {
                inst: Inst(inst),
                target,
                block: Block(block),
            })
        };
        assert_eq!(b.finish(), bad(2, 1, 9));
        let mut open = FunctionBuilder::new();
        open.block(&[]);
        open.inst(Opcode::Branch, &[], &[], &[(Block(0), &[])]);
        open.push_target(Block(0), &[]);
        open.push_target(Block(3), &[]);
        assert_eq!(open.finish(), bad(1, 1, 3));
    }

    #[test]
    fn a_streamed_target_is_checked_too() {
        let mut b = FunctionBuilder::new();
        b.block(&[]);
        b.end_inst(Opcode::Op);
        b.push_target(Block(0), &[]);
        b.push_target(Block(4), &[]);
        b.end_inst(Opcode::Branch);
        assert_eq!(
            b.finish(),
            Err(BuildError::NoSuchBlock {
                inst: Inst(1),
                target: 1,
                block: Block(4)
            })
        );
    }
}
