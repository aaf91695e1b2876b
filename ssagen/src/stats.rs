//! What a generated case contains, and statistics over many cases: the
//! measure of what the generator can reach (`rafuzz gen --stats`).

use allocator::{
    analysis::{
        cfg,
        domtree::{self, DomTree},
        liveness, loops,
    },
    Case, OperandConstraint, OperandPos, RegClass,
};
use std::fmt::Write;

/// Features of one case, cheap enough to compute per fuzz input when needed.
#[derive(Clone, Copy, Debug, Default)]
pub struct CaseFeatures {
    pub blocks: usize,
    pub insts: usize,
    pub vregs: usize,
    pub has_loop: bool,
    pub irreducible: bool,
    /// any, reg, stack, fixed, reuse, limit, nonalloc.
    pub constraints: [bool; 7],
    pub late_uses: bool,
    pub early_defs: bool,
    pub clobbers: bool,
    pub block_params: bool,
    pub scratch: bool,
    pub fixed_stack: bool,
    /// Most values of one class live at one point, per class.
    pub max_pressure: [usize; 3],
    /// Some class has more values live at one point than registers.
    pub over_pressure: bool,
}

pub const CONSTRAINT_NAMES: [&str; 7] =
    ["any", "reg", "stack", "fixed", "reuse", "limit", "nonalloc"];

fn constraint_index(c: OperandConstraint) -> usize {
    match c {
        OperandConstraint::Any => 0,
        OperandConstraint::Reg => 1,
        OperandConstraint::Stack => 2,
        OperandConstraint::FixedReg(_) => 3,
        OperandConstraint::Reuse(_) => 4,
        OperandConstraint::Limit(_) => 5,
        OperandConstraint::NonAlloc(_) => 6,
    }
}

impl CaseFeatures {
    pub fn of(case: &Case) -> CaseFeatures {
        let f = &case.func;
        let mut x = CaseFeatures {
            blocks: f.num_blocks(),
            insts: f.num_insts(),
            vregs: f.num_vregs(),
            ..Default::default()
        };
        let mut class = vec![RegClass::Int; f.num_vregs()];
        for b in f.blocks() {
            for v in f.block_params(b) {
                class[v.index()] = v.class();
                x.block_params = true;
            }
        }
        for i in f.insts() {
            x.clobbers |= !f.inst_clobbers(i).is_empty();
            for op in f.inst_operands(i) {
                x.constraints[constraint_index(op.constraint())] = true;
                if op.is_nonalloc() {
                    continue;
                }
                x.late_uses |= op.is_use() && op.pos() == OperandPos::Late;
                x.early_defs |= op.is_def() && op.pos() == OperandPos::Early;
                if op.is_def() {
                    class[op.vreg().index()] = op.class();
                }
            }
        }
        x.scratch = case.machine.scratch.iter().any(Option::is_some);
        x.fixed_stack = case.machine.fixed_stack.iter().any(|l| !l.is_empty());
        x.has_loop = loops::loop_depths(f).iter().any(|&d| d > 0);
        x.irreducible = !domtree::is_reducible(f, &DomTree::new(f));
        // Pressure: live values per class at every instruction boundary.
        let live = liveness::compute(f, &cfg::postorder(f));
        let mut set = allocator::analysis::bitset::SparseBitSet::new();
        for b in f.blocks() {
            set.clone_from(&live.live_out[b.index()]);
            for (k, _) in f.block_succs(b).iter().enumerate() {
                for v in f.branch_args(b, k) {
                    set.insert(v.index());
                }
            }
            let mut measure = |set: &allocator::analysis::bitset::SparseBitSet| {
                let mut n = [0usize; 3];
                for v in set.iter() {
                    n[class[v].index()] += 1;
                }
                for c in 0..3 {
                    x.max_pressure[c] = x.max_pressure[c].max(n[c]);
                }
            };
            measure(&set);
            for i in f.block_insts(b).iter().rev() {
                for op in f.inst_operands(i) {
                    if op.is_def() {
                        set.insert(op.vreg().index()); // live at its def
                    }
                }
                measure(&set);
                for op in f.inst_operands(i) {
                    if op.is_def() {
                        set.remove(op.vreg().index());
                    }
                }
                for op in f.inst_operands(i) {
                    if op.is_use() {
                        set.insert(op.vreg().index());
                    }
                }
                measure(&set);
            }
        }
        x.over_pressure = RegClass::ALL
            .iter()
            .any(|&c| x.max_pressure[c.index()] > case.machine.num_allocatable(c));
        x
    }
}

/// Sums of [`CaseFeatures`] over many cases.
#[derive(Clone, Debug, Default)]
pub struct GenStats {
    pub cases: usize,
    pub valid: usize,
    pub blocks: usize,
    pub insts: usize,
    pub vregs: usize,
    pub loops: usize,
    pub irreducible: usize,
    pub constraints: [usize; 7],
    pub late_uses: usize,
    pub early_defs: usize,
    pub clobbers: usize,
    pub block_params: usize,
    pub scratch: usize,
    pub fixed_stack: usize,
    pub over_pressure: usize,
    /// Time spent in `generate` alone.
    pub gen_nanos: u128,
}

impl GenStats {
    pub fn record(&mut self, x: &CaseFeatures, valid: bool) {
        self.cases += 1;
        self.valid += valid as usize;
        self.blocks += x.blocks;
        self.insts += x.insts;
        self.vregs += x.vregs;
        self.loops += x.has_loop as usize;
        self.irreducible += x.irreducible as usize;
        for k in 0..7 {
            self.constraints[k] += x.constraints[k] as usize;
        }
        self.late_uses += x.late_uses as usize;
        self.early_defs += x.early_defs as usize;
        self.clobbers += x.clobbers as usize;
        self.block_params += x.block_params as usize;
        self.scratch += x.scratch as usize;
        self.fixed_stack += x.fixed_stack as usize;
        self.over_pressure += x.over_pressure as usize;
    }

    /// Generation cost in nanoseconds per instruction.
    pub fn ns_per_inst(&self) -> f64 {
        self.gen_nanos as f64 / self.insts.max(1) as f64
    }

    pub fn report(&self) -> String {
        let n = self.cases.max(1) as f64;
        let pct = |k: usize| 100.0 * k as f64 / n;
        let mut s = String::new();
        let _ = writeln!(s, "cases                 {}", self.cases);
        let _ = writeln!(s, "valid                 {:.1}%", pct(self.valid));
        let _ = writeln!(
            s,
            "mean blocks/insts/vregs {:.1} / {:.1} / {:.1}",
            self.blocks as f64 / n,
            self.insts as f64 / n,
            self.vregs as f64 / n
        );
        let _ = writeln!(s, "with loops            {:.1}%", pct(self.loops));
        let _ = writeln!(s, "with irreducible loops {:.1}%", pct(self.irreducible));
        for (k, name) in CONSTRAINT_NAMES.iter().enumerate() {
            let _ = writeln!(s, "with {:<17} {:.1}%", name, pct(self.constraints[k]));
        }
        let _ = writeln!(s, "with late uses        {:.1}%", pct(self.late_uses));
        let _ = writeln!(s, "with early defs       {:.1}%", pct(self.early_defs));
        let _ = writeln!(s, "with clobbers         {:.1}%", pct(self.clobbers));
        let _ = writeln!(s, "with block params     {:.1}%", pct(self.block_params));
        let _ = writeln!(s, "with a scratch reg    {:.1}%", pct(self.scratch));
        let _ = writeln!(s, "with fixed stack      {:.1}%", pct(self.fixed_stack));
        let _ = writeln!(s, "pressure > registers  {:.1}%", pct(self.over_pressure));
        let _ = writeln!(s, "generation            {:.1} ns/inst", self.ns_per_inst());
        s
    }
}
