//! The concrete interpreter: the second, independent oracle. It gives the
//! IR a meaning, runs the SSA program along a path, runs the allocated
//! program along the same path on a machine state, and compares every value
//! every use reads (returned values are uses of the `ret`).
//!
//! Meaning: each def's value is a hash of (instruction, def index, the
//! values of the instruction's uses in order); at a branch the successor is
//! chosen by a hash of (seed, step); block arguments flow to parameters.
//! The machine: every register and slot starts with a distinct poison
//! value; clobbers write fresh poison; edits copy; defs write their
//! allocation. Within an instruction the order is the checker's: edits
//! before, early uses read, early defs write, late uses read, clobbers,
//! late defs write, edits after.

use allocator::{
    Allocation, Block, Function, Inst, InstPosition, MachineEnv, OperandPos, Output, PReg,
    ProgPoint, RegClass, SlotGeometry, VReg,
};
use std::fmt;

/// Where the two runs first disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    pub step: usize,
    pub inst: Inst,
    pub operand: usize,
    pub vreg: VReg,
    pub alloc: Allocation,
    pub expected: u64,
    pub actual: u64,
    /// What the location held instead, in words.
    pub found: String,
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "step {}: {} operand {} reads {} from {}: expected {:#018x}, found {:#018x} ({})",
            self.step,
            self.inst,
            self.operand,
            self.vreg,
            self.alloc,
            self.expected,
            self.actual,
            self.found
        )
    }
}

/// How far a run went without diverging.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    pub steps: usize,
    pub uses_checked: usize,
    pub returned: bool,
    /// A hash of every value read, in order: two allocations of one function
    /// that read the same values along the same path have equal digests.
    pub digest: u64,
}

const POISON: u64 = 0xbad0_0000_0000_0000;
const CLOBBER: u64 = 0xc10b_0000_0000_0000;
/// What is left of a value when a write to an overlapping slot cut it.
const OVERLAP: u64 = 0x0e1a_0000_0000_0000;

/// A 64-bit mix (splitmix64's finalizer).
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

fn combine(h: u64, v: u64) -> u64 {
    mix(h ^ v.wrapping_add(0x9e37_79b9_7f4a_7c15))
}

/// Runs `f` and its allocation `out` for machine `env` side by side along
/// the path chosen by `seed`, for at most `max_steps` instructions. The
/// function must be valid; the allocation may be anything (locations it
/// names out of range read as poison and write nowhere).
pub fn run(
    f: &Function,
    env: &MachineEnv,
    out: &Output,
    seed: u64,
    max_steps: usize,
) -> Result<RunStats, Divergence> {
    let nslots = out.num_spillslots.min(1 << 20);
    let mut machine: Vec<u64> = (0..PReg::NUM_INDEX + nslots)
        .map(|k| POISON + k as u64)
        .collect();
    // A location's cell; a slot only when every slot the value of `class`
    // fills lies within the output's `num_spillslots` (a wide value named by
    // its first slot may run past the count; named by its last, start below
    // slot 0): otherwise no cell, so the value is lost. (A move between two
    // stack locations names no class; its slots are bounded by index.)
    let geometry = env.slots;
    let key = |a: Allocation, class: Option<RegClass>| match a {
        Allocation::Reg(r) => Some(r.index()),
        Allocation::Stack(s)
            if s.index() < nslots
                && class.is_none_or(|c| {
                    geometry
                        .span(c, s.index())
                        .is_some_and(|span| span.end <= nslots)
                }) =>
        {
            Some(PReg::NUM_INDEX + s.index())
        }
        _ => None,
    };
    let mut slots = SlotMemory::new(&env.slots, nslots);
    let mut ssa = vec![0u64; f.num_vregs()];
    let mut stats = RunStats::default();
    // Edits by instruction, in order.
    let mut e = 0;
    let mut edit_index: Vec<(u32, u32)> = vec![(0, 0); f.num_insts()];
    while e < out.edits.len() {
        let i = out.edits[e].0.inst().index();
        let start = e;
        while e < out.edits.len() && out.edits[e].0.inst().index() == i {
            e += 1;
        }
        if i < edit_index.len() {
            edit_index[i] = (start as u32, e as u32);
        }
    }
    let apply = |machine: &mut Vec<u64>, slots: &mut SlotMemory, i: Inst, pos: InstPosition| {
        let (s, t) = edit_index[i.index()];
        for &(p, m) in &out.edits[s as usize..t as usize] {
            if p != ProgPoint::new(i, pos) {
                continue;
            }
            if let (Some(from), Some(to)) = (key(m.from, m.class()), key(m.to, m.class())) {
                machine[to] = machine[from];
                if let (Allocation::Reg(r), Allocation::Stack(k)) = (m.from, m.to) {
                    slots.wrote(machine, k.index(), r.class());
                }
            }
        }
    };
    let mut b = f.entry_block();
    let mut step = 0usize;
    let mut args_buf: Vec<u64> = Vec::new();
    loop {
        for i in f.block_insts(b).iter() {
            if step >= max_steps {
                stats.steps = step;
                return Ok(stats);
            }
            step += 1;
            apply(&mut machine, &mut slots, i, InstPosition::Before);
            let ops = f.inst_operands(i);
            let allocs = out.inst_allocs(f, i);
            // The defs' values, from the SSA values of the uses.
            let mut h = combine(i.0 as u64, 0x1157);
            for op in ops {
                if op.is_use() {
                    h = combine(h, ssa[op.vreg().index()]);
                }
            }
            for pos in [OperandPos::Early, OperandPos::Late] {
                for (k, op) in ops.iter().enumerate() {
                    if !(op.is_use() && op.pos() == pos) {
                        continue;
                    }
                    let expected = ssa[op.vreg().index()];
                    let a = allocs.get(k).copied().unwrap_or_default();
                    let actual = key(a, Some(op.class())).map_or(POISON, |l| machine[l]);
                    stats.uses_checked += 1;
                    stats.digest = combine(stats.digest, actual);
                    if actual != expected {
                        return Err(Divergence {
                            step,
                            inst: i,
                            operand: k,
                            vreg: op.vreg(),
                            alloc: a,
                            expected,
                            actual,
                            found: describe(f, &ssa, actual),
                        });
                    }
                }
                if pos == OperandPos::Late {
                    for r in f.inst_clobbers(i) {
                        machine[r.index()] = CLOBBER + ((step as u64) << 8) + r.index() as u64;
                    }
                }
                let mut d = 0u64;
                for (k, op) in ops.iter().enumerate() {
                    if !op.is_def() {
                        continue;
                    }
                    d += 1;
                    if op.pos() != pos {
                        continue;
                    }
                    let value = combine(h, d);
                    ssa[op.vreg().index()] = value;
                    let a = allocs.get(k).copied().unwrap_or_default();
                    if let Some(l) = key(a, Some(op.class())) {
                        machine[l] = value;
                        if let Allocation::Stack(k) = a {
                            slots.wrote(&mut machine, k.index(), op.class());
                        }
                    }
                }
            }
            apply(&mut machine, &mut slots, i, InstPosition::After);
        }
        let succs = f.block_succs(b);
        // In a valid function the blocks without successors are the rets.
        if succs.is_empty() {
            stats.steps = step;
            stats.returned = true;
            return Ok(stats);
        }
        let t = (combine(seed, step as u64) % succs.len() as u64) as usize;
        let next: Block = succs[t];
        args_buf.clear();
        args_buf.extend(f.branch_args(b, t).iter().map(|a| ssa[a.index()]));
        for (p, &v) in f.block_params(next).iter().zip(&args_buf) {
            ssa[p.index()] = v;
        }
        b = next;
    }
}

/// The spill slots of a machine whose values fill several slots: what
/// each slot's last write filled, so that a write poisons every other value
/// it overlaps. Nothing to do when every value fills one slot.
struct SlotMemory {
    geometry: SlotGeometry,
    /// Per slot, the class of the value last written there, if it is still
    /// whole.
    class: Vec<Option<RegClass>>,
}

impl SlotMemory {
    fn new(geometry: &SlotGeometry, nslots: usize) -> SlotMemory {
        let n = if geometry.is_unit() { 0 } else { nslots };
        SlotMemory {
            geometry: *geometry,
            class: vec![None; n],
        }
    }

    /// A value of `class` was written under the name `stack{k}`: every
    /// other value whose slots it overlaps is destroyed.
    fn wrote(&mut self, machine: &mut [u64], k: usize, class: RegClass) {
        if self.class.is_empty() {
            return;
        }
        let g = self.geometry;
        let Some(mine) = g.span(class, k) else { return };
        let reach = g.max_size();
        let lo = k.saturating_sub(reach - 1);
        let hi = (k + reach).min(self.class.len());
        for j in lo..hi {
            let Some(c) = self.class[j] else { continue };
            if j == k {
                continue;
            }
            if g.span(c, j)
                .is_some_and(|r| r.start < mine.end && mine.start < r.end)
            {
                self.class[j] = None;
                machine[PReg::NUM_INDEX + j] = OVERLAP + j as u64;
            }
        }
        if k < self.class.len() {
            self.class[k] = Some(class);
        }
    }
}

/// Names a value: the vreg whose current value it is, or poison.
fn describe(f: &Function, ssa: &[u64], v: u64) -> String {
    if v & 0xffff_0000_0000_0000 == POISON {
        return "the initial poison of a location".into();
    }
    if v & 0xffff_0000_0000_0000 == OVERLAP {
        return format!(
            "the remains of a value in stack{} cut by a write to an overlapping slot",
            v & 0xffff_ffff
        );
    }
    if v & 0xffff_0000_0000_0000 == CLOBBER {
        return format!("poison from a clobber at step {}", (v >> 8) & 0xffff_ffff);
    }
    let _ = f;
    match ssa.iter().position(|&x| x == v) {
        Some(n) => format!("the current value of vreg {n}"),
        None => "a stale or unknown value".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn the_value_hash_does_not_collide_and_avalanches() {
        // Collisions would let a wrong read go unnoticed.
        let mut seen = HashSet::new();
        for i in 0..100_000u64 {
            assert!(seen.insert(mix(i)), "mix collides at {i}");
            assert!(seen.insert(combine(7, i)), "combine collides at {i}");
        }
        // One flipped input bit changes about half the output bits.
        let mut flipped = 0u32;
        for i in 0..1000u64 {
            for b in 0..64 {
                flipped += (mix(i) ^ mix(i ^ (1 << b))).count_ones();
                flipped += (combine(i, 3) ^ combine(i ^ (1 << b), 3)).count_ones();
            }
        }
        let mean = flipped as f64 / (2.0 * 1000.0 * 64.0);
        assert!((28.0..36.0).contains(&mean), "mean flipped bits {mean}");
        // Every input bit reaches the low output bits (a hash that only
        // carries bits upwards would not).
        for b in 0..64 {
            let changed = (0..1000u64)
                .filter(|&i| (mix(i) ^ mix(i ^ (1 << b))) & 1 == 1)
                .count();
            assert!(
                (350..650).contains(&changed),
                "input bit {b} flips output bit 0 in {changed}/1000"
            );
        }
    }
}
