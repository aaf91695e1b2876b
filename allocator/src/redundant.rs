//! Redundant move elimination inside each block: every location is tracked
//! as holding a symbol (the vreg a def wrote, or a name given to an unknown
//! content when a move first reads it); a move whose destination already
//! holds its source's symbol is dropped, and a reload whose symbol a
//! register still holds reads that register instead (a register move costs
//! a twentieth of a reload). Defs, clobbers and `nonalloc` operands
//! overwrite what they touch. A block entered from one predecessor only,
//! laid out before it, starts from what that predecessor ends with (the
//! predecessor dominates it, so the straight path that state was built on
//! defines each value once, and the edge's parameter substitution, which
//! adds each parameter wherever its argument is, keeps locations holding one
//! symbol alike); any other block starts knowing nothing. Edits
//! before an instruction are seen before its defs and clobbers, edits after
//! it after them. Shared by the allocators that leave such moves behind
//! (`backtracking`, `coloring`).

use crate::ir::function::Function;
use crate::ir::index::{Block, InstPosition, PReg, ProgPoint};
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
    // What each block some later block inherits from ended with:
    // `(location, symbol)` in `ends[end_at[b]..end_at[b + 1]]`.
    let inherits = |b: Block| match f.block_preds(b) {
        &[p] if p < b => Some(p),
        _ => None,
    };
    let mut end_at = vec![0u32; f.num_blocks() + 1];
    let mut ends: Vec<(u32, u32)> = Vec::new();
    for b in f.blocks() {
        for &t in &touched {
            content[t] = UNKNOWN;
        }
        touched.clear();
        if let Some(p) = inherits(b) {
            let (from, to) = (end_at[p.index()], end_at[p.index() + 1]);
            for e in from..to {
                let (at, sym) = ends[e as usize];
                set(&mut content, &mut touched, &mut holder, at as usize, sym);
            }
        }
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
        if f.block_succs(b).iter().any(|&s| inherits(s) == Some(b)) {
            // Each location once, in the order first touched (the order
            // they are replayed in decides which register is a symbol's
            // holder), with what it holds now: cleared as it is noted, so
            // that a later mention of it is passed over, then put back.
            for &t in &touched {
                if content[t] != UNKNOWN {
                    ends.push((t as u32, content[t]));
                    content[t] = UNKNOWN;
                }
            }
            let start = end_at[b.index()] as usize;
            for &(at, sym) in &ends[start..] {
                content[at as usize] = sym;
            }
        }
        end_at[b.index() + 1] = ends.len() as u32;
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

#[cfg(test)]
mod tests {
    use crate::fixtures::{allocation_lines, unit_case};

    /// The allocation section of the unit case `name` (one with an
    /// `allocation`) after elimination, one trimmed line each.
    fn eliminated(name: &str) -> String {
        let case = unit_case(name);
        let mut out = case.output.unwrap();
        super::eliminate(&case.func, &out.allocs, &mut out.edits);
        allocation_lines(&case.func, &out)
    }

    #[test]
    fn a_block_with_one_predecessor_knows_what_it_ends_with() {
        // v0i is reloaded into p0i in block0; block1, entered from block0
        // alone, reloads it into p1i: a register move. block3 is a join
        // and knows nothing: its reload stays.
        let got = eliminated("redundant/a_block_with_one_predecessor_knows_what_it_ends_with");
        assert!(got.contains("edit before inst3: p0i -> p1i\n"), "{got}");
        assert!(got.contains("edit before inst6: stack0 -> p1i\n"), "{got}");
    }

    #[test]
    fn what_a_predecessor_overwrote_is_not_inherited() {
        // block0 overwrites p0i (inst2 clobbers it) after the reload:
        // block1's reload into p0i stays a reload, and its move of the
        // slot into p0i is not taken as already done.
        let got = eliminated("redundant/what_a_predecessor_overwrote_is_not_inherited");
        assert!(got.contains("edit before inst4: stack0 -> p0i\n"), "{got}");
    }
}
