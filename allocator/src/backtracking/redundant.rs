//! Redundant move elimination inside each block: every location is tracked
//! as holding a symbol (the vreg a def wrote, or a name given to an unknown
//! content when a move first reads it); a move whose destination already
//! holds its source's symbol is dropped. Defs, clobbers and `nonalloc`
//! operands overwrite what they touch; nothing is assumed at a block's
//! entry.

use crate::ir::function::Function;
use crate::ir::index::{PReg, ProgPoint};
use crate::ir::output::{Allocation, Move};

const UNKNOWN: u32 = 0;

fn key(a: Allocation) -> Option<usize> {
    match a {
        Allocation::Reg(r) => Some(r.index()),
        Allocation::Stack(s) => Some(PReg::NUM_INDEX + s.index()),
        Allocation::None => None,
    }
}

/// Drops redundant moves from `edits` (sorted, all `before` points);
/// returns how many it dropped.
pub fn eliminate(f: &Function, allocs: &[Allocation], edits: &mut Vec<(ProgPoint, Move)>) -> usize {
    let mut content: Vec<u32> = Vec::new();
    let mut touched: Vec<usize> = Vec::new();
    let mut next_sym = f.num_vregs() as u32 + 1;
    let mut keep = vec![true; edits.len()];
    let mut k = 0;
    let set = |content: &mut Vec<u32>, touched: &mut Vec<usize>, at: usize, sym: u32| {
        if at >= content.len() {
            content.resize(at + 1, UNKNOWN);
        }
        content[at] = sym;
        touched.push(at);
    };
    for b in f.blocks() {
        for &t in &touched {
            content[t] = UNKNOWN;
        }
        touched.clear();
        for i in f.block_insts(b).iter() {
            while k < edits.len() && edits[k].0.inst() == i {
                let mv = edits[k].1;
                if let (Some(from), Some(to)) = (key(mv.from), key(mv.to)) {
                    let mut sym = content.get(from).copied().unwrap_or(UNKNOWN);
                    if sym == UNKNOWN {
                        sym = next_sym;
                        next_sym += 1;
                        set(&mut content, &mut touched, from, sym);
                    }
                    if content.get(to).copied() == Some(sym) {
                        keep[k] = false;
                    } else {
                        set(&mut content, &mut touched, to, sym);
                    }
                }
                k += 1;
            }
            let base = f.inst_operand_range(i).start;
            for (j, op) in f.inst_operands(i).iter().enumerate() {
                if let Some(at) = key(allocs[base + j]) {
                    if op.is_def() {
                        set(&mut content, &mut touched, at, op.vreg().index() as u32 + 1);
                    } else if op.is_nonalloc() {
                        set(&mut content, &mut touched, at, UNKNOWN);
                    }
                }
            }
            for &r in f.inst_clobbers(i) {
                set(&mut content, &mut touched, r.index(), UNKNOWN);
            }
        }
    }
    let before = edits.len();
    let mut n = 0;
    edits.retain(|_| {
        n += 1;
        keep[n - 1]
    });
    before - edits.len()
}
