//! Our SSA function as the `regalloc` crate's client would hand it over: a
//! flat instruction stream naming registers, not an operand list with
//! constraints. Each construct of ours becomes what Cranelift emitted for
//! regalloc.rs:
//!
//! - a block parameter: copies on each incoming edge, at the top of the
//!   block when it has one predecessor, else at the end of the predecessor
//!   (before its branch), which then has one successor, edges never being
//!   critical; through fresh temporaries when an argument is itself a
//!   parameter of the target, so that the copies stay a parallel assignment;
//! - a `fixed` use: a copy into the real register before the instruction,
//!   which then reads the real register; a `fixed` def: the instruction
//!   writes the real register, and a copy after it (at the top of each
//!   successor for a branch) moves it into the vreg;
//! - `reuse(k)`: a copy of input k into the def's vreg before the
//!   instruction, which then modifies that vreg in place (`mod`);
//! - a late use: a `mod`, the crate's only way to keep a register alive to
//!   the def point, so that no def of the instruction shares it;
//! - an early def: a placeholder instruction defining the vreg (or the
//!   fixed register) just before the instruction, which then modifies it:
//!   the register is then taken at the use point, where our early def
//!   writes it, as well as at the def point; the placeholder is dropped
//!   when the output is read back;
//! - a clobber: a def of the real register; a `nonalloc` operand: nothing
//!   (the crate ignores registers it does not allocate).
//!
//! `stack` and `limit` operands have no form here (see
//! [`super::exclusions`]); lowering assumes they were ruled out.

use allocator::{
    Function, Inst, MachineEnv, OperandConstraint, OperandKind, OperandPos, PReg, RegClass, VReg,
};
use regalloc as rr;
use rr::{
    BlockIx, InstIx, RealReg, RealRegUniverse, Reg, RegClassInfo, RegUsageCollector,
    RegUsageMapper, Set, SpillSlot, VirtualReg, Writable,
};
use smallvec::SmallVec;
use std::borrow::Cow;

/// The crate's class for one of ours (it has no plain "int": we use its
/// 64-bit classes).
pub fn class(c: RegClass) -> rr::RegClass {
    match c {
        RegClass::Int => rr::RegClass::I64,
        RegClass::Float => rr::RegClass::F64,
        RegClass::Vector => rr::RegClass::V128,
    }
}

fn vreg(v: VReg) -> Reg {
    Reg::new_virtual(class(v.class()), v.index() as u32)
}

/// How an instruction of ours names a register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Use,
    Def,
    Mod,
}

/// One register an instruction names, and how.
#[derive(Clone, Copy, Debug)]
pub struct Mention {
    pub reg: Reg,
    pub role: Role,
}

/// Per class (by [`RegClass::index`]), whether an operand of `func` holds a
/// value of it: the classes whose registers the crate allocates.
pub fn classes_used(func: &Function) -> [bool; 3] {
    let mut used = [false; 3];
    for i in func.insts() {
        for op in func.inst_operands(i).iter().filter(|op| !op.is_nonalloc()) {
            used[op.class().index()] = true;
        }
    }
    used
}

/// One instruction of the lowered stream, before and after allocation.
#[derive(Clone, Debug)]
pub enum Lowered {
    /// Instruction `inst` of the case with the registers it names; after
    /// allocation every one of them is real.
    Case {
        inst: u32,
        regs: SmallVec<[Mention; 6]>,
    },
    /// A copy the lowering adds (block parameters, fixed operands, reuse).
    Copy {
        dst: Writable<Reg>,
        src: Reg,
    },
    /// The placeholder before an instruction with an early def: it starts
    /// the def's register early; it writes nothing.
    EarlyDef {
        reg: Writable<Reg>,
    },
    /// Added by the allocator: a store, a load, a register move.
    Spill {
        slot: SpillSlot,
        reg: RealReg,
    },
    Reload {
        reg: Writable<RealReg>,
        slot: SpillSlot,
    },
    Move {
        dst: Writable<RealReg>,
        src: RealReg,
    },
    Nop,
}

/// Where the allocation of one operand of ours is read once the crate has
/// rewritten the stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The register now in mention `k` of the instruction.
    Mention(u8),
    /// The real register the operand was lowered to (`fixed`, `nonalloc`).
    Fixed(PReg),
}

/// A case's machine as the crate's register universe: the allocatable
/// registers of each class the function uses, contiguous and in preference
/// order (the crate tries them first to last), then every other register
/// the function or machine names.
pub struct Universe {
    pub universe: RealRegUniverse,
    /// Ours, by universe index.
    pub pregs: Vec<PReg>,
    /// The universe index of each of ours ([`PReg::index`]), `u8::MAX` if
    /// unlisted.
    index: Vec<u8>,
    /// How the machine's values sit in spill slots.
    pub slots: allocator::SlotGeometry,
}

impl Universe {
    /// `with_scratch`: the class's scratch register joins the allocatable
    /// range as the crate's `suggested_scratch` (the linear scan's); else
    /// it is listed as not allocatable.
    pub fn new(func: &Function, env: &MachineEnv, with_scratch: bool) -> Universe {
        let used = classes_used(func);
        let mut regs = Vec::new();
        let mut pregs = Vec::new();
        let mut listed = [false; 3 * (PReg::MAX_HW + 1)];
        let mut by_class: [Option<RegClassInfo>; rr::NUM_REG_CLASSES] = Default::default();
        let mut add = |r: PReg, regs: &mut Vec<(RealReg, String)>, pregs: &mut Vec<PReg>| {
            if !std::mem::replace(&mut listed[r.index()], true) {
                let idx = regs.len() as u8;
                let real = Reg::new_real(class(r.class()), r.hw() as u8, idx).to_real_reg();
                regs.push((real, format!("{r}")));
                pregs.push(r);
            }
        };
        for c in RegClass::ALL.into_iter().filter(|c| used[c.index()]) {
            let first = regs.len();
            env.allocatable(c)
                .for_each(|r| add(r, &mut regs, &mut pregs));
            let scratch = env.scratch[c].filter(|_| with_scratch);
            if let Some(s) = scratch {
                add(s, &mut regs, &mut pregs);
            }
            by_class[class(c) as usize] = Some(RegClassInfo {
                first,
                last: regs.len() - 1,
                suggested_scratch: scratch.map(|_| regs.len() - 1),
            });
        }
        let allocable = regs.len();
        for c in RegClass::ALL {
            let i = c.index();
            let others = env.preferred[i].iter().chain(&env.nonpreferred[i]);
            for &r in others.chain(&env.scratch[i]).chain(&env.fixed_stack[i]) {
                add(r, &mut regs, &mut pregs);
            }
        }
        for i in func.insts() {
            for &r in func.inst_clobbers(i) {
                add(r, &mut regs, &mut pregs);
            }
            for op in func.inst_operands(i) {
                match op.constraint() {
                    OperandConstraint::FixedReg(r) | OperandConstraint::NonAlloc(r) => {
                        add(r, &mut regs, &mut pregs)
                    }
                    _ => {}
                }
            }
        }
        let mut index = vec![u8::MAX; listed.len()];
        for (k, r) in pregs.iter().enumerate() {
            index[r.index()] = k as u8;
        }
        Universe {
            universe: RealRegUniverse {
                regs,
                allocable,
                allocable_by_class: by_class,
            },
            pregs,
            slots: env.slots,
            index,
        }
    }

    /// The crate's register for one of ours (which must be listed).
    pub fn real(&self, r: PReg) -> Reg {
        let k = self.index[r.index()];
        debug_assert!(k != u8::MAX, "{r} is not in the universe");
        self.universe.regs[k as usize].0.to_reg()
    }
}

/// A [`Function`] lowered for the crate, with what is needed to read the
/// allocation back: where each operand's register will be found.
pub struct LoweredFunc<'a> {
    pub func: &'a Function,
    pub insts: Vec<Lowered>,
    /// Per block, its first lowered instruction; one more at the end.
    block_start: Vec<u32>,
    succs: Vec<BlockIx>,
    succ_start: Vec<u32>,
    num_vregs: usize,
    /// Real registers with a universe index below this are allocatable.
    allocable: usize,
    /// One per operand of ours, in the function's flat operand order.
    pub sources: Vec<Source>,
    slots: allocator::SlotGeometry,
}

/// Why a valid case of ours has no lowered form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoForm(pub String);

impl<'a> LoweredFunc<'a> {
    /// Lowers `func`; the real registers come from `universe`.
    pub fn new(func: &'a Function, universe: &Universe) -> Result<LoweredFunc<'a>, NoForm> {
        let mut l = LoweredFunc {
            func,
            insts: Vec::with_capacity(func.num_insts() * 2),
            block_start: Vec::with_capacity(func.num_blocks() + 1),
            succs: Vec::new(),
            succ_start: Vec::with_capacity(func.num_blocks() + 1),
            num_vregs: func.num_vregs(),
            allocable: universe.universe.allocable,
            sources: vec![Source::Mention(0); func.num_operands()],
            slots: universe.slots,
        };
        let real = |r: PReg| universe.real(r);
        let mut after: Vec<Lowered> = Vec::new();
        for b in func.blocks() {
            l.block_start.push(l.insts.len() as u32);
            l.succ_start.push(l.succs.len() as u32);
            l.succs.extend(
                func.block_succs(b)
                    .iter()
                    .map(|s| BlockIx::new(s.index() as u32)),
            );
            // The top of a block with one predecessor: what follows the
            // predecessor's branch, then the edge's copies.
            if let [p] = func.block_preds(b) {
                l.copies_after(func.block_insts(*p).last(), &real, &mut after);
                l.insts.append(&mut after);
                let t = func.block_succs(*p).iter().position(|&s| s == b).unwrap();
                l.edge_copies(func.branch_args(*p, t), func.block_params(b));
            }
            for i in func.block_insts(b).iter() {
                let term = func.opcode(i).is_terminator();
                let mut renamed: SmallVec<[(VReg, Reg); 2]> = SmallVec::new();
                if let (true, [s]) = (term, func.block_succs(b)) {
                    if func.block_preds(*s).len() > 1 {
                        // The copies overwrite the target's parameters before
                        // the branch: a parameter the branch reads is read
                        // from a copy taken before them.
                        let params = func.block_params(*s);
                        for op in func.inst_operands(i) {
                            let v = op.vreg();
                            let read = op.is_use() && !op.is_nonalloc() && params.contains(&v);
                            if read && !renamed.iter().any(|r| r.0 == v) {
                                let t = l.temp(v);
                                l.insts.push(Lowered::Copy {
                                    dst: Writable::from_reg(t),
                                    src: vreg(v),
                                });
                                renamed.push((v, t));
                            }
                        }
                        l.edge_copies(func.branch_args(b, 0), params);
                        l.copies_after(i, &real, &mut after);
                        if !after.is_empty() {
                            return Err(NoForm(format!(
                                "{i} is a branch into a join with a fixed def: the copy out of the register would follow the branch"
                            )));
                        }
                    }
                }
                l.instruction(i, &real, &renamed)?;
                if !term {
                    l.copies_after(i, &real, &mut after);
                    l.insts.append(&mut after);
                }
            }
        }
        l.block_start.push(l.insts.len() as u32);
        l.succ_start.push(l.succs.len() as u32);
        Ok(l)
    }

    /// The copies of an edge: `params := args`, in parallel.
    fn edge_copies(&mut self, args: &[VReg], params: &[VReg]) {
        let through_temps = args.iter().any(|a| params.contains(a));
        if !through_temps {
            for (&a, &p) in args.iter().zip(params) {
                self.insts.push(Lowered::Copy {
                    dst: Writable::from_reg(vreg(p)),
                    src: vreg(a),
                });
            }
            return;
        }
        let mut temps: SmallVec<[(Reg, VReg); 4]> = SmallVec::new();
        for (&a, &p) in args.iter().zip(params).filter(|(a, p)| a != p) {
            let t = self.temp(p);
            self.insts.push(Lowered::Copy {
                dst: Writable::from_reg(t),
                src: vreg(a),
            });
            temps.push((t, p));
        }
        for (t, p) in temps {
            self.insts.push(Lowered::Copy {
                dst: Writable::from_reg(vreg(p)),
                src: t,
            });
        }
    }

    /// Orders the copies around an instruction so that they never need
    /// more registers at once than the instruction itself: before it,
    /// copies into registers the crate does not allocate first, then into
    /// vregs, then into the allocatable registers the instruction reads
    /// (each holds its register from its copy on); after it, copies out
    /// of allocatable registers first, which free them.
    fn order_copies(copies: &mut [Lowered], allocable: usize, before: bool) {
        // Whether `r` is a register the crate allocates (vregs are not).
        let allocable = |r: Reg| r.as_real_reg().is_some_and(|x| x.get_index() < allocable);
        copies.sort_by_key(|c| match c {
            Lowered::Copy { dst, .. } if before => match dst.to_reg().is_virtual() {
                true => 1,
                false => 2 * allocable(dst.to_reg()) as u8,
            },
            Lowered::Copy { src, .. } => !allocable(*src) as u8,
            _ => 0,
        });
    }

    /// The copies that follow `i`: out of the real register of each fixed
    /// def, and of each def reusing a fixed input.
    fn copies_after(&self, i: Inst, real: &impl Fn(PReg) -> Reg, into: &mut Vec<Lowered>) {
        let start = into.len();
        let ops = self.func.inst_operands(i);
        for op in ops.iter().filter(|op| op.is_def()) {
            let fixed = match op.constraint() {
                OperandConstraint::FixedReg(r) => Some(r),
                OperandConstraint::Reuse(k) => match ops[k].constraint() {
                    OperandConstraint::FixedReg(r) => Some(r),
                    _ => None,
                },
                _ => None,
            };
            if let Some(r) = fixed {
                into.push(Lowered::Copy {
                    dst: Writable::from_reg(vreg(op.vreg())),
                    src: real(r),
                });
            }
        }
        Self::order_copies(&mut into[start..], self.allocable, false);
    }

    /// A fresh vreg of `v`'s class, numbered after the function's.
    fn temp(&mut self, v: VReg) -> Reg {
        self.num_vregs += 1;
        Reg::new_virtual(class(v.class()), self.num_vregs as u32 - 1)
    }

    /// Instruction `i` with the copies before it; a use of a vreg in
    /// `renamed` reads its new name.
    fn instruction(
        &mut self,
        i: Inst,
        real: &impl Fn(PReg) -> Reg,
        renamed: &[(VReg, Reg)],
    ) -> Result<(), NoForm> {
        let read = |v: VReg| renamed.iter().find(|r| r.0 == v).map_or(vreg(v), |r| r.1);
        let func = self.func;
        let ops = func.inst_operands(i);
        let base = func.inst_operand_range(i).start;
        let first_copy = self.insts.len();
        let mut regs: SmallVec<[Mention; 6]> = SmallVec::new();
        let mention = |regs: &mut SmallVec<[Mention; 6]>, reg: Reg, role: Role| {
            regs.push(Mention { reg, role });
            Source::Mention((regs.len() - 1) as u8)
        };
        let reused = |k: usize| {
            ops.iter()
                .any(|d| d.is_def() && d.constraint() == OperandConstraint::Reuse(k))
        };
        for (j, op) in ops.iter().enumerate() {
            let use_role = match op.pos() {
                OperandPos::Late => Role::Mod,
                OperandPos::Early => Role::Use,
            };
            let def_role = match op.pos() {
                OperandPos::Early => Role::Mod,
                OperandPos::Late => Role::Def,
            };
            let source = match (op.kind(), op.constraint()) {
                (_, OperandConstraint::NonAlloc(r)) => Source::Fixed(r),
                (_, OperandConstraint::Stack | OperandConstraint::Limit(_)) => {
                    return Err(NoForm(format!("operand {j} of {i} is `stack` or `limit`")))
                }
                // Set with the def that reuses it.
                (OperandKind::Use, _) if reused(j) => continue,
                (OperandKind::Use, OperandConstraint::FixedReg(r)) => {
                    self.insts.push(Lowered::Copy {
                        dst: Writable::from_reg(real(r)),
                        src: read(op.vreg()),
                    });
                    mention(&mut regs, real(r), use_role);
                    Source::Fixed(r)
                }
                (OperandKind::Use, _) => mention(&mut regs, read(op.vreg()), use_role),
                (OperandKind::Def, OperandConstraint::FixedReg(r)) => {
                    mention(&mut regs, real(r), def_role);
                    Source::Fixed(r)
                }
                (OperandKind::Def, OperandConstraint::Reuse(k)) => {
                    let input = ops[k];
                    let source = match input.constraint() {
                        OperandConstraint::FixedReg(r) => {
                            self.insts.push(Lowered::Copy {
                                dst: Writable::from_reg(real(r)),
                                src: read(input.vreg()),
                            });
                            mention(&mut regs, real(r), Role::Mod);
                            Source::Fixed(r)
                        }
                        OperandConstraint::Any | OperandConstraint::Reg => {
                            self.insts.push(Lowered::Copy {
                                dst: Writable::from_reg(vreg(op.vreg())),
                                src: read(input.vreg()),
                            });
                            mention(&mut regs, vreg(op.vreg()), Role::Mod)
                        }
                        _ => {
                            return Err(NoForm(format!(
                                "operand {j} of {i} reuses a `{}` input",
                                input.constraint()
                            )))
                        }
                    };
                    self.sources[base + k] = source;
                    source
                }
                (OperandKind::Def, _) => mention(&mut regs, vreg(op.vreg()), def_role),
            };
            self.sources[base + j] = source;
        }
        for &r in func.inst_clobbers(i) {
            mention(&mut regs, real(r), Role::Def);
        }
        // One role per register: the crate drops a use of what the
        // instruction also modifies, and maps each role through its own map.
        for k in 0..regs.len() {
            if regs[k].role == Role::Use
                && regs
                    .iter()
                    .any(|m| m.reg == regs[k].reg && m.role == Role::Mod)
            {
                regs[k].role = Role::Mod;
            }
        }
        Self::order_copies(&mut self.insts[first_copy..], self.allocable, true);
        for (op, m) in ops.iter().zip(&self.sources[base..base + ops.len()]) {
            // A reusing def already takes its register early, by its copy.
            let reuse = matches!(op.constraint(), OperandConstraint::Reuse(_));
            if let (OperandKind::Def, OperandPos::Early, false) = (op.kind(), op.pos(), reuse) {
                let reg = match *m {
                    Source::Mention(k) => regs[k as usize].reg,
                    Source::Fixed(r) => real(r),
                };
                self.insts.push(Lowered::EarlyDef {
                    reg: Writable::from_reg(reg),
                });
            }
        }
        self.insts.push(Lowered::Case {
            inst: i.index() as u32,
            regs,
        });
        Ok(())
    }

    /// The first instruction of ours whose lowered form names more
    /// registers of one class at one point (its uses and mods at the use
    /// point, its defs and mods at the def point) than the crate may
    /// allocate: the crate gives every register mention a register, where
    /// we may put an `any` operand on the stack.
    pub fn overfull(&self, universe: &Universe) -> Option<Inst> {
        let u = &universe.universe;
        let mut room = [0usize; 3];
        for (c, r) in RegClass::ALL.into_iter().zip(&mut room) {
            if let Some(info) = u.allocable_by_class[class(c) as usize] {
                *r = info.last + 1 - info.first - info.suggested_scratch.is_some() as usize;
            }
        }
        let counted = |m: &Mention| match m.reg.as_real_reg() {
            None => true,
            Some(real) => {
                let k = real.get_index();
                k < u.allocable
                    && u.allocable_by_class
                        .iter()
                        .flatten()
                        .all(|info| info.suggested_scratch != Some(k))
            }
        };
        let class_of = |m: &Mention| m.reg.get_class() as usize - rr::RegClass::I64 as usize;
        for insn in &self.insts {
            let Lowered::Case { inst, regs } = insn else {
                continue;
            };
            for point in [Role::Use, Role::Def] {
                let mut need = [0usize; 3];
                for (k, m) in regs.iter().enumerate() {
                    let here = m.role == point || m.role == Role::Mod;
                    let first = !regs[..k]
                        .iter()
                        .any(|n| n.reg == m.reg && (n.role == point || n.role == Role::Mod));
                    if here && first && counted(m) {
                        need[class_of(m)] += 1;
                    }
                }
                if (0..3).any(|c| need[c] > room[c]) {
                    return Some(Inst::new(*inst as usize));
                }
            }
        }
        None
    }

    /// The lowered instructions of block `b`.
    pub fn block_range(&self, b: usize) -> std::ops::Range<usize> {
        self.block_start[b] as usize..self.block_start[b + 1] as usize
    }
}

impl rr::Function for LoweredFunc<'_> {
    type Inst = Lowered;

    fn insns(&self) -> &[Lowered] {
        &self.insts
    }

    fn insns_mut(&mut self) -> &mut [Lowered] {
        &mut self.insts
    }

    fn get_insn(&self, insn: InstIx) -> &Lowered {
        &self.insts[insn.get() as usize]
    }

    fn get_insn_mut(&mut self, insn: InstIx) -> &mut Lowered {
        &mut self.insts[insn.get() as usize]
    }

    fn blocks(&self) -> rr::Range<BlockIx> {
        rr::Range::new(BlockIx::new(0), self.func.num_blocks())
    }

    fn entry_block(&self) -> BlockIx {
        BlockIx::new(self.func.entry_block().index() as u32)
    }

    fn block_insns(&self, block: BlockIx) -> rr::Range<InstIx> {
        let r = self.block_range(block.get() as usize);
        rr::Range::new(InstIx::new(r.start as u32), r.len())
    }

    fn block_succs(&self, block: BlockIx) -> Cow<'_, [BlockIx]> {
        let b = block.get() as usize;
        Cow::Borrowed(&self.succs[self.succ_start[b] as usize..self.succ_start[b + 1] as usize])
    }

    fn is_ret(&self, insn: InstIx) -> bool {
        match &self.insts[insn.get() as usize] {
            Lowered::Case { inst, .. } => self.func.is_ret(Inst::new(*inst as usize)),
            _ => false,
        }
    }

    fn get_regs(insn: &Lowered, collector: &mut RegUsageCollector) {
        match insn {
            Lowered::Case { regs, .. } => {
                for m in regs {
                    match m.role {
                        Role::Use => collector.add_use(m.reg),
                        Role::Def => collector.add_def(Writable::from_reg(m.reg)),
                        Role::Mod => collector.add_mod(Writable::from_reg(m.reg)),
                    }
                }
            }
            Lowered::Copy { dst, src } => {
                collector.add_def(*dst);
                collector.add_use(*src);
            }
            Lowered::EarlyDef { reg } => collector.add_def(*reg),
            Lowered::Spill { reg, .. } => collector.add_use(reg.to_reg()),
            Lowered::Reload { reg, .. } => {
                collector.add_def(Writable::from_reg(reg.to_reg().to_reg()))
            }
            Lowered::Move { dst, src } => {
                collector.add_def(Writable::from_reg(dst.to_reg().to_reg()));
                collector.add_use(src.to_reg());
            }
            Lowered::Nop => {}
        }
    }

    fn map_regs<RUM: RegUsageMapper>(insn: &mut Lowered, maps: &RUM) {
        let map = |r: &mut Reg, get: &dyn Fn(VirtualReg) -> Option<RealReg>| {
            if let Some(v) = r.as_virtual_reg() {
                if let Some(real) = get(v) {
                    *r = real.to_reg();
                }
            }
        };
        match insn {
            Lowered::Case { regs, .. } => {
                for m in regs.iter_mut() {
                    match m.role {
                        Role::Use => map(&mut m.reg, &|v| maps.get_use(v)),
                        Role::Def => map(&mut m.reg, &|v| maps.get_def(v)),
                        Role::Mod => map(&mut m.reg, &|v| maps.get_mod(v)),
                    }
                }
            }
            Lowered::Copy { dst, src } => {
                let mut d = dst.to_reg();
                map(&mut d, &|v| maps.get_def(v));
                *dst = Writable::from_reg(d);
                map(src, &|v| maps.get_use(v));
            }
            Lowered::EarlyDef { reg } => {
                let mut r = reg.to_reg();
                map(&mut r, &|v| maps.get_def(v));
                *reg = Writable::from_reg(r);
            }
            _ => {}
        }
    }

    fn is_move(&self, insn: &Lowered) -> Option<(Writable<Reg>, Reg)> {
        match insn {
            Lowered::Copy { dst, src } => Some((*dst, *src)),
            _ => None,
        }
    }

    fn get_num_vregs(&self) -> usize {
        self.num_vregs
    }

    /// The crate names a value's run of slots by its first slot; the lift
    /// renames it when the machine names values by their last.
    fn get_spillslot_size(&self, class: rr::RegClass, _: VirtualReg) -> u32 {
        let ours = match class {
            rr::RegClass::F64 | rr::RegClass::F32 => RegClass::Float,
            rr::RegClass::V128 => RegClass::Vector,
            _ => RegClass::Int,
        };
        self.slots.size(ours) as u32
    }

    fn gen_spill(&self, to_slot: SpillSlot, from_reg: RealReg, _: Option<VirtualReg>) -> Lowered {
        Lowered::Spill {
            slot: to_slot,
            reg: from_reg,
        }
    }

    fn gen_reload(
        &self,
        to_reg: Writable<RealReg>,
        from_slot: SpillSlot,
        _: Option<VirtualReg>,
    ) -> Lowered {
        Lowered::Reload {
            reg: to_reg,
            slot: from_slot,
        }
    }

    fn gen_move(&self, to_reg: Writable<RealReg>, from_reg: RealReg, _: VirtualReg) -> Lowered {
        Lowered::Move {
            dst: to_reg,
            src: from_reg,
        }
    }

    fn gen_zero_len_nop(&self) -> Lowered {
        Lowered::Nop
    }

    fn maybe_direct_reload(&self, _: &Lowered, _: VirtualReg, _: SpillSlot) -> Option<Lowered> {
        None
    }

    fn func_liveins(&self) -> Set<RealReg> {
        Set::empty()
    }

    fn func_liveouts(&self) -> Set<RealReg> {
        Set::empty()
    }
}

#[cfg(test)]
mod tests;
