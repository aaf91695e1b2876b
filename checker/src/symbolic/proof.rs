//! A proof, without the dataflow, that an allocation is correct: every use
//! reads its vreg, and every use and branch argument is dominated by its
//! definition. [`super::Checker::check`] tries it first and runs the
//! dataflow only when it does not say yes.
//!
//! Under the dataflow's transfer (see the [module documentation](super)),
//! whether location `l` holds vreg `v` at a point depends on one earlier
//! fact per step back: the last write to `l` answers it (a def by its
//! vreg, a clobber no, a move by asking the same of its source at that
//! point), a definition of `v` on the way makes it no, a write to a slot
//! beside `l` may cut it, and at a block's start it is asked of each
//! predecessor's end, `v` renamed to its argument when it is a parameter of
//! the block. So the proof walks each block once, noting per location what
//! the last write left there (a vreg, nothing, or "what location `l'` held
//! at the block's start"), answers each use from that, and keeps per block
//! only what it ends with and the facts its uses ask about its start. Then
//! each block's demand, the facts about its start that must hold, is its
//! uses' asks and its successors' demands taken back through the edge and
//! the block's writes, swept in postorder until no demand grows; the entry
//! must be demanded nothing. A demand holds only the facts some use needs,
//! where the dataflow's states hold every live value in every location, and
//! no block is run twice.
//!
//! A branch argument is a fact of its own only when its definition is
//! neither in the block that passes it nor in the entry block and no fact
//! was asked of its parameter (one that was is proved at every
//! predecessor's end): then that it is defined, wherever it is, is asked at
//! the passing block's start, and a second sweep settles those.
//!
//! A fact about a location that only the entry writes, of a vreg that is
//! no block's parameter, needs no search: every path to its point leaves
//! the entry and writes the location no more, so it holds exactly when the
//! entry leaves that vreg there (`settled_by_entry` in [`search`]).
//!
//! The proof says yes or gives up: on a fact that fails, and on a reused
//! input sharing its location with another use (the dataflow knows whether
//! the location holds both) or a block the entry does not reach. Its yes
//! implies the dataflow's: each fact it proves holds on every path to its
//! point, which for this distributive transfer is the dataflow's solution;
//! and a use, or an argument, whose vreg some path reaches without passing
//! its definition is not proved, as a location comes to hold a vreg only at
//! its definition (a def, or a parameter at its block's start).

use super::boundary::{location_key, sort_small};
use allocator::analysis::cfg::Dfs;
use allocator::{
    Allocation, Block, Function, Inst, InstPosition, InstRange, Move, Operand, OperandConstraint,
    OperandPos, Output, PReg, PRegSet, ProgPoint, RegClass, SlotGeometry, VReg,
};
use demands::Demands;

/// What a location holds, as the last write to it in the block left it: a
/// vreg (below [`AT_START`]), [`EMPTY`], or `AT_START | cut << CUT | l`,
/// whatever location `l` held at the block's start unless its value is of
/// a class in the bit set `cut` (a write to a slot beside it overlapped a
/// value of that class: see [`Proof::cut_overlapped`]).
type Held = u32;
const AT_START: Held = 1 << 31;
const EMPTY: Held = u32::MAX;
const CUT: u32 = 24;
const LOCATION: u32 = (1 << CUT) - 1;

/// Whether a vreg of class `c` is still what `AT_START` form `h` holds.
#[inline]
fn uncut(h: Held, c: u8) -> bool {
    (h >> CUT) & (1 << c) == 0
}

/// No class known: in [`Proof`]'s `class`.
const UNKNOWN: u8 = u8::MAX;

/// The location of a fact that a vreg is defined, whatever holds it: above
/// every location the dataflow tracks.
const DEFINED: u32 = u32::MAX >> 1;

/// What an instruction has besides early uses: one bit per later step.
const EARLY_DEF: u8 = 1;
const LATE_USE: u8 = 2;
const LATE_DEF: u8 = 4;

/// In [`Proof`]'s `entry_alone`: a location some block besides the entry
/// writes, or none does. No location is this `AT_START` form: locations
/// are below [`LOCATION`].
const SHARED: Held = AT_START | LOCATION;

/// No instruction: a parameter's or an undefined vreg's definition.
const NONE: u32 = u32::MAX;

/// The proof's storage, kept from check to check.
#[derive(Default)]
pub(super) struct Proof {
    /// Per location: what it holds and the class of that value's register
    /// ([`UNKNOWN`] if none), valid when its stamp is the block's.
    held: Vec<Held>,
    class: Vec<u8>,
    stamp: Vec<u32>,
    /// The stamp of the block being walked; every block of every check
    /// takes a new one.
    now: u32,
    /// The stamp the entry block took.
    entry_stamp: u32,
    /// The locations written in the block being walked, each once: the
    /// registers as a set, which yields them in order with no sort, and
    /// the slots as a list.
    written_regs: PRegSet,
    written: Vec<u32>,
    /// The first edit at or after the block being walked: blocks are walked
    /// in order, and hold the instructions in order.
    next_edit: usize,
    /// Per vreg: the instruction defining it, or [`NONE`].
    def_inst: Vec<u32>,
    /// Per vreg: its index among its block's parameters, or [`NONE`].
    param_at: Vec<u32>,
    /// Per vreg: whether it is a parameter some fact was asked of at its
    /// block's start (and so of its arguments at every predecessor's end).
    param_asked: Vec<bool>,
    /// The branch arguments whose definition is neither in the block that
    /// passes them nor in the entry block: `(block, argument, parameter)`,
    /// in block order.
    far: Vec<(u32, u32, u32)>,
    /// Per vreg: its class, where values fill several slots.
    vclass: Vec<RegClass>,
    /// Per block, what each location it writes holds at its end: pairs
    /// `location << 32 | held`, in location order, of block `b` at
    /// `ends[end_start[b]..end_start[b + 1]]`.
    ends: Vec<u64>,
    end_start: Vec<u32>,
    /// Per block, the facts its uses ask about its start, as pairs
    /// `location << 32 | vreg` in increasing order:
    /// `asks[ask_start[b]..ask_start[b + 1]]`.
    asks: Vec<u64>,
    ask_start: Vec<u32>,
    /// Per block, the facts about its start that must hold, as `asks`:
    /// `store[at[b].0..at[b].1]`. A demand that grows is appended to
    /// `store` whole, which the next function clears, so that demands
    /// allocate nothing once the store has grown.
    demand: Demands,
    /// Scratch demands: the two halves of the one being built (see
    /// [`Proof::demand_at_start`]), an edge's, the union of the
    /// successors'.
    next: Vec<u64>,
    edge: Vec<u64>,
    acc: Vec<u64>,
    moved: Vec<u64>,
    /// Of the function being proved: its slots, where values fill several
    /// slots how they are laid out (the dataflow then cuts the values a
    /// write to a slot overlaps), and its entry block's instructions.
    nslots: usize,
    cut: Option<SlotGeometry>,
    entry: std::ops::Range<u32>,
    /// Per location: what the entry block leaves in it when no other block
    /// writes it, else [`SHARED`] (see [`search::settled_by_entry`]); and how many
    /// facts that settled, either way, in the last search.
    entry_alone: Vec<Held>,
    entry_settled: u32,
    /// The blocks in postorder, each block's place in it, and those due.
    dfs: Dfs,
    po: Vec<Block>,
    po_index: Vec<u32>,
    pending: Vec<bool>,
}

impl Proof {
    /// Whether the proof shows `out` a correct allocation of `f`, given
    /// that the structural checks found nothing and that the dataflow tracks
    /// every slot (the caller's to know); `cut` is the slot layout when
    /// values filling several slots are written to slots, which the
    /// dataflow then cuts where they overlap.
    pub(super) fn holds(&mut self, f: &Function, out: &Output, cut: Option<SlotGeometry>) -> bool {
        debug_assert!(out.edits_sorted());
        let mut po = std::mem::take(&mut self.po);
        self.dfs.postorder_into(f, &mut po);
        let proved = po.len() == f.num_blocks() && {
            self.reset(f, out);
            self.cut = cut;
            if cut.is_some() {
                f.vreg_classes_into(&mut self.vclass);
            }
            f.blocks().all(|b| self.walk(f, out, b)) && self.search(f, &po)
        };
        self.po = po;
        proved
    }

    /// Clears what the last function left, and notes each parameter's
    /// place among its block's.
    fn reset(&mut self, f: &Function, out: &Output) {
        let nlocs = PReg::NUM_INDEX + out.num_spillslots;
        if self.held.len() < nlocs {
            self.held.resize(nlocs, EMPTY);
            self.class.resize(nlocs, UNKNOWN);
            self.stamp.resize(nlocs, 0);
        }
        self.nslots = out.num_spillslots;
        self.entry_settled = 0;
        let entry = f.block_insts(f.entry_block());
        self.entry = entry.start.0..entry.end.0;
        let n = f.num_vregs();
        for v in [&mut self.def_inst, &mut self.param_at] {
            v.clear();
            v.resize(n, NONE);
        }
        for b in f.blocks() {
            for (k, p) in f.block_params(b).iter().enumerate() {
                self.param_at[p.index()] = k as u32;
            }
        }
        self.ends.clear();
        self.end_start.clear();
        self.end_start.push(0);
        self.asks.clear();
        self.ask_start.clear();
        self.ask_start.push(0);
        self.far.clear();
        self.next_edit = 0;
        self.param_asked.clear();
        self.param_asked.resize(n, false);
    }

    /// A new stamp, with every location's stamp older.
    fn next_stamp(&mut self) {
        if self.now == u32::MAX {
            self.stamp.fill(0);
            self.now = 0;
        }
        self.now += 1;
    }

    /// What location `l` holds now in the block being walked.
    #[inline]
    fn now_in(&self, l: u32) -> Held {
        if self.stamp[l as usize] == self.now {
            self.held[l as usize]
        } else {
            AT_START | l
        }
    }

    #[inline]
    fn write(&mut self, l: u32, h: Held, class: u8) {
        if self.stamp[l as usize] != self.now {
            self.stamp[l as usize] = self.now;
            if (l as usize) < PReg::NUM_INDEX {
                self.written_regs.insert(PReg::from_index(l as usize));
            } else {
                self.written.push(l);
            }
        }
        self.held[l as usize] = h;
        self.class[l as usize] = class;
    }

    /// A value of `class` was just written to location `l`: where values
    /// fill several slots, the dataflow empties each other slot location
    /// whose value it overlaps. Where the class of that value is unknown
    /// here (the location holds what it held at the block's start), the
    /// classes it would overlap are noted in what the location holds, and
    /// a fact about a vreg of one of them fails.
    fn cut_overlapped(&mut self, l: u32, class: RegClass) {
        let Some(slots) = self.cut else { return };
        let Some(k) = (l as usize).checked_sub(PReg::NUM_INDEX) else {
            return;
        };
        let Some(mine) = slots.span(class, k) else {
            return;
        };
        let reach = slots.max_size();
        for j in k.saturating_sub(reach - 1)..(k + reach).min(self.nslots) {
            let lj = (PReg::NUM_INDEX + j) as u32;
            if j == k || self.now_in(lj) == EMPTY {
                continue;
            }
            let overlaps = |c: RegClass| {
                slots
                    .span(c, j)
                    .is_some_and(|r| r.start < mine.end && mine.start < r.end)
            };
            let h = self.now_in(lj);
            let c = self.class[lj as usize];
            if self.stamp[lj as usize] == self.now && c != UNKNOWN {
                if overlaps(RegClass::ALL[c as usize]) {
                    self.write(lj, EMPTY, UNKNOWN);
                }
            } else {
                // A write names its value's class: a location without one
                // holds what the block started with.
                debug_assert!(h & AT_START != 0);
                let cut = RegClass::ALL
                    .into_iter()
                    .filter(|&c| overlaps(c))
                    .fold(0, |m, c| m | 1 << c as u32);
                if cut != 0 {
                    self.write(lj, h | cut << CUT, UNKNOWN);
                }
            }
        }
    }

    /// Walks block `b` in the order of the dataflow's run, asking each use's
    /// fact, and notes what the block ends with; false when a use fails.
    fn walk(&mut self, f: &Function, out: &Output, b: Block) -> bool {
        self.next_stamp();
        if b == f.entry_block() {
            self.entry_stamp = self.now;
        }
        self.written_regs = PRegSet::empty();
        self.written.clear();
        let range = f.block_insts(b);
        let edits = &out.edits;
        let mut e = self.next_edit;
        debug_assert_eq!(e, edits.partition_point(|&(p, _)| p.inst() < range.start));
        for i in range.iter() {
            while e < edits.len() && edits[e].0 == ProgPoint::before(i) {
                self.edit(edits[e].1);
                e += 1;
            }
            let ops = f.inst_operands(i);
            let allocs = out.inst_allocs(f, i);
            // Early uses, early defs, late uses, clobbers, late defs: the
            // early uses are read in the pass that finds which of the other
            // steps the instruction has.
            let mut has = 0u8;
            for (&op, &a) in ops.iter().zip(allocs) {
                if op.is_use() {
                    if op.pos() == OperandPos::Late {
                        has |= LATE_USE;
                    } else if !self.read(range, i, op, a) {
                        return false;
                    }
                } else if op.is_def() {
                    has |= match op.pos() {
                        OperandPos::Early => EARLY_DEF,
                        OperandPos::Late => LATE_DEF,
                    };
                    if let OperandConstraint::Reuse(t) = op.constraint() {
                        // Another early use in the reused input's location
                        // is judged by what the location holds both of:
                        // the dataflow's to decide.
                        let input = ops.get(t).map(|u| u.vreg());
                        if ops.iter().zip(allocs).any(|(u, &ua)| {
                            u.is_use()
                                && u.pos() == OperandPos::Early
                                && Some(u.vreg()) != input
                                && ua == a
                        }) {
                            return false;
                        }
                    }
                }
            }
            if has & EARLY_DEF != 0 {
                self.defs(ops, allocs, i, OperandPos::Early);
            }
            if has & LATE_USE != 0 {
                for (&op, &a) in ops.iter().zip(allocs) {
                    if op.is_use() && op.pos() == OperandPos::Late && !self.read(range, i, op, a) {
                        return false;
                    }
                }
            }
            for r in f.inst_clobbers(i) {
                self.write(r.index() as u32, EMPTY, UNKNOWN);
            }
            if has & LATE_DEF != 0 {
                self.defs(ops, allocs, i, OperandPos::Late);
            }
            while e < edits.len() && edits[e].0 == ProgPoint::new(i, InstPosition::After) {
                self.edit(edits[e].1);
                e += 1;
            }
        }
        // Each branch argument must be defined on every path to the
        // branch: by this block (an instruction or a parameter), by the
        // entry block, which every path passes whole, or else on every path
        // to this block's start, which the search proves of the others
        // unless a fact about their parameter does (see
        // [`Proof::seed_unread_arguments`]).
        // (Two edges from this block to one successor would be critical,
        // which no valid function has: the one edge is the one the facts
        // about the successor's parameters follow.)
        let succs = f.block_succs(b);
        for (t, &s) in succs.iter().enumerate() {
            let params = f.block_params(s);
            for (k, a) in f.branch_args(b, t).iter().enumerate() {
                let v = a.index() as u32;
                let d = Inst(self.def_inst[v as usize]);
                if !(range.contains(d)
                    || self.entry.contains(&d.0)
                    || is_at(f.block_params(b), self.param_at[v as usize], v))
                {
                    self.far.push((b.0, v, params[k].index() as u32));
                }
            }
        }
        self.next_edit = e;
        for r in self.written_regs.iter() {
            let l = r.index();
            self.ends.push((l as u64) << 32 | self.held[l] as u64);
        }
        sort_small(&mut self.written);
        for &l in &self.written {
            self.ends
                .push(((l as u64) << 32) | self.held[l as usize] as u64);
        }
        self.end_start.push(self.ends.len() as u32);
        let from = *self.ask_start.last().unwrap() as usize;
        let mine = &mut self.asks[from..];
        sort_small(mine);
        let n = dedup_sorted(mine);
        self.asks.truncate(from + n);
        self.ask_start.push(self.asks.len() as u32);
        true
    }

    #[inline]
    fn defs(&mut self, ops: &[Operand], allocs: &[Allocation], i: Inst, pos: OperandPos) {
        for (&op, &a) in ops.iter().zip(allocs) {
            if op.is_def() && op.pos() == pos {
                let v = op.vreg().index() as u32;
                self.def_inst[v as usize] = i.0;
                if let Some(l) = location_key(a, self.nslots) {
                    self.write(l, v, op.class() as u8);
                    if self.cut.is_some() {
                        self.cut_overlapped(l, op.class());
                    }
                }
            }
        }
    }

    #[inline]
    fn edit(&mut self, m: Move) {
        if let Some(to) = location_key(m.to, self.nslots) {
            let h = location_key(m.from, self.nslots).map_or(EMPTY, |from| self.now_in(from));
            self.write(to, h, m.class().map_or(UNKNOWN, |c| c as u8));
            if let (Some(_), Allocation::Reg(r)) = (self.cut, m.from) {
                self.cut_overlapped(to, r.class());
            }
        }
    }

    /// Whether operand `op`'s allocation `a`, read at instruction `i` of the
    /// block `range` spans, may hold its vreg: answered at once unless the
    /// location holds what it held at the block's start, of which the fact
    /// is asked.
    #[inline]
    fn read(&mut self, range: InstRange, i: Inst, op: Operand, a: Allocation) -> bool {
        let Some(l) = location_key(a, self.nslots) else {
            return true;
        };
        let v = op.vreg().index() as u32;
        let d = self.def_inst[v as usize];
        match self.now_in(l) {
            EMPTY => false,
            h if h & AT_START != 0 => {
                // Defined in this block, at or before the read: what the
                // block started with is not `v` any more.
                let fresh = !(range.start.0 <= d && d <= i.0) && uncut(h, op.class() as u8);
                if fresh {
                    self.asks.push(((h & LOCATION) as u64) << 32 | v as u64);
                }
                fresh
            }
            // A use at the instruction that defines its vreg is one no
            // definition dominates.
            h => h == v && d != i.0,
        }
    }
}

/// Whether `params[k]` is vreg `v`.
#[inline]
fn is_at(params: &[VReg], k: u32, v: u32) -> bool {
    params
        .get(k as usize)
        .is_some_and(|p| p.index() == v as usize)
}

/// Moves the distinct values of sorted `xs` to its front; how many.
fn dedup_sorted(xs: &mut [u64]) -> usize {
    let mut n = 0;
    for k in 0..xs.len() {
        if n == 0 || xs[k] != xs[n - 1] {
            xs[n] = xs[k];
            n += 1;
        }
    }
    n
}

mod demands;
mod search;
#[cfg(test)]
mod tests;
