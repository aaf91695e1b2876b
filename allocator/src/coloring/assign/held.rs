//! The registers that live values' homes hold, kept in step with the
//! backward walk of a block. [`super::Run::taken`] asks at every
//! instruction which registers the values live across it hold; the walk
//! changes the live set only at the operands of the instruction it has just
//! passed, so a count per register, updated there, answers without a visit
//! of every live vreg at every instruction (that visit was 12% of the
//! allocator's time on riscv64 libjxl, whose long functions keep hundreds
//! of values live).

use crate::analysis::bitset::dense;
use crate::ir::function::Function;
use crate::ir::index::Inst;

/// A vreg's home in [`super::Run`]'s `home_reg`, when not one register
/// throughout (`1 + class * 64 + hw`): the stack throughout, or a group
/// with holes.
pub(super) const ON_STACK: u8 = 0;
pub(super) const HOLED: u8 = u8::MAX;

/// The live vregs as last caught up with, by what their group's home is.
pub(super) struct Held {
    /// The vregs counted, as a dense row: the walk's live set at the last
    /// catch-up.
    tracked: Vec<u64>,
    /// Per class and register, how many counted vregs have a home of that
    /// one register throughout.
    count: [[u32; 64]; 3],
    /// Per class, the registers whose count is not zero.
    pub(super) mask: [u64; 3],
    /// The counted vregs whose group has holes (their location depends on
    /// the instruction), and each one's index in that list.
    pub(super) holed: Vec<u32>,
    at: Vec<u32>,
}

/// The class and register of a `home_reg` code of one register.
#[inline]
pub(super) fn class_and_hw(code: u8) -> (usize, usize) {
    debug_assert!(code != ON_STACK && code != HOLED);
    ((code - 1) as usize / 64, (code - 1) as usize % 64)
}

impl Held {
    /// Nothing counted, for `n` vregs and live rows of `words` words (the
    /// walk's rows keep a word even when there is no vreg).
    pub(super) fn new(n: usize, words: usize) -> Held {
        debug_assert!(words >= dense::words(n));
        Held {
            tracked: vec![0; words],
            count: [[0; 64]; 3],
            mask: [0; 3],
            holed: Vec::new(),
            at: vec![0; n],
        }
    }

    /// Counts exactly the vregs of `live`, the walk starting a block.
    pub(super) fn reset(&mut self, live: &[u64], home_reg: &[u8]) {
        self.tracked.fill(0);
        self.count = [[0; 64]; 3];
        self.mask = [0; 3];
        self.holed.clear();
        for v in dense::members(live) {
            self.enter(v, home_reg);
        }
    }

    /// Catches up with `live` once the walk has passed `i`: only `i`'s
    /// operands may have entered or left it.
    pub(super) fn passed(&mut self, f: &Function, i: Inst, live: &[u64], home_reg: &[u8]) {
        for op in f.inst_operands(i).iter().filter(|o| !o.is_nonalloc()) {
            let v = op.vreg().index();
            match (dense::contains(live, v), dense::contains(&self.tracked, v)) {
                (true, false) => self.enter(v, home_reg),
                (false, true) => self.leave(v, home_reg),
                _ => {}
            }
        }
        debug_assert_eq!(self.tracked, live, "the count fell out of step at {i}");
    }

    /// How many counted vregs have a home of register `hw` of class `c`.
    pub(super) fn count(&self, c: usize, hw: usize) -> u32 {
        self.count[c][hw]
    }

    fn enter(&mut self, v: usize, home_reg: &[u8]) {
        dense::insert(&mut self.tracked, v);
        match home_reg[v] {
            ON_STACK => {}
            HOLED => {
                self.at[v] = self.holed.len() as u32;
                self.holed.push(v as u32);
            }
            code => {
                let (c, h) = class_and_hw(code);
                self.count[c][h] += 1;
                self.mask[c] |= 1 << h;
            }
        }
    }

    fn leave(&mut self, v: usize, home_reg: &[u8]) {
        dense::remove(&mut self.tracked, v);
        match home_reg[v] {
            ON_STACK => {}
            HOLED => {
                let k = self.at[v] as usize;
                self.holed.swap_remove(k);
                if let Some(&moved) = self.holed.get(k) {
                    self.at[moved as usize] = k as u32;
                }
            }
            code => {
                let (c, h) = class_and_hw(code);
                self.count[c][h] -= 1;
                if self.count[c][h] == 0 {
                    self.mask[c] &= !(1 << h);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(n: usize, vs: &[usize]) -> Vec<u64> {
        let mut r = vec![0; dense::words(n)];
        for &v in vs {
            dense::insert(&mut r, v);
        }
        r
    }

    /// Two vregs in int p3 and one in float p1, one on the stack, two
    /// holed: the counts and masks follow vregs in and out, and the holed
    /// list stays a set when one leaves from its middle.
    #[test]
    fn counts_and_holed_follow_the_live_set() {
        let p3i = 1 + 3;
        let p1f = 1 + 64 + 1;
        let home_reg = [p3i, p3i, p1f, ON_STACK, HOLED, HOLED];
        let mut h = Held::new(6, 1);
        h.reset(&row(6, &[0, 1, 2, 3, 4, 5]), &home_reg);
        assert_eq!(h.mask, [1 << 3, 1 << 1, 0]);
        assert_eq!(h.count(0, 3), 2);
        h.leave(0, &home_reg);
        assert_eq!((h.mask[0], h.count(0, 3)), (1 << 3, 1));
        h.leave(1, &home_reg);
        assert_eq!(h.mask[0], 0);
        h.leave(4, &home_reg);
        assert_eq!(h.holed, vec![5]);
        h.enter(4, &home_reg);
        h.leave(5, &home_reg);
        assert_eq!(h.holed, vec![4]);
        assert_eq!(h.at[4], 0);
        assert_eq!(h.tracked, row(6, &[2, 3, 4]));
        // A block starts afresh.
        h.reset(&row(6, &[1]), &home_reg);
        assert_eq!((h.mask, h.holed.len()), ([1 << 3, 0, 0], 0));
    }
}
