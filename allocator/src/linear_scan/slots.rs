//! Spill slots: one per spilled value, except that the spilled members of
//! a group of block parameters and their arguments share a slot wherever
//! their lives do not meet. An edge from an argument in its slot to a
//! parameter in the same slot then needs no move: without sharing it is a
//! copy through a register, or the parameter takes a register and the edge
//! reloads it.
//!
//! A slot is written where its value is defined and, for a parameter, by the
//! edge moves into its block, which may run at the end of a predecessor.
//! Two members may share a slot when their live ranges are disjoint and no
//! write for one falls where the other is live: not its definition's
//! instruction (a def operand may be the slot itself), nor such an edge
//! write (unless the other is the very argument the edge passes: it writes
//! that value).

use super::groups::HintGroups;
use super::layout::{Layout, Pos};
use super::ranges::Ranges;
use crate::counting_sort::counting_sorted;
use crate::ir::function::Function;

/// At most this many spilled members of one group are offered a shared
/// slot (each is checked against the members of each open slot).
const MAX_SHARED: usize = 64;

/// The slot of every spilled vreg (`u32::MAX` for the others) and how many
/// slots there are.
pub fn assign(
    f: &Function,
    layout: &Layout,
    r: &Ranges,
    groups: &mut HintGroups,
    spilled: &[bool],
) -> (Vec<u32>, u32) {
    let nv = f.num_vregs();
    let mut slot = vec![u32::MAX; nv];
    let root: Vec<u32> = (0..nv).map(|v| groups.find(v)).collect();
    let (start, members) = counting_sorted(
        nv,
        nv,
        |v| spilled[v].then_some(root[v] as usize),
        |v| v as u32,
    );
    let mut count = 0u32;
    let mut open: Vec<(u32, Vec<u32>)> = Vec::new();
    for w in start.windows(2) {
        let group = &members[w[0] as usize..w[1] as usize];
        open.clear();
        for (k, &v) in group.iter().enumerate() {
            let shared = if k < MAX_SHARED {
                open.iter_mut().find(|(_, held)| {
                    held.iter()
                        .all(|&u| apart(f, layout, r, v as usize, u as usize))
                })
            } else {
                None
            };
            match shared {
                Some((s, held)) => {
                    slot[v as usize] = *s;
                    held.push(v);
                }
                None => {
                    slot[v as usize] = count;
                    if k < MAX_SHARED {
                        open.push((count, vec![v]));
                    }
                    count += 1;
                }
            }
        }
    }
    (slot, count)
}

/// Whether `v` and `u` may share a slot (see the module documentation).
fn apart(f: &Function, layout: &Layout, r: &Ranges, v: usize, u: usize) -> bool {
    !overlap(r.of(v), r.of(u))
        && !def_write_meets(layout, r, v, u)
        && !def_write_meets(layout, r, u, v)
        && !edge_write_meets(f, layout, r, v, u)
        && !edge_write_meets(f, layout, r, u, v)
}

/// Whether `v`'s definition may write the slot where `u` is live: a def
/// operand in the slot is written at its instruction, before the value's
/// range begins after it.
fn def_write_meets(layout: &Layout, r: &Ranges, v: usize, u: usize) -> bool {
    let d = r.def_inst[v];
    d.is_valid() && {
        let at = layout.pos[d.index()];
        r.first_live(u, at, at + 2).is_some()
    }
}

/// Whether two sorted lists of disjoint ranges overlap.
fn overlap(a: &[(Pos, Pos)], b: &[(Pos, Pos)]) -> bool {
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i].1 <= b[j].0 {
            i += 1;
        } else if b[j].1 <= a[i].0 {
            j += 1;
        } else {
            return true;
        }
    }
    false
}

/// Whether an edge move into parameter `p` may write the slot where `u`
/// is live: at the end of a predecessor, over its branch, with `u` not the
/// argument that edge passes.
fn edge_write_meets(f: &Function, layout: &Layout, r: &Ranges, p: usize, u: usize) -> bool {
    let (b, i) = r.params[p];
    if !b.is_valid() {
        return false;
    }
    f.block_preds(b).iter().any(|&pred| {
        let last = f.block_insts(pred).last();
        let (from, until) = (layout.pos[last.index()], layout.span[pred.index()].1);
        f.block_succs(pred).iter().enumerate().any(|(k, &s)| {
            s == b
                && f.branch_args(pred, k)[i as usize].index() != u
                && r.first_live(u, from, until).is_some()
        })
    })
}
