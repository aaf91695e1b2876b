//! A config's domain as a predicate: whether a case is one the generator
//! could have made under the config, switch by switch. The generator keeps
//! these promises by construction; a case from elsewhere (a mutant, a
//! reduced case, a seed) is checked against them, so that an edit never
//! leaves the profile of the allocator it is fed to: an allocator's profile
//! leaves out what the allocator does not take, and a mutant outside it
//! would report the profile's own gaps as findings.
//!
//! What is checked: the block numbering, each constraint kind, late uses,
//! early defs, `stack` defs, clobbers, unlisted `fixed` registers,
//! `nonalloc` operands, block parameters, branch operands (into joins),
//! branch defs (in registers, passed on, shared), repeated uses and the
//! constraints among them, reuse as regalloc2 holds it, in-place operands
//! beside writes, several classes, the machine's scratch registers, fixed
//! stack locations and slot sizes, and irreducible loops. Sizes and rates
//! are not promises and are not checked.

use crate::config::Config;
use allocator::analysis::cfg;
use allocator::analysis::domtree::{self, DomTree};
use allocator::{
    Case, Function, FunctionBuilder, Inst, MachineEnv, Opcode, Operand, OperandConstraint,
    OperandPos, PRegRole,
};

/// The first promise of a config a case breaks: its name (as `--without`
/// and `gen --stats` name features, where one matches) and the
/// instruction that breaks it, when one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outside {
    pub what: &'static str,
    pub at: Option<Inst>,
}

impl std::fmt::Display for Outside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some(i) => write!(f, "{} at {i}", self.what),
            None => f.write_str(self.what),
        }
    }
}

/// `Ok` when `case` is in `config`'s domain, else the first promise it
/// breaks.
pub fn check(case: &Case, config: &Config) -> Result<(), Outside> {
    match broken(case, config, true).first() {
        None => Ok(()),
        Some(&o) => Err(o),
    }
}

/// Whether `mutant` breaks no promise of `config` that `seed` keeps: an
/// edit of a seed from outside the profile (a real function, say) may keep
/// what the seed breaks, never break more.
pub fn keeps(mutant: &Case, seed: &Case, config: &Config) -> bool {
    within(mutant, config, &broken(seed, config, false))
}

/// Whether `case` breaks no promise of `config` beyond `allowed` (what
/// [`broken`] found of a seed, computed once for all its edits).
pub fn within(case: &Case, config: &Config, allowed: &[Outside]) -> bool {
    broken(case, config, false)
        .iter()
        .all(|m| allowed.iter().any(|s| s.what == m.what))
}

/// The promises `case` breaks, one entry per promise (the first place it
/// is broken), in check order; with `first`, at most one.
pub fn broken(case: &Case, config: &Config, first: bool) -> Vec<Outside> {
    let f = &case.func;
    let env = &case.machine;
    let mut out: Vec<Outside> = Vec::new();
    let mut note = |what: &'static str, at: Option<Inst>| {
        if !out.iter().any(|o| o.what == what) {
            out.push(Outside { what, at });
        }
        first
    };
    if !config.numberings.admits(f) && note("free-numbering", None) {
        return out;
    }
    if let Err(what) = check_machine(env, config) {
        if note(what, None) {
            return out;
        }
    }
    if config.max_block_params == 0
        && f.blocks().any(|b| !f.block_params(b).is_empty())
        && note("block-params", None)
    {
        return out;
    }
    let classes = f.vreg_classes();
    if !config.multiple_classes
        && classes.iter().any(|&c| c != allocator::RegClass::Int)
        && note("classes", None)
    {
        return out;
    }
    let reads = reads(f);
    for i in f.insts() {
        if let Err(what) = check_inst(f, env, config, i, &reads) {
            if note(what, Some(i)) {
                return out;
            }
        }
    }
    if !config.irreducible && !domtree::is_reducible(f, &DomTree::new(f)) {
        note("irreducible", None);
    }
    out
}

fn check_machine(env: &MachineEnv, config: &Config) -> Result<(), &'static str> {
    let m = &config.machine;
    if let Some(preset) = m.preset {
        return (*env == preset()).then_some(()).ok_or("machine");
    }
    if !m.scratch && env.scratch.iter().any(Option::is_some) {
        return Err("scratch");
    }
    if !m.fixed_stack && env.fixed_stack.iter().any(|l| !l.is_empty()) {
        return Err("fixed-stack");
    }
    if allocator::RegClass::ALL
        .iter()
        .any(|&c| env.slots.size(c) > m.max_slot_size)
    {
        return Err("slot-sizes");
    }
    Ok(())
}

/// How often each vreg is read: by operands and as branch arguments.
fn reads(f: &Function) -> Vec<u32> {
    let mut reads = vec![0u32; f.num_vregs()];
    for i in f.insts() {
        for o in f.inst_operands(i) {
            if o.is_use() && !o.is_nonalloc() {
                reads[o.vreg().index()] += 1;
            }
        }
        for t in 0..f.num_targets(i) {
            for v in f.target(i, t).1 {
                reads[v.index()] += 1;
            }
        }
    }
    reads
}

fn check_inst(
    f: &Function,
    env: &MachineEnv,
    config: &Config,
    i: Inst,
    reads: &[u32],
) -> Result<(), &'static str> {
    let ops = f.inst_operands(i);
    let k = config.constraints;
    let fixed_def =
        |o: &Operand| o.is_def() && matches!(o.constraint(), OperandConstraint::FixedReg(_));
    let fixed_defs = ops.iter().filter(|o| fixed_def(o)).count();
    let clobbers = !f.inst_clobbers(i).is_empty();
    if !config.clobbers && !f.inst_clobbers(i).is_empty() {
        return Err("clobbers");
    }
    for o in ops {
        let allowed = match o.constraint() {
            OperandConstraint::Any => Ok(()),
            OperandConstraint::Reg => k.reg.then_some(()).ok_or("reg"),
            OperandConstraint::Stack => k.stack.then_some(()).ok_or("stack"),
            OperandConstraint::FixedReg(r) => {
                if !k.fixed {
                    Err("fixed")
                } else if !config.machine.fixed_unlisted && env.role(r) == PRegRole::NonAllocatable
                {
                    Err("unlisted-fixed")
                } else {
                    Ok(())
                }
            }
            OperandConstraint::Reuse(_) => k.reuse.then_some(()).ok_or("reuse"),
            OperandConstraint::Limit(_) => k.limit.then_some(()).ok_or("limit"),
            OperandConstraint::NonAlloc(_) => config.nonalloc.then_some(()).ok_or("nonalloc"),
        };
        allowed?;
        if o.is_nonalloc() {
            continue;
        }
        let late_use = o.is_use() && o.pos() == OperandPos::Late;
        let early_def = o.is_def() && o.pos() == OperandPos::Early;
        if late_use && !config.late_uses {
            return Err("late-uses");
        }
        if early_def && !config.early_defs {
            return Err("early-defs");
        }
        if o.is_def() && o.constraint() == OperandConstraint::Stack && !config.stack_defs {
            return Err("stack-defs");
        }
        let in_place =
            late_use || early_def || matches!(o.constraint(), OperandConstraint::Reuse(_));
        // Writes of the instruction's own beside this operand: a clobber,
        // or a `fixed` def other than itself.
        let writes = clobbers || fixed_defs > usize::from(fixed_def(o));
        if in_place && writes && !config.in_place_with_writes {
            return Err("in-place-with-writes");
        }
    }
    if f.opcode(i).is_terminator() {
        check_terminator(f, config, i, reads)?;
    }
    check_repeated_uses(ops, config)?;
    if config.reuse_holds_uses {
        check_reuse(f, env, i)?;
    }
    if config.operands_in_registers && !feasible_in_registers(f, i, env) {
        return Err("operands-in-registers");
    }
    Ok(())
}

/// Whether instruction `i` stays feasible by the generator's rules with its
/// `any` operands asking for a register ([`Config::operands_in_registers`]).
fn feasible_in_registers(f: &Function, i: Inst, env: &MachineEnv) -> bool {
    let ops = f.inst_operands(i);
    if !ops.iter().any(|o| o.constraint() == OperandConstraint::Any) {
        return true;
    }
    let in_registers: Vec<Operand> = ops
        .iter()
        .map(|&o| match o.constraint() {
            OperandConstraint::Any => o.with_constraint(OperandConstraint::Reg),
            _ => o,
        })
        .collect();
    feasible_alone(&in_registers, f.inst_clobbers(i), env)
}

/// Whether one instruction with these operands and clobbers is feasible
/// by the generator's rules.
fn feasible_alone(ops: &[Operand], clobbers: &[allocator::PReg], env: &MachineEnv) -> bool {
    let mut b = FunctionBuilder::new();
    b.block(&[]);
    b.inst(Opcode::Op, ops, clobbers, &[]);
    b.inst(Opcode::Ret, &[], &[], &[]);
    b.finish().map_or(true, |single| {
        crate::feasibility::check(&single, env).is_ok()
    })
}

fn check_terminator(
    f: &Function,
    config: &Config,
    i: Inst,
    reads: &[u32],
) -> Result<(), &'static str> {
    let ops = f.inst_operands(i);
    if ops.is_empty() {
        return Ok(());
    }
    if !config.branch_operands {
        return Err("branch-operands");
    }
    if !config.branch_operands_into_joins
        && (0..f.num_targets(i)).any(|t| cfg::effective_preds(f, f.target(i, t).0) > 1)
    {
        return Err("branch-operands-into-joins");
    }
    for o in ops.iter().filter(|o| o.is_def() && !o.is_nonalloc()) {
        if !config.branch_defs || f.opcode(i) != Opcode::Branch {
            return Err("branch-defs");
        }
        if !config.branch_defs_in_registers
            && matches!(
                o.constraint(),
                OperandConstraint::Reg | OperandConstraint::Limit(_) | OperandConstraint::Reuse(_)
            )
        {
            return Err("branch-defs-in-registers");
        }
        let passed = (0..f.num_targets(i)).any(|t| f.target(i, t).1.contains(&o.vreg()));
        if passed && !config.branch_def_args {
            return Err("branch-def-args");
        }
        let fixed = matches!(o.constraint(), OperandConstraint::FixedReg(_));
        if passed && !fixed && !config.branch_def_args_shared && reads[o.vreg().index()] >= 2 {
            return Err("branch-def-args-shared");
        }
    }
    Ok(())
}

/// Whether regalloc2's ion holds the use `o` of an instruction with
/// operands `ops` to the late point: a late use, or an early use of an
/// instruction with a `reuse` def other than the (first) reused input.
pub fn held_late(ops: &[Operand], o: Operand) -> bool {
    o.is_use()
        && !o.is_nonalloc()
        && (o.pos() == OperandPos::Late || reused_input(ops).is_some_and(|v| v != o.vreg()))
}

/// The vreg of the first reused input of an instruction, if any.
pub fn reused_input(ops: &[Operand]) -> Option<allocator::VReg> {
    ops.iter().find_map(|o| match o.constraint() {
        OperandConstraint::Reuse(k) => ops.get(k).map(|u| u.vreg()),
        _ => None,
    })
}

fn check_repeated_uses(ops: &[Operand], config: &Config) -> Result<(), &'static str> {
    let r = config.repeated_uses;
    for (k, a) in ops.iter().enumerate() {
        if !a.is_use() || a.is_nonalloc() {
            continue;
        }
        for b in ops[k + 1..]
            .iter()
            .filter(|b| b.is_use() && !b.is_nonalloc())
        {
            if b.vreg() != a.vreg() {
                continue;
            }
            if !r.allowed {
                return Err("repeated-uses");
            }
            let any = |p: &dyn Fn(Operand) -> bool| p(*a) || p(*b);
            if !r.stack && any(&|o| o.constraint() == OperandConstraint::Stack) {
                return Err("repeated-stack-uses");
            }
            if !r.limit && any(&|o| matches!(o.constraint(), OperandConstraint::Limit(_))) {
                return Err("repeated-limit-uses");
            }
            if !r.late_fixed
                && any(&|o| {
                    held_late(ops, o) && matches!(o.constraint(), OperandConstraint::FixedReg(_))
                })
            {
                return Err("repeated-late-fixed-uses");
            }
        }
    }
    Ok(())
}

/// Reuse as regalloc2 holds it ([`Config::reuse_holds_uses`]): at most one
/// `reuse` def, its input a `reg` use, and the instruction still feasible
/// with every use ion holds to the late point made late.
fn check_reuse(f: &Function, env: &MachineEnv, i: Inst) -> Result<(), &'static str> {
    let ops = f.inst_operands(i);
    let reuses = ops
        .iter()
        .filter(|o| matches!(o.constraint(), OperandConstraint::Reuse(_)));
    if reuses.clone().count() > 1 {
        return Err("reuse-holds-uses");
    }
    for o in reuses {
        let OperandConstraint::Reuse(k) = o.constraint() else {
            continue;
        };
        if ops
            .get(k)
            .is_none_or(|u| u.constraint() != OperandConstraint::Reg)
        {
            return Err("reuse-holds-uses");
        }
    }
    if !feasible_with_held_uses(f, i, env) {
        return Err("reuse-holds-uses");
    }
    Ok(())
}

/// Whether instruction `i` stays feasible by the generator's rules when
/// the uses regalloc2's ion holds to the late point ([`held_late`]) are
/// made late uses.
pub fn feasible_with_held_uses(f: &Function, i: Inst, env: &MachineEnv) -> bool {
    let ops = f.inst_operands(i);
    if reused_input(ops).is_none() {
        return true;
    }
    let extended: Vec<Operand> = ops
        .iter()
        .map(|&o| {
            if o.pos() == OperandPos::Early && held_late(ops, o) {
                Operand::new(o.vreg(), o.kind(), OperandPos::Late, o.constraint())
            } else {
                o
            }
        })
        .collect();
    feasible_alone(&extended, f.inst_clobbers(i), env)
}
