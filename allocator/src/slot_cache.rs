//! Loop-invariant slots kept in a register the loop leaves free, a pass over
//! an allocator's finished output. A spill slot that a loop reads but never
//! writes is copied once into a register that nothing in the loop reads,
//! writes, clobbers or keeps live, on each edge into the loop; every reload
//! of the slot inside the loop then reads that register instead (a reload
//! becomes a register move).
//!
//! Why it is exact without knowing which value the slot holds: in the loop
//! neither the slot nor the register is written, so from the copy on the
//! register holds exactly the slot's bits at every point of the loop, and the
//! copy sits on every edge from outside into any block of the loop. The
//! register was dead everywhere in the loop, so no value it held is lost;
//! at the copy (after the predecessor's other moves, just before its branch)
//! the branch does not read or clobber it, and the predecessor has no other
//! successor (the loop's block it enters has a predecessor in the loop too,
//! and no edge is critical).
//!
//! Loops are taken innermost first, so a copy placed before an inner loop
//! is itself a reload the loop around it may keep in a register.

use crate::analysis::loops::{LoopForest, NO_LOOP};
use crate::ir::function::Function;
use crate::ir::index::{Block, Inst, PReg, ProgPoint, RegClass, SpillSlot};
use crate::ir::machine::MachineEnv;
use crate::ir::operand::OperandConstraint;
use crate::ir::output::{Allocation, Move, Output};

/// Marks the end of a block's list of added reloads.
const END: u32 = u32::MAX;

/// A reload inside a block: the move at `edit` (an index into the output's
/// edits, or past them into the added ones) reads slot `slot` into a
/// register of `class`.
#[derive(Clone, Copy)]
struct Reload {
    edit: u32,
    slot: u32,
    class: RegClass,
}

/// Keeps loop-invariant slots in free registers across the loops of `f`
/// (the module doc); returns how many slots were kept, one per loop each.
/// `out` must be a valid allocation of `f` with its edits sorted by point.
pub fn cache_in_loops(f: &Function, env: &MachineEnv, out: &mut Output) -> usize {
    let forest = LoopForest::new(f);
    let num_loops = forest.parent.len();
    if num_loops == 0 {
        return 0;
    }
    let nb = f.num_blocks();
    let mut facts = BlockFacts::new(f, env, out);
    let mut live_in = facts.live_in(f);
    let mut touched = std::mem::take(&mut facts.touched);
    let mut extra_head = vec![END; nb];
    // Added reloads: (block, its reload, the next in that block's list).
    let mut extra: Vec<(u32, Reload, u32)> = Vec::new();
    let mut added: Vec<(ProgPoint, Move)> = Vec::new();
    let freq = |b: Block| 4f64.powi(forest.depth[b.index()].min(5) as i32);

    // The blocks of each loop, nested loops' included, in one flat list.
    let mut first = vec![0u32; num_loops + 1];
    for l in 0..num_loops {
        first[l + 1] = first[l] + forest.size[l];
    }
    let mut members = vec![0u32; first[num_loops] as usize];
    let mut fill = first.clone();
    for b in 0..nb {
        let mut l = forest.innermost[b];
        while l != NO_LOOP {
            members[fill[l as usize] as usize] = b as u32;
            fill[l as usize] += 1;
            l = forest.parent[l as usize];
        }
    }
    debug_assert_eq!(fill[..num_loops], first[1..]);

    let mut kept = 0;
    let mut folded = vec![false; out.edits.len()];
    let mut entries: Vec<Block> = Vec::new();
    let mut reads: Vec<(u32, RegClass, f64, u32)> = Vec::new();
    let mut written: Vec<(u32, u32)> = Vec::new();
    // Parents have smaller numbers: the reverse order is innermost first.
    for l in (0..num_loops).rev() {
        let blocks = &members[first[l] as usize..first[l + 1] as usize];
        let inside = |b: Block| forest.contains(l as u32, b);
        if inside(f.entry_block()) {
            continue;
        }
        let mut busy = [0u64; 3];
        written.clear();
        reads.clear();
        entries.clear();
        for &b in blocks {
            let blk = Block::new(b as usize);
            for w in 0..3 {
                busy[w] |= touched[b as usize][w] | live_in[b as usize][w];
            }
            written.extend_from_slice(facts.written_in(blk));
            let mut gather = |r: &Reload| {
                let (_, mv) = edit_at(&out.edits, &added, r.edit);
                if mv.from == Allocation::Stack(SpillSlot::new(r.slot as usize)) {
                    reads.push((r.slot, r.class, freq(blk), r.edit));
                }
            };
            for r in facts.reloads_in(blk) {
                gather(r);
            }
            let mut k = extra_head[b as usize];
            while k != END {
                gather(&extra[k as usize].1);
                k = extra[k as usize].2;
            }
            for &p in f.block_preds(blk) {
                if !inside(p) {
                    entries.push(p);
                }
            }
        }
        if reads.is_empty() {
            continue;
        }
        entries.sort_unstable();
        entries.dedup();
        // Per entry: whether the copy can go before its branch, the
        // registers it rules out, and what it costs.
        let mut ruled_out = [0u64; 3];
        let mut entry_cost = 0.0;
        let mut usable = true;
        for &p in &entries {
            let last = f.block_insts(p).last();
            if !f.is_branch(last)
                || facts.after_edits(out, last)
                || facts.branch_writes_slot[p.index()]
            {
                usable = false;
                break;
            }
            for w in 0..3 {
                ruled_out[w] |= facts.branch_touches[p.index()][w];
            }
            // The block it enters has a predecessor in the loop too, so
            // with no critical edge the copy's block leads nowhere else.
            debug_assert_eq!(f.block_succs(p).len(), 1);
            entry_cost += 4.0 * freq(p);
        }
        if !usable {
            continue;
        }
        reads.sort_unstable_by_key(|r| (r.0, r.1.index(), r.3));
        // Candidates: (gain, slot, class, range in `reads`).
        let mut candidates: Vec<(f64, u32, RegClass, usize, usize)> = Vec::new();
        let mut at = 0;
        while at < reads.len() {
            let (slot, class) = (reads[at].0, reads[at].1);
            let mut end = at;
            let mut gain = -entry_cost;
            while end < reads.len() && reads[end].0 == slot {
                gain += if reads[end].1 == class {
                    3.8 * reads[end].2
                } else {
                    f64::NEG_INFINITY
                };
                end += 1;
            }
            let bits = env.slots.span(class, slot as usize);
            let clear = bits.is_some_and(|s| {
                written
                    .iter()
                    .all(|&(a, b)| b as usize <= s.start || a as usize >= s.end)
            });
            if clear && gain > 0.0 {
                candidates.push((gain, slot, class, at, end));
            }
            at = end;
        }
        candidates.sort_unstable_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        for &(_, slot, class, from, to) in &candidates {
            let c = class.index();
            let Some(h) = env
                .allocatable(class)
                .find(|r| (busy[c] | ruled_out[c]) & (1 << r.hw()) == 0)
            else {
                continue;
            };
            busy[c] |= 1 << h.hw();
            kept += 1;
            for &(_, _, _, e) in &reads[from..to] {
                edit_at_mut(&mut out.edits, &mut added, e).1.from = Allocation::Reg(h);
                if (e as usize) < out.edits.len() && fold(f, out, e as usize, h, &live_in) {
                    folded[e as usize] = true;
                }
            }
            for &b in blocks {
                live_in[b as usize][c] |= 1 << h.hw();
            }
            let slot_at = Allocation::Stack(SpillSlot::new(slot as usize));
            for &p in &entries {
                touched[p.index()][c] |= 1 << h.hw();
                let point = ProgPoint::before(f.block_insts(p).last());
                let edit = (out.edits.len() + added.len()) as u32;
                added.push((
                    point,
                    Move {
                        from: slot_at,
                        to: Allocation::Reg(h),
                    },
                ));
                extra.push((
                    p.index() as u32,
                    Reload { edit, slot, class },
                    extra_head[p.index()],
                ));
                extra_head[p.index()] = extra.len() as u32 - 1;
            }
        }
    }
    if folded.contains(&true) {
        let mut k = 0;
        out.edits.retain(|_| {
            k += 1;
            !folded[k - 1]
        });
    }
    if !added.is_empty() {
        // Appended, then a stable sort: each copy runs after the moves
        // already before its branch.
        out.edits.extend(added);
        out.edits.sort_by_key(|e| e.0);
    }
    debug_assert!(out.edits_sorted());
    kept
}

/// Whether the move `out.edits[e]`, from `h` into some register `r` before
/// an instruction, can go, that instruction's reads of `r` reading `h`
/// instead; if so, makes them read `h`. It can when each of those reads
/// accepts `h` (a `reg`, `any` or `limit` it meets, not reused by a def)
/// and nothing else reads what the move put in `r`: the block writes `r`
/// before any other read, or ends with `r` live into no successor.
fn fold(f: &Function, out: &mut Output, e: usize, h: PReg, live_in: &[[u64; 3]]) -> bool {
    let (point, mv) = out.edits[e];
    let Allocation::Reg(r) = mv.to else {
        return false;
    };
    if point != ProgPoint::before(point.inst()) {
        return false;
    }
    let at = point.inst();
    let b = f.block_of(at);
    let reads = |a: Allocation| a == Allocation::Reg(r);
    let mut k = e + 1;
    // The moves still to run before `at`.
    while k < out.edits.len() && out.edits[k].0 == point {
        if reads(out.edits[k].1.from) || reads(out.edits[k].1.to) {
            return false;
        }
        k += 1;
    }
    let ops = f.inst_operands(at);
    let base = f.inst_operand_range(at).start;
    let mut folds = false;
    for (j, op) in ops.iter().enumerate() {
        if !op.is_use() || out.allocs[base + j] != Allocation::Reg(r) {
            continue;
        }
        let fits = match op.constraint() {
            OperandConstraint::Reg | OperandConstraint::Any => true,
            OperandConstraint::Limit(n) => h.hw() < n as usize,
            _ => false,
        };
        let reused = ops
            .iter()
            .any(|d| d.is_def() && d.constraint() == OperandConstraint::Reuse(j));
        if !fits || reused {
            return false;
        }
        folds = true;
    }
    if !folds {
        return false;
    }
    // From `at`'s own writes on: the first touch of `r` must write it.
    let writes_r = |i: Inst| {
        f.inst_clobbers(i).contains(&r)
            || f.inst_operands(i)
                .iter()
                .zip(out.inst_allocs(f, i))
                .any(|(op, &a)| op.is_def() && reads(a))
    };
    // The moves from `k` on at points up to `upto`: `Some(true)` at the
    // first that writes `r`, `Some(false)` at the first that reads it.
    let moves = |k: &mut usize, upto: ProgPoint| -> Option<bool> {
        while *k < out.edits.len() && out.edits[*k].0 <= upto {
            let mv = out.edits[*k].1;
            if reads(mv.from) || reads(mv.to) {
                return Some(!reads(mv.from));
            }
            *k += 1;
        }
        None
    };
    let mut dead = writes_r(at);
    let mut i = at;
    while !dead {
        if let Some(write) = moves(&mut k, ProgPoint::after(i)) {
            if !write {
                return false;
            }
            dead = true;
            break;
        }
        if i == f.block_insts(b).last() {
            break;
        }
        i = Inst::new(i.index() + 1);
        if let Some(write) = moves(&mut k, ProgPoint::before(i)) {
            if !write {
                return false;
            }
            dead = true;
            break;
        }
        let uses = f
            .inst_operands(i)
            .iter()
            .zip(out.inst_allocs(f, i))
            .any(|(op, &a)| !op.is_def() && reads(a));
        if uses {
            return false;
        }
        dead = writes_r(i);
    }
    let (c, m) = (r.class().index(), 1u64 << r.hw());
    if !dead
        && f.block_succs(b)
            .iter()
            .any(|s| live_in[s.index()][c] & m != 0)
    {
        return false;
    }
    for (j, op) in ops.iter().enumerate() {
        if op.is_use() && out.allocs[base + j] == Allocation::Reg(r) {
            out.allocs[base + j] = Allocation::Reg(h);
        }
    }
    true
}

/// The edit numbered `e`: one of `edits`, or past them one of `added`.
fn edit_at<'a>(
    edits: &'a [(ProgPoint, Move)],
    added: &'a [(ProgPoint, Move)],
    e: u32,
) -> &'a (ProgPoint, Move) {
    let e = e as usize;
    edits.get(e).unwrap_or_else(|| &added[e - edits.len()])
}

fn edit_at_mut<'a>(
    edits: &'a mut [(ProgPoint, Move)],
    added: &'a mut [(ProgPoint, Move)],
    e: u32,
) -> &'a mut (ProgPoint, Move) {
    let e = e as usize;
    let n = edits.len();
    if e < n {
        &mut edits[e]
    } else {
        &mut added[e - n]
    }
}

/// The registers a stretch of code reads before writing (`gen`), writes
/// (`kill`) and names at all (`touched`), one mask per class, gathered
/// walking it backwards: each event's writes, then its reads.
#[derive(Clone, Copy, Default)]
struct RegEffects {
    gen: [u64; 3],
    kill: [u64; 3],
    touched: [u64; 3],
}

impl RegEffects {
    fn write(&mut self, r: PReg) {
        let (c, m) = (r.class().index(), 1u64 << r.hw());
        self.gen[c] &= !m;
        self.kill[c] |= m;
        self.touched[c] |= m;
    }

    fn read(&mut self, r: PReg) {
        let (c, m) = (r.class().index(), 1u64 << r.hw());
        self.gen[c] |= m;
        self.touched[c] |= m;
    }

    /// Names `r` without reading or writing it.
    fn name(&mut self, r: PReg) {
        self.touched[r.class().index()] |= 1u64 << r.hw();
    }

    /// `self` for the code just before `later`: both, as one stretch.
    fn then(self, later: RegEffects) -> RegEffects {
        let mut all = later;
        for w in 0..3 {
            all.gen[w] = self.gen[w] | (later.gen[w] & !self.kill[w]);
            all.kill[w] |= self.kill[w];
            all.touched[w] |= self.touched[w];
        }
        all
    }
}

/// What one walk of the output tells about each block: its register
/// effects as `gen`, `kill` and `touched` rows, the slot ranges it writes,
/// its reloads, and about its branch.
struct BlockFacts {
    gen: Vec<[u64; 3]>,
    kill: Vec<[u64; 3]>,
    touched: Vec<[u64; 3]>,
    /// Per block, `written[written_at[b]..written_at[b + 1]]`: half-open
    /// slot ranges some move or operand writes.
    written: Vec<(u32, u32)>,
    written_at: Vec<u32>,
    reloads: Vec<Reload>,
    reloads_at: Vec<u32>,
    /// Registers the block's last instruction names (operands, clobbers).
    branch_touches: Vec<[u64; 3]>,
    /// Whether the block's last instruction writes a slot.
    branch_writes_slot: Vec<bool>,
}

impl BlockFacts {
    fn new(f: &Function, env: &MachineEnv, out: &Output) -> BlockFacts {
        let nb = f.num_blocks();
        let mut facts = BlockFacts {
            gen: vec![[0; 3]; nb],
            kill: vec![[0; 3]; nb],
            touched: vec![[0; 3]; nb],
            written: Vec::new(),
            written_at: vec![0; nb + 1],
            reloads: Vec::new(),
            reloads_at: vec![0; nb + 1],
            branch_touches: vec![[0; 3]; nb],
            branch_writes_slot: vec![false; nb],
        };
        let max = env.slots.max_size() as u32;
        // A write of unknown class covers every slot a value could span.
        let span = |class: Option<RegClass>, k: usize| -> (u32, u32) {
            match class.and_then(|c| env.slots.span(c, k)) {
                Some(s) => (s.start as u32, s.end as u32),
                None => ((k as u32).saturating_sub(max - 1), k as u32 + max),
            }
        };
        // The edits of each block are one run of the sorted list.
        let mut e = 0;
        for b in f.blocks() {
            let insts = f.block_insts(b);
            let start = e;
            while e < out.edits.len() && insts.contains(out.edits[e].0.inst()) {
                e += 1;
            }
            let mut fx = RegEffects::default();
            let mut k = e;
            for i in insts.iter().rev() {
                for pos_after in [true, false] {
                    let point = if pos_after {
                        ProgPoint::after(i)
                    } else {
                        ProgPoint::before(i)
                    };
                    while k > start && out.edits[k - 1].0 == point {
                        k -= 1;
                        let mv = out.edits[k].1;
                        match mv.to {
                            Allocation::Reg(r) => fx.write(r),
                            Allocation::Stack(s) => facts.written.push(span(mv.class(), s.index())),
                            Allocation::None => {}
                        }
                        match (mv.from, mv.to) {
                            (Allocation::Reg(r), _) => fx.read(r),
                            (Allocation::Stack(s), Allocation::Reg(r)) => {
                                facts.reloads.push(Reload {
                                    edit: k as u32,
                                    slot: s.index() as u32,
                                    class: r.class(),
                                })
                            }
                            _ => {}
                        }
                    }
                    if pos_after {
                        let (here, writes_slot) =
                            Self::inst_effects(f, out, i, &mut facts.written, &span);
                        fx = here.then(fx);
                        if i == insts.last() {
                            facts.branch_touches[b.index()] = here.touched;
                            facts.branch_writes_slot[b.index()] = writes_slot;
                        }
                    }
                }
            }
            facts.gen[b.index()] = fx.gen;
            facts.kill[b.index()] = fx.kill;
            facts.touched[b.index()] = fx.touched;
            facts.written_at[b.index() + 1] = facts.written.len() as u32;
            facts.reloads_at[b.index() + 1] = facts.reloads.len() as u32;
        }
        facts
    }

    /// Instruction `i`'s register effects (its defs, clobbers and
    /// `nonalloc` operands write, its uses and `nonalloc` operands read),
    /// and whether it writes a slot (whose range goes to `written`).
    fn inst_effects(
        f: &Function,
        out: &Output,
        i: Inst,
        written: &mut Vec<(u32, u32)>,
        span: &impl Fn(Option<RegClass>, usize) -> (u32, u32),
    ) -> (RegEffects, bool) {
        let mut fx = RegEffects::default();
        let mut writes_slot = false;
        let allocs = out.inst_allocs(f, i);
        let ops = f.inst_operands(i);
        for (op, &a) in ops.iter().zip(allocs) {
            match a {
                Allocation::Reg(r) if op.is_def() || op.is_nonalloc() => fx.write(r),
                Allocation::Stack(s) if op.is_def() => {
                    written.push(span(Some(op.vreg().class()), s.index()));
                    writes_slot = true;
                }
                _ => {}
            }
        }
        for &r in f.inst_clobbers(i) {
            fx.write(r);
        }
        for (op, &a) in ops.iter().zip(allocs) {
            if let Allocation::Reg(r) = a {
                if op.is_use() || op.is_nonalloc() {
                    fx.read(r);
                } else {
                    fx.name(r);
                }
            }
        }
        (fx, writes_slot)
    }

    fn written_in(&self, b: Block) -> &[(u32, u32)] {
        &self.written[self.written_at[b.index()] as usize..self.written_at[b.index() + 1] as usize]
    }

    fn reloads_in(&self, b: Block) -> &[Reload] {
        &self.reloads[self.reloads_at[b.index()] as usize..self.reloads_at[b.index() + 1] as usize]
    }

    /// Whether some move runs after instruction `i`.
    fn after_edits(&self, out: &Output, i: Inst) -> bool {
        let p = ProgPoint::after(i);
        out.edits.binary_search_by_key(&p, |e| e.0).is_ok()
    }

    /// The registers live into each block: `gen ∪ (live out − kill)`,
    /// iterated to a fixpoint.
    fn live_in(&self, f: &Function) -> Vec<[u64; 3]> {
        let nb = f.num_blocks();
        let mut live = self.gen.clone();
        let mut changed = true;
        while changed {
            changed = false;
            for b in f.blocks().rev() {
                let mut outs = [0u64; 3];
                for &s in f.block_succs(b) {
                    for w in 0..3 {
                        outs[w] |= live[s.index()][w];
                    }
                }
                let bi = b.index();
                for w in 0..3 {
                    let v = self.gen[bi][w] | (outs[w] & !self.kill[bi][w]);
                    if v != live[bi][w] {
                        live[bi][w] = v;
                        changed = true;
                    }
                }
            }
        }
        debug_assert_eq!(live.len(), nb);
        live
    }
}

#[cfg(test)]
mod tests;
