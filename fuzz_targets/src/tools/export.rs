//! A case as a standalone reproducer for regalloc2's maintainers: one Rust
//! file that builds the function through regalloc2's public API alone,
//! allocates it with the release, and fails saying what is wrong: a panic,
//! a refusal of a function that has an allocation, or a use reading a value
//! it should not. The file carries its own small interpreter (each def a
//! fresh value, moves copying values, every use checked along 16 paths), so
//! its verdict depends on neither rafuzz's oracles nor regalloc2's checker,
//! whose verdict it reports beside its own.
//!
//! The file goes into regalloc2's `tests/` folder, or any crate that
//! depends on regalloc2 0.15.2; `reproduce()` is public so that a harness
//! can run it without the test attribute (`fuzz_targets/examples/reproducers.rs`).

use crate::outside::ra2::adapt::{machine, Adapted};
use allocator::Case;
use regalloc2 as ra2;
use regalloc2::Function as _;
use std::fmt::Write;

/// What the reproducer says of itself.
pub struct About<'a> {
    /// The bug's name, which names the test.
    pub name: &'a str,
    /// One paragraph on the bug.
    pub what: &'a str,
    /// Where the case comes from.
    pub source: &'a str,
    pub algorithm: &'static Algorithm,
}

/// One of regalloc2's algorithms as the registry and regalloc2 name it.
pub struct Algorithm {
    /// The registry's allocator that runs it.
    pub allocator: &'static str,
    /// Its variant's name in `regalloc2::Algorithm`.
    pub variant: &'static str,
}

/// Both of regalloc2's algorithms.
pub static ALGORITHMS: [Algorithm; 2] = [
    Algorithm {
        allocator: "regalloc2_ion",
        variant: "Ion",
    },
    Algorithm {
        allocator: "regalloc2_fastalloc",
        variant: "Fastalloc",
    },
];

/// The reproducer of `case` under `about.algorithm`, as Rust source.
pub fn rust_test(case: &Case, about: &About) -> String {
    let f = Adapted::new(&case.func, &case.machine.slots);
    let env = machine(&case.machine);
    let mut s = String::new();
    let algorithm = about.algorithm.variant;
    let _ = writeln!(
        s,
        "//! regalloc2 0.15.2, {algorithm}: `{}`.\n//!",
        about.name
    );
    for l in wrap(about.what, 76) {
        let _ = writeln!(s, "//! {l}");
    }
    let _ = writeln!(
        s,
        "//!\n//! A standalone reproducer: it uses regalloc2's public API alone. Put it in\n\
         //! regalloc2's `tests/` folder (or any crate that depends on regalloc2 0.15.2)\n\
         //! and run `cargo test`: it fails on the release and says what is wrong.\n\
         //! Written by `rafuzz export` from {}.",
        about.source
    );
    s.push_str(HEAD);
    let _ = writeln!(s, "fn function() -> Func {{\n    Func {{");
    let _ = writeln!(s, "        num_vregs: {},", f.num_vregs());
    let _ = writeln!(
        s,
        "        slot_sizes: [{}, {}, {}],",
        f.spillslot_size(ra2::RegClass::Int),
        f.spillslot_size(ra2::RegClass::Float),
        f.spillslot_size(ra2::RegClass::Vector)
    );
    let _ = writeln!(
        s,
        "        slots_named_by_last: {},",
        f.multi_spillslot_named_by_last_slot()
    );
    let _ = writeln!(s, "        blocks: vec![");
    for b in 0..f.num_blocks() {
        let b = ra2::Block::new(b);
        let r = f.block_insns(b);
        let last = r.last();
        let args: Vec<String> = (0..f.block_succs(b).len())
            .map(|k| format!("vec![{}]", vregs(f.branch_blockparams(b, last, k))))
            .collect();
        let _ = writeln!(
            s,
            "            Blk {{ insts: ({}, {}), preds: vec![{}], succs: vec![{}], params: vec![{}], args: vec![{}] }},",
            r.first().index(),
            last.index() + 1,
            blocks(f.block_preds(b)),
            blocks(f.block_succs(b)),
            vregs(f.block_params(b)),
            args.join(", ")
        );
    }
    let _ = writeln!(s, "        ],\n        insts: vec![");
    for i in 0..f.num_insts() {
        let i = ra2::Inst::new(i);
        let ops: Vec<String> = f.inst_operands(i).iter().map(|&o| operand(o)).collect();
        let clobbers: Vec<String> = f.inst_clobbers(i).into_iter().map(preg).collect();
        let _ = writeln!(
            s,
            "            Ins {{ ops: vec![{}], clobbers: vec![{}], ret: {}, branch: {} }},",
            ops.join(", "),
            clobbers.join(", "),
            f.is_ret(i),
            f.is_branch(i)
        );
    }
    let _ = writeln!(s, "        ],\n    }}\n}}\n");
    let _ = writeln!(s, "fn machine() -> MachineEnv {{\n    MachineEnv {{");
    let set = |x: &ra2::PRegSet| {
        let v: Vec<String> = x.into_iter().map(preg).collect();
        format!("regs(&[{}])", v.join(", "))
    };
    let _ = writeln!(
        s,
        "        preferred_regs_by_class: [{}],",
        env.preferred_regs_by_class
            .iter()
            .map(set)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        s,
        "        non_preferred_regs_by_class: [{}],",
        env.non_preferred_regs_by_class
            .iter()
            .map(set)
            .collect::<Vec<_>>()
            .join(", ")
    );
    let scratch: Vec<String> = env
        .scratch_by_class
        .iter()
        .map(|r| r.map_or("None".to_string(), |r| format!("Some({})", preg(r))))
        .collect();
    let _ = writeln!(s, "        scratch_by_class: [{}],", scratch.join(", "));
    let fixed: Vec<String> = env.fixed_stack_slots.iter().map(|&r| preg(r)).collect();
    let _ = writeln!(
        s,
        "        fixed_stack_slots: vec![{}],\n    }}\n}}\n",
        fixed.join(", ")
    );
    match crate::judging::judge::proof_of_feasibility(about.algorithm.allocator, case) {
        Some((by, out)) => {
            let out = crate::outside::ra2::adapt::output(&case.func, &out);
            let _ = writeln!(
                s,
                "/// An allocation of the function, by rafuzz's `{by}`: it exists.\n\
                 fn proof() -> Option<Output> {{\n    Some(Output {{"
            );
            let _ = writeln!(s, "        num_spillslots: {},", out.num_spillslots);
            let _ = writeln!(s, "        edits: vec![");
            for (at, ra2::Edit::Move { from, to }) in &out.edits {
                let pos = match at.pos() {
                    ra2::InstPosition::Before => "before",
                    ra2::InstPosition::After => "after",
                };
                let _ = writeln!(
                    s,
                    "            (ProgPoint::{pos}(Inst::new({})), Edit::Move {{ from: {}, to: {} }}),",
                    at.inst().index(),
                    allocation(*from),
                    allocation(*to)
                );
            }
            let allocs: Vec<String> = out.allocs.iter().map(|&a| allocation(a)).collect();
            let offsets: Vec<String> = out
                .inst_alloc_offsets
                .iter()
                .map(|o| o.to_string())
                .collect();
            let _ = writeln!(
                s,
                "        ],\n        allocs: vec![{}],\n        inst_alloc_offsets: vec![{}],\n        ..Output::default()\n    }})\n}}\n",
                allocs.join(", "),
                offsets.join(", ")
            );
        }
        None => {
            let _ = writeln!(
                s,
                "/// No allocator of rafuzz found an allocation of the function.\n\
                 fn proof() -> Option<Output> {{\n    None\n}}\n"
            );
        }
    }
    let _ = write!(
        s,
        "{}",
        TAIL.replace("ALGORITHM", algorithm)
            .replace("TEST_NAME", &about.name.replace('-', "_"))
    );
    s
}

/// The paragraph a case's leading `#` lines say about it.
pub fn about_of(src: &str) -> String {
    src.lines()
        .map_while(|l| l.strip_prefix('#'))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The regalloc2 algorithm the registry's allocator `name` runs.
pub fn algorithm_of(name: &str) -> Option<&'static Algorithm> {
    ALGORITHMS.iter().find(|a| a.allocator == name)
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for w in text.split_whitespace() {
        let last = lines.last_mut().unwrap();
        if !last.is_empty() && last.len() + 1 + w.len() > width {
            lines.push(w.to_string());
        } else {
            if !last.is_empty() {
                last.push(' ');
            }
            last.push_str(w);
        }
    }
    lines
}

fn class(c: ra2::RegClass) -> &'static str {
    match c {
        ra2::RegClass::Int => "I",
        ra2::RegClass::Float => "F",
        ra2::RegClass::Vector => "V",
    }
}

fn preg(r: ra2::PReg) -> String {
    format!("p({}, {})", r.hw_enc(), class(r.class()))
}

fn vregs(v: &[ra2::VReg]) -> String {
    v.iter()
        .map(|v| format!("v({}, {})", v.vreg(), class(v.class())))
        .collect::<Vec<_>>()
        .join(", ")
}

fn blocks(v: &[ra2::Block]) -> String {
    v.iter()
        .map(|b| format!("Block::new({})", b.index()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn allocation(a: ra2::Allocation) -> String {
    match (a.as_reg(), a.as_stack()) {
        (Some(r), _) => format!("Allocation::reg({})", preg(r)),
        (None, Some(slot)) => format!("Allocation::stack(SpillSlot::new({}))", slot.index()),
        (None, None) => "Allocation::none()".to_string(),
    }
}

fn operand(o: ra2::Operand) -> String {
    if let Some(r) = o.as_fixed_nonallocatable() {
        return format!("Operand::fixed_nonallocatable({})", preg(r));
    }
    let c = match o.constraint() {
        ra2::OperandConstraint::Any => "Any".to_string(),
        ra2::OperandConstraint::Reg => "Reg".to_string(),
        ra2::OperandConstraint::Stack => "Stack".to_string(),
        ra2::OperandConstraint::FixedReg(r) => format!("FixedReg({})", preg(r)),
        ra2::OperandConstraint::Reuse(k) => format!("Reuse({k})"),
        ra2::OperandConstraint::Limit(n) => format!("Limit({n})"),
    };
    let kind = match o.kind() {
        ra2::OperandKind::Def => "Def",
        ra2::OperandKind::Use => "Use",
    };
    let pos = match o.pos() {
        ra2::OperandPos::Early => "Early",
        ra2::OperandPos::Late => "Late",
    };
    format!(
        "op(v({}, {}), {c}, {kind}, {pos})",
        o.vreg().vreg(),
        class(o.class())
    )
}

/// The reproducer's fixed part before the data: the function as plain
/// vectors behind regalloc2's `Function` trait.
const HEAD: &str = r#"
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

"#;

/// The reproducer's fixed part after the data: the interpreter and the
/// test.
const TAIL: &str = r#"/// Runs the allocated function along one path (successors drawn from
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
        algorithm: Algorithm::ALGORITHM,
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
fn TEST_NAME() {
    if let Err(e) = reproduce() {
        panic!("{e}");
    }
}
"#;
