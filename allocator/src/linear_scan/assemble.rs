//! From the scan's parts and operand locations to an [`Output`]: spill
//! slots numbered densely, then every move the allocation implies, grouped
//! into parallel sets per program point and phase and sequenced by the
//! shared move resolver.
//!
//! Moves at `before(i)` run in phases: edge moves into a block with one
//! predecessor (they fill the block's parameters and live-ins); then, as
//! one parallel set, moves between the parts of split values and the moves
//! taking the previous instruction's defs from their operand locations to
//! their homes (a def's home may be the register a split value is just
//! leaving); then copies of values into the registers `i`'s operands were
//! given; then edge moves out of a block with one successor (they must come
//! last: they fill the successor's slots). A value's spill slot is written
//! once, right after its definition (on each incoming edge for a block
//! parameter, on each outgoing edge for a branch's def), or by the def
//! itself when nothing reads the value from the def's register (see
//! [`sink_defs_into_slots`]).

use super::homes::Homes;
use super::layout::{Layout, Pos};
use super::part::Loc;
use super::ranges::Ranges;
use super::scan::Scanned;
use crate::analysis::bitset::dense;
use crate::analysis::block_sets::members;
use crate::analysis::cfg;
use crate::ir::function::Function;
use crate::ir::index::{Inst, PRegSet, ProgPoint, SpillSlot};
use crate::ir::machine::MachineEnv;
use crate::ir::operand::OperandConstraint;
use crate::ir::output::{Allocation, Output};
use crate::move_sets::resolve_grouped;
use crate::moves::{MoveContext, ParallelMove};

const EDGE_IN: u8 = 0;
const SPLIT: u8 = 1;
const FIXUP: u8 = 2;
const EDGE_OUT: u8 = 3;

pub fn assemble(
    f: &Function,
    env: &MachineEnv,
    layout: &Layout,
    r: &Ranges,
    mut scan: Scanned,
) -> Output {
    let nv = f.num_vregs();
    let (slot, num_slots) = super::slots::assign(f, layout, r, &mut scan.groups, &scan.spilled);
    let stack = |v: usize| Allocation::Stack(SpillSlot(slot[v]));
    let mut homes = Homes::new(&scan.parts, &scan.first_part);
    let mut allocs: Vec<Allocation> = scan
        .allocs
        .iter()
        .map(|&a| match a {
            Allocation::Stack(s) if s.index() < nv => stack(s.index()),
            // A temporary: after the slots and the resolver's two.
            Allocation::Stack(s) => {
                Allocation::Stack(SpillSlot::new(num_slots as usize + 2 + s.index() - nv))
            }
            a => a,
        })
        .collect();
    sink_defs_into_slots(f, layout, r, &mut homes, &mut allocs, &slot);
    free_sunk_registers(r, &mut scan, &homes);
    define_in_home(f, layout, &scan.busy, &homes, &mut allocs);
    let to_alloc = |v: usize, loc: Loc| match loc {
        Loc::Reg(r) => Allocation::Reg(r),
        Loc::Stack => stack(v),
        Loc::Unassigned => unreachable!("v{v} has an unassigned part"),
    };
    let loc_at = |v: usize, pos: Pos| to_alloc(v, homes.at(v, pos));

    let mut moves: Vec<(ProgPoint, u8, ParallelMove)> = Vec::new();
    let mv = |from: Allocation, to: Allocation, v: usize| ParallelMove {
        from,
        to,
        class: r.class[v],
    };
    // In linear order, so that each value's home lookups walk forward.
    for &i in &layout.inst_at {
        let p = layout.pos[i.index()];
        let ops = f.inst_operands(i);
        let base = f.inst_operand_range(i).start;
        for (k, op) in ops.iter().enumerate() {
            let v = op.vreg().index();
            let a = allocs[base + k];
            if op.is_use() {
                if scan.spilled[v] && a == stack(v) {
                    continue;
                }
                let mut src = loc_at(v, p);
                // Read in place from a register: no move, whatever came before.
                if src == a && matches!(src, Allocation::Reg(_)) {
                    continue;
                }
                // Where the value was just before this instruction, when that
                // is in the same block: its previous part, or the operand of
                // the instruction just before that defined it.
                let prev = if p == Pos::early(0) || layout.is_block_start(p) {
                    None
                } else if r.covers(v, p - 1) {
                    Some(loc_at(v, p - 1))
                } else {
                    let d = r.def_inst[v];
                    (d.is_valid() && layout.pos[d.index()] + 2 == p)
                        .then(|| {
                            f.inst_operands(d)
                                .iter()
                                .zip(&allocs[f.inst_operand_range(d)])
                                .find(|(o, _)| o.is_def() && o.vreg() == op.vreg())
                                .map(|(_, &b)| b)
                        })
                        .flatten()
                };
                // Split moves copy: a value that left a register here still
                // holds it, unless another value's part moved in.
                let stays = prev == Some(a);
                if let (Allocation::Stack(_), Some(Allocation::Reg(reg))) = (src, prev) {
                    let n = p.slot();
                    if scan.held[n][reg.class().index()] & (1 << reg.hw()) == 0 {
                        src = Allocation::Reg(reg);
                    }
                }
                // Reads of one value sharing a register need one copy.
                let shared = ops[..k]
                    .iter()
                    .zip(&allocs[base..base + k])
                    .any(|(o, &b)| o.is_use() && o.vreg() == op.vreg() && b == a);
                if src != a && !stays && !shared {
                    moves.push((ProgPoint::before(i), FIXUP, mv(src, a, v)));
                }
            } else if op.is_def() && !f.opcode(i).is_terminator() {
                let next = ProgPoint::before(Inst::new(i.index() + 1));
                if r.covers(v, p + 2) {
                    let dst = loc_at(v, p + 2);
                    if matches!(dst, Allocation::Reg(_)) && dst != a {
                        moves.push((next, SPLIT, mv(a, dst, v)));
                    }
                }
                if scan.spilled[v] && a != stack(v) {
                    moves.push((next, SPLIT, mv(a, stack(v), v)));
                }
            }
        }
    }
    for v in 0..nv {
        for w in homes.of(v).windows(2) {
            let q = w[1].0;
            if layout.is_block_start(q) || !matches!(w[1].2, Loc::Reg(_)) || w[0].2 == w[1].2 {
                continue;
            }
            debug_assert!(r.covers(v, q - 1), "v{v} split at {q} after a hole");
            let point = ProgPoint::before(layout.inst(q));
            moves.push((
                point,
                SPLIT,
                mv(to_alloc(v, w[0].2), to_alloc(v, w[1].2), v),
            ));
        }
    }
    // The values an edge may move: those with homes in several locations,
    // and those a branch defines (stored on its edges). Any other value is
    // where it was.
    let mut may_move = vec![0u64; dense::words(nv)];
    for v in 0..nv {
        let d = r.def_inst[v];
        let h = homes.of(v);
        if h.iter().any(|x| x.2 != h[0].2) || d.is_valid() && f.opcode(d).is_terminator() {
            dense::insert(&mut may_move, v);
        }
    }
    // Per block, the values an edge falling through into it (from the block
    // just before it in linear order) may move, in increasing order: those
    // entering a home in another location where the block starts, and those
    // the branch before it defines. Any other value lives on in the home it
    // had one position earlier.
    let mut entering_of = vec![0u32; f.num_blocks() + 1];
    let mut entering = Vec::new();
    let block_at = |q: Pos| f.block_of(layout.inst(q)).index();
    for pass in 0..2 {
        for v in 0..nv {
            let d = r.def_inst[v];
            let branch_def = d.is_valid() && f.opcode(d).is_terminator();
            let h = homes.of(v);
            let from_def = h
                .first()
                .filter(|_| branch_def)
                .map(|x| x.0)
                .filter(|&q| layout.is_block_start(q));
            let boundaries = h
                .windows(2)
                .filter(|w| w[1].2 != w[0].2 && layout.is_block_start(w[1].0))
                .map(|w| w[1].0);
            for q in from_def.into_iter().chain(boundaries) {
                let b = block_at(q);
                if pass == 0 {
                    entering_of[b + 1] += 1;
                } else {
                    entering[entering_of[b] as usize] = v as u32;
                    entering_of[b] += 1;
                }
            }
        }
        if pass == 0 {
            for b in 0..f.num_blocks() {
                entering_of[b + 1] += entering_of[b];
            }
            entering.resize(entering_of[f.num_blocks()] as usize, 0);
        } else {
            // Back to where each block's list starts.
            for b in (0..f.num_blocks()).rev() {
                entering_of[b + 1] = entering_of[b];
            }
            entering_of[0] = 0;
        }
    }
    let mut candidates: Vec<usize> = Vec::new();
    for &b in &layout.order {
        let k = f.block_insts(b).last();
        let end = layout.pos[k.index()] + 1;
        let kbase = f.inst_operand_range(k).start;
        let at_end = |v: usize| -> Allocation {
            if r.def_inst[v] == k {
                let d = f
                    .inst_operands(k)
                    .iter()
                    .position(|o| o.is_def() && o.vreg().index() == v);
                allocs[kbase + d.unwrap()]
            } else {
                loc_at(v, end)
            }
        };
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            let (point, phase) = if cfg::effective_preds(f, s) == 1 {
                (ProgPoint::before(f.block_insts(s).first()), EDGE_IN)
            } else {
                (ProgPoint::before(k), EDGE_OUT)
            };
            let start = layout.span[s.index()].0;
            candidates.clear();
            if start == end + 1 {
                let list =
                    &entering[entering_of[s.index()] as usize..entering_of[s.index() + 1] as usize];
                candidates.extend(
                    list.iter()
                        .map(|&v| v as usize)
                        .filter(|&v| r.covers(v, start)),
                );
            } else {
                candidates.extend(members(r.live_in.of(s.index()), Some(&may_move)));
            }
            for &v in &candidates {
                let src = at_end(v);
                let dst = loc_at(v, start);
                if matches!(dst, Allocation::Reg(_)) && dst != src {
                    moves.push((point, phase, mv(src, dst, v)));
                }
                if r.def_inst[v] == k && scan.spilled[v] && src != stack(v) {
                    moves.push((point, phase, mv(src, stack(v), v)));
                }
            }
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                let (a, p) = (a.index(), p.index());
                if !r.covers(p, start) {
                    continue;
                }
                let src = at_end(a);
                let dst = loc_at(p, start);
                if matches!(dst, Allocation::Reg(_)) && dst != src {
                    moves.push((point, phase, mv(src, dst, p)));
                }
                // A spilled argument's slot holds it from its definition
                // on: when that slot is the parameter's, it is written. Not
                // one the branch defines: its slot is written only on the
                // edges into blocks it is live in.
                let written = r.def_inst[a] != k && scan.spilled[a] && slot[a] == slot[p];
                if scan.spilled[p] && src != stack(p) && !written {
                    moves.push((point, phase, mv(src, stack(p), p)));
                }
            }
        }
    }

    // Every point is the "before" point of some instruction.
    debug_assert!(moves.iter().all(|m| m.0 == ProgPoint::before(m.0.inst())));
    let alloc_mask = env.allocatable_set().class_masks();
    // Registers free around the moves before the instruction at linear
    // slot `n`: held neither at it nor at the one before.
    let free_before = |n: usize| {
        PRegSet::from_class_masks([0, 1, 2].map(|c| {
            let busy = scan.busy[n][c] | n.checked_sub(1).map_or(0, |m| scan.busy[m][c]);
            alloc_mask[c] & !busy
        }))
    };
    let ctx = MoveContext {
        env,
        free: PRegSet::empty(),
        extra_slots: [SpillSlot(num_slots), SpillSlot(num_slots + 1)],
    };
    let edits = resolve_grouped(
        ctx,
        f.num_insts(),
        4,
        &moves,
        |m| (m.0.inst(), m.1 as usize),
        |i, group, set| {
            set.extend(group.iter().map(|m| m.2));
            free_before(layout.pos[i.index()].slot())
        },
    );
    let used = |a: Allocation| a.as_stack().map_or(0, |s| s.index() + 1);
    let num_spillslots = allocs
        .iter()
        .map(|&a| used(a))
        .chain(edits.iter().flat_map(|(_, m)| [used(m.from), used(m.to)]))
        .max()
        .unwrap_or(0);
    Output {
        allocs,
        edits,
        num_spillslots,
    }
}

/// Drops register work that nothing reads, for spilled values (whose slot
/// holds them from their definition on):
/// - the part right after a def is moved to the slot when it is in a register
///   no use of the value reads (up to and including where the part ends,
///   where a use may still read the register the value is leaving, unless a
///   block starts there), not followed by a part in the same register, and
///   not carried by an edge, as a live value or as an argument, into another
///   part in that register, nor copied from it to another stack location (a
///   use's temporary, a spilled parameter's slot): every move out of it then
///   reads the slot instead, one for one (never memory to memory), and the
///   move from the def into it is gone;
/// - an `any` def that got a register writes the slot instead when that
///   part is (now) in the slot and no use right after the def reads the def's
///   register: its store is gone;
/// - an `any` use does not count as reading either register: when the part
///   or the def moves to the slot, it reads the slot.
///
/// Without this, `def:v0:any` read only by `use:v0:stack` costs a store
/// that defining into the slot saves.
fn sink_defs_into_slots(
    f: &Function,
    layout: &Layout,
    r: &Ranges,
    homes: &mut Homes,
    allocs: &mut [Allocation],
    slot: &[u32],
) {
    const NO: u32 = u32::MAX;
    let spilled = |v: usize| slot[v] != NO;
    let stack = |v: usize| Allocation::Stack(SpillSlot(slot[v]));
    let nv = f.num_vregs();
    // Per vreg: the index of its def's allocation, for the values considered.
    let mut def_op = vec![NO; nv];
    let mut def_any = vec![false; nv];
    let mut any = false;
    for v in 0..nv {
        let d = r.def_inst[v];
        if !spilled(v) || !d.is_valid() || f.opcode(d).is_terminator() {
            continue;
        }
        if homes
            .of(v)
            .first()
            .is_none_or(|h| h.0 != layout.pos[d.index()] + 2)
        {
            continue;
        }
        let base = f.inst_operand_range(d).start;
        let ops = f.inst_operands(d);
        if let Some(k) = ops.iter().position(|o| o.is_def() && o.vreg().index() == v) {
            def_op[v] = (base + k) as u32;
            def_any[v] = ops[k].constraint() == OperandConstraint::Any;
            any = true;
        }
    }
    if !any {
        return;
    }
    let first = |v: usize| homes.of(v)[0];
    let as_alloc = |loc: Loc| match loc {
        Loc::Reg(reg) => Allocation::Reg(reg),
        _ => Allocation::None,
    };
    // What reads the first part's register, and the def's. An `any` read
    // of either can read the slot instead (`any_reads`), so it counts for
    // neither.
    let mut part_read = vec![false; nv];
    let mut def_read = vec![false; nv];
    let mut any_reads: Vec<(u32, u32)> = Vec::new();
    for v in (0..nv).filter(|&v| def_op[v] != NO) {
        let h = homes.of(v);
        part_read[v] = !matches!(h[0].2, Loc::Reg(_)) || h.len() > 1 && h[1].2 == h[0].2;
    }
    for i in f.insts() {
        let p = layout.pos[i.index()];
        let base = f.inst_operand_range(i).start;
        for (k, op) in f.inst_operands(i).iter().enumerate() {
            let v = op.vreg().index();
            if !op.is_use() || def_op[v] == NO {
                continue;
            }
            let (s, e, loc) = first(v);
            let a = allocs[base + k];
            // Read in place, or copied to another stack location (which
            // from the slot would be a memory-to-memory move).
            let from_part =
                a == as_alloc(loc) || matches!(a, Allocation::Stack(_)) && a != stack(v);
            let in_part = s <= p && (p < e || p == e && !layout.is_block_start(p));
            let from_def = p == s && a == allocs[def_op[v] as usize];
            if op.constraint() == OperandConstraint::Any
                && matches!(a, Allocation::Reg(_))
                && (in_part && from_part || from_def)
            {
                any_reads.push((v as u32, (base + k) as u32));
                continue;
            }
            if in_part && from_part {
                part_read[v] = true;
            }
            if from_def {
                def_read[v] = true;
            }
        }
    }
    // An edge from the first part into another part in the same register,
    // or into the slot of a spilled parameter, unless that is `v`'s own.
    let into_same_reg = |v: usize, end: Pos, w: usize, start: Pos| {
        let (s, e, loc) = first(v);
        s <= end
            && end < e
            && (w != v && spilled(w) && slot[w] != slot[v]
                || !(w == v && start >= s && start < e) && homes.at(w, start) == loc)
    };
    // A live value: only edges leaving the first part matter, so each
    // value not yet known to be read looks at the blocks (in linear order)
    // that end inside it.
    let mut linear = vec![0u32; f.num_blocks()];
    for (k, &b) in layout.order.iter().enumerate() {
        linear[b.index()] = k as u32;
    }
    for v in 0..nv {
        if def_op[v] == NO || part_read[v] {
            continue;
        }
        let (s, e, _) = first(v);
        let from = linear[f.block_of(layout.inst(s)).index()] as usize;
        'blocks: for &b in &layout.order[from..] {
            let (bs, be) = layout.span[b.index()];
            if bs >= e {
                break;
            }
            for &succ in f.block_succs(b) {
                let start = layout.span[succ.index()].0;
                if r.covers(v, start) && into_same_reg(v, be - 1, v, start) {
                    part_read[v] = true;
                    break 'blocks;
                }
            }
        }
    }
    for &b in &layout.order {
        let end = layout.pos[f.block_insts(b).last().index()] + 1;
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            let start = layout.span[s.index()].0;
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                let (a, p) = (a.index(), p.index());
                if def_op[a] != NO && r.covers(p, start) && into_same_reg(a, end, p, start) {
                    part_read[a] = true;
                }
            }
        }
    }
    // Per vreg: whether its `any` reads go to the slot.
    let mut to_slot = vec![false; nv];
    for v in (0..nv).filter(|&v| def_op[v] != NO) {
        let d = def_op[v] as usize;
        let home = &mut homes.of_mut(v)[0];
        let in_reg = matches!(home.2, Loc::Reg(_));
        let sink = def_any[v]
            && matches!(allocs[d], Allocation::Reg(_))
            && !def_read[v]
            && (!in_reg || !part_read[v]);
        let to_stack = in_reg && !part_read[v] && (sink || allocs[d] != as_alloc(home.2));
        if to_stack {
            home.2 = Loc::Stack;
        }
        if sink {
            allocs[d] = stack(v);
        }
        to_slot[v] = to_stack || sink;
    }
    for &(v, k) in &any_reads {
        if to_slot[v as usize] {
            allocs[k as usize] = stack(v as usize);
        }
    }
}

/// Gives back, in `busy`, the register of every first part that
/// [`sink_defs_into_slots`] moved to the slot, at each instruction where the
/// part is live at the early point and the instruction's operands did not
/// take the register: the part was the register's only holder there (no
/// other part can be active in it at the same time, and one starting at
/// the late point would start after the part ends). Where the value is
/// live at both points, no operand took it either, or the part would have
/// been split there. The move resolver and [`define_in_home`] may then use
/// it.
fn free_sunk_registers(r: &Ranges, scan: &mut Scanned, homes: &Homes) {
    for v in 0..scan.first_part.len() {
        let Some(&(start, end, Loc::Stack)) = homes.of(v).first() else {
            continue;
        };
        let Loc::Reg(reg) = scan.parts[scan.first_part[v]].loc else {
            continue;
        };
        let (c, bit) = (reg.class().index(), 1u64 << reg.hw());
        // The early points in `[start, end)` where `v` is live.
        for &(a, b) in r.of(v) {
            if a >= end {
                break;
            }
            let (lo, hi) = (a.max(start), b.min(end));
            for n in lo.first_slot_from()..hi.first_slot_from() {
                if scan.taken[n][c] & bit == 0 {
                    scan.busy[n][c] &= !bit;
                }
            }
        }
    }
}

/// Defines a value straight in the register its first piece got, when its
/// def (`any`, `reg`, or a `limit` the register fits) was given another one
/// and the piece's register is free at the instruction: neither held by a
/// value nor taken by an operand (`busy`) nor clobbered. The move from the
/// def's register into the piece is gone; a use right after the def that
/// reads the def's register keeps it as it is.
fn define_in_home(
    f: &Function,
    layout: &Layout,
    busy: &[[u64; 3]],
    homes: &Homes,
    allocs: &mut [Allocation],
) {
    for i in f.insts() {
        if f.opcode(i).is_terminator() {
            continue;
        }
        let p = layout.pos[i.index()];
        let base = f.inst_operand_range(i).start;
        for (k, op) in f.inst_operands(i).iter().enumerate() {
            if !op.is_def() {
                continue;
            }
            let v = op.vreg().index();
            let (Some(&(start, _, Loc::Reg(home))), Allocation::Reg(reg)) =
                (homes.of(v).first(), allocs[base + k])
            else {
                continue;
            };
            let fits = match op.constraint() {
                OperandConstraint::Any | OperandConstraint::Reg => true,
                OperandConstraint::Limit(n) => home.hw() < n as usize,
                _ => false,
            };
            let c = home.class().index();
            if start != p + 2 || home == reg || !fits || busy[p.slot()][c] & 1 << home.hw() != 0 {
                continue;
            }
            if f.inst_clobbers(i).contains(&home) {
                continue;
            }
            let next = Inst::new(i.index() + 1);
            let nbase = f.inst_operand_range(next).start;
            let read = f
                .inst_operands(next)
                .iter()
                .zip(&allocs[nbase..])
                .any(|(o, &a)| o.is_use() && o.vreg() == op.vreg() && a == Allocation::Reg(reg));
            if !read {
                allocs[base + k] = Allocation::Reg(home);
            }
        }
    }
}
