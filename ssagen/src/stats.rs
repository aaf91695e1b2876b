//! What a generated case contains, and statistics over many cases: the
//! measure of what the generator can reach (`rafuzz gen --stats`).

use allocator::{
    analysis::{
        cfg,
        domtree::{self, DomTree},
        liveness, loops,
        numbering::{self, Numbering},
    },
    Case, OperandConstraint, OperandPos, PRegRole, RegClass,
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
    /// How many operands carry each constraint, in the same order.
    pub operands_by_constraint: [usize; 7],
    pub late_uses: bool,
    pub early_defs: bool,
    pub clobbers: bool,
    pub block_params: bool,
    pub scratch: bool,
    pub fixed_stack: bool,
    /// An instruction clobbering four registers or more (a call).
    pub calls: bool,
    /// A branch or return with operands.
    pub branch_operands: bool,
    /// A branch passing a value it defines as a block argument.
    pub branch_def_args: bool,
    /// Values of more than one class.
    pub classes: bool,
    /// An instruction using one vreg twice or more.
    pub repeated_uses: bool,
    /// Values of some class fill several spill slots.
    pub slot_sizes: bool,
    /// A `fixed` operand naming a register in no list of the machine.
    pub unlisted_fixed: bool,
    /// Most values of one class live at one point, per class.
    pub max_pressure: [usize; 3],
    /// Some class has more values live at one point than registers.
    pub over_pressure: bool,
    /// The block numbering (the most specific that fits).
    pub numbering: Numbering,
}

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
        let mut seen_class = [false; 3];
        for i in f.insts() {
            x.clobbers |= !f.inst_clobbers(i).is_empty();
            x.calls |= f.inst_clobbers(i).len() >= 4;
            let ops = f.inst_operands(i);
            x.branch_operands |= f.opcode(i).is_terminator() && !ops.is_empty();
            x.branch_def_args |= (0..f.num_targets(i)).any(|t| {
                f.target(i, t)
                    .1
                    .iter()
                    .any(|&a| ops.iter().any(|op| op.is_def() && op.vreg() == a))
            });
            x.repeated_uses |= ops.iter().enumerate().any(|(k, a)| {
                a.is_use() && ops[..k].iter().any(|b| b.is_use() && b.vreg() == a.vreg())
            });
            for op in ops {
                x.constraints[constraint_index(op.constraint())] = true;
                x.operands_by_constraint[constraint_index(op.constraint())] += 1;
                if let OperandConstraint::FixedReg(r) = op.constraint() {
                    x.unlisted_fixed |= case.machine.role(r) == PRegRole::NonAllocatable;
                }
                if op.is_nonalloc() {
                    continue;
                }
                seen_class[op.class().index()] = true;
                x.late_uses |= op.is_use() && op.pos() == OperandPos::Late;
                x.early_defs |= op.is_def() && op.pos() == OperandPos::Early;
                if op.is_def() {
                    class[op.vreg().index()] = op.class();
                }
            }
        }
        x.classes = seen_class.iter().filter(|&&c| c).count() > 1;
        x.slot_sizes = !case.machine.slots.is_unit();
        x.scratch = case.machine.scratch.iter().any(Option::is_some);
        x.fixed_stack = case.machine.fixed_stack.iter().any(|l| !l.is_empty());
        x.has_loop = loops::loop_depths(f).iter().any(|&d| d > 0);
        x.irreducible = !domtree::is_reducible(f, &DomTree::new(f));
        x.numbering = numbering::classify(f);
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

impl CaseFeatures {
    /// The features a case may or may not have, by the names `rafuzz gen
    /// --stats` prints and `--without` takes: one switch of the generator
    /// each (`any` is always on; `loops` and `pressure` are shapes, not
    /// switches).
    pub fn named(&self) -> [(&'static str, bool); FEATURES] {
        let c = &self.constraints;
        [
            ("any", c[0]),
            ("reg", c[1]),
            ("stack", c[2]),
            ("fixed", c[3]),
            ("reuse", c[4]),
            ("limit", c[5]),
            ("nonalloc", c[6]),
            ("late-uses", self.late_uses),
            ("early-defs", self.early_defs),
            ("clobbers", self.clobbers),
            ("calls", self.calls),
            ("block-params", self.block_params),
            ("branch-operands", self.branch_operands),
            ("branch-def-args", self.branch_def_args),
            ("repeated-uses", self.repeated_uses),
            ("unlisted-fixed", self.unlisted_fixed),
            ("classes", self.classes),
            ("scratch", self.scratch),
            ("fixed-stack", self.fixed_stack),
            ("slot-sizes", self.slot_sizes),
            ("loops", self.has_loop),
            ("irreducible", self.irreducible),
            ("pressure", self.over_pressure),
            (
                "rpo-numbering",
                self.numbering == Numbering::ReversePostorder,
            ),
            ("free-numbering", self.numbering == Numbering::Free),
        ]
    }
}

/// How many features [`CaseFeatures::named`] lists.
pub const FEATURES: usize = 25;

/// Sums of [`CaseFeatures`] over many cases.
#[derive(Clone, Debug, Default)]
pub struct GenStats {
    pub cases: usize,
    pub valid: usize,
    pub blocks: usize,
    pub insts: usize,
    pub vregs: usize,
    /// Per feature of [`CaseFeatures::named`], the cases that have it.
    pub with: [usize; FEATURES],
    /// Time spent in `generate` alone.
    pub gen_nanos: u128,
    /// Each case's instruction and block counts, for the distributions.
    pub sizes: Vec<(u32, u32)>,
    /// Operands by constraint, summed (see [`CaseFeatures::operands_by_constraint`]).
    pub operands_by_constraint: [usize; 7],
}

/// The constraint names of [`CaseFeatures::operands_by_constraint`].
pub const CONSTRAINTS: [&str; 7] = ["any", "reg", "stack", "fixed", "reuse", "limit", "nonalloc"];

impl GenStats {
    pub fn record(&mut self, x: &CaseFeatures, valid: bool) {
        self.cases += 1;
        self.valid += valid as usize;
        self.blocks += x.blocks;
        self.insts += x.insts;
        self.vregs += x.vregs;
        for (k, (_, has)) in x.named().iter().enumerate() {
            self.with[k] += *has as usize;
        }
        self.sizes.push((x.insts as u32, x.blocks as u32));
        for (s, n) in self
            .operands_by_constraint
            .iter_mut()
            .zip(x.operands_by_constraint)
        {
            *s += n;
        }
    }

    /// The median, 90th percentile and largest of the instruction counts
    /// (`blocks` false) or block counts.
    pub fn distribution(&self, blocks: bool) -> [u32; 3] {
        let mut v: Vec<u32> = self
            .sizes
            .iter()
            .map(|&(i, b)| if blocks { b } else { i })
            .collect();
        if v.is_empty() {
            return [0; 3];
        }
        v.sort_unstable();
        let at = |q: usize| v[((v.len() - 1) * q) / 100];
        [at(50), at(90), v[v.len() - 1]]
    }

    /// Each constraint's share of all operands, in percent.
    pub fn constraint_shares(&self) -> [f64; 7] {
        let n = self.operands_by_constraint.iter().sum::<usize>().max(1) as f64;
        self.operands_by_constraint.map(|k| 100.0 * k as f64 / n)
    }

    /// Operands per instruction.
    pub fn operands_per_inst(&self) -> f64 {
        self.operands_by_constraint.iter().sum::<usize>() as f64 / self.insts.max(1) as f64
    }

    /// Generation cost in nanoseconds per instruction.
    pub fn ns_per_inst(&self) -> f64 {
        self.gen_nanos as f64 / self.insts.max(1) as f64
    }

    /// The share of cases with each feature, in percent.
    pub fn shares(&self) -> [(&'static str, f64); FEATURES] {
        let n = self.cases.max(1) as f64;
        let names = CaseFeatures::default().named();
        std::array::from_fn(|k| (names[k].0, 100.0 * self.with[k] as f64 / n))
    }

    /// The report of several case sets side by side, one column each
    /// (generated by a profile, read from a directory, ...): sizes and
    /// their distribution, operands per instruction, each constraint's
    /// share of the operands, each feature's share of the cases, and, for
    /// generated columns, the generation time.
    pub fn table(columns: &[(String, &GenStats)]) -> String {
        let w = columns.iter().map(|c| c.0.len()).max().unwrap_or(0).max(8);
        let mut s = format!("{:<24}", "");
        for (title, _) in columns {
            let _ = write!(s, " {title:>w$}");
        }
        s.push('\n');
        let row = |s: &mut String, name: &str, cell: &dyn Fn(&GenStats) -> String| {
            let _ = write!(s, "{name:<24}");
            for (_, g) in columns {
                let _ = write!(s, " {:>w$}", cell(g));
            }
            s.push('\n');
        };
        let pct = |x: f64| format!("{x:.1}%");
        let n = |g: &GenStats| g.cases.max(1) as f64;
        row(&mut s, "cases", &|g| g.cases.to_string());
        row(&mut s, "valid", &|g| pct(100.0 * g.valid as f64 / n(g)));
        row(&mut s, "mean blocks", &|g| {
            format!("{:.1}", g.blocks as f64 / n(g))
        });
        row(&mut s, "mean insts", &|g| {
            format!("{:.1}", g.insts as f64 / n(g))
        });
        row(&mut s, "mean vregs", &|g| {
            format!("{:.1}", g.vregs as f64 / n(g))
        });
        for (blocks, what) in [(false, "insts"), (true, "blocks")] {
            for (k, q) in ["median", "90th percentile", "largest"].iter().enumerate() {
                row(&mut s, &format!("{what} {q}"), &|g| {
                    g.distribution(blocks)[k].to_string()
                });
            }
        }
        row(&mut s, "operands per inst", &|g| {
            format!("{:.2}", g.operands_per_inst())
        });
        s.push_str("operands by constraint:\n");
        for (k, c) in CONSTRAINTS.iter().enumerate() {
            row(
                &mut s,
                &format!("  {c}"),
                &|g| pct(g.constraint_shares()[k]),
            );
        }
        s.push_str("cases with each feature:\n");
        for (k, (name, _)) in CaseFeatures::default().named().iter().enumerate() {
            row(&mut s, &format!("  {name}"), &|g| pct(g.shares()[k].1));
        }
        row(&mut s, "generation ns/inst", &|g| match g.gen_nanos {
            0 => "-".to_string(),
            _ => format!("{:.1}", g.ns_per_inst()),
        });
        s
    }
}
