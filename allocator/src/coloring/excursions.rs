//! Excursions: a split group's hole within one block, a store before it
//! and a reload after, becomes two register moves where some other
//! register of the class is free for the whole stretch: the value waits
//! there instead of in its slot (0.4 instead of 5, times the block's
//! frequency). Passive splitting opened the hole because the group's own
//! register is clobbered or wanted there (a call, say); the calls the
//! generator makes each spare a different few registers, so one is often
//! free around them.
//!
//! It runs on the finished output of a round, before redundant move
//! elimination, and changes nothing else: a stretch qualifies only when
//! nothing between the store and the reload reads or writes the slot, and
//! the register taken is in no operand, move or clobber of the stretch and
//! in no home present there.

use super::facts::Facts;
use super::graph::Graph;
use super::homes::Homes;
use crate::analysis::bitset::dense;
use crate::ir::function::Function;
use crate::ir::index::{Inst, PReg, ProgPoint};
use crate::ir::output::{Allocation, Move, Output};

/// Rewrites the qualifying store and reload pairs of `out` (see the module
/// documentation); returns how many.
pub fn make(f: &Function, g: &Graph, facts: &Facts, homes: &Homes, out: &mut Output) -> usize {
    let mut made = 0;
    // Per instruction of the block being looked at (by offset from its
    // first), the registers of each class something holds or touches.
    let mut busy: Vec<[u64; 3]> = Vec::new();
    let mut busy_block = None;
    let mut live = Vec::new();
    let edits = &mut out.edits;
    // In order, so that each block's rows are made once and hold the
    // registers the stretches already rewritten wait in.
    let stretches = homes.stretches(f);
    // Moves to add, each before the edit of the index given (`len` for
    // the end), and the edits to drop.
    let mut added: Vec<(usize, (ProgPoint, Move))> = Vec::new();
    let mut dropped: Vec<usize> = Vec::new();
    for (home, slot, a, e) in stretches {
        let Allocation::Reg(h) = home else { continue };
        let (p1, p2) = (
            ProgPoint::before(Inst::new(a as usize)),
            ProgPoint::before(Inst::new(e as usize + 1)),
        );
        let lo = edits.partition_point(|x| x.0 < p1);
        let hi = edits.partition_point(|x| x.0 <= p2);
        let store = (lo..hi)
            .find(|&k| edits[k].0 == p1 && edits[k].1.from == home && edits[k].1.to == slot);
        let reload = (lo..hi)
            .rev()
            .find(|&k| edits[k].0 == p2 && edits[k].1.from == slot && edits[k].1.to == home);
        let (Some(k1), Some(k2)) = (store, reload) else {
            continue;
        };
        // Nothing between them may touch the slot.
        let touched = |k: usize| edits[k].1.from == slot || edits[k].1.to == slot;
        if (k1 + 1..k2).any(touched)
            || (a as usize..=e as usize)
                .any(|i| out.allocs[f.inst_operand_range(Inst::new(i))].contains(&slot))
        {
            continue;
        }
        let b = f.block_of(Inst::new(a as usize));
        if busy_block != Some(b) {
            held(f, g, facts, homes, &out.allocs, b, &mut live, &mut busy);
            busy_block = Some(b);
        }
        let c = h.class().index();
        let top = f.block_insts(b).first().index();
        // The registers of class `c` instructions `from..=to` and the
        // edits `ks` touch.
        let taken = |from: u32, to: u32, ks: std::ops::Range<usize>, skip: usize| {
            let mut t = 0u64;
            for row in &busy[from as usize - top..=to as usize - top] {
                t |= row[c];
            }
            for (_, m) in ks.filter(|&k| k != skip).map(|k| edits[k]) {
                for x in [m.from, m.to] {
                    if let Allocation::Reg(r) = x {
                        if r.class().index() == c {
                            t |= 1 << r.hw();
                        }
                    }
                }
            }
            t
        };
        let hold = |busy: &mut Vec<[u64; 3]>, from: u32, to: u32, hw: usize| {
            for row in &mut busy[from as usize - top..=to as usize - top] {
                row[c] |= 1 << hw;
            }
        };
        // The reload's own instruction needs no row: what it reads the
        // moves before it put in place, or homes present a step earlier;
        // what it writes comes after the reload. `h` is in the store.
        let free = g.alloc[c] & !taken(a, e, lo..hi, usize::MAX);
        // Else wait only across the first instruction of the hole, when
        // the group's register is free from there to the reload.
        let back = ProgPoint::before(Inst::new(a as usize + 1));
        let at_back = edits.partition_point(|x| x.0 < back);
        let short = if free == 0 {
            let own = taken(a + 1, e, at_back..hi, k2) >> h.hw() & 1 == 0;
            let near = edits.partition_point(|x| x.0 <= back);
            let free = g.alloc[c] & !taken(a, a, lo..near, usize::MAX);
            if own {
                free
            } else {
                0
            }
        } else {
            0
        };
        let choice = if free != 0 { free } else { short };
        if choice == 0 {
            continue;
        }
        let hw = choice.trailing_zeros() as usize;
        let wait = Allocation::Reg(PReg::new(hw, h.class()));
        edits[k1].1.to = wait;
        if free != 0 {
            hold(&mut busy, a, e, hw);
            edits[k2].1.from = wait;
        } else {
            hold(&mut busy, a, a, hw);
            hold(&mut busy, a + 1, e, h.hw());
            added.push((
                at_back,
                (
                    back,
                    Move {
                        from: wait,
                        to: home,
                    },
                ),
            ));
            dropped.push(k2);
        }
        made += 1;
    }
    // Each short wait adds its move back and drops its reload.
    if !dropped.is_empty() {
        added.sort_by_key(|x| x.0);
        dropped.sort_unstable();
        let old = std::mem::take(edits);
        let mut next = added.iter().peekable();
        for (k, x) in old.into_iter().enumerate() {
            while let Some(&&(_, m)) = next.peek().filter(|a| a.0 == k) {
                edits.push(m);
                next.next();
            }
            if dropped.binary_search(&k).is_err() {
                edits.push(x);
            }
        }
        edits.extend(next.map(|a| a.1));
    }
    made
}

/// Fills `busy` for block `b`: per instruction, the registers the homes
/// present there hold (what is live after it, and its operands), its
/// clobbers and its operands' own locations.
#[allow(clippy::too_many_arguments)]
fn held(
    f: &Function,
    g: &Graph,
    facts: &Facts,
    homes: &Homes,
    allocs: &[Allocation],
    b: crate::ir::index::Block,
    live: &mut Vec<u64>,
    busy: &mut Vec<[u64; 3]>,
) {
    let top = f.block_insts(b).first().index();
    busy.clear();
    busy.resize(f.block_insts(b).len(), [0; 3]);
    facts.walk(f, b, live, |i, live| {
        let row = &mut busy[i.index() - top];
        let mut mark = |a: Allocation| {
            if let Allocation::Reg(r) = a {
                row[r.class().index()] |= 1 << r.hw();
            }
        };
        for v in dense::members(live) {
            mark(homes.at(g.find(v), i));
        }
        for op in f.inst_operands(i).iter().filter(|o| !o.is_nonalloc()) {
            mark(homes.at(g.find(op.vreg().index()), i));
        }
        for &a in &allocs[f.inst_operand_range(i)] {
            mark(a);
        }
        for r in f.inst_clobbers(i) {
            mark(Allocation::Reg(*r));
        }
    });
}
