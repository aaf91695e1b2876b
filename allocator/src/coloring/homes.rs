//! Where each group of the coloring allocator lives in a round: its
//! register or a spill slot (slots shared by groups that do not interfere,
//! and by the two sides of a copy where they may), and, for a group passive
//! splitting gave holes, its slot and where it moves between the two.

use super::graph::Graph;
use super::select::Home;
use super::split::{inside, Intervals, Members};
use crate::ir::function::Function;
use crate::ir::index::{Inst, PReg, RegClass, SpillSlot, VReg};
use crate::ir::output::Allocation;

/// Per group (`others[start[g]..start[g + 1]]`), the vregs on the other
/// side of each copy it takes part in ([`Graph::copies`], most frequent
/// first), among the groups `slotted` says take a slot: it takes their slot
/// when it may, and the copy goes.
fn slot_ties(g: &Graph, slotted: impl Fn(usize) -> bool) -> (Vec<u32>, Vec<u32>) {
    let mut ties: Vec<(u32, u32)> = Vec::new();
    for &(a, b) in &g.copies {
        if slotted(g.find(a as usize)) && slotted(g.find(b as usize)) {
            ties.push((a, b));
            ties.push((b, a));
        }
    }
    let (mut start, mut others) = (Vec::new(), Vec::new());
    crate::counting_sort::counting_sort(
        g.n,
        ties.len(),
        |k| Some(g.find(ties[k].0 as usize)),
        |k| ties[k].1,
        &mut start,
        &mut others,
    );
    (start, others)
}

/// The location of each group: its register, or the spill slot shared by
/// the spilled groups it does not interfere with; for a group split by
/// passive splitting, also its slot and the holes where it is there.
pub struct Homes {
    loc: Vec<Allocation>,
    /// A split group's slot (others: `None`).
    slot: Vec<Allocation>,
    holes: Vec<Intervals>,
    /// `(inst, group)`: a split group's place changes just before `inst`,
    /// within a block; sorted.
    pub(super) events: Vec<(u32, u32)>,
    pub(super) members: Option<Members>,
    /// The groups with holes.
    pub(super) split: Vec<usize>,
    pub slots: usize,
}

impl Homes {
    /// Spill slots for the groups `home` puts on the stack and the groups
    /// with holes, shared by groups that do not interfere (greedy, lowest
    /// free slot first).
    pub fn new(f: &Function, g: &Graph, home: &[Home], holes: Vec<Intervals>) -> Homes {
        let mut loc = vec![Allocation::None; g.n];
        let mut slot = vec![Allocation::None; g.n];
        let mut slots = 0;
        let mut used: Vec<bool> = Vec::new();
        // Slots are shared within a class only (the graph has no edges
        // between classes).
        let mut slot_class: Vec<u8> = Vec::new();
        let split = |v: usize| holes.get(v).is_some_and(|h| !h.is_empty());
        let (start, others) = slot_ties(g, |v| home[v] == Home::Stack || split(v));
        for v in 0..g.n {
            if g.find(v) != v {
                continue;
            }
            if let Home::Reg(h) = home[v] {
                loc[v] = Allocation::Reg(PReg::new(
                    h as usize,
                    RegClass::from_index(g.class[v] as usize),
                ));
                if !split(v) {
                    continue;
                }
            }
            used.clear();
            used.extend(slot_class.iter().map(|&c| c != g.class[v]));
            used.push(false);
            for z in g.neighbours(v) {
                for a in [loc[z], slot[z]] {
                    if let Allocation::Stack(s) = a {
                        used[s.index()] = true;
                    }
                }
            }
            let ties = &others[start[v] as usize..start[v + 1] as usize];
            let partner = ties.iter().find_map(|&z| {
                let z = g.find(z as usize);
                [loc[z], slot[z]].into_iter().find_map(|a| match a {
                    Allocation::Stack(s) if !used[s.index()] => Some(s.index()),
                    _ => None,
                })
            });
            let s = partner
                .or_else(|| used.iter().position(|&u| !u))
                .expect("one more than in use");
            if s == slots {
                slot_class.push(g.class[v]);
                slots += 1;
            }
            match home[v] {
                Home::Stack => loc[v] = Allocation::Stack(SpillSlot::new(s)),
                Home::Reg(_) => slot[v] = Allocation::Stack(SpillSlot::new(s)),
            }
        }
        let mut events = Vec::new();
        let block_first = |i: u32| {
            (i as usize) < f.num_insts() && {
                let b = f.block_of(Inst::new(i as usize));
                f.block_insts(b).first().index() == i as usize
            }
        };
        for (z, hole) in holes.iter().enumerate() {
            for &(s, e) in hole {
                for i in [s, e + 1] {
                    if (i as usize) < f.num_insts() && !block_first(i) {
                        events.push((i, z as u32));
                    }
                }
            }
        }
        events.sort_unstable();
        let split: Vec<usize> = (0..holes.len()).filter(|&z| !holes[z].is_empty()).collect();
        let members = (!split.is_empty()).then(|| Members::new(g));
        Homes {
            loc,
            slot,
            holes,
            events,
            members,
            split,
            slots,
        }
    }

    /// The holes, handed back for a round that keeps this one's colouring.
    pub fn into_holes(self) -> Vec<Intervals> {
        self.holes
    }

    /// How many groups have holes.
    pub fn split_groups(&self) -> usize {
        self.split.len()
    }

    /// The holes that start and end within one block, `(register, slot,
    /// first, last)`, by first instruction.
    pub(super) fn stretches(&self, f: &Function) -> Vec<(Allocation, Allocation, u32, u32)> {
        let mut all: Vec<_> = self
            .split
            .iter()
            .flat_map(|&z| {
                self.holes[z]
                    .iter()
                    .filter(|&&(a, e)| {
                        (e as usize + 1) < f.num_insts()
                            && f.block_of(Inst::new(a as usize))
                                == f.block_of(Inst::new(e as usize + 1))
                    })
                    .map(move |&(a, e)| (self.loc[z], self.slot[z], a, e))
            })
            .collect();
        all.sort_unstable_by_key(|s| (s.2, s.3));
        all
    }

    /// Where group `r` (a representative) is at instruction `i`.
    pub(super) fn at(&self, r: usize, i: Inst) -> Allocation {
        match self.holes.get(r) {
            Some(h) if !h.is_empty() && inside(h, i.index() as u32) => self.slot[r],
            _ => self.loc[r],
        }
    }

    /// Where group `r` is at every instruction, unless it has holes.
    pub(super) fn everywhere(&self, r: usize) -> Option<Allocation> {
        match self.holes.get(r) {
            Some(h) if !h.is_empty() => None,
            _ => Some(self.loc[r]),
        }
    }

    /// Where `v`'s group is at instruction `i`.
    pub(super) fn of(&self, g: &Graph, v: VReg, i: Inst) -> Allocation {
        self.at(g.find(v.index()), i)
    }
}
