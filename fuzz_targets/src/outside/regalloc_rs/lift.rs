//! The crate's rewritten instruction stream read back as our [`Output`]:
//! each instruction of ours gives its operands' registers, and everything
//! between two of ours (the lowering's copies, the crate's spills, reloads
//! and moves) becomes the edits before the later one, in stream order.
//!
//! What the crate places after a block's branch is left out: a client
//! emits the block's instructions in order, so it never runs. (The crate
//! puts there the store that follows a `mod` or a def of the block's last
//! instruction.) Judged without it, such a move is a finding only when
//! something needed it, as for regalloc2 (`ra2::adapt::from_output`).

use super::lower::{Lowered, LoweredFunc, Source, Universe};
use allocator::{Allocation, Inst, Move, Output, ProgPoint, SpillSlot};
use regalloc as rr;

/// `result` as our output, or why it cannot be one (a vreg left
/// unallocated): the crate's fault.
pub fn lift(
    lowered: &LoweredFunc,
    universe: &Universe,
    result: &rr::RegAllocResult<LoweredFunc>,
) -> Result<Output, String> {
    let func = lowered.func;
    let reg = |r: rr::Reg, what: &dyn Fn() -> String| -> Result<Allocation, String> {
        match r.as_real_reg() {
            Some(real) => Ok(Allocation::Reg(universe.pregs[real.get_index()])),
            None => Err(format!("{} is left as virtual register {r:?}", what())),
        }
    };
    // The crate names a run of slots by its first; a machine naming values
    // by their last slot calls it by the last of the value's own size.
    let g = universe.slots;
    let slot = |s: rr::SpillSlot, class: allocator::RegClass| {
        let first = s.get() as usize;
        let name = if g.named_by_last {
            first + g.size(class) - 1
        } else {
            first
        };
        Allocation::Stack(SpillSlot::new(name))
    };
    let mut out = Output {
        allocs: vec![Allocation::None; func.num_operands()],
        edits: Vec::with_capacity(result.insns.len() - lowered.insts.len().min(result.insns.len())),
        num_spillslots: result.num_spill_slots as usize,
    };
    let mut pending: Vec<Move> = Vec::new();
    let blocks = result.target_map.len() as usize;
    for b in 0..blocks {
        let start = result.target_map[rr::BlockIx::new(b as u32)].get() as usize;
        let end = match b + 1 < blocks {
            true => result.target_map[rr::BlockIx::new(b as u32 + 1)].get() as usize,
            false => result.insns.len(),
        };
        let mut terminated = false;
        for (n, insn) in result.insns[start..end].iter().enumerate() {
            let here = || format!("new instruction {} (in block{b})", start + n);
            let m = match *insn {
                Lowered::Case { inst, ref regs } => {
                    let i = Inst::new(inst as usize);
                    out.edits
                        .extend(pending.drain(..).map(|m| (ProgPoint::before(i), m)));
                    let range = func.inst_operand_range(i);
                    for (j, op) in range.clone().zip(func.inst_operands(i)) {
                        out.allocs[j] = match lowered.sources[j] {
                            Source::Fixed(r) => Allocation::Reg(r),
                            Source::Mention(k) => reg(regs[k as usize].reg, &|| {
                                format!("operand {} ({}) of {i}", j - range.start, op.vreg())
                            })?,
                        };
                    }
                    terminated = func.opcode(i).is_terminator();
                    continue;
                }
                Lowered::Copy { dst, src } => Move {
                    from: reg(src, &here)?,
                    to: reg(dst.to_reg(), &here)?,
                },
                Lowered::Spill { slot: s, reg: r } => {
                    let from = reg(r.to_reg(), &here)?;
                    Move {
                        from,
                        to: slot(s, class_of(from)),
                    }
                }
                Lowered::Reload { reg: r, slot: s } => {
                    let to = reg(r.to_reg().to_reg(), &here)?;
                    Move {
                        from: slot(s, class_of(to)),
                        to,
                    }
                }
                Lowered::Move { dst, src } => Move {
                    from: reg(src.to_reg(), &here)?,
                    to: reg(dst.to_reg().to_reg(), &here)?,
                },
                Lowered::Nop | Lowered::EarlyDef { .. } => continue,
            };
            if m.from != m.to && !terminated {
                pending.push(m);
            }
        }
    }
    Ok(out)
}

/// The class of a register allocation (spills and reloads name one).
fn class_of(a: Allocation) -> allocator::RegClass {
    match a {
        Allocation::Reg(r) => r.class(),
        _ => allocator::RegClass::Int,
    }
}
