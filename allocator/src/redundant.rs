//! Redundant move elimination inside each block: every location is tracked
//! as holding a symbol (the vreg a def wrote, or a name given to an unknown
//! content when a move first reads it); a move whose destination already
//! holds its source's symbol is dropped, and a reload whose symbol a
//! register still holds reads that register instead (a register move costs
//! a twentieth of a reload). Defs, clobbers and `nonalloc` operands
//! overwrite what they touch; nothing is assumed at a block's entry. Edits
//! before an instruction are seen before its defs and clobbers, edits after
//! it after them. Shared by the allocators that leave such moves behind
//! (`backtracking`, `coloring`).

use crate::ir::function::Function;
use crate::ir::index::{InstPosition, PReg, ProgPoint};
use crate::ir::output::{Allocation, Move};

const UNKNOWN: u32 = 0;

fn key(a: Allocation) -> Option<usize> {
    match a {
        Allocation::Reg(r) => Some(r.index()),
        Allocation::Stack(s) => Some(PReg::NUM_INDEX + s.index()),
        Allocation::None => None,
    }
}

/// What [`eliminate`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Eliminated {
    /// Moves dropped.
    pub dropped: usize,
    /// Reloads turned into register moves.
    pub reloads_from_registers: usize,
}

/// Drops redundant moves from `edits` (sorted by point) and makes reloads
/// read a register holding the same value where one does.
pub fn eliminate(
    f: &Function,
    allocs: &[Allocation],
    edits: &mut Vec<(ProgPoint, Move)>,
) -> Eliminated {
    let mut content: Vec<u32> = Vec::new();
    // Per symbol, the register that last received it (valid while that
    // register's content still is the symbol).
    let mut holder: Vec<u32> = Vec::new();
    let mut rewritten = 0;
    let mut touched: Vec<usize> = Vec::new();
    let mut next_sym = f.num_vregs() as u32 + 1;
    let mut keep = vec![true; edits.len()];
    let mut k = 0;
    // Location `at` now holds `sym`; a register is also noted as its holder.
    let set = |content: &mut Vec<u32>,
               touched: &mut Vec<usize>,
               holder: &mut Vec<u32>,
               at: usize,
               sym: u32| {
        if at >= content.len() {
            content.resize(at + 1, UNKNOWN);
        }
        content[at] = sym;
        touched.push(at);
        if at < PReg::NUM_INDEX && sym != UNKNOWN {
            if sym as usize >= holder.len() {
                holder.resize(sym as usize + 1, u32::MAX);
            }
            holder[sym as usize] = at as u32;
        }
    };
    for b in f.blocks() {
        for &t in &touched {
            content[t] = UNKNOWN;
        }
        touched.clear();
        for i in f.block_insts(b).iter() {
            for pos in [InstPosition::Before, InstPosition::After] {
                if pos == InstPosition::After {
                    let base = f.inst_operand_range(i).start;
                    for (j, op) in f.inst_operands(i).iter().enumerate() {
                        if let Some(at) = key(allocs[base + j]) {
                            if op.is_def() {
                                let sym = op.vreg().index() as u32 + 1;
                                set(&mut content, &mut touched, &mut holder, at, sym);
                            } else if op.is_nonalloc() {
                                set(&mut content, &mut touched, &mut holder, at, UNKNOWN);
                            }
                        }
                    }
                    for &r in f.inst_clobbers(i) {
                        set(&mut content, &mut touched, &mut holder, r.index(), UNKNOWN);
                    }
                }
                while k < edits.len() && edits[k].0 == ProgPoint::new(i, pos) {
                    let mv = edits[k].1;
                    if let (Some(from), Some(to)) = (key(mv.from), key(mv.to)) {
                        let mut sym = content.get(from).copied().unwrap_or(UNKNOWN);
                        if sym == UNKNOWN {
                            sym = next_sym;
                            next_sym += 1;
                            set(&mut content, &mut touched, &mut holder, from, sym);
                        }
                        if content.get(to).copied() == Some(sym) {
                            keep[k] = false;
                        } else {
                            if from >= PReg::NUM_INDEX && to < PReg::NUM_INDEX {
                                if let Some(&r) = holder.get(sym as usize) {
                                    if r != u32::MAX && content[r as usize] == sym {
                                        edits[k].1.from =
                                            Allocation::Reg(PReg::from_index(r as usize));
                                        rewritten += 1;
                                    }
                                }
                            }
                            set(&mut content, &mut touched, &mut holder, to, sym);
                        }
                    }
                    k += 1;
                }
            }
        }
    }
    let before = edits.len();
    let mut n = 0;
    edits.retain(|_| {
        n += 1;
        keep[n - 1]
    });
    Eliminated {
        dropped: before - edits.len(),
        reloads_from_registers: rewritten,
    }
}
