//! The main loop: bundles leave a priority queue (largest first) and each
//! is allocated, evicts cheaper bundles, or is split at its first conflict;
//! then second-chance allocation gives the bundles that may live on the
//! stack a register where one is free for the whole of them.
//!
//! Termination: a split always leaves two strictly smaller bundles, an
//! eviction needs strictly more weight, and a minimal bundle (no split
//! point inside it) outweighs every other. Minimal bundles contend among
//! themselves by how few registers they accept; a documented bound on the
//! work turns a case where they cannot all be placed into `Impossible`.

use super::bundles::{Bundle, Bundles, Home, SpillSet, NONE};
use super::kept::reuse;
use super::liveranges::{LiveRange, Use};
use super::points::Point;
use super::regmap::{RegMaps, RESERVED};
use super::requirement::Req;
use crate::interface::AllocError;
use crate::ir::index::{PReg, RegClass};
use crate::ir::machine::MachineEnv;
use std::collections::BinaryHeap;

/// Counters of the main loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoopStats {
    pub evictions: u64,
    pub splits: u64,
    pub second_chance: u64,
}

/// What the main loop hands on: every range with its bundle, every bundle
/// with its home, the spill sets and the register maps.
pub struct Allocated {
    pub ranges: Vec<LiveRange>,
    pub bundles: Vec<Bundle>,
    pub spillsets: Vec<SpillSet>,
    pub range_bundle: Vec<u32>,
    pub maps: RegMaps,
    pub stats: LoopStats,
}

/// Weight of bundles that cannot be split (plus how few registers they
/// accept); others stay below it.
const MINIMAL: u32 = 1 << 30;
const MAX_NORMAL: u64 = (1 << 29) - 1;

struct Loop<'a> {
    uses: &'a [Use],
    ranges: Vec<LiveRange>,
    bundles: Vec<Bundle>,
    spillsets: Vec<SpillSet>,
    range_bundle: Vec<u32>,
    maps: RegMaps,
    queue: BinaryHeap<(u32, u32)>,
    /// Bundles that may live on the stack and got no register yet.
    spilled: Vec<u32>,
    /// Registers to probe per class: preferred then non-preferred.
    order: [Vec<PReg>; 3],
    npreferred: [usize; 3],
    /// Per class, the registers with any reservation (hardware numbers).
    ever_reserved: [u64; 3],
    conflicts: Vec<u32>,
    /// Buffer for the registers a bundle probes.
    cand: Vec<PReg>,
    /// Buffer for the pieces a split sends to the spill bundle.
    to_spill: Vec<(Point, Point, u32)>,
    /// State of the xorshift generator that draws forced evictions.
    forced: u64,
    stats: LoopStats,
}

/// `(bundle, register)`: where each bundle holding a register goes so that
/// another may take it.
type Relocations = Vec<(u32, PReg)>;

/// Outcome of probing one register for a bundle.
enum Probe {
    Free,
    /// Heaviest conflicting bundle's weight (`u32::MAX` with a
    /// reservation), and the first point of conflict.
    Busy {
        cost: u32,
        first: Point,
    },
}

/// The main loop's storage kept from one allocation to the next: the
/// register maps (handed on in [`Allocated`] and given back), the queue and
/// the loop's buffers. A run refills them whatever they hold.
#[derive(Default)]
pub struct Spare {
    maps: RegMaps,
    queue: BinaryHeap<(u32, u32)>,
    spilled: Vec<u32>,
    order: [Vec<PReg>; 3],
    conflicts: Vec<u32>,
    cand: Vec<PReg>,
    to_spill: Vec<(Point, Point, u32)>,
}

impl Spare {
    /// Takes back the register maps the main loop handed on.
    pub fn keep(&mut self, maps: RegMaps) {
        self.maps = maps;
    }
}

pub fn run(
    ranges: Vec<LiveRange>,
    uses: &[Use],
    b: Bundles,
    env: &MachineEnv,
    reservations: &[(PReg, Point, Point)],
    spare: &mut Spare,
) -> Result<Allocated, AllocError> {
    let mut l = Loop::new(ranges, uses, b, env, reservations, spare);
    let result = l.run();
    spare.queue = std::mem::take(&mut l.queue);
    spare.spilled = std::mem::take(&mut l.spilled);
    spare.order = std::mem::take(&mut l.order);
    spare.conflicts = std::mem::take(&mut l.conflicts);
    spare.cand = std::mem::take(&mut l.cand);
    spare.to_spill = std::mem::take(&mut l.to_spill);
    result?;
    Ok(Allocated {
        ranges: l.ranges,
        bundles: l.bundles,
        spillsets: l.spillsets,
        range_bundle: l.range_bundle,
        maps: l.maps,
        stats: l.stats,
    })
}

impl<'a> Loop<'a> {
    /// Queues every bundle and allocates until the queue is empty, then
    /// gives the bundles that may live on the stack their second chance.
    fn run(&mut self) -> Result<(), AllocError> {
        for k in 0..self.bundles.len() {
            self.enqueue(k as u32);
        }
        let bound = 200_000 + 64 * self.ranges.len() as u64;
        let mut steps = 0u64;
        while let Some((_, k)) = self.queue.pop() {
            steps += 1;
            if steps > bound {
                return Err(AllocError::Impossible(format!(
                    "the backtracking allocator's work bound ({bound} bundle steps) ran out"
                )));
            }
            // Each bundle is queued once per time it loses its home (empty
            // ones never), and nothing but its own turn gives it one.
            debug_assert!(
                !self.bundles[k as usize].ranges.is_empty()
                    && self.bundles[k as usize].home == Home::None
            );
            self.process(k)?;
        }
        self.second_chance();
        Ok(())
    }

    /// The loop's state before any bundle is queued: the register maps
    /// with the reservations made, the registers to probe per class.
    fn new(
        ranges: Vec<LiveRange>,
        uses: &'a [Use],
        b: Bundles,
        env: &MachineEnv,
        reservations: &[(PReg, Point, Point)],
        spare: &mut Spare,
    ) -> Loop<'a> {
        let mut ever_reserved = [0u64; 3];
        for &(reg, _, _) in reservations.iter() {
            ever_reserved[reg.class().index()] |= 1 << reg.hw();
        }
        let maps = std::mem::take(&mut spare.maps).refill(reservations);
        let mut order = std::mem::take(&mut spare.order);
        let mut npreferred = [0; 3];
        for c in RegClass::ALL {
            order[c.index()].clear();
            order[c.index()].extend(env.allocatable(c));
            npreferred[c.index()] = env.preferred[c].len();
        }
        let mut queue = std::mem::take(&mut spare.queue);
        queue.clear();
        Loop {
            uses,
            ranges,
            bundles: b.bundles,
            spillsets: b.spillsets,
            range_bundle: b.range_bundle,
            maps,
            queue,
            spilled: reuse(&mut spare.spilled),
            order,
            npreferred,
            ever_reserved,
            conflicts: reuse(&mut spare.conflicts),
            cand: reuse(&mut spare.cand),
            to_spill: reuse(&mut spare.to_spill),
            forced: 0x9e37_79b9_7f4a_7c15,
            stats: LoopStats::default(),
        }
    }

    fn uses_of(&self, range: u32) -> &[Use] {
        let (a, b) = self.ranges[range as usize].uses;
        &self.uses[a as usize..b as usize]
    }

    /// Queues bundle `k` by its length and caches its requirement and its
    /// weight, which eviction decisions read; one pass over its uses.
    fn enqueue(&mut self, k: u32) {
        self.bundles[k as usize].join_runs();
        let b = &self.bundles[k as usize];
        if b.ranges.is_empty() {
            return;
        }
        let (mut req, mut at) = (Req::Top, 0);
        let (mut sum, mut len) = (0u64, 0u32);
        for &(f, t, x) in &b.ranges {
            len += t - f;
            for u in self.uses_of(x) {
                sum += u64::from(u.weight);
                if req != Req::Conflict {
                    req = req.meet(u.req);
                    if req == Req::Conflict {
                        at = u.point;
                    }
                }
            }
        }
        // A minimal bundle that a slot would do for never needs to evict:
        // it weighs what its uses weigh.
        let weight = if self.minimal(k) && req.needs_reg() {
            MINIMAL + 64 - self.choices(k, req)
        } else {
            (sum * 3 / (u64::from(len) + 3)).min(MAX_NORMAL) as u32
        };
        let b = &mut self.bundles[k as usize];
        b.req = (req, at);
        b.weight = weight;
        self.queue.push((len, k));
    }

    /// No split point lies strictly inside the bundle: it is one range
    /// with no `E` point inside. (Between two ranges a bundle can always be
    /// split, with no move, since two ranges of one value never touch
    /// inside a block.)
    fn minimal(&self, k: u32) -> bool {
        let b = &self.bundles[k as usize];
        if b.ranges.len() != 1 {
            return false;
        }
        let (from, to) = (b.ranges[0].0, b.ranges[0].1);
        let next_e = match from % 3 {
            0 => from + 1,
            1 => from + 3,
            _ => from + 2,
        };
        next_e >= to
    }

    /// How many registers bundle `k` may take that no reservation
    /// blocks: the tightness minimal bundles contend by. Reservations never
    /// change, so a bundle that fits in one register only must win over
    /// one that merely accepts fewer registers on paper.
    fn choices(&self, k: u32, req: Req) -> u32 {
        let mask = match req {
            Req::Fixed(_) | Req::Pinned(_) => return 1,
            Req::Regs(m) => m,
            _ => u64::MAX,
        };
        let runs = &self.bundles[k as usize].runs;
        let c = self.class(k).index();
        let mut n = 0;
        for &r in &self.order[c] {
            if mask & (1 << r.hw()) == 0 {
                continue;
            }
            if self.ever_reserved[c] & (1 << r.hw()) == 0 {
                n += 1;
                continue;
            }
            let mut reserved = false;
            self.maps.overlaps_all(r, runs, |_, owner| {
                reserved |= owner == RESERVED;
                !reserved
            });
            n += u32::from(!reserved);
        }
        n.min(64)
    }

    fn class(&self, k: u32) -> RegClass {
        self.spillsets[self.bundles[k as usize].spillset as usize].class
    }

    fn process(&mut self, k: u32) -> Result<(), AllocError> {
        let (req, at) = self.bundles[k as usize].req;
        match req {
            Req::Conflict => {
                let q = self.split_point(k, at);
                return self.split(k, q, None);
            }
            Req::Stack => {
                self.spill(k);
                return Ok(());
            }
            Req::Regs(0) => {
                return Err(AllocError::Impossible(format!(
                "a {} value must be in a register that `limit` excludes from every allocatable one",
                self.class(k)
            )))
            }
            Req::Top | Req::Any => {
                let ss = self.bundles[k as usize].spillset as usize;
                let sb = self.spillsets[ss].spill_bundle;
                if sb != NONE {
                    self.move_all_to_spill_bundle(k, sb);
                    return Ok(());
                }
            }
            _ => {}
        }
        let mut candidates = std::mem::take(&mut self.cand);
        self.candidates(k, req, &mut candidates);
        let done = self.place(k, req, &candidates);
        self.cand = candidates;
        done
    }

    /// Allocates, evicts or splits bundle `k`, probing `candidates`.
    fn place(&mut self, k: u32, req: Req, candidates: &[PReg]) -> Result<(), AllocError> {
        let weight = self.bundles[k as usize].weight;
        let mut best_evict: Option<(u32, PReg)> = None;
        let mut best_split: Option<(Point, PReg)> = None;
        for &r in candidates {
            let cutoff = best_evict.map_or(u32::MAX, |e| e.0);
            match self.probe(k, r, cutoff) {
                Probe::Free => {
                    self.assign(k, r);
                    return Ok(());
                }
                Probe::Busy { cost, first } => {
                    if cost < cutoff {
                        best_evict = Some((cost, r));
                    }
                    if best_split.is_none_or(|s| first > s.0) {
                        best_split = Some((first, r));
                    }
                }
            }
        }
        let minimal = self.minimal(k);
        if req.stack_ok() {
            match best_evict {
                Some((cost, r)) if weight > cost => self.evict_and_assign(k, r),
                _ => self.spilled.push(k),
            }
            return Ok(());
        }
        if !minimal && best_evict.is_none_or(|e| weight <= e.0) {
            let (first, r) = best_split.expect("a register was probed");
            let q = self.split_point(k, first);
            return self.split(k, q, Some(r));
        }
        match best_evict {
            Some((cost, r)) if weight > cost => {
                self.evict_and_assign(k, r);
                Ok(())
            }
            _ => {
                // Minimal, and every candidate is reserved or held by
                // bundles as heavy. First a register whose holders each
                // have another register free for them. Else one drawn at
                // random, so that no two bundles keep evicting each other
                // from the same register, among the cheapest and those
                // whose holders can move on by evicting lighter bundles
                // (which a heavier holder in the way may need to do).
                let mut options: Vec<(u32, PReg, Option<Relocations>)> = Vec::new();
                for &r in candidates {
                    if let Probe::Busy { cost, .. } = self.probe(k, r, u32::MAX) {
                        if cost != u32::MAX {
                            let moves = self.relocations(r);
                            if let Some((moves, false)) = moves {
                                self.relocate_and_assign(k, r, &moves);
                                return Ok(());
                            }
                            options.push((cost, r, moves.map(|m| m.0)));
                        }
                    }
                }
                let Some(least) = options.iter().map(|m| m.0).min() else {
                    return Err(AllocError::Impossible(self.describe_stuck(k, req)));
                };
                options.retain(|m| m.0 == least || m.2.is_some());
                let (_, r, moves) = options.swap_remove(self.draw(options.len()));
                match moves {
                    Some(moves) => self.relocate_and_assign(k, r, &moves),
                    None => self.evict_and_assign(k, r),
                }
                Ok(())
            }
        }
    }

    /// An index below `n`, drawn by a xorshift generator so that forced
    /// evictions among equally cheap registers rotate.
    fn draw(&mut self, n: usize) -> usize {
        self.forced ^= self.forced << 13;
        self.forced ^= self.forced >> 7;
        self.forced ^= self.forced << 17;
        (self.forced % n as u64) as usize
    }

    /// For every bundle in the way on `r` (as the last probe found them),
    /// another register it can take: free for all of it if one is, else
    /// held only by lighter bundles it evicts; `None` when one has neither.
    /// The flag says whether any holder evicts.
    fn relocations(&mut self, r: PReg) -> Option<(Relocations, bool)> {
        let holders = self.conflicts.clone();
        let mut alts = Vec::new();
        let mut moves = Vec::with_capacity(holders.len());
        let mut evicts = false;
        for &o in &holders {
            let (req, _) = self.bundles[o as usize].req;
            let weight = self.bundles[o as usize].weight;
            self.candidates(o, req, &mut alts);
            alts.retain(|&alt| alt != r);
            let free = alts.iter().copied().find(|&alt| self.is_free(o, alt));
            let alt = match free {
                Some(alt) => alt,
                None => {
                    evicts = true;
                    alts.iter().copied().find(|&alt| {
                        matches!(self.probe(o, alt, weight), Probe::Busy { cost, .. } if cost < weight)
                    })?
                }
            };
            moves.push((o, alt));
        }
        Some((moves, evicts))
    }

    /// Moves each holder of `r` to the register [`Loop::relocations`] found
    /// for it (evicting the lighter bundles there), then gives `r` to `k`.
    /// Done at once rather than by requeueing the holders: on their own
    /// turn they would probe `r` first and evict `k` back.
    fn relocate_and_assign(&mut self, k: u32, r: PReg, moves: &[(u32, PReg)]) {
        for &(o, alt) in moves {
            self.evict(o, r);
            self.evict_and_assign(o, alt);
        }
        self.assign(k, r);
    }

    fn describe_stuck(&self, k: u32, req: Req) -> String {
        let b = &self.bundles[k as usize];
        let lr = self.ranges[b.ranges[0].2 as usize];
        format!(
            "value {} (v{}) needs {:?} at points {}..{} (inst{}), where every such register is reserved",
            lr.value,
            lr.value,
            req,
            b.ranges[0].0,
            b.ranges[b.ranges.len() - 1].1,
            lr.from / 3
        )
    }

    /// Registers to probe: the hint, then preferred and non-preferred ones
    /// from an offset that spreads bundles over the registers.
    fn candidates(&self, k: u32, req: Req, out: &mut Vec<PReg>) {
        out.clear();
        let c = self.class(k).index();
        if let Req::Fixed(r) | Req::Pinned(r) = req {
            out.push(r);
            return;
        }
        let all = self.order[c].iter().fold(0u64, |m, r| m | 1 << r.hw());
        let mask = match req {
            Req::Regs(m) => m & all,
            _ => all,
        };
        let b = &self.bundles[k as usize];
        let hint = b
            .hint
            .or(self.spillsets[b.spillset as usize].hint)
            .filter(|r| r.class().index() == c && mask & (1 << r.hw()) != 0);
        out.extend(hint);
        let spread = k as usize + b.ranges[0].0 as usize;
        let (pref, nonpref) = self.order[c].split_at(self.npreferred[c]);
        for list in [pref, nonpref] {
            for j in 0..list.len() {
                let r = list[(spread + j) % list.len()];
                if mask & (1 << r.hw()) != 0 && Some(r) != hint {
                    out.push(r);
                }
            }
        }
    }

    /// Probes `r` for bundle `k`: free, or the cost of evicting what is
    /// there (stopping early once that exceeds `cutoff`) and the first
    /// conflict point.
    fn probe(&mut self, k: u32, r: PReg, cutoff: u32) -> Probe {
        let mut cost = 0u32;
        let mut first = Point::MAX;
        self.conflicts.clear();
        let conflicts = &mut self.conflicts;
        self.maps
            .overlaps_all(r, &self.bundles[k as usize].runs, |at, owner| {
                first = first.min(at);
                if owner == RESERVED {
                    cost = u32::MAX;
                } else if !conflicts.contains(&owner) {
                    conflicts.push(owner);
                }
                // Past a reservation only the earliest conflict matters:
                // it is found by the walk down the run that first met one
                // (a later run meets nothing earlier).
                cost != u32::MAX || at == first
            });
        if first == Point::MAX {
            return Probe::Free;
        }
        if cost != u32::MAX {
            for &o in &self.conflicts {
                cost = cost.max(self.bundles[o as usize].weight);
                if cost >= cutoff {
                    break;
                }
            }
        }
        Probe::Busy { cost, first }
    }

    /// Whether nothing occupies `r` over bundle `k`.
    fn is_free(&self, k: u32, r: PReg) -> bool {
        let mut free = true;
        self.maps
            .overlaps_all(r, &self.bundles[k as usize].runs, |_, _| {
                free = false;
                false
            });
        free
    }

    fn assign(&mut self, k: u32, r: PReg) {
        let b = &mut self.bundles[k as usize];
        b.home = Home::Reg(r);
        debug_assert!(b.runs_current(), "bundle {k} changed since it was queued");
        self.maps.insert_all(r, &b.runs, k);
        self.spillsets[b.spillset as usize].hint = Some(r);
    }

    fn evict_and_assign(&mut self, k: u32, r: PReg) {
        let b = &self.bundles[k as usize];
        self.conflicts.clear();
        let conflicts = &mut self.conflicts;
        self.maps.overlaps_all(r, &b.runs, |_, owner| {
            if owner != RESERVED && !conflicts.contains(&owner) {
                conflicts.push(owner);
            }
            true
        });
        for j in 0..self.conflicts.len() {
            let o = self.conflicts[j];
            self.evict(o, r);
            self.enqueue(o);
        }
        self.assign(k, r);
    }

    /// Takes bundle `o` out of register `r`, its home.
    fn evict(&mut self, o: u32, r: PReg) {
        let ob = &mut self.bundles[o as usize];
        self.maps.remove_all(r, &ob.runs, o);
        ob.home = Home::None;
        self.stats.evictions += 1;
    }

    fn spill(&mut self, k: u32) {
        let b = &mut self.bundles[k as usize];
        b.home = Home::Spilled;
        self.spillsets[b.spillset as usize].needed = true;
    }

    /// Bundles that may live on the stack get a register only if one is
    /// free over all of them; else their spill set's slot.
    fn second_chance(&mut self) {
        let list = std::mem::take(&mut self.spilled);
        for k in list {
            if self.bundles[k as usize].home != Home::None
                || self.bundles[k as usize].ranges.is_empty()
            {
                continue;
            }
            let b = &mut self.bundles[k as usize];
            b.ranges.sort_unstable_by_key(|r| r.0);
            b.join_runs();
            let mut cands = std::mem::take(&mut self.cand);
            self.candidates(k, Req::Any, &mut cands);
            let free = cands.iter().copied().find(|&r| self.is_free(k, r));
            self.cand = cands;
            if let Some(r) = free {
                self.stats.second_chance += 1;
                self.assign(k, r);
                continue;
            }
            self.spill(k);
        }
        debug_assert!(self
            .bundles
            .iter()
            .all(|b| b.ranges.is_empty() || b.home != Home::None));
    }
}

mod split;

#[cfg(test)]
mod tests;
