//! Test-only faulty allocators: `linear_scan` with one bug planted under a
//! narrow condition, to prove that the fuzz targets find such bugs and that
//! the reducer shrinks what they find to a few instructions that still fail
//! the same way. Each is a hidden allocator `linear_scan+<fault>` (for
//! `rafuzz reduce --allocator`) with a hidden target `fault_<fault>`; both
//! are reachable by name only, never listed or run by `--all`.
//!
//! The faults:
//! - `drop_edge_move`: drops the first move placed where the moves of an
//!   edge into a block with parameters go (at the top of such a block, or
//!   before the branch of its only predecessor's jump);
//! - `swap_reuse`: on the first instruction with a `reuse` def and another
//!   use of its class in a different location, swaps the allocations of the
//!   reused input and that use;
//! - `forget_clobber`: allocates as if the first clobber of an allocatable
//!   register were not there;
//! - `late_spill`: moves the first store of a register into a spill slot to
//!   the same point of the next instruction of its block;
//! - `reload_after`: moves the first reload placed before an instruction to
//!   after it (the instruction reads a stale register);
//! - `param_swap`: swaps the sources of the first two moves of an edge into
//!   a block with two parameters or more (a block parameter order swap);
//! - `slot_share`: gives spill slot 1's values slot 0 (two live values in
//!   one slot, a slot reused too early);
//! - `early_def_late`: allocates as if the first early def were late (an
//!   off-by-one at the late point: the def may share a use's register);
//! - `late_use_early`: allocates as if the first late use were early (the
//!   use's register may go to a def of the same instruction);
//! - `cycle_unsaved`: drops the move that saves a register into the
//!   scratch register to break a cycle (a cycle broken without saving);
//! - `drop_reload`: drops the first reload;
//! - `drop_store`: drops the first store of a register into a spill slot;
//! - `wrong_slot`: the first reload reads the next spill slot (an
//!   off-by-one slot index);
//! - `fixed_neighbour`: the first `fixed` use of an allocatable register
//!   gets the next register of its class;
//! - `stack_in_reg`: the first `stack` use whose value a register holds
//!   just before is given that register instead of the slot;
//! - `give_up`: calls a case infeasible (`AllocError::Impossible`) when an
//!   instruction has both a `fixed` use and a late use, which the judge
//!   proves wrong with another allocator's allocation (a `refused-feasible`
//!   finding, saved with its proof);
//! - `extra_spill`: a correct allocation that costs more than it must: the
//!   first register read gets a store to a fresh slot and a reload back
//!   just before it. Its target finds nothing; `rafuzz compare` does.
//!
//! And one per way an allocator fails without a wrong answer, each found
//! only by the engine's worker processes and limits:
//! - `hang`: a fixpoint over reuse pairs that never settles when one
//!   instruction has two `reuse` defs (a `timeout`);
//! - `recurse`: a walk along first successors without a visited set, which
//!   recurses until the stack overflows when that walk meets a cycle (a
//!   `crash`);
//! - `abort`: an internal check that aborts the process when an
//!   instruction uses one vreg three times or more (a `crash`);
//! - `grow`: a worklist that re-adds what it pops, growing without bound
//!   (capped at 8 GB, so that a run without a memory limit cannot take a
//!   machine down) when an instruction has both a `limit` use and a
//!   `reuse` def (an `oom`);
//! - `quadratic`: a pass over every pair of blocks, a few microseconds
//!   each, when an instruction uses one vreg four times or more (a `slow`
//!   finding on large cases).
//!
//! And one to compare kinds of guidance: `rare_branch` panics (a `crash`)
//! when the operand counts of the first eight instructions spell a fixed
//! sequence. The check is eight branches, one per
//! instruction, so that each step matched reaches new code: edge coverage
//! (`--coverage`, which counts this file beside the `allocator` crate for
//! the faults) sees the progress, the features do not.

use crate::edit::draft::Draft;
use allocator::linear_scan::LinearScan;
use allocator::{
    AllocError, Allocation, Allocator, Function, Inst, InstPosition, MachineEnv, Operand,
    OperandConstraint, OperandKind, OperandPos, Output, ProgPoint,
};

/// Which bug a [`Faulty`] allocator plants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    DropEdgeMove,
    SwapReuse,
    ForgetClobber,
    LateSpill,
    ExtraSpill,
    Hang,
    Recurse,
    Abort,
    Grow,
    Quadratic,
    RareBranch,
    ReloadAfter,
    ParamSwap,
    SlotShare,
    EarlyDefLate,
    LateUseEarly,
    CycleUnsaved,
    DropReload,
    DropStore,
    WrongSlot,
    FixedNeighbour,
    StackInReg,
    GiveUp,
}

/// `linear_scan` with one planted bug.
pub struct Faulty {
    pub fault: Fault,
    pub name: &'static str,
}

/// The targets of the faults that are no wrong allocation: the failure
/// modes (a hang, a crash, a blow-up) and a correct but costly allocation.
/// Measurements of how often cases reveal a fault, run in one process,
/// leave them out.
pub const NOT_WRONG_ALLOCATIONS: [&str; 7] = [
    "fault_hang",
    "fault_recurse",
    "fault_abort",
    "fault_grow",
    "fault_quadratic",
    "fault_rare_branch",
    "fault_extra_spill",
];

/// Every faulty allocator.
pub static FAULTY: [Faulty; 23] = [
    Faulty {
        fault: Fault::DropEdgeMove,
        name: "linear_scan+drop_edge_move",
    },
    Faulty {
        fault: Fault::SwapReuse,
        name: "linear_scan+swap_reuse",
    },
    Faulty {
        fault: Fault::ForgetClobber,
        name: "linear_scan+forget_clobber",
    },
    Faulty {
        fault: Fault::LateSpill,
        name: "linear_scan+late_spill",
    },
    Faulty {
        fault: Fault::ExtraSpill,
        name: "linear_scan+extra_spill",
    },
    Faulty {
        fault: Fault::Hang,
        name: "linear_scan+hang",
    },
    Faulty {
        fault: Fault::Recurse,
        name: "linear_scan+recurse",
    },
    Faulty {
        fault: Fault::Abort,
        name: "linear_scan+abort",
    },
    Faulty {
        fault: Fault::Grow,
        name: "linear_scan+grow",
    },
    Faulty {
        fault: Fault::Quadratic,
        name: "linear_scan+quadratic",
    },
    Faulty {
        fault: Fault::RareBranch,
        name: "linear_scan+rare_branch",
    },
    Faulty {
        fault: Fault::ReloadAfter,
        name: "linear_scan+reload_after",
    },
    Faulty {
        fault: Fault::ParamSwap,
        name: "linear_scan+param_swap",
    },
    Faulty {
        fault: Fault::SlotShare,
        name: "linear_scan+slot_share",
    },
    Faulty {
        fault: Fault::EarlyDefLate,
        name: "linear_scan+early_def_late",
    },
    Faulty {
        fault: Fault::LateUseEarly,
        name: "linear_scan+late_use_early",
    },
    Faulty {
        fault: Fault::CycleUnsaved,
        name: "linear_scan+cycle_unsaved",
    },
    Faulty {
        fault: Fault::DropReload,
        name: "linear_scan+drop_reload",
    },
    Faulty {
        fault: Fault::DropStore,
        name: "linear_scan+drop_store",
    },
    Faulty {
        fault: Fault::WrongSlot,
        name: "linear_scan+wrong_slot",
    },
    Faulty {
        fault: Fault::FixedNeighbour,
        name: "linear_scan+fixed_neighbour",
    },
    Faulty {
        fault: Fault::StackInReg,
        name: "linear_scan+stack_in_reg",
    },
    Faulty {
        fault: Fault::GiveUp,
        name: "linear_scan+give_up",
    },
];

impl Faulty {
    /// The name of the hidden target that fuzzes this allocator.
    pub fn target_name(&self) -> &'static str {
        match self.fault {
            Fault::DropEdgeMove => "fault_drop_edge_move",
            Fault::SwapReuse => "fault_swap_reuse",
            Fault::ForgetClobber => "fault_forget_clobber",
            Fault::LateSpill => "fault_late_spill",
            Fault::ExtraSpill => "fault_extra_spill",
            Fault::Hang => "fault_hang",
            Fault::Recurse => "fault_recurse",
            Fault::Abort => "fault_abort",
            Fault::Grow => "fault_grow",
            Fault::Quadratic => "fault_quadratic",
            Fault::RareBranch => "fault_rare_branch",
            Fault::ReloadAfter => "fault_reload_after",
            Fault::ParamSwap => "fault_param_swap",
            Fault::SlotShare => "fault_slot_share",
            Fault::EarlyDefLate => "fault_early_def_late",
            Fault::LateUseEarly => "fault_late_use_early",
            Fault::CycleUnsaved => "fault_cycle_unsaved",
            Fault::DropReload => "fault_drop_reload",
            Fault::DropStore => "fault_drop_store",
            Fault::WrongSlot => "fault_wrong_slot",
            Fault::FixedNeighbour => "fault_fixed_neighbour",
            Fault::StackInReg => "fault_stack_in_reg",
            Fault::GiveUp => "fault_give_up",
        }
    }
}

impl Allocator for Faulty {
    fn name(&self) -> &'static str {
        self.name
    }

    fn run(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        match self.fault {
            Fault::ForgetClobber => return LinearScan.run(&forget_first_clobber(func, env), env),
            Fault::EarlyDefLate => return LinearScan.run(&move_first(func, env, true), env),
            Fault::LateUseEarly => return LinearScan.run(&move_first(func, env, false), env),
            Fault::Hang => hang(func),
            Fault::Recurse => {
                std::hint::black_box(first_successor_depth(func, func.entry_block()));
            }
            Fault::Abort => abort(func),
            Fault::Grow => grow(func),
            Fault::Quadratic => quadratic(func),
            Fault::RareBranch if rare_branch(func) => {
                panic!("planted: the first eight instructions' operand counts spell the rare branch's sequence")
            }
            Fault::GiveUp => give_up(func)?,
            _ => {}
        }
        let mut out = LinearScan.run(func, env)?;
        match self.fault {
            Fault::DropEdgeMove => drop_edge_move(func, &mut out),
            Fault::SwapReuse => swap_reuse(func, &mut out),
            Fault::LateSpill => late_spill(func, &mut out),
            Fault::ExtraSpill => extra_spill(func, env, &mut out),
            Fault::ReloadAfter => reload_after(&mut out),
            Fault::ParamSwap => param_swap(func, &mut out),
            Fault::SlotShare => slot_share(&mut out),
            Fault::CycleUnsaved => cycle_unsaved(env, &mut out),
            Fault::DropReload => drop_first(&mut out, is_reload),
            Fault::DropStore => drop_first(&mut out, is_store),
            Fault::WrongSlot => wrong_slot(&mut out),
            Fault::FixedNeighbour => fixed_neighbour(func, env, &mut out),
            Fault::StackInReg => stack_in_reg(func, &mut out),
            _ => {}
        }
        Ok(out)
    }
}

/// `give_up`'s refusal: an instruction with a `fixed` use and a late use.
fn give_up(f: &Function) -> Result<(), AllocError> {
    for i in f.insts() {
        let ops = f.inst_operands(i);
        let use_ = |o: &&Operand| o.kind() == OperandKind::Use;
        let fixed = ops
            .iter()
            .filter(use_)
            .any(|o| matches!(o.constraint(), OperandConstraint::FixedReg(_)));
        let late = ops.iter().filter(use_).any(|o| o.pos() == OperandPos::Late);
        if fixed && late {
            return Err(AllocError::Impossible(format!(
                "{i} has a fixed use and a late use"
            )));
        }
    }
    Ok(())
}

fn drop_edge_move(f: &Function, out: &mut Output) {
    let edge_point = |p: ProgPoint| {
        if p.pos() != InstPosition::Before {
            return false;
        }
        let i = p.inst();
        let b = f.block_of(i);
        let insts = f.block_insts(b);
        let top = i == insts.first() && !f.block_params(b).is_empty();
        let jump = i == insts.last()
            && f.block_succs(b).len() == 1
            && !f.block_params(f.block_succs(b)[0]).is_empty();
        top || jump
    };
    if let Some(k) = out.edits.iter().position(|&(p, _)| edge_point(p)) {
        out.edits.remove(k);
    }
}

fn swap_reuse(f: &Function, out: &mut Output) {
    for i in f.insts() {
        let ops = f.inst_operands(i);
        let base = f.inst_operand_range(i).start;
        for op in ops {
            let OperandConstraint::Reuse(k) = op.constraint() else {
                continue;
            };
            let other = ops.iter().enumerate().position(|(j, o)| {
                j != k
                    && o.is_use()
                    && !o.is_nonalloc()
                    && o.class() == ops[k].class()
                    && out.allocs[base + j] != out.allocs[base + k]
            });
            if let Some(j) = other {
                out.allocs.swap(base + j, base + k);
                return;
            }
        }
    }
}

fn late_spill(f: &Function, out: &mut Output) {
    let store = out.edits.iter().position(|&(p, m)| {
        matches!((m.from, m.to), (Allocation::Reg(_), Allocation::Stack(_)))
            && p.inst() != f.block_insts(f.block_of(p.inst())).last()
    });
    let Some(k) = store else { return };
    let (p, m) = out.edits.remove(k);
    let later = ProgPoint::new(Inst::new(p.inst().index() + 1), p.pos());
    let at = out.edits.partition_point(|&(q, _)| q < later);
    out.edits.insert(at, (later, m));
}

fn extra_spill(f: &Function, env: &MachineEnv, out: &mut Output) {
    let read = f.insts().find_map(|i| {
        let base = f.inst_operand_range(i).start;
        f.inst_operands(i)
            .iter()
            .enumerate()
            .find_map(|(k, op)| match out.allocs[base + k] {
                Allocation::Reg(r)
                    if op.is_use()
                        && !op.is_nonalloc()
                        && env.role(r) != allocator::PRegRole::FixedStack =>
                {
                    Some((i, r))
                }
                _ => None,
            })
    });
    let Some((i, r)) = read else { return };
    let slot = Allocation::Stack(allocator::SpillSlot::new(out.num_spillslots));
    out.num_spillslots += 1;
    let at = ProgPoint::before(i);
    let k = out.edits.partition_point(|&(q, _)| q <= at);
    let reg = Allocation::Reg(r);
    let mv = |from, to| allocator::Move { from, to };
    out.edits.insert(k, (at, mv(slot, reg)));
    out.edits.insert(k, (at, mv(reg, slot)));
}

fn forget_first_clobber(f: &Function, env: &MachineEnv) -> Function {
    let allocatable = env.allocatable_set();
    let mut d = Draft::from_function(f, env);
    'find: for b in &mut d.blocks {
        for inst in &mut b.insts {
            if let Some(k) = inst.clobbers.iter().position(|&r| allocatable.contains(r)) {
                inst.clobbers.remove(k);
                break 'find;
            }
        }
    }
    d.to_function()
}

/// The most uses of one vreg by a single instruction.
fn most_uses_of_one_vreg(f: &Function) -> usize {
    f.insts()
        .map(|i| {
            let ops = f.inst_operands(i);
            ops.iter()
                .map(|o| ops.iter().filter(|p| p.vreg() == o.vreg()).count())
                .max()
                .unwrap_or(0)
        })
        .max()
        .unwrap_or(0)
}

fn hang(f: &Function) {
    let reuses = |i: Inst| {
        f.inst_operands(i)
            .iter()
            .filter(|o| matches!(o.constraint(), OperandConstraint::Reuse(_)))
            .count()
    };
    let mut changed = true;
    while changed {
        changed = false;
        for i in f.insts() {
            // Two reuse defs "change" each other on every round.
            changed |= std::hint::black_box(reuses(i)) >= 2;
        }
    }
}

fn first_successor_depth(f: &Function, b: allocator::Block) -> usize {
    // A frame the optimizer cannot fold into a loop.
    let frame = std::hint::black_box([b.index(); 16]);
    match f.block_succs(b).first() {
        Some(&s) => 1 + first_successor_depth(f, s) + frame[15] - b.index(),
        None => frame[0] - b.index(),
    }
}

fn abort(f: &Function) {
    if most_uses_of_one_vreg(f) >= 3 {
        std::process::abort();
    }
}

fn grow(f: &Function) {
    let triggered = f.insts().any(|i| {
        let ops = f.inst_operands(i);
        ops.iter()
            .any(|o| matches!(o.constraint(), OperandConstraint::Limit(_)))
            && ops
                .iter()
                .any(|o| matches!(o.constraint(), OperandConstraint::Reuse(_)))
    });
    if !triggered {
        return;
    }
    let mut worklist: Vec<u64> = vec![1];
    while worklist.len() < (8usize << 30) / 8 {
        let n = worklist.len();
        worklist.extend_from_within(..n.min(1 << 20));
    }
    std::hint::black_box(&worklist);
}

/// The source file of the faults, as a path's tail: what edge coverage
/// counts for them beside the allocator they plant a bug in.
pub const CODE: &str = "fuzz_targets/src/testing/faults.rs";

/// The operand counts `rare_branch` waits for, instruction by instruction:
/// common counts each, so that every step is within a mutation's reach
/// of the one before.
pub const RARE_SEQUENCE: [usize; 8] = [1, 1, 1, 2, 2, 1, 2, 1];

/// Whether the first instructions' operand counts are [`RARE_SEQUENCE`].
/// One `if` per step, never a loop: a loop would reach the same edges
/// however far the match went.
fn rare_branch(f: &Function) -> bool {
    let count = |k: usize| {
        let n = if k < f.num_insts() {
            f.inst_operands(Inst::new(k)).len()
        } else {
            usize::MAX
        };
        std::hint::black_box(n)
    };
    let s = RARE_SEQUENCE;
    if count(0) != s[0] {
        return false;
    }
    if count(1) != s[1] {
        return false;
    }
    if count(2) != s[2] {
        return false;
    }
    if count(3) != s[3] {
        return false;
    }
    if count(4) != s[4] {
        return false;
    }
    if count(5) != s[5] {
        return false;
    }
    if count(6) != s[6] {
        return false;
    }
    count(7) == s[7]
}

fn quadratic(f: &Function) {
    if most_uses_of_one_vreg(f) < 4 {
        return;
    }
    let mut acc = 0u64;
    for a in f.blocks() {
        for b in f.blocks() {
            for k in 0..4_000u64 {
                acc = acc
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(k ^ (a.index() * b.index()) as u64);
            }
        }
    }
    std::hint::black_box(acc);
}

fn is_reload(m: &allocator::Move) -> bool {
    matches!((m.from, m.to), (Allocation::Stack(_), Allocation::Reg(_)))
}

fn is_store(m: &allocator::Move) -> bool {
    matches!((m.from, m.to), (Allocation::Reg(_), Allocation::Stack(_)))
}

fn drop_first(out: &mut Output, which: fn(&allocator::Move) -> bool) {
    if let Some(k) = out.edits.iter().position(|(_, m)| which(m)) {
        out.edits.remove(k);
    }
}

fn reload_after(out: &mut Output) {
    let first = out
        .edits
        .iter()
        .position(|&(p, m)| is_reload(&m) && p.pos() == InstPosition::Before);
    let Some(k) = first else { return };
    let (p, m) = out.edits.remove(k);
    let after = ProgPoint::new(p.inst(), InstPosition::After);
    let at = out.edits.partition_point(|&(q, _)| q <= after);
    out.edits.insert(at, (after, m));
}

fn param_swap(f: &Function, out: &mut Output) {
    for b in f.blocks() {
        if f.block_params(b).len() < 2 {
            continue;
        }
        // The edge moves go at the top of the block or before the branch of
        // its only predecessor; take the first two at the top.
        let top = ProgPoint::before(f.block_insts(b).first());
        let at: Vec<usize> = (0..out.edits.len())
            .filter(|&k| out.edits[k].0 == top)
            .collect();
        if let [a, c, ..] = at[..] {
            if out.edits[a].1.from != out.edits[c].1.from {
                let (x, y) = (out.edits[a].1.from, out.edits[c].1.from);
                out.edits[a].1.from = y;
                out.edits[c].1.from = x;
                return;
            }
        }
    }
}

fn slot_share(out: &mut Output) {
    if out.num_spillslots < 2 {
        return;
    }
    let (one, zero) = (allocator::SpillSlot::new(1), allocator::SpillSlot::new(0));
    let rename = |a: &mut Allocation| {
        if *a == Allocation::Stack(one) {
            *a = Allocation::Stack(zero);
        }
    };
    out.allocs.iter_mut().for_each(rename);
    for (_, m) in out.edits.iter_mut() {
        rename(&mut m.from);
        rename(&mut m.to);
    }
}

fn cycle_unsaved(env: &MachineEnv, out: &mut Output) {
    let scratch = |a: Allocation| {
        a.as_reg()
            .is_some_and(|r| env.scratch[r.class()] == Some(r))
    };
    let save = out.edits.iter().enumerate().position(|(k, &(p, m))| {
        scratch(m.to)
            && out.edits[k + 1..]
                .iter()
                .take_while(|(q, _)| *q == p)
                .any(|(_, n)| scratch(n.from))
    });
    if let Some(k) = save {
        out.edits.remove(k);
    }
}

fn wrong_slot(out: &mut Output) {
    if out.num_spillslots < 2 {
        return;
    }
    if let Some((_, m)) = out.edits.iter_mut().find(|(_, m)| is_reload(m)) {
        if let Allocation::Stack(s) = m.from {
            let next = (s.index() + 1) % out.num_spillslots;
            m.from = Allocation::Stack(allocator::SpillSlot::new(next));
        }
    }
}

fn fixed_neighbour(f: &Function, env: &MachineEnv, out: &mut Output) {
    let allocatable = env.allocatable_set();
    for i in f.insts() {
        let base = f.inst_operand_range(i).start;
        for (k, op) in f.inst_operands(i).iter().enumerate() {
            if let OperandConstraint::FixedReg(r) = op.constraint() {
                if op.is_use() && allocatable.contains(r) {
                    let next = allocator::PReg::new((r.hw() + 1) % 64, r.class());
                    out.allocs[base + k] = Allocation::Reg(next);
                    return;
                }
            }
        }
    }
}

fn stack_in_reg(f: &Function, out: &mut Output) {
    for i in f.insts() {
        let base = f.inst_operand_range(i).start;
        for (k, op) in f.inst_operands(i).iter().enumerate() {
            if !(op.is_use() && op.constraint() == OperandConstraint::Stack) {
                continue;
            }
            // A register the value was just stored from, before `i`.
            let slot = out.allocs[base + k];
            let before = ProgPoint::before(i);
            let held = out
                .edits
                .iter()
                .rev()
                .filter(|(p, _)| *p <= before)
                .find(|(_, m)| m.to == slot && m.from.as_reg().is_some());
            if let Some(&(_, m)) = held {
                out.allocs[base + k] = m.from;
                return;
            }
        }
    }
}

/// The function with its first early def made late (`def`) or its first
/// late use made early.
fn move_first(f: &Function, env: &MachineEnv, def: bool) -> Function {
    use allocator::OperandPos;
    let mut d = Draft::from_function(f, env);
    'find: for b in &mut d.blocks {
        for inst in &mut b.insts {
            for op in inst.operands.iter_mut() {
                let hit = if def {
                    op.is_def() && op.pos() == OperandPos::Early && !op.is_nonalloc()
                } else {
                    op.is_use() && op.pos() == OperandPos::Late && !op.is_nonalloc()
                };
                if hit {
                    let pos = if def {
                        OperandPos::Late
                    } else {
                        OperandPos::Early
                    };
                    *op = allocator::Operand::new(op.vreg(), op.kind(), pos, op.constraint());
                    break 'find;
                }
            }
        }
    }
    d.to_function()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A case whose first eight instructions have operand counts
    /// 1 1 1 2 2 1 2 1, then `last` and a return.
    fn case(last: &str) -> allocator::Case {
        let text = format!(
            "machine
  int    preferred p0i-p3i nonpreferred none scratch none
  float  preferred p0f     nonpreferred none scratch none
  vector preferred p0v     nonpreferred none scratch none
end
function
  block0:
    inst0: op def:v0i:reg
    inst1: op def:v1i:reg
    inst2: op def:v2i:reg
    inst3: op use:v0i:reg def:v3i:reg
    inst4: op use:v1i:reg def:v4i:reg
    inst5: op use:v2i:reg
    inst6: op use:v3i:reg def:v5i:reg
    {last}
    inst8: ret
end
"
        );
        allocator::ir::text::parse_and_validate(text.as_bytes())
            .expect("a valid case")
            .0
    }

    /// The trigger is the whole sequence: one operand more on its last
    /// instruction, and the case allocates as `linear_scan` does.
    #[test]
    fn the_rare_branch_needs_every_step() {
        let inside = case("inst7: op use:v4i:reg");
        let outside = case("inst7: op use:v4i:reg use:v5i:reg");
        assert!(rare_branch(&inside.func));
        assert!(!rare_branch(&outside.func));
        let faulty = FAULTY
            .iter()
            .find(|f| f.fault == Fault::RareBranch)
            .unwrap();
        let run = |c: &allocator::Case| {
            std::panic::catch_unwind(|| faulty.run(&c.func, &c.machine).is_ok())
        };
        assert!(run(&inside).is_err(), "panics on the sequence");
        assert_eq!(run(&outside).ok(), Some(true));
    }
}
