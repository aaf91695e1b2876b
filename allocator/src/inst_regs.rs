//! Registers for the operands of one instruction: given each operand's
//! candidate registers and the points it occupies (early, late or both),
//! find distinct registers wherever two operands occupy the same point.
//! Allocators use it where an instruction's operands must be placed all at
//! once.
//!
//! The search is exact (a depth-first search over operands ordered by fewest
//! candidates) with a bound on the work, so an allocator never loops on an
//! impossible instruction: it gets `None`.

/// One operand that needs a register.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RegSlot {
    /// Candidate hardware numbers (one class).
    pub candidates: u64,
    pub early: bool,
    pub late: bool,
    /// Candidates to try first (`[0]` before `[1]`, both before the rest):
    /// the register the value already occupies, registers that are free.
    /// Preferences steer the search; they never make it fail.
    pub prefer: [u64; 2],
}

/// Work bound: candidate tries before giving up.
const MAX_STEPS: usize = 100_000;

/// Finds a hardware number for every slot such that slots sharing a point
/// get different numbers. `taken_early`/`taken_late` are numbers already
/// used at each point. Returns the numbers in slot order.
pub fn assign(slots: &[RegSlot], taken_early: u64, taken_late: u64) -> Option<Vec<usize>> {
    let mut search = Search::default();
    search
        .run(slots, taken_early, taken_late)
        .then(|| search.result.clone())
}

/// [`assign`] with buffers kept between calls, for allocators that place
/// every instruction's operands: no allocation once the buffers have grown.
#[derive(Default)]
pub struct Search {
    order: Vec<usize>,
    /// The numbers found by the last successful [`Search::run`], in slot
    /// order.
    pub result: Vec<usize>,
}

impl Search {
    /// As [`assign`]; on success the numbers are in [`Search::result`].
    pub fn run(&mut self, slots: &[RegSlot], taken_early: u64, taken_late: u64) -> bool {
        self.order.clear();
        self.order.extend(0..slots.len());
        self.order.sort_unstable_by_key(|&i| {
            (
                slots[i].candidates.count_ones(),
                !(slots[i].early && slots[i].late),
                i,
            )
        });
        self.result.clear();
        self.result.resize(slots.len(), usize::MAX);
        let mut steps = 0;
        search(
            slots,
            &self.order,
            0,
            taken_early,
            taken_late,
            &mut self.result,
            &mut steps,
        )
    }
}

fn search(
    slots: &[RegSlot],
    order: &[usize],
    k: usize,
    early: u64,
    late: u64,
    result: &mut [usize],
    steps: &mut usize,
) -> bool {
    let Some(&i) = order.get(k) else { return true };
    let s = slots[i];
    let mut free = s.candidates;
    if s.early {
        free &= !early;
    }
    if s.late {
        free &= !late;
    }
    let first = free & s.prefer[0];
    let second = free & s.prefer[1] & !first;
    for mut tier in [first, second, free & !(first | second)] {
        while tier != 0 {
            *steps += 1;
            if *steps > MAX_STEPS {
                return false;
            }
            let hw = tier.trailing_zeros() as usize;
            tier &= tier - 1;
            let bit = 1u64 << hw;
            let (e, l) = (
                if s.early { early | bit } else { early },
                if s.late { late | bit } else { late },
            );
            result[i] = hw;
            if search(slots, order, k + 1, e, l, result, steps) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    const E: (bool, bool) = (true, false);
    const L: (bool, bool) = (false, true);
    const B: (bool, bool) = (true, true);

    fn slot(candidates: u64, (early, late): (bool, bool)) -> RegSlot {
        RegSlot {
            candidates,
            early,
            late,
            prefer: [0; 2],
        }
    }

    fn valid(slots: &[RegSlot], r: &[usize]) -> bool {
        (0..slots.len()).all(|i| {
            slots[i].candidates & (1 << r[i]) != 0
                && (0..i).all(|j| {
                    let overlap =
                        (slots[i].early && slots[j].early) || (slots[i].late && slots[j].late);
                    !overlap || r[i] != r[j]
                })
        })
    }

    #[test]
    fn early_and_late_operands_may_share_a_register() {
        let s = [slot(0b1, E), slot(0b1, L)];
        assert_eq!(assign(&s, 0, 0), Some(vec![0, 0]));
        let both = [slot(0b1, B), slot(0b1, L)];
        assert_eq!(assign(&both, 0, 0), None);
    }

    #[test]
    fn tight_constraints_are_placed_first() {
        // A greedy pass in slot order would give p0 to the first slot.
        let s = [slot(0b11, B), slot(0b01, E), slot(0b11, L)];
        let r = assign(&s, 0, 0).unwrap();
        assert!(valid(&s, &r), "{r:?}");
    }

    #[test]
    fn taken_registers_are_avoided() {
        assert_eq!(assign(&[slot(0b11, E)], 0b01, 0), Some(vec![1]));
        assert_eq!(assign(&[slot(0b11, L)], 0b11, 0), Some(vec![0]));
        assert_eq!(assign(&[slot(0b11, B)], 0b01, 0b10), None);
    }

    #[test]
    fn preferences_are_tried_first_but_never_block() {
        let mut s = slot(0b111, E);
        s.prefer = [0b100, 0b010];
        assert_eq!(assign(&[s], 0, 0), Some(vec![2]));
        assert_eq!(assign(&[s], 0b100, 0), Some(vec![1]));
        assert_eq!(assign(&[s], 0b110, 0), Some(vec![0]));
        // A preference that would starve the other slot gives way.
        let mut a = slot(0b11, E);
        a.prefer = [0b01, 0];
        let b = slot(0b01, E);
        assert_eq!(assign(&[a, b], 0, 0), Some(vec![1, 0]));
    }

    #[test]
    fn agrees_with_brute_force_on_small_instances() {
        let mut seed = 12345u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..3000 {
            let n = (next() % 5) as usize;
            let spans = [E, L, B];
            let s: Vec<RegSlot> = (0..n)
                .map(|_| slot(next() % 16, spans[(next() % 3) as usize]))
                .collect();
            let mut exists = false;
            for code in 0..4usize.pow(n as u32) {
                let r: Vec<usize> = (0..n).map(|i| (code / 4usize.pow(i as u32)) % 4).collect();
                if valid(&s, &r) {
                    exists = true;
                    break;
                }
            }
            match assign(&s, 0, 0) {
                Some(r) => assert!(valid(&s, &r)),
                None => assert!(!exists, "{s:?}"),
            }
        }
    }
}
