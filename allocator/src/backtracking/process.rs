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
use super::liveranges::{LiveRange, Use};
use super::points::{e_after_inst, e_at_or_before, is_e, Point};
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

pub fn run(
    ranges: Vec<LiveRange>,
    uses: &[Use],
    b: Bundles,
    env: &MachineEnv,
    reservations: &[(PReg, Point, Point)],
) -> Result<Allocated, AllocError> {
    let mut l = Loop::new(ranges, uses, b, env, reservations);
    for k in 0..l.bundles.len() {
        l.enqueue(k as u32);
    }
    let bound = 200_000 + 64 * l.ranges.len() as u64;
    let mut steps = 0u64;
    while let Some((_, k)) = l.queue.pop() {
        steps += 1;
        if steps > bound {
            return Err(AllocError::Impossible(format!(
                "the backtracking allocator's work bound ({bound} bundle steps) ran out"
            )));
        }
        // Each bundle is queued once per time it loses its home (empty
        // ones never), and nothing but its own turn gives it one.
        debug_assert!(
            !l.bundles[k as usize].ranges.is_empty() && l.bundles[k as usize].home == Home::None
        );
        l.process(k)?;
    }
    l.second_chance();
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
    /// The loop's state before any bundle is queued: the register maps
    /// with the reservations made, the registers to probe per class.
    fn new(
        ranges: Vec<LiveRange>,
        uses: &'a [Use],
        b: Bundles,
        env: &MachineEnv,
        reservations: &[(PReg, Point, Point)],
    ) -> Loop<'a> {
        let mut maps = RegMaps::new();
        let mut ever_reserved = [0u64; 3];
        for &(reg, from, to) in reservations {
            maps.reserve(reg, from, to);
            ever_reserved[reg.class().index()] |= 1 << reg.hw();
        }
        let mut order: [Vec<PReg>; 3] = Default::default();
        let mut npreferred = [0; 3];
        for c in RegClass::ALL {
            order[c.index()] = env.allocatable(c).collect();
            npreferred[c.index()] = env.preferred[c.index()].len();
        }
        Loop {
            uses,
            ranges,
            bundles: b.bundles,
            spillsets: b.spillsets,
            range_bundle: b.range_bundle,
            maps,
            queue: BinaryHeap::new(),
            spilled: Vec::new(),
            order,
            npreferred,
            ever_reserved,
            conflicts: Vec::new(),
            cand: Vec::new(),
            to_spill: Vec::new(),
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
        let ranges = &self.bundles[k as usize].ranges;
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
            for &(from, to, _) in ranges {
                self.maps.overlaps(r, from, to, |_, owner| {
                    reserved |= owner == RESERVED;
                    !reserved
                });
            }
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
        let b = &self.bundles[k as usize];
        for &(from, to, _) in &b.ranges {
            let conflicts = &mut self.conflicts;
            self.maps.overlaps(r, from, to, |at, owner| {
                first = first.min(at);
                if owner == RESERVED {
                    cost = u32::MAX;
                } else if !conflicts.contains(&owner) {
                    conflicts.push(owner);
                }
                true
            });
            if cost == u32::MAX {
                break;
            }
        }
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
        for &(from, to, _) in &self.bundles[k as usize].ranges {
            self.maps.overlaps(r, from, to, |_, _| {
                free = false;
                false
            });
            if !free {
                return false;
            }
        }
        true
    }

    fn assign(&mut self, k: u32, r: PReg) {
        let b = &mut self.bundles[k as usize];
        b.home = Home::Reg(r);
        for &(from, to, _) in &b.ranges {
            self.maps.insert(r, from, to, k);
        }
        self.spillsets[b.spillset as usize].hint = Some(r);
    }

    fn evict_and_assign(&mut self, k: u32, r: PReg) {
        let b = &self.bundles[k as usize];
        self.conflicts.clear();
        let conflicts = &mut self.conflicts;
        for &(from, to, _) in &b.ranges {
            self.maps.overlaps(r, from, to, |_, owner| {
                if owner != RESERVED && !conflicts.contains(&owner) {
                    conflicts.push(owner);
                }
                true
            });
        }
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
        for &(from, _, _) in &ob.ranges {
            self.maps.remove(r, from);
        }
        ob.home = Home::None;
        self.stats.evictions += 1;
    }

    fn spill(&mut self, k: u32) {
        let b = &mut self.bundles[k as usize];
        b.home = Home::Spilled;
        self.spillsets[b.spillset as usize].needed = true;
    }

    /// The split point for a conflict at `at`: the last point at or before
    /// it where the bundle can be split (an `E` point inside a range, or the
    /// start of a range that is not the first); when there is none, the
    /// first such point around its first constrained use.
    fn split_point(&self, k: u32, at: Point) -> Point {
        let ranges = &self.bundles[k as usize].ranges;
        let inside = |j: usize, q: Point| q > ranges[j].0 && q < ranges[j].1 && is_e(q);
        // The range holding `at`, or the first one after it.
        let j = ranges.partition_point(|r| r.1 <= at).min(ranges.len() - 1);
        if let Some(q) = e_at_or_before(at).filter(|&q| inside(j, q)) {
            return q;
        }
        if j > 0 {
            return ranges[j].0;
        }
        let (j, first_use) = ranges
            .iter()
            .enumerate()
            .find_map(|(j, &(_, _, x))| {
                self.uses_of(x)
                    .iter()
                    .find(|u| u.req != Req::Top)
                    .map(|u| (j, u.point))
            })
            .unwrap_or((0, ranges[0].0));
        if let Some(q) = e_at_or_before(first_use).filter(|&q| inside(j, q)) {
            return q;
        }
        if j > 0 {
            return ranges[j].0;
        }
        let q = e_after_inst(first_use);
        if inside(j, q) {
            return q;
        }
        debug_assert!(ranges.len() > 1, "a minimal bundle is never split");
        ranges[1].0
    }

    fn spill_bundle(&mut self, ss: u32) -> u32 {
        let sb = self.spillsets[ss as usize].spill_bundle;
        if sb != NONE {
            return sb;
        }
        let sb = self.bundles.len() as u32;
        self.bundles.push(Bundle {
            ranges: Vec::new(),
            home: Home::None,
            spillset: ss,
            hint: None,
            weight: 0,
            req: (Req::Top, 0),
        });
        self.spillsets[ss as usize].spill_bundle = sb;
        self.spilled.push(sb);
        sb
    }

    fn move_all_to_spill_bundle(&mut self, k: u32, sb: u32) {
        let moved = std::mem::take(&mut self.bundles[k as usize].ranges);
        for &(_, _, x) in &moved {
            self.range_bundle[x as usize] = sb;
        }
        self.bundles[sb as usize].ranges.extend(moved);
    }

    /// Splits range `x` at `q`: `x` keeps `[from, q)`, the new range gets
    /// `[q, to)` and the uses from `q` on.
    fn split_range(&mut self, x: u32, q: Point) -> u32 {
        let lr = self.ranges[x as usize];
        debug_assert!(lr.from < q && q < lr.to);
        let (a, b) = lr.uses;
        let mid = a + self.uses[a as usize..b as usize].partition_point(|u| u.point < q) as u32;
        self.ranges[x as usize].to = q;
        self.ranges[x as usize].uses = (a, mid);
        let y = self.ranges.len() as u32;
        self.ranges.push(LiveRange {
            from: q,
            to: lr.to,
            value: lr.value,
            uses: (mid, b),
        });
        self.range_bundle.push(self.range_bundle[x as usize]);
        y
    }

    /// Splits bundle `k` at `q` into `[.., q)` and `[q, ..)`, moves the ends
    /// around the split that no operand constrains into the spill bundle,
    /// and requeues both halves with `hint`.
    fn split(&mut self, k: u32, q: Point, hint: Option<PReg>) -> Result<(), AllocError> {
        self.stats.splits += 1;
        let mut first = std::mem::take(&mut self.bundles[k as usize].ranges);
        debug_assert!(
            first[0].0 < q && q < first[first.len() - 1].1,
            "split at {q} outside the bundle"
        );
        let at = first.partition_point(|r| r.1 <= q);
        let mut second = first.split_off(at);
        if let Some(&(from, to, x)) = second.first() {
            if from < q {
                let y = self.split_range(x, q);
                first.push((from, q, x));
                second[0] = (q, to, y);
            }
        }
        let ss = self.bundles[k as usize].spillset;
        let mut to_spill = std::mem::take(&mut self.to_spill);
        to_spill.clear();
        // Tail of the first half.
        while let Some(&(from, to, x)) = first.last() {
            match self
                .uses_of(x)
                .iter()
                .rev()
                .find(|u| u.req != Req::Top)
                .map(|u| u.point)
            {
                None => {
                    to_spill.push((from, to, x));
                    first.pop();
                }
                Some(last) => {
                    let cut = e_after_inst(last);
                    if cut < to {
                        let y = self.split_range(x, cut);
                        to_spill.push((cut, to, y));
                        first.last_mut().expect("nonempty").1 = cut;
                    }
                    break;
                }
            }
        }
        // Head of the second half.
        let mut skip = 0;
        while skip < second.len() {
            let (from, to, x) = second[skip];
            match self
                .uses_of(x)
                .iter()
                .find(|u| u.req != Req::Top)
                .map(|u| u.point)
            {
                None => {
                    to_spill.push((from, to, x));
                    skip += 1;
                }
                Some(p) => {
                    if let Some(cut) = e_at_or_before(p).filter(|&c| c > from) {
                        let y = self.split_range(x, cut);
                        // `x` keeps the head; the rest is `y`.
                        to_spill.push((from, cut, x));
                        second[skip] = (cut, to, y);
                    }
                    break;
                }
            }
        }
        second.drain(..skip);
        if !to_spill.is_empty() {
            let sb = self.spill_bundle(ss);
            for &(_, _, x) in &to_spill {
                self.range_bundle[x as usize] = sb;
            }
            self.bundles[sb as usize]
                .ranges
                .extend_from_slice(&to_spill);
        }
        self.to_spill = to_spill;
        self.bundles[k as usize].ranges = first;
        self.bundles[k as usize].hint = hint;
        let nk = self.bundles.len() as u32;
        for &(_, _, x) in &second {
            self.range_bundle[x as usize] = nk;
        }
        self.bundles.push(Bundle {
            ranges: second,
            home: Home::None,
            spillset: ss,
            hint,
            weight: 0,
            req: (Req::Top, 0),
        });
        self.enqueue(k);
        self.enqueue(nk);
        Ok(())
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
            self.bundles[k as usize]
                .ranges
                .sort_unstable_by_key(|r| r.0);
            let mut cands = Vec::new();
            self.candidates(k, Req::Any, &mut cands);
            if let Some(r) = cands.iter().copied().find(|&r| self.is_free(k, r)) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backtracking::points::{e, l, m};
    use crate::ir::index::Inst;

    fn int(hw: usize) -> PReg {
        PReg::new(hw, RegClass::Int)
    }

    /// A machine whose int line is `ints` (one float and one vector
    /// register besides).
    fn machine(ints: &str) -> MachineEnv {
        crate::fixtures::case_on(
            [ints, "p0f", "p0v"],
            "function\n  block0:\n    inst0: ret\nend\n",
        )
        .machine
    }

    /// A loop over one int spill set whose bundles hold the ranges given
    /// (each `(from, to)` a range of value 0 with the uses in `uses` that
    /// fall inside it), on int registers `ints`, with `reserved` made.
    fn with_loop(
        ints: &str,
        bundles: &[&[(Point, Point)]],
        uses: &[Use],
        reserved: &[(PReg, Point, Point)],
        check: impl FnOnce(&mut Loop),
    ) {
        let (ranges, b) = parts(bundles, uses);
        let mut l = Loop::new(ranges, uses, b, &machine(ints), reserved);
        check(&mut l);
    }

    /// The ranges and bundles [`with_loop`] describes.
    fn parts(bundles: &[&[(Point, Point)]], uses: &[Use]) -> (Vec<LiveRange>, Bundles) {
        let mut ranges = Vec::new();
        let mut bs = Vec::new();
        let mut range_bundle = Vec::new();
        for (k, rs) in bundles.iter().enumerate() {
            let mut own = Vec::new();
            for &(from, to) in rs.iter() {
                let a = uses.partition_point(|u| u.point < from) as u32;
                let b = uses.partition_point(|u| u.point < to) as u32;
                own.push((from, to, ranges.len() as u32));
                ranges.push(LiveRange {
                    from,
                    to,
                    value: 0,
                    uses: (a, b),
                });
                range_bundle.push(k as u32);
            }
            bs.push(Bundle {
                ranges: own,
                home: Home::None,
                spillset: 0,
                hint: None,
                weight: 0,
                req: (Req::Top, 0),
            });
        }
        let b = Bundles {
            bundles: bs,
            spillsets: vec![SpillSet {
                class: RegClass::Int,
                values: vec![0],
                hint: None,
                spill_bundle: NONE,
                needed: false,
            }],
            range_bundle,
        };
        (ranges, b)
    }

    fn at(point: Point, req: Req, weight: u32) -> Use {
        Use {
            point,
            slot: 0,
            req,
            weight,
        }
    }

    #[test]
    fn minimal_bundles_have_no_split_point_inside() {
        let i = Inst::new(1);
        let shapes: [&[(Point, Point)]; 8] = [
            &[(m(i), e(i) + 1)],
            &[(e(i), l(i) + 1)],
            &[(l(i), e(i) + 3)],
            &[(l(i), e(i) + 4)],
            &[(e(i), e(i) + 1), (l(i), l(i) + 1)],
            &[(e(i), l(i))],
            &[(m(i), e(i))],
            &[(e(i), e(i) + 3)],
        ];
        with_loop("p0i-p1i", &shapes, &[], &[], |lp| {
            let got: Vec<bool> = (0..8).map(|k| lp.minimal(k)).collect();
            assert_eq!(got, [false, true, true, false, false, true, true, true]);
        });
    }

    #[test]
    fn choices_count_registers_no_reservation_blocks() {
        let bundles: [&[(Point, Point)]; 2] = [&[(2, 5)], &[(10, 12)]];
        with_loop("p0i-p2i", &bundles, &[], &[(int(1), 0, 10)], |lp| {
            assert_eq!(lp.choices(0, Req::Regs(0b111)), 2);
            assert_eq!(lp.choices(0, Req::Regs(0b011)), 1);
            assert_eq!(lp.choices(0, Req::Regs(0b110)), 1);
            assert_eq!(lp.choices(0, Req::Any), 2);
            assert_eq!(lp.choices(0, Req::Fixed(int(2))), 1);
            assert_eq!(lp.choices(1, Req::Regs(0b111)), 3);
        });
        // A reservation found behind a bundle's range still counts.
        let bundles: [&[(Point, Point)]; 2] = [&[(2, 12)], &[(6, 8)]];
        with_loop("p0i-p1i", &bundles, &[], &[(int(1), 0, 4)], |lp| {
            lp.assign(1, int(1));
            assert_eq!(lp.choices(0, Req::Any), 1);
        });
    }

    #[test]
    fn queued_bundles_carry_requirement_weight_and_length() {
        let uses = [
            at(4, Req::Regs(0b11), 1000),
            at(7, Req::Any, 1500),
            at(10, Req::Fixed(int(0)), 2000),
            at(13, Req::Stack, 0),
        ];
        let bundles: [&[(Point, Point)]; 3] = [&[(2, 8)], &[(8, 14)], &[(4, 6)]];
        with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
            for k in 0..3 {
                lp.enqueue(k);
            }
            let b = &lp.bundles;
            // 2500 * 3 / (6 + 3)
            assert_eq!((b[0].req, b[0].weight), ((Req::Regs(0b11), 0), 833));
            // Fixed meets Stack as a conflict, at the stack use.
            assert_eq!((b[1].req, b[1].weight), ((Req::Conflict, 13), 666));
            // Minimal, needs a register: above every other weight.
            assert_eq!(b[2].weight, MINIMAL + 64 - 2);
            assert_eq!(lp.queue.pop(), Some((6, 1)));
            assert_eq!(lp.queue.pop(), Some((6, 0)));
            assert_eq!(lp.queue.pop(), Some((2, 2)));
        });
    }

    #[test]
    fn split_points_at_or_before_the_conflict() {
        let uses = [at(10, Req::Regs(0b1), 1000), at(16, Req::Regs(0b1), 1000)];
        let bundles: [&[(Point, Point)]; 2] = [&[(1, 20)], &[(1, 5), (7, 20)]];
        with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
            // The `E` point at or before the conflict, inside the range.
            assert_eq!(lp.split_point(0, 11), 10);
            assert_eq!(lp.split_point(0, 13), 13);
            // At the start of a range that is not the first.
            assert_eq!(lp.split_point(1, 7), 7);
            assert_eq!(lp.split_point(1, 6), 7);
            // At the first range's start: before the first constrained use.
            assert_eq!(lp.split_point(0, 1), 10);
            assert_eq!(lp.split_point(1, 3), 10);
            // Past the end: the last `E` point inside.
            assert_eq!(lp.split_point(0, 20), 19);
        });
        let bundles: [&[(Point, Point)]; 2] = [&[(1, 10)], &[(1, 5), (7, 20)]];
        with_loop(
            "p0i-p1i",
            &bundles,
            &[at(7, Req::Regs(0b1), 1000)],
            &[],
            |lp| {
                // Never at a range's end; a use starting a later range splits
                // at that range's start.
                assert_eq!(lp.split_point(0, 10), 7);
                assert_eq!(lp.split_point(1, 3), 7);
            },
        );
    }

    /// Sets bundle `k`'s weight and requirement and, given a register,
    /// places it there.
    fn held(lp: &mut Loop, k: u32, weight: u32, req: Req, r: Option<PReg>) {
        lp.bundles[k as usize].weight = weight;
        lp.bundles[k as usize].req = (req, 0);
        if let Some(r) = r {
            lp.assign(k, r);
        }
    }

    #[test]
    fn probes_find_the_heaviest_holder_and_the_first_conflict() {
        let bundles: [&[(Point, Point)]; 5] = [
            &[(4, 10)],
            &[(6, 8)],
            &[(9, 12)],
            &[(20, 22)],
            &[(5, 7), (7, 9)],
        ];
        with_loop("p0i-p1i", &bundles, &[], &[(int(1), 5, 7)], |lp| {
            held(lp, 1, 300, Req::Any, Some(int(0)));
            held(lp, 2, 100, Req::Any, Some(int(0)));
            let busy = |p: Probe| match p {
                Probe::Busy { cost, first } => Some((cost, first)),
                Probe::Free => None,
            };
            assert_eq!(busy(lp.probe(0, int(0), u32::MAX)), Some((300, 6)));
            assert_eq!(lp.conflicts, [2, 1]);
            // Once the cost reaches the cutoff, later holders are not weighed.
            assert_eq!(busy(lp.probe(0, int(0), 100)), Some((100, 6)));
            // A holder met by two ranges is one conflict.
            assert_eq!(busy(lp.probe(4, int(0), u32::MAX)), Some((300, 6)));
            assert_eq!(lp.conflicts, [1]);
            // A reservation cannot be evicted.
            assert_eq!(busy(lp.probe(0, int(1), u32::MAX)), Some((u32::MAX, 5)));
            assert_eq!(busy(lp.probe(3, int(0), u32::MAX)), None);
            assert_eq!(busy(lp.probe(3, int(1), u32::MAX)), None);
            assert!(!lp.is_free(0, int(0)) && !lp.is_free(0, int(1)));
            assert!(lp.is_free(3, int(0)) && !lp.is_free(4, int(1)));
        });
    }

    #[test]
    fn candidates_start_at_the_hint_then_spread_over_each_list() {
        let bundles: [&[(Point, Point)]; 3] = [&[(4, 6)], &[(5, 7)], &[(9, 10)]];
        let regs = |lp: &Loop, k: u32, req: Req| {
            let mut out = Vec::new();
            lp.candidates(k, req, &mut out);
            out.iter().map(|r| r.hw()).collect::<Vec<_>>()
        };
        with_loop("p0i-p2i nonpreferred p3i-p4i", &bundles, &[], &[], |lp| {
            // From bundle + start: preferred from that mod 3, others mod 2.
            assert_eq!(regs(lp, 0, Req::Any), [1, 2, 0, 3, 4]);
            assert_eq!(regs(lp, 1, Req::Any), [0, 1, 2, 3, 4]);
            assert_eq!(regs(lp, 2, Req::Any), [2, 0, 1, 4, 3]);
            assert_eq!(regs(lp, 0, Req::Fixed(int(4))), [4]);
            lp.spillsets[0].hint = Some(int(3));
            assert_eq!(regs(lp, 0, Req::Any), [3, 1, 2, 0, 4]);
            lp.bundles[0].hint = Some(int(2));
            assert_eq!(regs(lp, 0, Req::Any), [2, 1, 0, 3, 4]);
            // A hint outside the mask or the class is not probed.
            assert_eq!(regs(lp, 0, Req::Regs(0b11010)), [1, 3, 4]);
            lp.bundles[0].hint = Some(PReg::new(0, RegClass::Float));
            assert_eq!(regs(lp, 0, Req::Any), [1, 2, 0, 3, 4]);
        });
    }

    /// Bundle 0 (`Any`, weight `w0`) against holders of `p0` and `p1`
    /// weighing `w1` and `w2`: its home, the spilled list, the evictions.
    fn stack_ok_place(w0: u32, w1: u32, w2: u32) -> (Home, Home, Home, Vec<u32>, u64) {
        let bundles: [&[(Point, Point)]; 3] = [&[(4, 10)], &[(6, 8)], &[(7, 9)]];
        let mut got = None;
        with_loop("p0i-p1i", &bundles, &[], &[], |lp| {
            held(lp, 0, w0, Req::Any, None);
            held(lp, 1, w1, Req::Any, Some(int(0)));
            held(lp, 2, w2, Req::Any, Some(int(1)));
            lp.process(0).unwrap();
            let h = |k: usize| lp.bundles[k].home;
            got = Some((h(0), h(1), h(2), lp.spilled.clone(), lp.stats.evictions));
        });
        got.unwrap()
    }

    #[test]
    fn a_bundle_a_slot_will_do_evicts_only_lighter_holders() {
        let (p0, p1) = (Home::Reg(int(0)), Home::Reg(int(1)));
        // The cheapest register to clear, if lighter than the bundle.
        assert_eq!(stack_ok_place(50, 100, 30), (p1, p0, Home::None, vec![], 1));
        // Of equally cheap ones, the first probed (the spill set's hint,
        // p1, where its last piece went).
        assert_eq!(stack_ok_place(50, 30, 30), (p1, p0, Home::None, vec![], 1));
        // As heavy as the cheapest holder: no eviction; on the stack for now.
        assert_eq!(
            stack_ok_place(30, 100, 30),
            (Home::None, p0, p1, vec![0], 0)
        );
    }

    #[test]
    fn a_bundle_needing_a_register_evicts_lighter_holders_else_splits() {
        let uses = [at(7, Req::Regs(0b11), 1000), at(13, Req::Regs(0b11), 1000)];
        let bundles: [&[(Point, Point)]; 3] = [&[(4, 16)], &[(6, 8)], &[(12, 14)]];
        let setup = |lp: &mut Loop, w2: u32| {
            held(lp, 0, 500, Req::Regs(0b11), None);
            held(lp, 1, 1000, Req::Any, Some(int(0)));
            held(lp, 2, w2, Req::Any, Some(int(1)));
            lp.process(0).unwrap();
        };
        with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
            setup(lp, 400);
            assert_eq!(lp.bundles[0].home, Home::Reg(int(1)));
            assert_eq!(lp.bundles[2].home, Home::None);
            assert_eq!((lp.stats.evictions, lp.stats.splits), (1, 0));
        });
        // Conflicts on both at 6: the first probed is the hint.
        let tie: [&[(Point, Point)]; 3] = [&[(4, 16)], &[(6, 8)], &[(6, 8)]];
        with_loop("p0i-p1i", &tie, &uses, &[], |lp| {
            setup(lp, 1000);
            // Split before the first use: all of the first half goes to
            // the spill bundle.
            assert!(lp.bundles[0].ranges.is_empty());
            assert_eq!(lp.bundles[3].ranges, [(4, 7, 0)]);
            assert_eq!(lp.bundles[4].ranges, [(7, 16, 3)]);
            assert_eq!(lp.bundles[4].hint, Some(int(1)));
        });
        with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
            setup(lp, 500);
            assert_eq!((lp.stats.evictions, lp.stats.splits), (0, 1));
            // Split at the `E` point before the later first conflict (on
            // p1, at 12), both halves hinted to p1; the stretch up to the
            // second half's first use needs no register.
            let b = &lp.bundles;
            assert_eq!(b.len(), 5);
            assert_eq!(
                (b[0].ranges.as_slice(), b[0].hint),
                (&[(4, 10, 0)][..], Some(int(1)))
            );
            assert_eq!(b[3].ranges, [(10, 13, 3)]);
            assert_eq!(
                (b[4].ranges.as_slice(), b[4].hint),
                (&[(13, 16, 4)][..], Some(int(1)))
            );
            assert_eq!(
                (lp.spillsets[0].spill_bundle, lp.spilled.as_slice()),
                (3, &[3][..])
            );
            assert_eq!(lp.range_bundle, [0, 1, 2, 3, 4]);
            let r = |x: usize| (lp.ranges[x].from, lp.ranges[x].to, lp.ranges[x].uses);
            assert_eq!(
                [r(0), r(3), r(4)],
                [(4, 10, (0, 1)), (10, 13, (1, 1)), (13, 16, (1, 2))]
            );
            assert!(lp.queue.iter().any(|&q| q == (6, 0)));
            assert!(lp.queue.iter().any(|&q| q == (3, 4)));
        });
    }

    #[test]
    fn split_halves_send_their_unconstrained_ends_to_the_spill_bundle() {
        let uses = [at(5, Req::Regs(0b1), 1000), at(20, Req::Regs(0b1), 1000)];
        let bundles: [&[(Point, Point)]; 1] = [&[(4, 8), (10, 14), (16, 22)]];
        with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
            lp.split(0, 10, None).unwrap();
            let b = &lp.bundles;
            // After the last use of the first half, the next E point on.
            assert_eq!(b[0].ranges, [(4, 7, 0)]);
            // The whole middle range, and the second half up to its use.
            assert_eq!(b[1].ranges, [(7, 8, 3), (10, 14, 1), (16, 19, 2)]);
            assert_eq!(b[2].ranges, [(19, 22, 4)]);
            assert_eq!(lp.range_bundle, [0, 1, 1, 1, 2]);
        });
        let bundles: [&[(Point, Point)]; 1] = [&[(4, 22)]];
        let uses = [at(7, Req::Regs(0b1), 1000), at(19, Req::Regs(0b1), 1000)];
        with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
            lp.split(0, 13, Some(int(1))).unwrap();
            let b = &lp.bundles;
            assert_eq!(b[0].ranges, [(4, 10, 0)]);
            assert_eq!(b[1].ranges, [(10, 13, 2), (13, 19, 1)]);
            assert_eq!(b[2].ranges, [(19, 22, 3)]);
            assert_eq!(
                (b[0].hint, b[1].hint, b[2].hint),
                (Some(int(1)), None, Some(int(1)))
            );
        });
        // No use after the split: the whole second half needs no register.
        let uses = [at(7, Req::Regs(0b1), 1000)];
        with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
            lp.split(0, 13, None).unwrap();
            let b = &lp.bundles;
            assert_eq!(b[0].ranges, [(4, 10, 0)]);
            assert_eq!(b[1].ranges, [(10, 13, 2), (13, 22, 1)]);
            assert!(b[2].ranges.is_empty());
        });
    }

    /// Minimal bundle 0 (may take p0 or p1, probed in that order: p1
    /// first) against a holder of p1 fixed there weighing `w1` and a holder
    /// of p0 weighing `w2` that may also take `alts`: the register it got,
    /// and where the holder it put out went (`Home::None`: requeued).
    fn minimal_place(w1: u32, w2: u32, alts: u64) -> (PReg, Home) {
        let bundles: [&[(Point, Point)]; 3] = [&[(4, 6)], &[(3, 8)], &[(3, 8)]];
        let mut got = None;
        with_loop("p0i-p2i", &bundles, &[], &[], |lp| {
            held(lp, 0, MINIMAL + 62, Req::Regs(0b11), None);
            held(lp, 1, w1, Req::Fixed(int(1)), Some(int(1)));
            held(lp, 2, w2, Req::Regs(alts), Some(int(0)));
            lp.spillsets[0].hint = None;
            assert!(lp.minimal(0));
            lp.process(0).unwrap();
            assert!(lp.stats.evictions >= 1 && lp.stats.splits == 0);
            let Home::Reg(r) = lp.bundles[0].home else {
                panic!("no register");
            };
            let other = if r == int(0) { 2 } else { 1 };
            got = Some((r, lp.bundles[other].home));
        });
        got.unwrap()
    }

    #[test]
    fn a_minimal_bundle_evicts_lighter_holders_else_forces_movable_ones_out() {
        let requeued = |r: usize| (int(r), Home::None);
        // A lighter holder goes, even one that cannot move.
        assert_eq!(minimal_place(5, MINIMAL + 64, 0b111), requeued(1));
        // Holders as heavy or heavier: first a register whose holders may
        // move to a free one (p0's to p2, at once) ...
        let moved = (int(0), Home::Reg(int(2)));
        assert_eq!(minimal_place(MINIMAL + 62, MINIMAL + 64, 0b111), moved);
        assert_eq!(minimal_place(MINIMAL + 63, MINIMAL + 64, 0b111), moved);
        // ... else the cheapest (p0's may only take p1, held by a heavier
        // bundle).
        assert_eq!(
            minimal_place(MINIMAL + 64, MINIMAL + 63, 0b011),
            requeued(0)
        );
        // Or, drawn among those, a register whose holder moves on by
        // evicting a lighter bundle (p0's takes p1 from a lighter holder).
        let mut seen = [false; 2];
        for (w1, w2) in [(MINIMAL + 63, MINIMAL + 64), (MINIMAL + 62, MINIMAL + 64)] {
            let (r, home) = minimal_place(w1, w2, 0b011);
            if r == int(0) {
                assert_eq!(home, Home::Reg(int(1)));
                seen[0] = true;
            } else {
                assert_eq!(home, Home::None);
                seen[1] = true;
            }
        }
        assert!(seen[0], "no holder moved on");
    }

    #[test]
    fn a_minimal_bundle_with_every_register_reserved_is_impossible() {
        let reserved = [(int(0), 3, 7), (int(1), 3, 7)];
        with_loop("p0i-p1i", &[&[(4, 6)]], &[], &reserved, |lp| {
            held(lp, 0, MINIMAL + 62, Req::Regs(0b11), None);
            let Err(AllocError::Impossible(m)) = lp.process(0) else {
                panic!("placed");
            };
            assert_eq!(
                m,
                "value 0 (v0) needs Regs(3) at points 4..6 (inst1), where every such register is reserved"
            );
        });
    }

    #[test]
    fn forced_choices_rotate() {
        with_loop("p0i-p1i", &[&[(4, 6)]], &[], &[], |lp| {
            // Marsaglia's xorshift64 (13, 7, 17), from the loop's seed.
            lp.draw(1);
            assert_eq!(lp.forced, 0xdc1b_77ae_0bf3_4dad);
            lp.draw(1);
            assert_eq!(lp.forced, 0x64f0_eeb9_026e_6076);
            for n in [2, 3, 5] {
                let mut seen = vec![false; n];
                for _ in 0..64 {
                    seen[lp.draw(n)] = true;
                }
                assert!(seen.iter().all(|&s| s), "{n}: {seen:?}");
            }
        });
    }

    #[test]
    fn each_requirement_takes_its_own_path() {
        let uses = [at(28, Req::Fixed(int(0)), 1000), at(31, Req::Stack, 0)];
        let bundles: [&[(Point, Point)]; 4] =
            [&[(4, 6)], &[(10, 12)], &[(13, 16), (19, 22)], &[(25, 34)]];
        with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
            held(lp, 0, 10, Req::Stack, None);
            lp.process(0).unwrap();
            assert_eq!(lp.bundles[0].home, Home::Spilled);
            assert!(lp.spillsets[0].needed);

            held(lp, 1, 10, Req::Regs(0), None);
            let Err(AllocError::Impossible(m)) = lp.process(1) else {
                panic!("placed");
            };
            assert!(m.contains("that `limit` excludes"), "{m}");

            let sb = lp.spill_bundle(0);
            assert_eq!((sb, lp.spill_bundle(0)), (4, 4));
            held(lp, 2, 10, Req::Any, None);
            lp.process(2).unwrap();
            assert!(lp.bundles[2].ranges.is_empty());
            assert_eq!(lp.bundles[4].ranges, [(13, 16, 2), (19, 22, 3)]);
            assert_eq!(lp.range_bundle[2..4], [4, 4]);

            lp.bundles[3].req = (Req::Conflict, 31);
            lp.process(3).unwrap();
            assert_eq!(lp.bundles[3].ranges, [(25, 31, 4)]);
            assert_eq!(lp.bundles[5].ranges, [(31, 34, 5)]);
            assert_eq!(lp.stats.splits, 1);
        });
    }

    #[test]
    fn second_chance_takes_a_register_free_for_the_whole_bundle() {
        let bundles: [&[(Point, Point)]; 4] = [&[(10, 12), (4, 6)], &[(4, 8)], &[(4, 8)], &[]];
        with_loop("p0i-p1i", &bundles, &[], &[], |lp| {
            held(lp, 1, 10, Req::Any, Some(int(0)));
            lp.spilled = vec![0, 1, 2, 3];
            lp.second_chance();
            let b = &lp.bundles;
            assert_eq!(b[0].ranges, [(4, 6, 1), (10, 12, 0)]);
            assert_eq!(b[0].home, Home::Reg(int(1)));
            assert_eq!(b[1].home, Home::Reg(int(0)));
            assert_eq!(b[2].home, Home::Spilled);
            assert_eq!(b[3].home, Home::None);
            assert_eq!(lp.stats.second_chance, 1);
            assert!(lp.spillsets[0].needed);
        });
    }

    #[test]
    fn bundle_weights_are_capped_below_minimal_ones() {
        let uses = [at(2, Req::Any, u32::MAX), at(4, Req::Any, 900)];
        let bundles: [&[(Point, Point)]; 2] = [&[(1, 4)], &[(4, 6)]];
        with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
            lp.enqueue(0);
            lp.enqueue(1);
            assert_eq!(lp.bundles[0].weight, (1 << 29) - 1);
            // Minimal, but a slot will do: weighed by its uses.
            assert!(lp.minimal(1));
            assert_eq!(lp.bundles[1].weight, 900 * 3 / (2 + 3));
        });
    }

    #[test]
    fn minimal_bundles_that_cannot_all_be_placed_run_out_the_work_bound() {
        let uses = [at(4, Req::Fixed(int(0)), 1000)];
        let (ranges, b) = parts(&[&[(4, 6)], &[(4, 6)]], &uses);
        let Err(AllocError::Impossible(m)) = run(ranges, &uses, b, &machine("p0i-p1i"), &[]) else {
            panic!("allocated");
        };
        assert!(m.contains("work bound (200128 bundle steps)"), "{m}");
    }
}
