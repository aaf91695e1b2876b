//! A second look at the block parameters of joins. The scan gives a
//! parameter a register at the top of its block before it has seen most of
//! the edges into it: a loop header's back edges come later. When the
//! value reaches those edges in its slot (the loop evicted it), every one
//! of them refills the register, and each runs as often as the loop does.
//! After a first scan, a parameter whose edges pay more to refill its
//! register than its slot would cost (a store on each edge that brings the
//! value in a register, a reload at each block of the first part that
//! reads it) is made to start in its slot, and the function is scanned
//! again.
//!
//! Weighted as the loop-weighted cost weighs moves: a reload 4, a store 1,
//! times the block's [`Layout::freq`].

use super::homes::Homes;
use super::layout::Layout;
use super::part::{Loc, PartId};
use super::ranges::Ranges;
use super::scan::Scanned;
use crate::analysis::bitset::dense;
use crate::analysis::cfg;
use crate::ir::function::Function;
use crate::ir::index::Block;

const RELOAD: u64 = 4;
const STORE: u64 = 1;

/// The parameters to start in their slot, as a dense row over vregs, or
/// `None` when the first scan left none worth it.
pub fn params_to_slot(
    f: &Function,
    layout: &Layout,
    r: &Ranges,
    scanned: &Scanned,
) -> Option<Vec<u64>> {
    let homes = Homes::new(&scanned.parts, &scanned.first_part);
    let mut row = vec![0u64; dense::words(f.num_vregs()).max(1)];
    let mut any = false;
    // The last block whose edges were counted for each predecessor, so
    // that a predecessor listed once per edge is walked once.
    let mut seen = vec![Block::INVALID; f.num_blocks()];
    for s in f.blocks() {
        if f.block_params(s).is_empty() || cfg::effective_preds(f, s) < 2 {
            continue;
        }
        let start = layout.span[s.index()].0;
        for (k, &p) in f.block_params(s).iter().enumerate() {
            let pv = p.index();
            let q = scanned.first_part[pv];
            if q == PartId::NONE {
                continue;
            }
            let x = scanned.parts[q];
            if x.start != start || !matches!(x.loc, Loc::Reg(_)) {
                continue;
            }
            let (mut refill, mut slot) = (0u64, 0u64);
            for &pred in f.block_preds(s) {
                if seen[pred.index()] == s {
                    continue;
                }
                seen[pred.index()] = s;
                let last = f.block_insts(pred).last();
                let end = layout.pos[last.index()] + 1;
                let freq = layout.freq[pred.index()] as u64;
                for (t, &succ) in f.block_succs(pred).iter().enumerate() {
                    if succ != s {
                        continue;
                    }
                    let a = f.branch_args(pred, t)[k].index();
                    if r.def_inst[a] == last {
                        slot += STORE * freq;
                        continue;
                    }
                    match homes.at(a, end) {
                        Loc::Stack => refill += RELOAD * freq,
                        _ if a != pv => slot += STORE * freq,
                        _ => {}
                    }
                }
            }
            let mut last_block = Block::INVALID;
            for &u in r.operand_uses(pv) {
                if u >= x.end {
                    break;
                }
                let b = f.block_of(layout.inst(u));
                if b != last_block {
                    last_block = b;
                    slot += RELOAD * layout.freq[b.index()] as u64;
                }
            }
            // The seen marks are per block: reset them for the next
            // parameter of the same block.
            for &pred in f.block_preds(s) {
                seen[pred.index()] = Block::INVALID;
            }
            if slot < refill {
                dense::insert(&mut row, pv);
                any = true;
            }
        }
    }
    any.then_some(row)
}
