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

use crate::reduce::draft::Draft;
use allocator::linear_scan::LinearScan;
use allocator::{
    AllocError, Allocation, Allocator, Function, Inst, InstPosition, MachineEnv, OperandConstraint,
    Output, ProgPoint,
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
}

/// `linear_scan` with one planted bug.
pub struct Faulty {
    pub fault: Fault,
    pub name: &'static str,
}

/// Every faulty allocator.
pub static FAULTY: [Faulty; 10] = [
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
            Fault::Hang => hang(func),
            Fault::Recurse => {
                std::hint::black_box(first_successor_depth(func, func.entry_block()));
            }
            Fault::Abort => abort(func),
            Fault::Grow => grow(func),
            Fault::Quadratic => quadratic(func),
            _ => {}
        }
        let mut out = LinearScan.run(func, env)?;
        match self.fault {
            Fault::DropEdgeMove => drop_edge_move(func, &mut out),
            Fault::SwapReuse => swap_reuse(func, &mut out),
            Fault::LateSpill => late_spill(func, &mut out),
            Fault::ExtraSpill => extra_spill(func, env, &mut out),
            _ => {}
        }
        Ok(out)
    }
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
