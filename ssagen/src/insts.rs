//! Values and instructions: a walk down the dominator tree keeps the values
//! available at each point (defined in a dominating block, or earlier in the
//! block), instructions draw operands from them, and each operand that needs
//! a register gets a witness register (see [`crate::feasibility`]) so the
//! case stays allocatable.

use crate::cfg::Skeleton;
use crate::choices::{weighted_from, Choices};
use crate::config::Config;
use crate::feasibility::{machine_masks, PointRegs, Span};
use crate::machine::NONALLOC_HW;
use allocator::cfg::Graph;
use allocator::domtree::DomTree;
use allocator::{
    Block, Function, FunctionBuilder, MachineEnv, Opcode, Operand, OperandConstraint, OperandKind,
    OperandPos, PReg, RegClass, VReg,
};

type R = (u32, u32);

struct InstSpec {
    opcode: Opcode,
    ops: R,
    clobbers: R,
    /// All targets' arguments, in target order.
    args: R,
}

/// A use drawn for the instruction being built, with its witness register.
#[derive(Clone, Copy)]
struct UseSlot {
    op: Operand,
    witness: Option<usize>,
    reused: bool,
}

struct Gen<'g, 'a, 'b> {
    c: &'g mut Choices<'a, 'b>,
    /// Constraint kind (0 any, 1 reg, 2 stack, 3 fixed, 4 limit) by the top
    /// five bits of a drawn byte, for ordinary (0) and call-like (1)
    /// instructions: the config's weights, looked up once per case.
    kinds: [[u8; 32]; 2],
    cfg: &'g Config,
    alloc: [u64; 3],
    fixable: [u64; 3],
    classes: &'static [RegClass],
    next_vreg: usize,
    avail: [Vec<VReg>; 3],
    /// Parameter classes of block `b`: `pclass[pclass_start[b]..pclass_start[b + 1]]`.
    pclass: Vec<RegClass>,
    pclass_start: Vec<u32>,
    /// Parameters of block `b`: `params[param_range[b]]` (blocks are filled
    /// in dominator-tree order, so ranges are not in block order).
    params: Vec<VReg>,
    param_range: Vec<R>,
    insts: Vec<InstSpec>,
    block_insts: Vec<R>,
    ops: Vec<Operand>,
    clobbers: Vec<PReg>,
    args: Vec<VReg>,
    uses: Vec<UseSlot>,
    defs: Vec<(Operand, Option<usize>)>,
}

/// Fills the skeleton with values and instructions for machine `env`.
pub fn generate(c: &mut Choices, cfg: &Config, env: &MachineEnv, sk: &Skeleton) -> Function {
    let n = sk.num_blocks();
    let (alloc, fixable) = machine_masks(env);
    let classes: &'static [RegClass] = if cfg.multiple_classes {
        &RegClass::ALL
    } else {
        &RegClass::ALL[..1]
    };
    // Room for what the input can pay for (a few bytes per instruction, at
    // most `max_insts_per_block` per block), so the lists rarely grow.
    let insts = (c.remaining() / 4 + 2 * n).min(n * (cfg.max_insts_per_block + 1));
    let mut g = Gen {
        kinds: constraint_kinds(cfg),
        c,
        cfg,
        alloc,
        fixable,
        classes,
        next_vreg: 0,
        avail: std::array::from_fn(|_| Vec::with_capacity(insts)),
        pclass: Vec::with_capacity(n * cfg.max_block_params.max(1)),
        pclass_start: Vec::with_capacity(n + 1),
        params: Vec::with_capacity(n),
        param_range: vec![(0, 0); n],
        insts: Vec::with_capacity(insts),
        block_insts: vec![(0, 0); n],
        ops: Vec::with_capacity(4 * insts),
        clobbers: Vec::with_capacity(insts),
        args: Vec::with_capacity(2 * n),
        uses: Vec::new(),
        defs: Vec::new(),
    };
    g.pclass_start.push(0);
    for b in 0..n {
        if b > 0 && g.c.chance(1, 2) {
            for _ in 0..g.c.int(1, cfg.max_block_params.max(1)) {
                let class = g.class();
                g.pclass.push(class);
            }
        }
        g.pclass_start.push(g.pclass.len() as u32);
    }
    // Walk the dominator tree in preorder; the available values of a block
    // are those of its dominators plus its own so far. Children lists are
    // a counting sort of the blocks by immediate dominator.
    let tree = DomTree::of_graph(sk);
    let mut child_start = vec![0u32; n + 1];
    for b in 1..n {
        if let Some(d) = tree.idom(Block::new(b)) {
            child_start[d.index() + 1] += 1;
        }
    }
    for b in 0..n {
        child_start[b + 1] += child_start[b];
    }
    let mut fill = child_start.clone();
    let mut children = vec![0u32; child_start[n] as usize];
    for b in 1..n {
        if let Some(d) = tree.idom(Block::new(b)) {
            children[fill[d.index()] as usize] = b as u32;
            fill[d.index()] += 1;
        }
    }
    let mut stack: Vec<(u32, u32, [usize; 3])> = Vec::with_capacity(n);
    stack.push((0, child_start[0], [0; 3]));
    g.block(0, sk.succs(Block(0)));
    while let Some(top) = stack.last_mut() {
        let (b, k, saved) = *top;
        if k < child_start[b as usize + 1] {
            let child = children[k as usize];
            top.1 += 1;
            let lens = [g.avail[0].len(), g.avail[1].len(), g.avail[2].len()];
            stack.push((child, child_start[child as usize], lens));
            g.block(child as usize, sk.succs(Block(child)));
        } else {
            for (v, len) in g.avail.iter_mut().zip(saved) {
                v.truncate(len);
            }
            stack.pop();
        }
    }
    g.finish(sk)
}

/// The table behind [`Gen::constraint_from`]: call-like instructions favour
/// fixed registers (arguments and results), disabled kinds never appear.
fn constraint_kinds(cfg: &Config) -> [[u8; 32]; 2] {
    let k = cfg.constraints;
    let mut t = [[0u8; 32]; 2];
    for (call, row) in t.iter_mut().enumerate() {
        let fixed = if call == 1 { 8 } else { 2 };
        let weights = [
            3,
            if k.reg { 4 } else { 0 },
            if k.stack { 1 } else { 0 },
            if k.fixed { fixed } else { 0 },
            if k.limit { 1 } else { 0 },
        ];
        for (x, kind) in row.iter_mut().enumerate() {
            *kind = weighted_from((x << 3) as u8, &weights) as u8;
        }
    }
    t
}

impl Gen<'_, '_, '_> {
    fn class(&mut self) -> RegClass {
        let b = self.c.byte();
        self.class_from(b)
    }

    /// Int values dominate real code; floats and vectors still show up.
    fn class_from(&self, b: u8) -> RegClass {
        match self.classes.len() {
            1 => RegClass::Int,
            _ => RegClass::ALL[weighted_from(b, &[6, 3, 2])],
        }
    }

    fn new_vreg(&mut self, class: RegClass) -> VReg {
        let v = VReg::new(self.next_vreg, class);
        self.next_vreg += 1;
        v
    }

    /// A value available now, of any class.
    fn pick_value(&mut self) -> Option<VReg> {
        let total: usize = self.avail.iter().map(Vec::len).sum();
        if total == 0 {
            return None;
        }
        let mut k = self.c.int(0, total - 1);
        for v in &self.avail {
            if k < v.len() {
                return Some(v[k]);
            }
            k -= v.len();
        }
        None
    }

    fn block(&mut self, b: usize, succs: &[Block]) {
        let start = self.insts.len() as u32;
        let p0 = self.params.len() as u32;
        for k in self.pclass_start[b]..self.pclass_start[b + 1] {
            let v = self.new_vreg(self.pclass[k as usize]);
            self.params.push(v);
            self.avail[v.class().index()].push(v);
        }
        self.param_range[b] = (p0, self.params.len() as u32);
        let n = if self.cfg.insts {
            self.c.int(0, self.cfg.max_insts_per_block)
        } else {
            0
        };
        for _ in 0..n {
            self.op();
        }
        self.terminator(succs);
        self.block_insts[b] = (start, self.insts.len() as u32);
    }

    /// Draws a constraint for an operand of `class` spanning `span`, taking
    /// a witness register when it needs one; returns the constraint and the
    /// witness. Falls back to `any` when no register is left.
    fn constraint(
        &mut self,
        pr: &mut PointRegs,
        class: RegClass,
        span: Span,
        call: bool,
    ) -> (OperandConstraint, Option<usize>) {
        let d = self.c.byte();
        self.constraint_from(d, pr, class, span, call)
    }

    /// [`Gen::constraint`] with the kind drawn from the high five bits of `d`
    /// (the caller may use the low three for its own decisions); an all-zero
    /// `d` gives `any`.
    fn constraint_from(
        &mut self,
        d: u8,
        pr: &mut PointRegs,
        class: RegClass,
        span: Span,
        call: bool,
    ) -> (OperandConstraint, Option<usize>) {
        let ci = class.index();
        match self.kinds[call as usize][(d >> 3) as usize] {
            kind @ (1 | 4) => {
                let Some(hw) = self.c.bit(pr.free(class, span, self.alloc[ci])) else {
                    return (OperandConstraint::Any, None);
                };
                pr.take(class, span, hw);
                if kind == 4 {
                    let mut n = (hw + 1).next_power_of_two();
                    if n < 64 && d & 4 == 4 {
                        n *= 2;
                    }
                    (OperandConstraint::Limit(n as u8), Some(hw))
                } else {
                    (OperandConstraint::Reg, Some(hw))
                }
            }
            2 => (OperandConstraint::Stack, None),
            3 => {
                let Some(hw) = self.c.bit(pr.free(class, span, self.fixable[ci])) else {
                    return (OperandConstraint::Any, None);
                };
                pr.take(class, span, hw);
                (OperandConstraint::FixedReg(PReg::new(hw, class)), Some(hw))
            }
            _ => (OperandConstraint::Any, None),
        }
    }

    fn draw_clobbers(&mut self, pr: &mut PointRegs, call: bool, some: bool) {
        let start = self.clobbers.len();
        if call {
            // A call clobbers (nearly) every preferred register: the
            // caller-saved ones.
            for &class in self.classes {
                let c = class.index();
                let mut m = self.alloc[c];
                while m != 0 {
                    let hw = m.trailing_zeros() as usize;
                    m &= m - 1;
                    if self.c.chance(7, 8) {
                        pr.clobbered[c] |= 1 << hw;
                    }
                }
            }
        } else if some {
            for _ in 0..self.c.int(1, 3) {
                let class = self.class();
                let c = class.index();
                if let Some(hw) = self.c.bit(self.alloc[c] & !pr.clobbered[c]) {
                    pr.clobbered[c] |= 1 << hw;
                }
            }
        }
        for c in 0..3 {
            let mut m = pr.clobbered[c];
            while m != 0 {
                let hw = m.trailing_zeros() as usize;
                m &= m - 1;
                self.clobbers.push(PReg::new(hw, RegClass::from_index(c)));
            }
        }
        debug_assert!(self.clobbers.len() - start <= 192);
    }

    /// An ordinary or call-like instruction.
    fn op(&mut self) {
        // The instruction's shape from one 16-bit draw; all-zero bits are the
        // plainest instruction (no operands, no clobbers), so an exhausted
        // input winds down.
        let shape = self.c.word();
        let call = self.cfg.calls && shape & 0xf == 0xf;
        let clobbers = !call && self.cfg.clobbers && (shape >> 4) & 3 == 3;
        let nonalloc = self.cfg.nonalloc && (shape >> 6) & 0xf == 0xf;
        let defs_first = (shape >> 10) & 1 == 1;
        let n_uses = ((shape >> 11) & 3) as usize + call as usize;
        let n_defs = [0, 1, 2, 1][((shape >> 13) & 3) as usize];
        let mut pr = PointRegs::default();
        let clob_start = self.clobbers.len() as u32;
        self.draw_clobbers(&mut pr, call, clobbers);
        self.draw_uses(&mut pr, n_uses, call);
        self.draw_defs(&mut pr, n_defs, call);
        self.emit(Opcode::Op, clob_start, defs_first, nonalloc, (0, 0));
    }

    fn draw_uses(&mut self, pr: &mut PointRegs, n: usize, call: bool) {
        self.uses.clear();
        for _ in 0..n {
            let Some(v) = self.pick_value() else { break };
            let d = self.c.byte();
            if self.cfg.distinct_uses && self.uses.iter().any(|u| u.op.vreg() == v) {
                continue;
            }
            let late = self.cfg.positions && d & 7 == 7;
            let pos = if late {
                OperandPos::Late
            } else {
                OperandPos::Early
            };
            let span = Span::of_kind(OperandKind::Use, pos);
            let (constraint, witness) = self.constraint_from(d, pr, v.class(), span, call);
            self.uses.push(UseSlot {
                op: Operand::new(v, OperandKind::Use, pos, constraint),
                witness,
                reused: false,
            });
        }
    }

    fn draw_defs(&mut self, pr: &mut PointRegs, n: usize, call: bool) {
        self.defs.clear();
        for _ in 0..n {
            let d = self.c.word();
            let class = self.class_from(d as u8);
            let v = self.new_vreg(class);
            let early = self.cfg.positions && (d >> 8) & 7 == 7;
            if !early && self.cfg.constraints.reuse && (d >> 11) & 3 == 3 {
                if let Some(op) = self.reuse_def(pr, v) {
                    self.defs.push((op, None));
                    continue;
                }
            }
            let pos = if early {
                OperandPos::Early
            } else {
                OperandPos::Late
            };
            let span = Span::of_kind(OperandKind::Def, pos);
            let (constraint, witness) = self.constraint(pr, class, span, call);
            self.defs
                .push((Operand::new(v, OperandKind::Def, pos, constraint), witness));
        }
    }

    /// A late def reusing an early use of its class that no other def reuses,
    /// whose register (if it needs one) is free at the late point. The
    /// constraint holds the *use index*; `emit` turns it into an operand index.
    fn reuse_def(&mut self, pr: &mut PointRegs, v: VReg) -> Option<Operand> {
        let class = v.class();
        let n = self.uses.len();
        let held = self.cfg.reuse_holds_uses;
        if n == 0 || (held && self.uses.iter().any(|u| u.reused)) {
            return None;
        }
        let start = self.c.int(0, n - 1);
        let late = Span {
            early: false,
            late: true,
        };
        for j in (0..n).map(|j| (start + j) % n) {
            let u = self.uses[j];
            if u.reused || u.op.pos() != OperandPos::Early || u.op.class() != class {
                continue;
            }
            if held && (u.op.constraint() != OperandConstraint::Reg || !self.can_hold_uses(pr, j)) {
                continue;
            }
            if let Some(hw) = u.witness {
                if pr.free(class, late, 1 << hw) == 0 {
                    continue;
                }
                pr.take(class, late, hw);
            }
            if held {
                for k in (0..n).filter(|&k| k != j && self.uses[k].op.pos() == OperandPos::Early) {
                    if let Some(hw) = self.uses[k].witness {
                        pr.take(self.uses[k].op.class(), late, hw);
                    }
                }
            }
            self.uses[j].reused = true;
            return Some(Operand::new(
                v,
                OperandKind::Def,
                OperandPos::Late,
                OperandConstraint::Reuse(j),
            ));
        }
        None
    }

    /// Whether every early use but `j` can keep its register to the late
    /// point: its witness is free there and not clobbered, and a `fixed`
    /// register without a witness (outside the machine) is not clobbered.
    /// (The reused input's own witness is checked apart; it differs from
    /// theirs, as each use's witness does.)
    fn can_hold_uses(&self, pr: &PointRegs, j: usize) -> bool {
        let late = Span {
            early: false,
            late: true,
        };
        self.uses.iter().enumerate().all(|(k, u)| {
            if k == j || u.op.pos() != OperandPos::Early {
                return true;
            }
            let class = u.op.class();
            match (u.witness, u.op.constraint()) {
                (Some(hw), _) => pr.free(class, late, 1 << hw) != 0,
                (None, OperandConstraint::FixedReg(r)) => {
                    pr.clobbered[class.index()] & (1 << r.hw()) == 0
                }
                _ => true,
            }
        })
    }

    /// Appends the instruction built in `uses` and `defs`, and makes its defs
    /// available to what follows.
    fn emit(&mut self, opcode: Opcode, clob_start: u32, defs_first: bool, nonalloc: bool, args: R) {
        let ops_start = self.ops.len() as u32;
        let use_base = if defs_first { self.defs.len() } else { 0 };
        let fix = |op: Operand| match op.constraint() {
            OperandConstraint::Reuse(j) => {
                op.with_constraint(OperandConstraint::Reuse(use_base + j))
            }
            _ => op,
        };
        if defs_first {
            self.ops.extend(self.defs.iter().map(|d| fix(d.0)));
            self.ops.extend(self.uses.iter().map(|u| u.op));
        } else {
            self.ops.extend(self.uses.iter().map(|u| u.op));
            self.ops.extend(self.defs.iter().map(|d| fix(d.0)));
        }
        if nonalloc {
            let class = self.class();
            self.ops
                .push(Operand::nonalloc(PReg::new(NONALLOC_HW, class)));
        }
        self.insts.push(InstSpec {
            opcode,
            ops: (ops_start, self.ops.len() as u32),
            clobbers: (clob_start, self.clobbers.len() as u32),
            args,
        });
        for k in 0..self.defs.len() {
            let v = self.defs[k].0.vreg();
            self.avail[v.class().index()].push(v);
        }
    }

    fn terminator(&mut self, succs: &[Block]) {
        // Branch arguments come first: they are read before the branch, and
        // a missing value is defined just before it.
        let args_start = self.args.len() as u32;
        for &s in succs {
            for k in self.pclass_start[s.index()]..self.pclass_start[s.index() + 1] {
                let class = self.pclass[k as usize];
                let v = match self.c.pick(&self.avail[class.index()]) {
                    Some(v) => v,
                    None => self.define_any(class),
                };
                self.args.push(v);
            }
        }
        let args = (args_start, self.args.len() as u32);
        let mut pr = PointRegs::default();
        self.uses.clear();
        self.defs.clear();
        if self.cfg.branch_operands {
            let n = self.c.int(0, if succs.is_empty() { 3 } else { 2 });
            self.draw_uses(&mut pr, n, succs.is_empty());
            // Defs on branches only with two or more successors: each then
            // has this block as its only predecessor, so a value the branch
            // writes can be moved at the top of each successor.
            if succs.len() >= 2 && self.c.chance(1, 16) {
                let class = self.class();
                let v = self.new_vreg(class);
                let (constraint, _) = self.constraint(
                    &mut pr,
                    class,
                    Span {
                        early: false,
                        late: true,
                    },
                    false,
                );
                self.defs.push((Operand::def(v, constraint), None));
            }
        }
        let opcode = if succs.is_empty() {
            Opcode::Ret
        } else {
            Opcode::Branch
        };
        let clob = self.clobbers.len() as u32;
        self.emit(opcode, clob, false, false, args);
    }

    /// `op def:vN:any`, defining a fresh value of `class`.
    fn define_any(&mut self, class: RegClass) -> VReg {
        let v = self.new_vreg(class);
        let start = self.ops.len() as u32;
        self.ops.push(Operand::def(v, OperandConstraint::Any));
        let clob = self.clobbers.len() as u32;
        self.insts.push(InstSpec {
            opcode: Opcode::Op,
            ops: (start, start + 1),
            clobbers: (clob, clob),
            args: (0, 0),
        });
        self.avail[class.index()].push(v);
        v
    }

    fn finish(self, sk: &Skeleton) -> Function {
        let mut b =
            FunctionBuilder::with_capacity(sk.num_blocks(), self.insts.len(), self.ops.len());
        b.reserve_lists(self.clobbers.len(), self.args.len(), self.params.len());
        let mut targets: Vec<(Block, &[VReg])> = Vec::new();
        for bi in 0..sk.num_blocks() {
            let succs = sk.succs(Block::new(bi));
            let (p0, p1) = self.param_range[bi];
            b.block(&self.params[p0 as usize..p1 as usize]);
            let (s, e) = self.block_insts[bi];
            for spec in &self.insts[s as usize..e as usize] {
                targets.clear();
                if spec.opcode == Opcode::Branch {
                    let mut at = spec.args.0 as usize;
                    for &t in succs {
                        let k = (self.pclass_start[t.index() + 1] - self.pclass_start[t.index()])
                            as usize;
                        targets.push((t, &self.args[at..at + k]));
                        at += k;
                    }
                }
                b.inst(
                    spec.opcode,
                    &self.ops[spec.ops.0 as usize..spec.ops.1 as usize],
                    &self.clobbers[spec.clobbers.0 as usize..spec.clobbers.1 as usize],
                    &targets,
                );
            }
        }
        b.finish().expect("generated targets exist")
    }
}
