//! Simplify and select (Chaitin, with Briggs' optimistic push): groups whose
//! degree is below the number of registers in their mask are removed first;
//! when none is left, the one with the lowest score (C2's cost-against-area
//! score, seed 004) is pushed anyway. Popping, each group takes a register
//! of its mask that no coloured neighbour holds, its hint first; a group
//! left without one is an actual spill and lives in a stack slot.

use super::graph::Graph;
use super::split::Splitter;

/// C2's `RegisterCostAreaRatio` scaled by 1/65536.
const AREA_RATIO: f64 = 16000.0 / 65536.0;

/// A group's score: high keeps it in a register. Cost less a share of the
/// area (a long range frees more when spilled), with C2's special cases: no
/// area (never spill), spilled before (unlikely to help again), and a
/// small area against the cost.
pub fn score(cost: f64, area: f64, spilled_before: bool) -> f64 {
    let raw = cost - area * AREA_RATIO;
    if area == 0.0 {
        return 1e35;
    }
    if spilled_before {
        return raw + 1e30;
    }
    if cost >= area * 3.0 {
        return raw + 1e17;
    }
    if cost + cost >= area * 3.0 {
        return raw + 1e10;
    }
    raw
}

/// Where each group lives: a register, or the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Home {
    Reg(u8),
    Stack,
}

impl Home {
    /// The register, if any.
    pub fn reg(self) -> Option<u8> {
        match self {
            Home::Reg(h) => Some(h),
            Home::Stack => None,
        }
    }
}

/// Colours every group of `g`; `forced[r]` groups live on the stack without
/// trying (spilled by an earlier round), and so do groups nothing needs in
/// a register. A group that finds no register
/// asks `splitter`, if given, whether the holders of one can step aside for
/// it (passive splitting).
pub fn color(g: &Graph, forced: &[bool], mut splitter: Option<&mut Splitter>) -> Colouring {
    let n = g.n;
    let reps: Vec<usize> = (0..n).filter(|&v| g.find(v) == v).collect();
    let mut degree = vec![0u32; n];
    let mut removed = vec![true; n];
    for &r in &reps {
        if !forced[r] && g.mask[r] != 0 && g.in_register[r] {
            removed[r] = false;
        }
    }
    for &r in &reps {
        if !removed[r] {
            degree[r] = g.neighbours(r).filter(|&z| !removed[z]).count() as u32;
        }
    }
    let k = |r: usize| g.mask[r].count_ones();
    let mut stack = Vec::with_capacity(reps.len());
    let mut pushed = vec![false; n];
    let mut low: Vec<usize> = reps
        .iter()
        .copied()
        .filter(|&r| !removed[r] && degree[r] < k(r))
        .collect();
    let mut left = reps.iter().filter(|&&r| !removed[r]).count();
    // The optimistic candidates by increasing score (ties by index): the
    // scores do not change while the graph is simplified, so one sort and
    // a cursor past the removed ones find each lowest in amortised
    // constant time, not a scan per push.
    let mut by_score: Vec<(f64, usize)> = reps
        .iter()
        .filter(|&&r| !removed[r])
        .map(|&r| (score(g.cost[r], g.area[r], false), r))
        .collect();
    by_score.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut cursor = 0;
    let remove =
        |r: usize, removed: &mut Vec<bool>, degree: &mut Vec<u32>, low: &mut Vec<usize>| {
            removed[r] = true;
            for z in g.neighbours(r) {
                if !removed[z] {
                    degree[z] -= 1;
                    if degree[z] + 1 == k(z) {
                        low.push(z);
                    }
                }
            }
        };
    while left > 0 {
        if let Some(r) = low.pop() {
            if removed[r] {
                continue;
            }
            stack.push(r);
            remove(r, &mut removed, &mut degree, &mut low);
            left -= 1;
            continue;
        }
        // No trivially colourable group: push the lowest score
        // optimistically (coloured last, it is the likeliest spill).
        while removed[by_score[cursor].1] {
            cursor += 1;
        }
        let r = by_score[cursor].1;
        stack.push(r);
        pushed[r] = true;
        remove(r, &mut removed, &mut degree, &mut low);
        left -= 1;
    }
    let mut home = vec![Home::Stack; n];
    let mut optimistic = 0;
    let mut waiting = vec![false; n];
    for &r in &stack {
        waiting[r] = true;
    }
    while let Some(r) = stack.pop() {
        waiting[r] = false;
        let mut taken = 0u64;
        // What the neighbours still to come ask for.
        let mut wanted = 0u64;
        for z in g.neighbours(r) {
            if let Home::Reg(h) = home[z] {
                taken |= 1 << h;
            } else if waiting[z] {
                wanted |= g.prefer[z];
            }
        }
        let free = g.mask[r] & !taken;
        if pushed[r] && free != 0 {
            optimistic += 1;
        }
        // Its own operands' registers first (one no neighbour still to
        // come asks for, if it can), then those no neighbour asks for,
        // then any.
        let first = |m: u64| (m != 0).then(|| Home::Reg(m.trailing_zeros() as u8));
        home[r] = match first(free & g.prefer[r] & !wanted)
            .or_else(|| first(free & g.prefer[r]))
            .or_else(|| first(free & !wanted))
            .or_else(|| first(free))
        {
            Some(h) => h,
            None => match splitter
                .as_deref_mut()
                .and_then(|s| s.split_around(r, |z| home[z].reg()))
            {
                Some(h) => Home::Reg(h),
                None => Home::Stack,
            },
        };
    }
    // Groups no register suits for their whole life (live across clobbers
    // of every register, say) were left out; with splitting, one may still
    // hold a register away from the points that rule it out.
    if let Some(s) = splitter {
        for &r in &reps {
            if !forced[r] && g.mask[r] == 0 && g.in_register[r] {
                let got = s
                    .split_around(r, |z| home[z].reg())
                    .or_else(|| s.split_in_blocks(r, |z| home[z].reg()));
                if let Some(h) = got {
                    home[r] = Home::Reg(h);
                }
            }
        }
    }
    Colouring { home, optimistic }
}

/// What select gives: the home of each representative (others: `Stack`,
/// unused), and how many groups pushed optimistically found a register
/// all the same (Briggs' point: Chaitin would have spilled them).
pub struct Colouring {
    pub home: Vec<Home>,
    pub optimistic: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three values live at once on two registers: the one with the lowest
    /// score (v0i, read once) is the one left without a register.
    #[test]
    fn the_lowest_score_is_pushed_optimistically_and_spilled() {
        let case = crate::fixtures::unit_case(
            "coloring_select/the_lowest_score_is_pushed_optimistically_and_spilled",
        );
        let facts = super::super::facts::Facts::new(&case.func);
        let g = super::super::graph::build(&case.func, &case.machine, &facts);
        assert!(g.interferes(0, 1) && g.interferes(0, 2) && g.interferes(1, 2));
        let home = color(&g, &[false; 3], None).home;
        assert_eq!(home[0], Home::Stack);
        assert!(matches!((home[1], home[2]), (Home::Reg(a), Home::Reg(b)) if a != b));
        // Forced to the stack, a group stays there and frees its register.
        let home = color(&g, &[false, true, false], None).home;
        assert_eq!(home[1], Home::Stack);
        assert!(matches!((home[0], home[2]), (Home::Reg(a), Home::Reg(b)) if a != b));
    }

    #[test]
    fn score_keeps_cheap_short_ranges_and_spills_long_idle_ones() {
        assert_eq!(score(5.0, 0.0, false), 1e35);
        assert!(score(1.0, 10.0, true) > 1e29);
        // Tiny area against cost: never a good spill.
        let tiny = score(30.0, 10.0, false);
        assert!(tiny > 1e16 && tiny < 1.1e17, "{tiny}");
        // Small area: cost twice over at least three times the area.
        for (cost, area) in [(16.0, 10.0), (1.6, 1.0)] {
            let small = score(cost, area, false);
            assert!(small > 1e9 && small < 1.1e10, "{small}");
        }
        // A long idle range scores below a short busy one: cost less area
        // times 16000/65536.
        assert!(score(4.0, 100.0, false) < score(4.0, 10.0, false));
        assert!((score(4.0, 100.0, false) - (4.0 - 100.0 * 0.244_140_625)).abs() < 1e-9);
        assert!((score(1.0, 1.0, false) - (1.0 - 0.244_140_625)).abs() < 1e-9);
    }
}
