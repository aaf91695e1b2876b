//! A case in a form made for editing: per block its parameters and
//! instructions, each instruction with its own vectors, so that a reduction
//! step can remove or rewrite anything and then rebuild a dense
//! [`Function`].
//!
//! Edits may leave the draft broken (a use of a value no longer defined, a
//! branch argument for a parameter that is gone); [`Draft::repair`] puts the
//! SSA back together and [`Draft::renumber`] makes the vregs dense again.
//! Whether the result is a valid, feasible case is for the validator to say.

use allocator::analysis::domtree::DomTree;
use allocator::{
    Block, Case, Function, FunctionBuilder, MachineEnv, Opcode, Operand, OperandConstraint, PReg,
    RegClass, VReg,
};

/// An editable case; see the module doc.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Draft {
    pub machine: MachineEnv,
    pub blocks: Vec<DraftBlock>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DraftBlock {
    pub params: Vec<VReg>,
    pub insts: Vec<DraftInst>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DraftInst {
    pub opcode: Opcode,
    pub operands: Vec<Operand>,
    pub clobbers: Vec<PReg>,
    /// Target block indices and their arguments (branches only).
    pub targets: Vec<(usize, Vec<VReg>)>,
}

/// How far a draft is from nothing, compared lexicographically: every
/// accepted reduction step makes it strictly smaller, so reduction ends.
pub type Cost = [usize; 8];

impl DraftInst {
    /// Removes operand `j`, renumbering `reuse` indices above it; a def that
    /// reused it becomes `any`.
    pub fn remove_operand(&mut self, j: usize) {
        self.operands.remove(j);
        for op in &mut self.operands {
            if let OperandConstraint::Reuse(k) = op.constraint() {
                if k == j {
                    *op = op.with_constraint(OperandConstraint::Any);
                } else if k > j {
                    *op = op.with_constraint(OperandConstraint::Reuse(k - 1));
                }
            }
        }
    }

    /// The vregs the instruction defines.
    pub fn defs(&self) -> impl Iterator<Item = VReg> + '_ {
        self.operands
            .iter()
            .filter(|o| o.is_def())
            .map(|o| o.vreg())
    }
}

impl Draft {
    pub fn from_function(f: &Function, machine: &MachineEnv) -> Draft {
        let blocks = f
            .blocks()
            .map(|b| DraftBlock {
                params: f.block_params(b).to_vec(),
                insts: f
                    .block_insts(b)
                    .iter()
                    .map(|i| DraftInst {
                        opcode: f.opcode(i),
                        operands: f.inst_operands(i).to_vec(),
                        clobbers: f.inst_clobbers(i).to_vec(),
                        targets: (0..f.num_targets(i))
                            .map(|t| {
                                let (blk, args) = f.target(i, t);
                                (blk.index(), args.to_vec())
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Draft {
            machine: machine.clone(),
            blocks,
        }
    }

    pub fn from_case(c: &Case) -> Draft {
        Self::from_function(&c.func, &c.machine)
    }

    /// The function, vregs as they are. Every target must name a block of
    /// the draft (the edits keep that invariant).
    pub fn to_function(&self) -> Function {
        let mut fb = FunctionBuilder::new();
        for b in &self.blocks {
            fb.block(&b.params);
            for i in &b.insts {
                let targets: Vec<(Block, &[VReg])> = i
                    .targets
                    .iter()
                    .map(|(t, args)| (Block::new(*t), args.as_slice()))
                    .collect();
                fb.inst(i.opcode, &i.operands, &i.clobbers, &targets);
            }
        }
        fb.finish().expect("draft targets name existing blocks")
    }

    pub fn to_case(&self) -> Case {
        Case {
            machine: self.machine.clone(),
            func: self.to_function(),
            output: None,
        }
    }

    pub fn num_insts(&self) -> usize {
        self.blocks.iter().map(|b| b.insts.len()).sum()
    }

    /// Instructions, blocks, operands, parameters, clobbers, constraint
    /// strength, operands off their default position, machine registers.
    pub fn cost(&self) -> Cost {
        let mut c = [0; 8];
        c[0] = self.num_insts();
        c[1] = self.blocks.len();
        for b in &self.blocks {
            c[3] += b.params.len();
            for i in &b.insts {
                c[2] += i.operands.len();
                c[4] += i.clobbers.len();
                for op in &i.operands {
                    c[5] += strength(op.constraint());
                    c[6] += !op.has_default_pos() as usize;
                }
            }
        }
        let m = &self.machine;
        for k in 0..3 {
            c[7] += m.preferred[k].len()
                + m.nonpreferred[k].len()
                + m.scratch[k].is_some() as usize
                + m.fixed_stack[k].len();
        }
        c
    }

    /// Removes the blocks marked in `dead` (never the entry): branches to
    /// them lose those targets, and a branch left with none becomes a
    /// `ret` (dropping its defs).
    pub fn remove_blocks(&mut self, dead: &[bool]) {
        debug_assert!(!dead[0], "the entry block stays");
        let mut new_index = vec![usize::MAX; self.blocks.len()];
        let mut n = 0;
        for (b, &d) in dead.iter().enumerate() {
            if !d {
                new_index[b] = n;
                n += 1;
            }
        }
        let old = std::mem::take(&mut self.blocks);
        for (b, mut blk) in old.into_iter().enumerate() {
            if dead[b] {
                continue;
            }
            if let Some(term) = blk.insts.last_mut() {
                if term.opcode == Opcode::Branch {
                    term.targets.retain(|(t, _)| !dead[*t]);
                    for (t, _) in &mut term.targets {
                        *t = new_index[*t];
                    }
                    if term.targets.is_empty() {
                        term.opcode = Opcode::Ret;
                        for j in (0..term.operands.len()).rev() {
                            if term.operands[j].is_def() {
                                term.remove_operand(j);
                            }
                        }
                    }
                }
            }
            self.blocks.push(blk);
        }
    }

    /// Which blocks the entry reaches.
    pub fn reachable(&self) -> Vec<bool> {
        self.reachable_from(0)
    }

    /// Which blocks block `b` reaches (itself included).
    pub fn reachable_from(&self, b: usize) -> Vec<bool> {
        let mut seen = vec![false; self.blocks.len()];
        let mut stack = vec![b];
        seen[b] = true;
        while let Some(b) = stack.pop() {
            for i in &self.blocks[b].insts {
                for &(t, _) in &i.targets {
                    if !seen[t] {
                        seen[t] = true;
                        stack.push(t);
                    }
                }
            }
        }
        seen
    }

    /// Removes the blocks the entry does not reach.
    pub fn prune_unreachable(&mut self) {
        let dead: Vec<bool> = self.reachable().iter().map(|r| !r).collect();
        if dead.iter().any(|&d| d) {
            self.remove_blocks(&dead);
        }
    }

    /// Makes block `b` the entry: its parameters go with the arguments of
    /// every edge into it (the entry takes none), and it moves to the
    /// front, the other blocks keeping their order. Blocks it does not
    /// reach stay until [`Draft::repair`] prunes them.
    pub fn reroot(&mut self, b: usize) {
        while !self.blocks[b].params.is_empty() {
            let last = self.blocks[b].params.len() - 1;
            self.remove_param(b, last);
        }
        let new_index = |x: usize| match x.cmp(&b) {
            std::cmp::Ordering::Less => x + 1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => x,
        };
        let entry = self.blocks.remove(b);
        self.blocks.insert(0, entry);
        for blk in &mut self.blocks {
            for i in &mut blk.insts {
                for (t, _) in &mut i.targets {
                    *t = new_index(*t);
                }
            }
        }
    }

    /// Removes parameter `k` of block `b` and the matching argument of every
    /// edge into `b`.
    pub fn remove_param(&mut self, b: usize, k: usize) {
        self.blocks[b].params.remove(k);
        for blk in &mut self.blocks {
            for i in &mut blk.insts {
                for (t, args) in &mut i.targets {
                    if *t == b {
                        args.remove(k);
                    }
                }
            }
        }
    }

    /// Replaces every mention of the vregs `map` renames (operands and
    /// branch arguments; not definitions).
    pub fn rename_uses(&mut self, map: &[(VReg, VReg)]) {
        let find = |v: VReg| map.iter().find(|(a, _)| *a == v).map(|&(_, b)| b);
        for blk in &mut self.blocks {
            for i in &mut blk.insts {
                for op in &mut i.operands {
                    if op.is_use() {
                        if let Some(to) = find(op.vreg()) {
                            *op = Operand::new(to, op.kind(), op.pos(), op.constraint());
                        }
                    }
                }
                for (_, args) in &mut i.targets {
                    for a in args {
                        if let Some(to) = find(*a) {
                            *a = to;
                        }
                    }
                }
            }
        }
    }

    /// Puts the SSA back together after an edit: drops unreachable blocks,
    /// then replaces each use of a value that is no longer available (not
    /// defined, or defined where it does not dominate the use) by the
    /// nearest available value of its class, and where there is none,
    /// removes the operand, or, for a branch argument, the parameter it
    /// feeds (which may cascade).
    pub fn repair(&mut self) {
        loop {
            self.prune_unreachable();
            let func = self.to_function();
            let dom = DomTree::new(&func);
            let nv = func.num_vregs();
            // Where each vreg is defined: (block, 0 for a parameter, k + 1
            // for the def of instruction k).
            let mut def_at: Vec<Option<(usize, usize)>> = vec![None; nv];
            let mut defs_of: Vec<Vec<(usize, VReg)>> = vec![Vec::new(); self.blocks.len()];
            for (b, blk) in self.blocks.iter().enumerate() {
                for &p in &blk.params {
                    def_at[p.index()].get_or_insert((b, 0));
                    defs_of[b].push((0, p));
                }
                for (k, i) in blk.insts.iter().enumerate() {
                    for v in i.defs() {
                        def_at[v.index()].get_or_insert((b, k + 1));
                        defs_of[b].push((k + 1, v));
                    }
                }
            }
            let available = |v: VReg, b: usize, k: usize| match def_at.get(v.index()) {
                Some(&Some((db, dp))) => {
                    if db == b {
                        dp <= k
                    } else {
                        dom.dominates(Block::new(db), Block::new(b))
                    }
                }
                _ => false,
            };
            // The nearest available value of `class` before instruction k of
            // block b: earlier in the block, then up the dominator tree.
            let substitute = |class: RegClass, b: usize, k: usize| -> Option<VReg> {
                let mut blk = Some(Block::new(b));
                while let Some(x) = blk {
                    let found = defs_of[x.index()]
                        .iter()
                        .rev()
                        .find(|&&(dp, v)| v.class() == class && (x.index() != b || dp <= k));
                    if let Some(&(_, v)) = found {
                        return Some(v);
                    }
                    blk = dom.idom(x);
                }
                None
            };
            let sole_pred: Vec<bool> = func
                .blocks()
                .map(|x| x != func.entry_block() && func.block_preds(x).len() == 1)
                .collect();
            let mut dead_params: Vec<(usize, usize)> = Vec::new();
            for b in 0..self.blocks.len() {
                for k in 0..self.blocks[b].insts.len() {
                    let inst = &mut self.blocks[b].insts[k];
                    for j in (0..inst.operands.len()).rev() {
                        let op = inst.operands[j];
                        if !op.is_use() || available(op.vreg(), b, k) {
                            continue;
                        }
                        match substitute(op.class(), b, k) {
                            Some(v) => {
                                inst.operands[j] =
                                    Operand::new(v, op.kind(), op.pos(), op.constraint())
                            }
                            None => inst.remove_operand(j),
                        }
                    }
                    for (t, args) in &mut inst.targets {
                        for (a, arg) in args.iter_mut().enumerate() {
                            // The branch's own def may be passed to a
                            // target it alone branches to.
                            let own =
                                def_at.get(arg.index()) == Some(&Some((b, k + 1))) && sole_pred[*t];
                            if own || available(*arg, b, k) {
                                continue;
                            }
                            match substitute(arg.class(), b, k) {
                                Some(v) => *arg = v,
                                None => dead_params.push((*t, a)),
                            }
                        }
                    }
                }
            }
            if dead_params.is_empty() {
                return;
            }
            dead_params.sort_unstable();
            dead_params.dedup();
            for &(b, k) in dead_params.iter().rev() {
                self.remove_param(b, k);
            }
        }
    }

    /// Renumbers the vregs densely, in order of definition (parameters,
    /// then each instruction's defs, block by block); mentions of vregs
    /// defined nowhere get the numbers after those.
    pub fn renumber(&mut self) {
        let max = self
            .blocks
            .iter()
            .flat_map(|b| {
                b.params.iter().copied().chain(b.insts.iter().flat_map(|i| {
                    i.operands
                        .iter()
                        .filter(|o| !o.is_nonalloc())
                        .map(|o| o.vreg())
                        .chain(i.targets.iter().flat_map(|(_, a)| a.iter().copied()))
                }))
            })
            .map(|v| v.index() + 1)
            .max()
            .unwrap_or(0);
        let mut map = vec![usize::MAX; max];
        let mut next = 0;
        let mut number = |v: VReg, map: &mut Vec<usize>| {
            if map[v.index()] == usize::MAX {
                map[v.index()] = next;
                next += 1;
            }
        };
        for b in &self.blocks {
            for &p in &b.params {
                number(p, &mut map);
            }
            for i in &b.insts {
                for v in i.defs() {
                    number(v, &mut map);
                }
            }
        }
        for b in &self.blocks {
            for i in &b.insts {
                for o in i.operands.iter().filter(|o| !o.is_nonalloc()) {
                    number(o.vreg(), &mut map);
                }
                for (_, args) in &i.targets {
                    for &a in args {
                        number(a, &mut map);
                    }
                }
            }
        }
        let re = |v: VReg| VReg::new(map[v.index()], v.class());
        for b in &mut self.blocks {
            for p in &mut b.params {
                *p = re(*p);
            }
            for i in &mut b.insts {
                for o in &mut i.operands {
                    if !o.is_nonalloc() {
                        *o = Operand::new(re(o.vreg()), o.kind(), o.pos(), o.constraint());
                    }
                }
                for (_, args) in &mut i.targets {
                    for a in args {
                        *a = re(*a);
                    }
                }
            }
        }
    }
}

/// How much a constraint asks of the allocator, for [`Draft::cost`]:
/// weakening a constraint lowers it.
fn strength(c: OperandConstraint) -> usize {
    match c {
        OperandConstraint::Any | OperandConstraint::NonAlloc(_) => 0,
        OperandConstraint::Reg | OperandConstraint::Stack => 1,
        OperandConstraint::Limit(_) | OperandConstraint::Reuse(_) => 2,
        OperandConstraint::FixedReg(_) => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use allocator::fixtures::unit_case;
    use allocator::ir::text::print;

    fn draft(name: &str) -> Draft {
        Draft::from_case(&unit_case(name))
    }

    fn text(d: &Draft) -> String {
        let s = print(&d.to_case());
        s[s.find("function").unwrap()..].to_string()
    }

    /// A diamond: block0 defines v0, v1; block1 defines v2 and passes it
    /// to block3's parameter v4; block2 passes v1.
    fn diamond() -> Draft {
        draft("reduce/diamond")
    }

    #[test]
    fn a_function_survives_the_round_trip() {
        let d = diamond();
        let f = d.to_function();
        assert_eq!(Draft::from_function(&f, &d.machine), d);
        assert_eq!(d.num_insts(), 8);
        assert_eq!(d.cost(), [8, 4, 10, 1, 0, 8, 0, 6]);
    }

    /// A branch may pass its own def to a target it alone enters: the
    /// repair keeps that argument (it used to replace it, so that no
    /// reduction candidate kept the shape).
    #[test]
    fn repair_keeps_a_branchs_own_def_passed_on() {
        let mut d = draft("own_def_args/try_call");
        let before = d.clone();
        d.repair();
        assert_eq!(d, before, "{}", text(&d));
    }

    #[test]
    fn repair_substitutes_the_nearest_value_of_the_class() {
        let mut d = diamond();
        d.blocks[1].insts.remove(0); // inst3, which defined v2
        d.repair();
        // block1's branch argument v2 becomes v1, the latest int value
        // that dominates it.
        assert!(
            text(&d).contains("inst3: branch -> block3(v1i)"),
            "{}",
            text(&d)
        );
        let mut d = diamond();
        d.blocks[0].insts.remove(0); // inst0, which defined v0
        d.repair();
        // No value dominates inst1's use of v0: the operand goes. Later
        // uses of v0 get the nearest value before them: v1, or block3's own
        // parameter v4.
        let t = text(&d);
        assert!(t.contains("inst0: op def:v1i:any\n"), "{t}");
        assert!(t.contains("inst2: op def:v2i:reg use:v1i:any"), "{t}");
        assert!(t.contains("inst6: ret use:v4i:reg use:v4i:any"), "{t}");
    }

    #[test]
    fn repair_removes_a_parameter_no_value_can_feed() {
        let mut d = draft("reduce/repair_removes_a_parameter_no_value_can_feed");
        d.blocks[0].insts.remove(0);
        d.repair();
        d.renumber();
        assert_eq!(
            text(&d),
            "function\n  block0:\n    inst0: branch -> block1()\n  block1:\n    inst1: ret\nend\n"
        );
    }

    #[test]
    fn removing_a_blocks_targets_makes_a_return() {
        let mut d = diamond();
        d.remove_blocks(&[false, true, true, false]);
        d.repair();
        // block3 is unreachable now and goes too.
        assert_eq!(d.blocks.len(), 1);
        let t = text(&d);
        assert!(t.contains("inst2: ret use:v1i:any\nend"), "{t}");
    }

    #[test]
    fn renumber_is_dense_in_definition_order() {
        let mut d = diamond();
        d.blocks[1].insts.remove(0);
        d.blocks[2].insts.remove(0);
        d.repair();
        d.renumber();
        let f = d.to_function();
        assert_eq!(f.num_vregs(), 3);
        assert!(allocator::ir::validate::validate(&f, &d.machine).is_empty());
        assert_eq!(
            f.block_params(Block::new(3)),
            &[VReg::new(2, RegClass::Int)]
        );
    }

    #[test]
    fn removing_a_reused_operand_fixes_reuse_indices() {
        let mut i = DraftInst {
            opcode: Opcode::Op,
            operands: vec![
                Operand::def(VReg::new(0, RegClass::Int), OperandConstraint::Reuse(2)),
                Operand::use_(VReg::new(1, RegClass::Int), OperandConstraint::Reg),
                Operand::use_(VReg::new(2, RegClass::Int), OperandConstraint::Reg),
                Operand::def(VReg::new(3, RegClass::Int), OperandConstraint::Reuse(1)),
            ],
            clobbers: vec![],
            targets: vec![],
        };
        i.remove_operand(1);
        assert_eq!(i.operands[0].constraint(), OperandConstraint::Reuse(1));
        assert_eq!(i.operands[2].constraint(), OperandConstraint::Any);
    }
}
