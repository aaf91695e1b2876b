//! From homes to the output: every operand's allocation, then the moves,
//! each in its priority class at its boundary, resolved one parallel set at
//! a time by the shared resolver.
//!
//! Moves come from four places:
//! - between consecutive pieces of a value inside a block;
//! - along CFG edges: each piece that starts a block, of a value live into
//!   it or of one of its parameters, takes one move per incoming edge from
//!   the location of the value (or of the argument the edge passes) at the
//!   end of the edge's source block, looked up in that value's pieces;
//! - copy values and reused inputs (these and the previous, one parallel
//!   set per boundary, `Before`);
//! - the operands of branches whose edge moves run before them
//!   ([`super::edge_branch`]).

use super::bundles::Home;
use super::edge_branch::EdgeBranches;
use super::kept::reuse;
use super::liveranges::Ranges;
use super::operands::{Rewrites, GHOST};
use super::points::{e, inst_of, is_e, l, m, MovePrio, PendingMove, Point, NO_VALUE};
use super::process::Allocated;
use super::slots::Slots;
use crate::analysis::block_sets::BlockSets;
use crate::counting_sort::counting_sort;
use crate::ir::function::Function;
use crate::ir::index::{Block, Inst, PRegSet, ProgPoint, SpillSlot};
use crate::ir::machine::MachineEnv;
use crate::ir::operand::OperandConstraint;
use crate::ir::output::{Allocation, Move};
use crate::move_sets::resolve_grouped;
use crate::moves::{MoveContext, ParallelMove};

/// Every value's pieces with their locations, sorted per value.
#[derive(Default)]
pub struct Pieces {
    start: Vec<u32>,
    pieces: Vec<(Point, Point, Allocation)>,
}

impl Pieces {
    pub fn of(&self, v: u32) -> &[(Point, Point, Allocation)] {
        &self.pieces[self.start[v as usize] as usize..self.start[v as usize + 1] as usize]
    }

    /// Where value `v` is at `p` (`none` if it is not live there).
    pub fn at(&self, v: u32, p: Point) -> Allocation {
        let ps = self.of(v);
        let k = ps.partition_point(|x| x.1 <= p);
        match ps.get(k) {
            Some(&(from, _, a)) if from <= p => a,
            _ => Allocation::None,
        }
    }

    /// As [`Pieces::at`], trying first the piece before `v`'s piece `j`:
    /// where a value lives into a block from the block laid out before it,
    /// that piece holds it at the predecessor's end.
    pub fn at_after(&self, v: u32, j: usize, p: Point) -> Allocation {
        match j.checked_sub(1).map(|k| self.of(v)[k]) {
            Some((from, to, a)) if from <= p && p < to => a,
            _ => self.at(v, p),
        }
    }
}

/// [`assemble`]'s storage kept from one allocation to the next (see
/// [`super::Ctx`]); an assembly refills it whatever it holds.
#[derive(Default)]
pub struct Spare {
    locs: Vec<Allocation>,
    pieces: Pieces,
    moves: Vec<PendingMove>,
    edge_of: Vec<(Block, usize)>,
    in_start: Vec<u32>,
    in_edges: Vec<u32>,
    own: Vec<Allocation>,
    stores: Vec<u64>,
    early: Vec<bool>,
    added: Vec<PendingMove>,
}

/// The location of each range, into `locs`.
fn range_locs(a: &Allocated, slots: &Slots, locs: &mut Vec<Allocation>) {
    locs.clear();
    locs.extend(a.range_bundle.iter().enumerate().map(
        |(x, &b)| match a.bundles[b as usize].home {
            Home::Reg(reg) => Allocation::Reg(reg),
            Home::Spilled => {
                let ss = a.bundles[b as usize].spillset;
                Allocation::Stack(SpillSlot(slots.of_spillset[ss as usize]))
            }
            Home::None => unreachable!("range {x} has no home"),
        },
    ));
}

/// Every value's pieces, sorted, in the storage of `spare`.
fn pieces(r: &Ranges, a: &Allocated, locs: &[Allocation], spare: Pieces) -> Pieces {
    let Pieces {
        mut start,
        mut pieces,
    } = spare;
    counting_sort(
        r.values.class.len(),
        a.ranges.len(),
        |x| Some(a.ranges[x].value as usize),
        |x| (a.ranges[x].from, a.ranges[x].to, locs[x]),
        &mut start,
        &mut pieces,
    );
    for v in 0..r.values.class.len() {
        pieces[start[v] as usize..start[v + 1] as usize].sort_unstable_by_key(|p| p.0);
    }
    Pieces { start, pieces }
}

/// Operand allocations, moves and the slot count.
pub struct Assembled {
    pub allocs: Vec<Allocation>,
    pub edits: Vec<(ProgPoint, Move)>,
    pub num_spillslots: usize,
}

#[allow(clippy::too_many_arguments)]
pub fn assemble(
    f: &Function,
    env: &MachineEnv,
    r: &Ranges,
    a: &Allocated,
    slots: &Slots,
    rw: &Rewrites,
    edges: &EdgeBranches,
    live_in: &BlockSets,
    depth: &[u32],
    spare: &mut Spare,
) -> Assembled {
    let mut locs = reuse(&mut spare.locs);
    range_locs(a, slots, &mut locs);
    let pieces = pieces(r, a, &locs, std::mem::take(&mut spare.pieces));
    let mut allocs = vec![Allocation::None; f.num_operands()];
    for (lr, &loc) in a.ranges.iter().zip(&locs) {
        for u in &r.uses[lr.uses.0 as usize..lr.uses.1 as usize] {
            if u.slot != GHOST {
                allocs[u.slot as usize] = loc;
            }
        }
    }
    for i in f.insts() {
        let base = f.inst_operand_range(i).start;
        for (k, op) in f.inst_operands(i).iter().enumerate() {
            if let OperandConstraint::NonAlloc(reg) = op.constraint() {
                allocs[base + k] = Allocation::Reg(reg);
            }
        }
    }
    for &(x, to) in &rw.aliases {
        allocs[x as usize] = allocs[to as usize];
    }
    let mut moves = reuse(&mut spare.moves);
    for ru in &rw.reuses {
        allocs[ru.input_slot as usize] = allocs[ru.def_slot as usize];
        let from = pieces.at(ru.input, m(ru.inst));
        moves.push((
            ru.inst,
            MovePrio::Before,
            from,
            allocs[ru.def_slot as usize],
            r.values.class[ru.input as usize],
            NO_VALUE,
        ));
    }
    for &(i, v, c) in &rw.copies {
        moves.push((
            i,
            MovePrio::Before,
            pieces.at(v, m(i)),
            pieces.at(c, e(i)),
            r.values.class[v as usize],
            NO_VALUE,
        ));
    }
    let fixed_stack = env.fixed_stack_set();
    let allocatable = env.allocatable_set();
    let is_memory = |x: Allocation| match x {
        Allocation::Stack(_) => true,
        Allocation::Reg(reg) => fixed_stack.contains(reg),
        Allocation::None => false,
    };
    edges.assemble(
        f,
        live_in,
        |v, p| pieces.at(v, p),
        is_memory,
        |x| matches!(x, Allocation::Reg(reg) if allocatable.contains(reg)),
        slots.count,
        &mut allocs,
        &mut moves,
    );
    // Between pieces of a value inside a block.
    for v in 0..r.values.class.len() as u32 {
        for w in pieces.of(v).windows(2) {
            let (a0, b0) = (w[0], w[1]);
            if a0.1 == b0.0 && is_e(b0.0) && a0.2 != b0.2 {
                moves.push((
                    inst_of(b0.0),
                    MovePrio::Before,
                    a0.2,
                    b0.2,
                    r.values.class[v as usize],
                    v,
                ));
            }
        }
    }
    edge_moves(f, r, &pieces, edges, live_in, &mut moves, spare);
    store_at_def(f, r, a, &pieces, slots, depth, &mut moves, spare);
    let num_slots = slots.count + edges.temps;
    let edits = resolve(env, a, &moves, f.num_insts(), num_slots);
    (spare.locs, spare.pieces, spare.moves) = (locs, pieces, moves);
    let used = |x: Allocation| x.as_stack().map_or(0, |s| s.index() + 1);
    let num_spillslots = allocs
        .iter()
        .map(|&x| used(x))
        .chain(
            edits
                .iter()
                .flat_map(|(_, mv)| [used(mv.from), used(mv.to)]),
        )
        .max()
        .unwrap_or(0);
    Assembled {
        allocs,
        edits,
        num_spillslots,
    }
}

/// Edge moves (see the module documentation): for each piece that starts a
/// block, one move per incoming edge from where the edge's source holds
/// the value (or, for a parameter, the argument) at its end, when that is
/// somewhere else.
fn edge_moves(
    f: &Function,
    r: &Ranges,
    pieces: &Pieces,
    edges: &EdgeBranches,
    live_in: &BlockSets,
    moves: &mut Vec<PendingMove>,
    spare: &mut Spare,
) {
    // Every edge `(block, successor index)`, numbered in block order.
    let edge_of = &mut spare.edge_of;
    edge_of.clear();
    for b in f.blocks() {
        edge_of.extend((0..f.block_succs(b).len()).map(|k| (b, k)));
    }
    // The edges into each block, in the order of its predecessors (a block
    // ending in a large switch is a predecessor of many blocks: finding
    // the edge by a search of its successors would cost their number for
    // every value live into each of them).
    let (in_start, in_edges) = (&mut spare.in_start, &mut spare.in_edges);
    counting_sort(
        f.num_blocks(),
        edge_of.len(),
        |x| {
            let (b, k) = edge_of[x];
            Some(f.block_succs(b)[k].index())
        },
        |x| x as u32,
        in_start,
        in_edges,
    );
    let params = f.param_positions();
    for v in 0..r.values.class.len() as u32 {
        for (j, &(from, _, dst)) in pieces.of(v).iter().enumerate() {
            let s = f.block_of(inst_of(from));
            if from != m(f.block_insts(s).first()) {
                continue;
            }
            // A parameter is an ordinary value in the blocks it is live
            // into (copy values, numbered after the vregs, are none).
            let param = match params.get(v as usize) {
                Some(&(b, k)) if b == s => Some(k as usize),
                _ => None,
            };
            if param.is_none() && !live_in.contains(s.index(), v as usize) {
                continue;
            }
            let (a, z) = (
                in_start[s.index()] as usize,
                in_start[s.index() + 1] as usize,
            );
            for &edge in &in_edges[a..z] {
                let (b, k) = edge_of[edge as usize];
                // What the edge carries into `v`, and where the source
                // block's last point holds it.
                let carried = param.map_or(v, |x| f.branch_args(b, k)[x].index() as u32);
                let end = l(f.block_insts(b).last());
                let src = if carried == v {
                    pieces.at_after(v, j, end)
                } else {
                    pieces.at(carried, end)
                };
                if src.is_none() || src == dst {
                    continue;
                }
                let (at, prio) = if edges.is_edge_before[b.index()] {
                    (f.block_insts(b).last(), MovePrio::OutEdge)
                } else {
                    (f.block_insts(s).first(), MovePrio::InEdge)
                };
                // A parameter's edge move carries another value.
                let same = if carried == v { v } else { NO_VALUE };
                moves.push((at, prio, src, dst, r.values.class[v as usize], same));
            }
        }
    }
}

/// Stores each spilled value once, right after its definition, where that
/// is cheaper (by block frequency, `4^depth`) than the stores into its slot
/// the pieces need, and drops those stores. This is sound because a slot is
/// reserved for every range of its values: once stored, the value stays in
/// its slot for its whole life.
#[allow(clippy::too_many_arguments)]
fn store_at_def(
    f: &Function,
    r: &Ranges,
    a: &Allocated,
    pieces: &Pieces,
    slots: &Slots,
    depth: &[u32],
    moves: &mut Vec<PendingMove>,
    spare: &mut Spare,
) {
    let freq = |i: Inst| 1u64 << (2 * depth[f.block_of(i).index()].min(5));
    let nv = r.values.class.len();
    // The slot of each value's spill set, if it has one.
    let own = &mut spare.own;
    own.clear();
    own.resize(nv, Allocation::None);
    for (x, lr) in a.ranges.iter().enumerate() {
        let ss = a.bundles[a.range_bundle[x] as usize].spillset as usize;
        if slots.of_spillset[ss] != u32::MAX {
            own[lr.value as usize] = Allocation::Stack(SpillSlot(slots.of_spillset[ss]));
        }
    }
    let is_store =
        |mv: &PendingMove| mv.5 != NO_VALUE && mv.3 == own[mv.5 as usize] && mv.2 != mv.3;
    let stores = &mut spare.stores;
    stores.clear();
    stores.resize(nv, 0);
    for mv in moves.iter().filter(|mv| is_store(mv)) {
        stores[mv.5 as usize] += freq(mv.0);
    }
    let early = &mut spare.early;
    early.clear();
    early.resize(nv, false);
    let added = &mut spare.added;
    added.clear();
    for v in 0..nv {
        if stores[v] == 0 {
            continue;
        }
        let from = pieces.of(v as u32)[0].0;
        let i = inst_of(from);
        // Not a parameter (defined by edge moves) nor a def by a branch.
        if from.is_multiple_of(3) || i == f.block_insts(f.block_of(i)).last() {
            continue;
        }
        let next = Inst(i.0 + 1);
        let there = pieces.at(v as u32, m(next));
        if there.is_none() || (there != own[v] && freq(i) >= stores[v]) {
            continue;
        }
        early[v] = true;
        if there != own[v] {
            added.push((
                next,
                MovePrio::Before,
                there,
                own[v],
                r.values.class[v],
                NO_VALUE,
            ));
        }
    }
    moves.retain(|mv| !(is_store(mv) && early[mv.5 as usize]));
    moves.append(added);
}

/// Sorts the moves by boundary and priority and resolves each parallel set.
fn resolve(
    env: &MachineEnv,
    a: &Allocated,
    moves: &[PendingMove],
    num_insts: usize,
    num_slots: u32,
) -> Vec<(ProgPoint, Move)> {
    let alloc = env.allocatable_set();
    let fixed_stack = env.fixed_stack_set();
    let ctx = MoveContext {
        env,
        free: PRegSet::empty(),
        extra_slots: [SpillSlot(num_slots), SpillSlot(num_slots + 1)],
    };
    // Grouped by boundary and priority class, in that order.
    resolve_grouped(
        ctx,
        num_insts,
        MovePrio::COUNT,
        moves,
        |mv| (mv.0, mv.1 as usize),
        |i, group, set| {
            for &(_, _, from, to, class, _) in group {
                debug_assert!(!from.is_none() && !to.is_none(), "a move {from} -> {to}");
                if from != to {
                    set.push(ParallelMove { from, to, class });
                }
            }
            set.sort_unstable_by_key(|mv| mv.to);
            set.dedup_by_key(|mv| mv.to);
            let mem = |x: Allocation| !matches!(x, Allocation::Reg(r) if !fixed_stack.contains(r));
            let mut free = PRegSet::empty();
            // Free registers matter only to a cycle (a destination that
            // another move reads) or a memory-to-memory move.
            let needs_free = set.iter().any(|mv| mem(mv.from) && mem(mv.to))
                || set.iter().any(|mv| set.iter().any(|o| o.from == mv.to));
            if needs_free {
                let mut classes = 0u8;
                for mv in set.iter() {
                    classes |= 1 << mv.class.index();
                }
                let from = if i.0 > 0 { l(Inst(i.0 - 1)) } else { m(i) };
                for reg in alloc.iter() {
                    if classes & (1 << reg.class().index()) != 0
                        && !a.maps.occupied_in(reg, from, e(i) + 1)
                    {
                        free.insert(reg);
                    }
                }
            }
            free
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::index::{PReg, RegClass};

    #[test]
    fn a_value_is_nowhere_between_its_pieces() {
        let r = Allocation::Reg(PReg::new(3, RegClass::Int));
        let s = Allocation::Stack(SpillSlot(0));
        // Value 0 lives in [3, 7) in r and [12, 15) in s; value 1 nowhere.
        let p = Pieces {
            start: vec![0, 2, 2],
            pieces: vec![(3, 7, r), (12, 15, s)],
        };
        assert_eq!(p.at(0, 3), r);
        assert_eq!(p.at(0, 6), r);
        assert_eq!(p.at(0, 7), Allocation::None);
        assert_eq!(p.at(0, 11), Allocation::None);
        assert_eq!(p.at(0, 12), s);
        assert_eq!(p.at(0, 2), Allocation::None);
        assert_eq!(p.at(0, 15), Allocation::None);
        assert_eq!(p.at(1, 5), Allocation::None);
        // From beside piece 1: piece 0 first, else a search.
        for q in [2, 3, 6, 7, 11, 12, 14, 15] {
            assert_eq!(p.at_after(0, 1, q), p.at(0, q), "{q}");
            assert_eq!(p.at_after(0, 0, q), p.at(0, q), "{q}");
        }
    }

    /// The edits `resolve` makes for swapping p0f and p1f before inst1,
    /// with both held over it and p2f held over `p2` (floats, so that the
    /// class a register is free for is not class 0 by accident).
    fn swap_edits(at: Inst, p2: Option<(Point, Point)>) -> Vec<(Allocation, Allocation)> {
        let case = crate::fixtures::unit_case("backtracking/three_floats_around_two_instructions");
        let float = |hw| PReg::new(hw, RegClass::Float);
        let mut maps = crate::backtracking::regmap::RegMaps::default().refill(&[]);
        maps.insert_all(float(0), &[(0, 9)], 0);
        maps.insert_all(float(1), &[(0, 9)], 1);
        if let Some((from, to)) = p2 {
            maps.insert_all(float(2), &[(from, to)], 2);
        }
        let a = Allocated {
            ranges: Vec::new(),
            bundles: Vec::new(),
            spillsets: Vec::new(),
            range_bundle: Vec::new(),
            maps,
            stats: Default::default(),
        };
        let (r0, r1) = (Allocation::Reg(float(0)), Allocation::Reg(float(1)));
        let moves = [
            (at, MovePrio::Before, r0, r1, RegClass::Float, NO_VALUE),
            (at, MovePrio::Before, r1, r0, RegClass::Float, NO_VALUE),
        ];
        let edits = resolve(&case.machine, &a, &moves, 3, 0);
        assert!(edits.iter().all(|e| e.0 == ProgPoint::before(at)));
        edits.iter().map(|e| (e.1.from, e.1.to)).collect()
    }

    #[test]
    fn a_cycle_goes_through_a_register_free_over_its_boundary() {
        let (r0, r1, r2) = (
            Allocation::Reg(PReg::new(0, RegClass::Float)),
            Allocation::Reg(PReg::new(1, RegClass::Float)),
            Allocation::Reg(PReg::new(2, RegClass::Float)),
        );
        for at in [Inst(0), Inst(1)] {
            let via_p2 = swap_edits(at, None);
            assert_eq!(via_p2.len(), 3, "{via_p2:?}");
            assert!(
                via_p2.contains(&(r0, r2)) || via_p2.contains(&(r1, r2)),
                "{via_p2:?}"
            );
        }
        // p2 held from the late point before the boundary, or into the
        // early point after it: not free, so the cycle goes through a slot.
        for held in [(2, 3), (4, 5)] {
            let via_slot = swap_edits(Inst(1), Some(held));
            assert_eq!(via_slot.len(), 3, "{via_slot:?}");
            assert!(
                via_slot
                    .iter()
                    .any(|m| m.1 == Allocation::Stack(SpillSlot(0))),
                "{via_slot:?}"
            );
            assert!(!via_slot.iter().any(|m| m.1 == r2), "{via_slot:?}");
        }
    }
}
