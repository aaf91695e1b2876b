//! Values and instructions: a walk down the dominator tree keeps the values
//! available at each point (defined in a dominating block, or earlier in the
//! block), instructions draw operands from them, and each operand that needs
//! a register gets a witness register (see [`crate::feasibility`]) so the
//! case stays allocatable. The function's blocks are the skeleton's renumbered
//! in that walk's order (dominator-tree preorder), so every instruction is
//! written into the function as it is drawn.

use crate::cfg::Skeleton;
use crate::choices::{weighted_from, Choices};
use crate::config::Config;
use crate::feasibility::{machine_masks, PointRegs, Span};
use crate::machine::NONALLOC_HW;
use crate::per_case::PerCase;
use crate::preorder::Preorder;
use allocator::analysis::cfg::Graph;
use allocator::{
    Block, Function, FunctionBuilder, MachineEnv, Opcode, Operand, OperandConstraint, OperandKind,
    OperandPos, PReg, RegClass, VReg,
};

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
    /// The function, written as it is drawn: blocks come in dominator-tree
    /// preorder, so block order is generation order.
    b: FunctionBuilder,
    /// The parameters of the block being drawn.
    params: Vec<VReg>,
    /// The arguments of the branch being drawn, all targets' in target order.
    args: Vec<VReg>,
    uses: Vec<UseSlot>,
    defs: Vec<(Operand, Option<usize>)>,
    /// The features the config draws per case, as drawn for this one.
    case: PerCase,
}

/// Fills the skeleton with values and instructions for machine `env`.
pub fn generate(c: &mut Choices, cfg: &Config, env: &MachineEnv, sk: &Skeleton) -> Function {
    let n = sk.num_blocks();
    let (alloc, fixable) = machine_masks(env, cfg.machine.fixed_unlisted);
    let several = cfg.multiple_classes && c.sixteenths(cfg.multi_class_sixteenths);
    let case = PerCase::draw(c, cfg);
    let classes: &'static [RegClass] = if several {
        &RegClass::ALL
    } else {
        &RegClass::ALL[..1]
    };
    // Parameter classes, drawn in skeleton block order.
    let mut drawn = Vec::with_capacity(n * cfg.max_block_params.max(1));
    let mut drawn_start = Vec::with_capacity(n + 1);
    drawn_start.push(0u32);
    for b in 0..n {
        // Half is a coin, a draw of its own.
        let params = |c: &mut Choices| match cfg.block_param_sixteenths {
            8 => c.chance(1, 2),
            r => c.chance(r.min(16) as u32, 16),
        };
        if b > 0 && cfg.max_block_params > 0 && params(c) {
            for _ in 0..c.int(1, cfg.max_block_params) {
                let byte = c.byte();
                drawn.push(class_from(classes, &cfg.class_weights, byte));
            }
        }
        drawn_start.push(drawn.len() as u32);
    }
    let pre = Preorder::of(sk);
    let mut pclass = Vec::with_capacity(drawn.len());
    let mut pclass_start = Vec::with_capacity(n + 1);
    pclass_start.push(0u32);
    for &old in &pre.order {
        let o = old as usize;
        pclass.extend_from_slice(&drawn[drawn_start[o] as usize..drawn_start[o + 1] as usize]);
        pclass_start.push(pclass.len() as u32);
    }
    // Room for what the input can pay for (a few bytes per instruction, at
    // most `max_insts_per_block` per block), so the lists rarely grow.
    let insts = (c.remaining() / 4 + 2 * n).min(n * (cfg.max_insts_per_block + 1));
    let mut b = FunctionBuilder::with_capacity(n, insts, 4 * insts);
    b.reserve_lists(insts, 2 * n, pclass.len());
    let mut g = Gen {
        kinds: constraint_kinds(cfg),
        c,
        cfg,
        alloc,
        fixable,
        classes,
        next_vreg: 0,
        avail: std::array::from_fn(|_| Vec::with_capacity(insts)),
        pclass,
        pclass_start,
        b,
        params: Vec::new(),
        args: Vec::new(),
        uses: Vec::new(),
        defs: Vec::new(),
        case,
    };
    // The values available in a block are those of its dominators plus its
    // own so far: `scope` holds each block on the tree path to the current
    // one with the lengths of `avail` at its end.
    let mut scope: Vec<(u32, [usize; 3])> = Vec::with_capacity(n);
    for nb in 0..n {
        if nb > 0 {
            // Preorder: the immediate dominator is on the path.
            while scope.last().is_some_and(|&(s, _)| s != pre.idom[nb]) {
                scope.pop();
            }
            let (_, lens) = *scope.last().expect("the entry dominates every block");
            for (v, len) in g.avail.iter_mut().zip(lens) {
                v.truncate(len);
            }
        }
        let succs = &pre.succs[pre.succ_start[nb] as usize..pre.succ_start[nb + 1] as usize];
        let into_join = succs.iter().any(|s| pre.join[s.index()]);
        g.block(nb, succs, into_join);
        let lens = [g.avail[0].len(), g.avail[1].len(), g.avail[2].len()];
        scope.push((nb as u32, lens));
    }
    g.b.finish().expect("generated targets exist")
}

/// Int values dominate real code; floats and vectors still show up.
fn class_from(classes: &[RegClass], weights: &[u32; 3], b: u8) -> RegClass {
    match classes.len() {
        1 => RegClass::Int,
        _ => RegClass::ALL[weighted_from(b, weights)],
    }
}

/// The table behind [`Gen::constraint_from`]: call-like instructions favour
/// fixed registers (arguments and results), disabled kinds never appear.
fn constraint_kinds(cfg: &Config) -> [[u8; 32]; 2] {
    let k = cfg.constraints;
    let w = cfg.weights;
    let mut t = [[0u8; 32]; 2];
    for (call, row) in t.iter_mut().enumerate() {
        let fixed = if call == 1 { 4 * w[3] } else { w[3] };
        let weights = [
            w[0],
            if k.reg { w[1] } else { 0 },
            if k.stack { w[2] } else { 0 },
            if k.fixed { fixed } else { 0 },
            if k.limit { w[4] } else { 0 },
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

    fn class_from(&self, b: u8) -> RegClass {
        class_from(self.classes, &self.cfg.class_weights, b)
    }

    fn new_vreg(&mut self, class: RegClass) -> VReg {
        let v = VReg::new(self.next_vreg, class);
        self.next_vreg += 1;
        v
    }

    /// With `recent_uses`, `recent_use_sixteenths` times in sixteen, one of
    /// the latest values of `class`: compiled code reads mostly what it
    /// just computed.
    fn recent(&mut self, class: RegClass) -> Option<VReg> {
        let avail = &self.avail[class.index()];
        let recent = self.cfg.recent_uses.min(avail.len());
        if recent > 0 && self.c.sixteenths(self.cfg.recent_use_sixteenths) {
            return Some(avail[avail.len() - 1 - self.c.int(0, recent - 1)]);
        }
        None
    }

    /// A value available now: a recent int one, or any of any class.
    fn pick_value(&mut self) -> Option<VReg> {
        if let Some(v) = self.recent(RegClass::Int) {
            return Some(v);
        }
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

    /// A value of `class` to pass as a branch argument: a recent one (a
    /// loop passes on what it just computed), or any.
    fn pick_argument(&mut self, class: RegClass) -> Option<VReg> {
        self.recent(class)
            .or_else(|| self.c.pick(&self.avail[class.index()]))
    }

    fn block(&mut self, b: usize, succs: &[Block], into_join: bool) {
        self.params.clear();
        for k in self.pclass_start[b]..self.pclass_start[b + 1] {
            let v = self.new_vreg(self.pclass[k as usize]);
            self.params.push(v);
            self.avail[v.class().index()].push(v);
        }
        self.b.block(&self.params);
        if b == 0 && self.cfg.entry_args {
            self.entry_args();
        }
        let n = if self.cfg.insts {
            self.c.int(0, self.cfg.max_insts_per_block)
        } else {
            0
        };
        for _ in 0..n {
            self.op();
        }
        self.terminator(succs, into_join);
    }

    /// Draws a constraint for a def of `class` spanning `span`, taking a
    /// witness register when it needs one; returns the constraint and the
    /// witness. Falls back to `any` when no register is left, and where the
    /// config rules out a `stack` def; `None` as [`Gen::constraint_from`].
    fn def_constraint(
        &mut self,
        pr: &mut PointRegs,
        class: RegClass,
        span: Span,
        call: bool,
    ) -> Option<(OperandConstraint, Option<usize>)> {
        let d = self.c.byte();
        match self.constraint_from(d, pr, class, span, call)? {
            (OperandConstraint::Stack, None) if !self.cfg.stack_defs => {
                Some((OperandConstraint::Any, None))
            }
            drawn => Some(drawn),
        }
    }

    /// A constraint for an operand of `class` spanning `span`, with the kind
    /// drawn from the high five bits of `d` (the caller may use the low three
    /// for its own decisions; an all-zero `d` gives `any`), taking a witness
    /// register when it needs one; returns the constraint and the witness.
    /// Falls back to `any` when no register is left; with
    /// [`Config::operands_in_registers`](crate::Config), an `any` takes a
    /// witness register too, and `None` says no register is left (the
    /// caller leaves the operand out).
    fn constraint_from(
        &mut self,
        d: u8,
        pr: &mut PointRegs,
        class: RegClass,
        span: Span,
        call: bool,
    ) -> Option<(OperandConstraint, Option<usize>)> {
        let ci = class.index();
        let in_regs = self.cfg.operands_in_registers;
        let fallback = (!in_regs).then_some((OperandConstraint::Any, None));
        Some(match self.kinds[call as usize][(d >> 3) as usize] {
            kind @ (1 | 4) => {
                let Some(hw) = self.c.bit(pr.free(class, span, self.alloc[ci])) else {
                    return fallback;
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
                    return fallback;
                };
                pr.take(class, span, hw);
                (OperandConstraint::FixedReg(PReg::new(hw, class)), Some(hw))
            }
            _ if in_regs => {
                let hw = self.c.bit(pr.free(class, span, self.alloc[ci]))?;
                pr.take(class, span, hw);
                (OperandConstraint::Any, Some(hw))
            }
            _ => (OperandConstraint::Any, None),
        })
    }

    fn draw_clobbers(&mut self, pr: &mut PointRegs, call: bool, some: bool) {
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
                self.b.push_clobber(PReg::new(hw, RegClass::from_index(c)));
            }
        }
    }

    /// The function's arguments: one to three int values defined in
    /// distinct `fixed` registers by the entry's first instruction, as a
    /// calling convention hands them over.
    fn entry_args(&mut self) {
        let mut pr = PointRegs::default();
        self.uses.clear();
        self.defs.clear();
        let span = Span::of_kind(OperandKind::Def, OperandPos::Late);
        for _ in 0..self.c.int(1, 3) {
            let Some(hw) = self.c.bit(pr.free(RegClass::Int, span, self.fixable[0])) else {
                break;
            };
            pr.take(RegClass::Int, span, hw);
            let v = self.new_vreg(RegClass::Int);
            let fixed = OperandConstraint::FixedReg(PReg::new(hw, RegClass::Int));
            self.defs.push((Operand::def(v, fixed), Some(hw)));
        }
        self.emit(Opcode::Op, false, false, &[]);
    }

    /// An ordinary or call-like instruction.
    fn op(&mut self) {
        // The instruction's shape from one 16-bit draw; all-zero bits are the
        // plainest instruction (no operands, no clobbers), so an exhausted
        // input winds down.
        let shape = self.c.word();
        let call = self.cfg.calls && (shape & 0xf) as u8 >= 16 - self.cfg.call_sixteenths.min(16);
        let clobbers = !call && self.cfg.clobbers && (shape >> 4) & 3 == 3;
        let nonalloc = self.cfg.nonalloc && (shape >> 6) & 0xf == 0xf;
        let defs_first = (shape >> 10) & 1 == 1;
        let n_uses = ((shape >> 11) & 3) as usize + call as usize;
        let n_defs = [0, 1, 2, 1][((shape >> 13) & 3) as usize];
        let mut pr = PointRegs::default();
        self.draw_clobbers(&mut pr, call, clobbers);
        self.draw_uses(&mut pr, n_uses, call);
        self.draw_defs(&mut pr, n_defs, call);
        self.emit(Opcode::Op, defs_first, nonalloc, &[]);
    }

    fn draw_uses(&mut self, pr: &mut PointRegs, n: usize, call: bool) {
        self.uses.clear();
        for _ in 0..n {
            let Some(v) = self.pick_value() else { break };
            let d = self.c.byte();
            let clobbers = pr.clobbered.iter().any(|&m| m != 0);
            let late = self.cfg.late_uses
                && self.case.late_uses
                && d & 7 == 7
                && (self.cfg.in_place_with_writes || !clobbers);
            if !self.may_repeat(v, self.kinds[call as usize][(d >> 3) as usize], late) {
                continue;
            }
            let pos = if late {
                OperandPos::Late
            } else {
                OperandPos::Early
            };
            let span = Span::of_kind(OperandKind::Use, pos);
            let Some((constraint, witness)) = self.constraint_from(d, pr, v.class(), span, call)
            else {
                continue;
            };
            self.uses.push(UseSlot {
                op: Operand::new(v, OperandKind::Use, pos, constraint),
                witness,
                reused: false,
            });
        }
    }

    /// Whether a use of `v` whose constraint kind is `kind` (as in
    /// the `kinds` table; the drawn constraint may still fall back to `any`)
    /// and position `late` may join the uses drawn so far, by the config's
    /// [`crate::config::RepeatedUses`].
    fn may_repeat(&self, v: VReg, kind: u8, late: bool) -> bool {
        let rule = self.cfg.repeated_uses;
        let mut same = self.uses.iter().filter(|u| u.op.vreg() == v).peekable();
        if same.peek().is_none() {
            return true;
        }
        let bad = |kind: u8, late: bool| {
            (kind == 2 && !rule.stack)
                || (kind == 4 && !rule.limit)
                || (kind == 3 && late && !rule.late_fixed)
        };
        rule.allowed
            && self.case.repeated_uses
            && !bad(kind, late)
            && same.all(|u| {
                let kind = match u.op.constraint() {
                    OperandConstraint::Stack => 2,
                    OperandConstraint::FixedReg(_) => 3,
                    OperandConstraint::Limit(_) => 4,
                    _ => 0,
                };
                !bad(kind, u.op.pos() == OperandPos::Late)
            })
    }

    /// Whether some vreg has several uses, one of them `fixed`: with a
    /// `reuse` def, ion would hold that use to the late point.
    fn repeated_fixed_use(&self) -> bool {
        self.uses.iter().enumerate().any(|(k, a)| {
            self.uses[k + 1..].iter().any(|b| {
                a.op.vreg() == b.op.vreg()
                    && [a, b]
                        .iter()
                        .any(|u| matches!(u.op.constraint(), OperandConstraint::FixedReg(_)))
            })
        })
    }

    fn draw_defs(&mut self, pr: &mut PointRegs, n: usize, call: bool) {
        self.defs.clear();
        for _ in 0..n {
            let d = self.c.word();
            let class = self.class_from(d as u8);
            // Numbered once the def is drawn: vreg numbers stay dense.
            let v = VReg::new(self.next_vreg, class);
            let early = self.cfg.early_defs
                && self.case.early_defs
                && (d >> 8) & 7 == 7
                && ((d >> 13) as u8) * 2 < self.cfg.early_def_sixteenths
                && (self.cfg.in_place_with_writes || !self.writes_registers(pr));
            if !early
                && self.cfg.constraints.reuse
                && self.case.reuse
                && (((d >> 11) & 3) as u8) * 4 >= 16 - self.cfg.reuse_sixteenths.min(16)
            {
                if let Some(op) = self.reuse_def(pr, v) {
                    self.next_vreg += 1;
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
            let Some((constraint, witness)) = self.def_constraint(pr, class, span, call) else {
                continue;
            };
            let fixed = matches!(constraint, OperandConstraint::FixedReg(_));
            if fixed && !self.cfg.in_place_with_writes && self.in_place() {
                continue;
            }
            self.next_vreg += 1;
            self.defs
                .push((Operand::new(v, OperandKind::Def, pos, constraint), witness));
        }
    }

    /// Whether the instruction drawn so far writes registers of its own: a
    /// clobber or a `fixed` def.
    fn writes_registers(&self, pr: &PointRegs) -> bool {
        pr.clobbered.iter().any(|&m| m != 0)
            || self
                .defs
                .iter()
                .any(|(d, _)| matches!(d.constraint(), OperandConstraint::FixedReg(_)))
    }

    /// Whether the instruction drawn so far has an operand an allocator may
    /// model as modifying a register in place: a late use, an early def or
    /// a `reuse` def.
    fn in_place(&self) -> bool {
        self.uses.iter().any(|u| u.op.pos() == OperandPos::Late)
            || self.defs.iter().any(|(d, _)| {
                d.pos() == OperandPos::Early
                    || matches!(d.constraint(), OperandConstraint::Reuse(_))
            })
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
        if !self.cfg.in_place_with_writes && self.writes_registers(pr) {
            return None;
        }
        if !self.cfg.repeated_uses.late_fixed && self.repeated_fixed_use() {
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

    /// Appends the instruction built in `uses` and `defs` (its clobbers
    /// are already pushed; a branch's arguments are in `args`), and makes its
    /// defs available to what follows.
    fn emit(&mut self, opcode: Opcode, defs_first: bool, nonalloc: bool, succs: &[Block]) {
        let use_base = if defs_first { self.defs.len() } else { 0 };
        let fix = |op: Operand| match op.constraint() {
            OperandConstraint::Reuse(j) => {
                op.with_constraint(OperandConstraint::Reuse(use_base + j))
            }
            _ => op,
        };
        if defs_first {
            for d in &self.defs {
                self.b.push_operand(fix(d.0));
            }
        }
        for u in &self.uses {
            self.b.push_operand(u.op);
        }
        if !defs_first {
            for d in &self.defs {
                self.b.push_operand(fix(d.0));
            }
        }
        if nonalloc {
            let class = self.class();
            self.b
                .push_operand(Operand::nonalloc(PReg::new(NONALLOC_HW, class)));
        }
        let mut at = 0;
        for &t in succs {
            let k = (self.pclass_start[t.index() + 1] - self.pclass_start[t.index()]) as usize;
            self.b.push_target(t, &self.args[at..at + k]);
            at += k;
        }
        self.b.end_inst(opcode);
        for k in 0..self.defs.len() {
            let v = self.defs[k].0.vreg();
            self.avail[v.class().index()].push(v);
        }
    }

    /// The block's branch or return; `into_join` says whether a successor
    /// is a join.
    fn terminator(&mut self, succs: &[Block], into_join: bool) {
        // Branch arguments come first: a missing value is defined just
        // before the branch (a branch def may then take an argument's place).
        self.args.clear();
        for &s in succs {
            for k in self.pclass_start[s.index()]..self.pclass_start[s.index() + 1] {
                let class = self.pclass[k as usize];
                let v = match self.pick_argument(class) {
                    Some(v) => v,
                    None => self.define_any(class),
                };
                self.args.push(v);
            }
        }
        let mut pr = PointRegs::default();
        self.uses.clear();
        self.defs.clear();
        // A branch def passed as an argument that nothing else may read.
        let mut hidden = None;
        if self.cfg.branch_operands
            && self.case.branch_operands
            && (self.cfg.branch_operands_into_joins || !into_join)
        {
            let n = self.c.int(0, if succs.is_empty() { 3 } else { 2 });
            self.draw_uses(&mut pr, n, succs.is_empty());
            // Defs on branches only with two or more successors: each then
            // has this block as its only predecessor, so a value the branch
            // writes can be moved at the top of each successor.
            if self.cfg.branch_defs
                && succs.len() >= 2
                && self
                    .c
                    .chance(self.cfg.branch_def_sixteenths.min(16) as u32, 16)
            {
                let class = self.class();
                let late = Span {
                    early: false,
                    late: true,
                };
                let mut drawn = self.def_constraint(&mut pr, class, late, false);
                if self.cfg.weights[0] == 0 && !self.cfg.branch_defs_in_registers {
                    // Cranelift's try_call results: in the return registers.
                    if let Some(hw) = self
                        .c
                        .bit(pr.free(class, late, self.fixable[class.index()]))
                    {
                        pr.take(class, late, hw);
                        drawn = Some((OperandConstraint::FixedReg(PReg::new(hw, class)), Some(hw)));
                    }
                }
                // A config without `any` operands keeps the branch's `fixed`
                // defs only (Cranelift's try_call results).
                let kept = |c: &OperandConstraint| {
                    self.cfg.branch_defs_in_registers
                        || self.cfg.weights[0] != 0
                        || matches!(c, OperandConstraint::FixedReg(_) | OperandConstraint::Stack)
                };
                if let Some((mut constraint, _)) = drawn.filter(|d| kept(&d.0)) {
                    let in_register = matches!(
                        constraint,
                        OperandConstraint::Reg
                            | OperandConstraint::Limit(_)
                            | OperandConstraint::Reuse(_)
                    );
                    if !self.cfg.branch_defs_in_registers && in_register {
                        constraint = OperandConstraint::Any;
                    }
                    let v = self.new_vreg(class);
                    self.defs.push((Operand::def(v, constraint), None));
                    // Each successor has no other predecessor: it may
                    // take the value the branch writes as an argument.
                    if self.cfg.branch_def_args {
                        let once = !self.cfg.branch_def_args_shared
                            && !matches!(constraint, OperandConstraint::FixedReg(_));
                        for k in 0..self.args.len() {
                            if self.args[k].class() == class && self.c.chance(1, 2) {
                                self.args[k] = v;
                                if once {
                                    hidden = Some(v);
                                    break;
                                }
                            }
                        }
                    }
                }
            }
        }
        let opcode = if succs.is_empty() {
            Opcode::Ret
        } else {
            Opcode::Branch
        };
        self.emit(opcode, false, false, succs);
        if let Some(v) = hidden {
            self.avail[v.class().index()].retain(|&a| a != v);
        }
    }

    /// `op def:vN:any`, defining a fresh value of `class`.
    fn define_any(&mut self, class: RegClass) -> VReg {
        let v = self.new_vreg(class);
        // Without `any` operands (the cranelift profiles), a register.
        let constraint = match self.cfg.weights[0] {
            0 => OperandConstraint::Reg,
            _ => OperandConstraint::Any,
        };
        self.b.push_operand(Operand::def(v, constraint));
        self.b.end_inst(Opcode::Op);
        self.avail[class.index()].push(v);
        v
    }
}
