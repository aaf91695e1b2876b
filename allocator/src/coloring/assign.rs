//! From homes to an [`Output`]: every operand whose constraint its group's
//! home meets reads or writes the home itself; the others get a location of
//! their own at that instruction (a register found by the exact per
//! instruction search of [`crate::inst_regs`] among those no present value
//! holds, or a temporary slot), with a copy from the home before the
//! instruction (a use) or to it after (a def). Block parameters and branch
//! defs are passed along each edge, at the top of a successor with one
//! predecessor or before the branch into a join. Each set of copies at one
//! point is resolved by the shared parallel move resolver. Copies whose
//! source and destination got the same location never arise: the copy
//! between two coalesced vregs is not there to begin with.
//!
//! An instruction whose operands cannot all get registers around the homes
//! present names a victim: the lowest-scored group holding one of the
//! registers it is short of. The next round colours again with the victims
//! on the stack.

mod held;

use super::facts::{Facts, Row};
use super::graph::{present_at, reuser, span, Graph};
use super::homes::Homes;
use super::select::score;
use crate::analysis::bitset::dense;
use crate::analysis::cfg::{effective_preds, join_successor};
use crate::inst_regs::{RegSlot, Search};
use crate::interface::AllocError;
use crate::ir::function::Function;
use crate::ir::index::{Block, Inst, PReg, PRegSet, ProgPoint, RegClass, SpillSlot, VReg};
use crate::ir::machine::MachineEnv;
use crate::ir::operand::{limit_mask, OperandConstraint};
use crate::ir::output::{Allocation, Output};
use crate::move_sets::EditQueue;
use crate::moves::{MoveContext, ParallelMove};
use held::{Held, HOLED, ON_STACK};

const PHASE_EDGE_IN: u8 = 0;
const PHASE_SPLIT: u8 = 1;
const PHASE_LOAD: u8 = 2;
const PHASE_EDGE_OUT: u8 = 3;

/// Every register busy: a move set that needs no scratch.
const ALL_BUSY: [u64; 3] = [u64::MAX; 3];

/// What one round of assignment gives: the output, or the groups to spill
/// before the next round.
pub enum Assigned {
    Done(Output),
    Spill(Vec<usize>),
}

/// For a branch into a join, whose edge moves run before it: the join's
/// first instruction and its parameters, which those moves write.
fn join_params(f: &Function, i: Inst) -> Option<(Inst, &[VReg])> {
    let s = join_successor(f, f.block_of(i)).filter(|_| f.is_branch(i))?;
    Some((f.block_insts(s).first(), f.block_params(s)))
}

struct Run<'a> {
    f: &'a Function,
    env: &'a MachineEnv,
    g: &'a Graph,
    homes: &'a Homes,
    alloc_mask: [u64; 3],
    allocatable: PRegSet,
    allocs: Vec<Allocation>,
    /// The moves, gathered in `moves.set` and resolved per point and phase.
    moves: EditQueue,
    /// Temporary slots for the instruction being placed start here.
    temp_base: usize,
    victims: Vec<usize>,
    /// An instruction short of registers names every group of the class
    /// present there, not only the lowest-scored holder of a register it
    /// needs.
    spill_all_present: bool,
    search: Search,
    present: Row,
    /// Per class and register, the vreg that a later instruction of the
    /// block (the walk goes backwards) reads from it as a temporary, with
    /// nothing writing it in between: an operand of that vreg placed in it
    /// here leaves the later reload for redundant move elimination to drop.
    reread: [[u32; 64]; 3],
    /// The registers of each class with a `reread`.
    reread_regs: [u64; 3],
    /// Buffers [`Run::inst`] reuses from one instruction to the next.
    scratch: Scratch,
    /// Per vreg, the register its group's home is at every instruction
    /// (`1 + class * 64 + hw`), [`ON_STACK`], or [`HOLED`] for a group with
    /// holes, looked up per instruction: [`Held`] asks it of each vreg
    /// entering or leaving the live set.
    home_reg: Vec<u8>,
    /// The vregs the instruction being placed defines (cleared after it).
    defined_here: Vec<bool>,
    /// What is live into `live_in_of`, as a dense row: the edge moves of
    /// split groups test each member against it.
    live_in: Row,
    live_in_of: Option<Block>,
    /// The registers of the vregs live after the instruction being placed.
    held: Held,
}

/// Makes `row` what is live into `s`, where it held what is live into
/// `of` (then `s`), clearing only the words that block set.
fn load_live_in(facts: &Facts, s: Block, row: &mut Row, of: &mut Option<Block>) {
    if let Some(p) = of.replace(s) {
        for &(w, _) in facts.live_in(p) {
            row[w as usize] = 0;
        }
    }
    for &(w, bits) in facts.live_in(s) {
        row[w as usize] = bits;
    }
}

const NOBODY: u32 = u32::MAX;

/// [`Run::home_reg`] of each vreg.
fn home_regs(g: &Graph, homes: &Homes) -> Vec<u8> {
    (0..g.n)
        .map(|v| match homes.everywhere(g.find(v)) {
            None => HOLED,
            Some(Allocation::Reg(r)) => 1 + (r.class().index() * 64 + r.hw()) as u8,
            Some(_) => ON_STACK,
        })
        .collect()
}

/// What [`Run::inst`] builds for one instruction, kept to be reused.
#[derive(Default)]
struct Scratch {
    /// Per operand, whether it reads or writes its group's home itself.
    fits: Vec<bool>,
    /// The homes of the parameters written before a branch into a join.
    overwritten: Vec<Allocation>,
    /// Per class, the operands that need a register of their own.
    need: [Vec<(usize, RegSlot)>; 3],
    slots: Vec<RegSlot>,
    /// Defs written elsewhere than their homes, with the copy home.
    stores: Vec<(VReg, ParallelMove)>,
}

/// Places every operand and move for the homes of this round.
pub fn assign(
    f: &Function,
    env: &MachineEnv,
    facts: &Facts,
    g: &Graph,
    homes: &Homes,
    spill_all_present: bool,
) -> Result<Assigned, AllocError> {
    let mut run = Run {
        f,
        env,
        g,
        homes,
        alloc_mask: env.allocatable_set().class_masks(),
        allocatable: env.allocatable_set(),
        allocs: vec![Allocation::None; f.num_operands()],
        moves: EditQueue::new(),
        temp_base: homes.slots + 2,
        victims: Vec::new(),
        spill_all_present,
        search: Search::default(),
        present: Vec::new(),
        reread: [[NOBODY; 64]; 3],
        reread_regs: [0; 3],
        scratch: Scratch::default(),
        home_reg: home_regs(g, homes),
        defined_here: vec![false; g.n],
        live_in: vec![0; facts.words],
        live_in_of: None,
        held: Held::new(f.num_vregs(), facts.words),
    };
    let mut live: Row = Vec::new();
    for b in f.blocks() {
        let mut failed = Ok(());
        run.reread_regs = [0; 3];
        let mut passed: Option<Inst> = None;
        facts.walk(f, b, &mut live, |i, live| {
            match passed.replace(i) {
                None => run.held.reset(live, &run.home_reg),
                Some(p) => run.held.passed(f, p, live, &run.home_reg),
            }
            if failed.is_ok() {
                failed = run.inst(i, live, facts);
                run.note_wants(i);
            }
        });
        failed?;
    }
    if !run.victims.is_empty() {
        run.victims.sort_unstable();
        run.victims.dedup();
        return Ok(Assigned::Spill(run.victims));
    }
    let edits = run.moves.into_edits();
    // Slots in use: homes, the resolver's two and temporaries, where any
    // location names them.
    let slot = |a: &Allocation| match a {
        Allocation::Stack(s) => s.index() + 1,
        _ => 0,
    };
    let num_spillslots = run
        .allocs
        .iter()
        .chain(edits.iter().flat_map(|e| [&e.1.from, &e.1.to]))
        .map(slot)
        .max()
        .unwrap_or(0);
    Ok(Assigned::Done(Output {
        allocs: run.allocs,
        edits,
        num_spillslots,
    }))
}

impl Run<'_> {
    /// Where `v`'s group is at instruction `i`.
    fn home(&self, v: VReg, i: Inst) -> Allocation {
        self.homes.of(self.g, v, i)
    }

    /// The registers (per class) that the homes of the vregs present at the
    /// early and at the late point of `i` hold: what is live after it (but
    /// its defs), and its operands at the points they occupy. A def written
    /// elsewhere reaches its home only after the instruction.
    fn taken(&mut self, i: Inst, live: &[u64], fits: &[bool]) -> ([u64; 3], [u64; 3]) {
        let ops = self.f.inst_operands(i);
        let reg = |v: usize| match self.homes.at(self.g.find(v), i) {
            Allocation::Reg(r) => Some((r.class().index(), 1u64 << r.hw())),
            _ => None,
        };
        // The live vregs' registers (less those only the instruction's own
        // defs hold), from the counts kept in step with the walk; a group
        // with holes is looked up at `i`.
        let (mut early, mut late) = (self.held.mask, self.held.mask);
        for op in ops.iter().filter(|o| o.is_def()) {
            let v = op.vreg().index();
            self.defined_here[v] = true;
            let code = self.home_reg[v];
            if code != ON_STACK && code != HOLED && dense::contains(live, v) {
                let (c, h) = held::class_and_hw(code);
                let defs_there = ops
                    .iter()
                    .filter(|o| {
                        o.is_def()
                            && self.home_reg[o.vreg().index()] == code
                            && dense::contains(live, o.vreg().index())
                    })
                    .count() as u32;
                if self.held.count(c, h) == defs_there {
                    early[c] &= !(1 << h);
                    late[c] &= !(1 << h);
                }
            }
        }
        for &v in &self.held.holed {
            let v = v as usize;
            if self.defined_here[v] {
                continue;
            }
            if let Some((c, bit)) = reg(v) {
                early[c] |= bit;
                late[c] |= bit;
            }
        }
        for op in ops.iter().filter(|o| o.is_def()) {
            self.defined_here[op.vreg().index()] = false;
        }
        for (k, op) in ops.iter().enumerate() {
            if op.is_nonalloc() || (op.is_def() && !fits[k]) {
                continue;
            }
            let (e, l) = span(ops, k);
            if let Some((c, bit)) = reg(op.vreg().index()) {
                if e {
                    early[c] |= bit;
                }
                if l {
                    late[c] |= bit;
                }
            }
        }
        (early, late)
    }

    /// Resolves `self.moves.set` as one parallel move at `point`, in
    /// `phase`; the resolver may use as scratch the allocatable registers
    /// not in `busy` (per class: the registers some value holds there).
    fn flush(&mut self, point: ProgPoint, phase: u8, busy: [u64; 3]) {
        if self.moves.set.is_empty() {
            return;
        }
        let m = self.allocatable.class_masks();
        // Scratch registers: free ones a later reload does not want kept
        // (see `want`), when there are any.
        let scratch = |c: usize| {
            let free = m[c] & !busy[c];
            match free & !self.reread_regs[c] {
                0 => free,
                unwanted => unwanted,
            }
        };
        let free = PRegSet::from_class_masks([scratch(0), scratch(1), scratch(2)]);
        let ctx = MoveContext {
            env: self.env,
            free,
            extra_slots: [
                SpillSlot::new(self.homes.slots),
                SpillSlot::new(self.homes.slots + 1),
            ],
        };
        self.moves.flush(point, phase, &ctx);
    }

    /// Split groups entering or leaving a hole just before `i` (within its
    /// block): a store into the slot or a reload from it, where the group
    /// is live.
    fn transitions(&mut self, i: Inst, live: &[u64]) {
        let homes = self.homes;
        let Some(members) = &homes.members else {
            return;
        };
        let ev = &homes.events;
        let at = i.index() as u32;
        let from = ev.partition_point(|e| e.0 < at);
        let ops = self.f.inst_operands(i);
        for &(_, z) in ev[from..].iter().take_while(|e| e.0 == at) {
            let z = z as usize;
            let live_before = members.of(z).any(|v| {
                let mut defined = false;
                let mut used = false;
                for op in ops
                    .iter()
                    .filter(|o| !o.is_nonalloc() && o.vreg().index() == v)
                {
                    defined |= op.is_def();
                    used |= op.is_use();
                }
                used || (dense::contains(live, v) && !defined)
            });
            let prev = Inst::new(i.index() - 1);
            let (a, b) = (homes.at(z, prev), homes.at(z, i));
            if live_before && a != b {
                self.moves.set.push(ParallelMove {
                    from: a,
                    to: b,
                    class: RegClass::from_index(self.g.class[z] as usize),
                });
            }
        }
        // Register to slot or back: no scratch needed.
        self.flush(ProgPoint::before(i), PHASE_SPLIT, ALL_BUSY);
    }

    fn inst(&mut self, i: Inst, live: &[u64], facts: &Facts) -> Result<(), AllocError> {
        let mut s = std::mem::take(&mut self.scratch);
        let placed = self.place(i, live, facts, &mut s);
        self.scratch = s;
        placed
    }

    fn place(
        &mut self,
        i: Inst,
        live: &[u64],
        facts: &Facts,
        s: &mut Scratch,
    ) -> Result<(), AllocError> {
        self.transitions(i, live);
        let f = self.f;
        let ops = f.inst_operands(i);
        let base = f.inst_operand_range(i).start;
        let clobbered = PRegSet::of(f.inst_clobbers(i)).class_masks();
        // Edge moves into a join run before this branch, after its loads:
        // the parameters they write may not be where it reads.
        s.overwritten.clear();
        if let Some((first, params)) = join_params(f, i) {
            s.overwritten
                .extend(params.iter().map(|&p| self.home(p, first)));
        }
        let overwritten = &s.overwritten;
        // Which operands read or write their group's home itself.
        s.fits.clear();
        s.fits
            .extend((0..ops.len()).map(|k| self.fits(i, k, live, &clobbered, overwritten)));
        let fits = &s.fits;
        let (mut taken_early, mut taken_late) = self.taken(i, live, fits);
        for h in overwritten {
            if let Allocation::Reg(r) = *h {
                taken_early[r.class().index()] |= 1 << r.hw();
                taken_late[r.class().index()] |= 1 << r.hw();
            }
        }
        let want = &mut s.need;
        for w in want.iter_mut() {
            w.clear();
        }
        let mut temps = 0;
        for (k, op) in ops.iter().enumerate() {
            let c = op.class().index();
            let (early, late) = span(ops, k);
            let candidates = match op.constraint() {
                OperandConstraint::NonAlloc(r) => {
                    self.allocs[base + k] = Allocation::Reg(r);
                    continue;
                }
                OperandConstraint::Reuse(_) => continue,
                OperandConstraint::FixedReg(r) => 1u64 << r.hw(),
                OperandConstraint::Reg => self.alloc_mask[c],
                OperandConstraint::Limit(n) => self.alloc_mask[c] & limit_mask(n),
                OperandConstraint::Any | OperandConstraint::Stack => 0,
            };
            if fits[k] {
                self.allocs[base + k] = self.home(op.vreg(), i);
                continue;
            }
            if matches!(
                op.constraint(),
                OperandConstraint::Any | OperandConstraint::Stack
            ) {
                // A reused input goes straight to its def's slot, which no
                // other value read here shares (they interfere).
                if let Some(Allocation::Stack(s)) =
                    reuser(ops, k).map(|d| self.home(ops[d].vreg(), i))
                {
                    debug_assert!(
                        ops.iter().enumerate().all(|(j, o)| j == k
                            || !o.is_use()
                            || self.home(o.vreg(), i) != Allocation::Stack(s)),
                        "{i}: a reused input's def slot is read by another operand"
                    );
                    self.allocs[base + k] = Allocation::Stack(s);
                    continue;
                }
                self.allocs[base + k] = Allocation::Stack(SpillSlot::new(self.temp_base + temps));
                temps += 1;
                continue;
            }
            let candidates = if late {
                candidates & !clobbered[c]
            } else {
                candidates
            };
            // A reused input copied elsewhere is best copied to where its
            // def lives on; any other, to a register nothing holds.
            let def_home = match reuser(ops, k).map(|d| self.home(ops[d].vreg(), i)) {
                Some(Allocation::Reg(r)) => 1u64 << r.hw(),
                _ => 0,
            };
            let prefer = [
                candidates & (def_home | self.wanting(c, op.vreg())),
                candidates & !taken_early[c] & !taken_late[c] & !self.reread_regs[c],
            ];
            want[c].push((
                k,
                RegSlot {
                    candidates,
                    early,
                    late,
                    prefer,
                },
            ));
        }
        for (c, w) in want.iter().enumerate() {
            if w.is_empty() {
                continue;
            }
            s.slots.clear();
            s.slots.extend(w.iter().map(|x| x.1));
            let slots = &s.slots;
            if !self.search.run(slots, taken_early[c], taken_late[c]) {
                self.victim(i, live, c, slots, taken_early[c] | taken_late[c])?;
                return Ok(());
            }
            for (&(k, _), &hw) in w.iter().zip(&self.search.result) {
                self.allocs[base + k] = Allocation::Reg(PReg::new(hw, RegClass::from_index(c)));
            }
        }
        if !self.victims.is_empty() {
            // A round that spills more places nothing: its output is dropped.
            return Ok(());
        }
        for (k, op) in ops.iter().enumerate() {
            if let OperandConstraint::Reuse(t) = op.constraint() {
                self.allocs[base + k] = self.allocs[base + t];
            }
        }
        // Registers some value holds around the instruction, the homes and
        // the operands' own: the resolver may not use them as scratch.
        let mut busy = [0u64; 3];
        for c in 0..3 {
            busy[c] = taken_early[c] | taken_late[c];
        }
        for (k, op) in ops.iter().enumerate() {
            if let Allocation::Reg(r) = self.allocs[base + k] {
                busy[op.class().index()] |= 1 << r.hw();
            }
        }
        // Copies into the operands' own locations, before the instruction.
        for (k, op) in ops.iter().enumerate() {
            let a = self.allocs[base + k];
            if op.is_use() && a != self.home(op.vreg(), i) {
                self.moves.set.push(ParallelMove {
                    from: self.home(op.vreg(), i),
                    to: a,
                    class: op.class(),
                });
            }
        }
        self.flush(ProgPoint::before(i), PHASE_LOAD, busy);
        // Copies of defs written elsewhere back to their homes.
        let stores = &mut s.stores;
        stores.clear();
        for (k, op) in ops.iter().enumerate() {
            let a = self.allocs[base + k];
            if op.is_def() && a != self.home(op.vreg(), i) {
                let m = ParallelMove {
                    from: a,
                    to: self.home(op.vreg(), i),
                    class: op.class(),
                };
                stores.push((op.vreg(), m));
            }
        }
        if f.is_ret(i) {
            return Ok(());
        }
        if !f.is_branch(i) {
            // A def nothing reads stays where it was written.
            self.moves.set.extend(
                stores
                    .iter()
                    .filter(|(v, _)| dense::contains(live, v.index()))
                    .map(|s| s.1),
            );
            self.flush(ProgPoint::after(i), 0, busy);
            return Ok(());
        }
        self.edges(i, stores, busy, facts)
    }

    /// The registers of class `c` a later read of `v` as a temporary wants
    /// it in.
    fn wanting(&self, c: usize, v: VReg) -> u64 {
        let mut m = 0;
        let mut w = self.reread_regs[c];
        while w != 0 {
            let hw = w.trailing_zeros() as usize;
            w &= w - 1;
            if self.reread[c][hw] == v.index() as u32 {
                m |= 1 << hw;
            }
        }
        m
    }

    /// Updates `reread` across instruction `i`, just placed: its clobbers
    /// and the registers its operands are placed in end every want of
    /// those registers; its reads of temporaries start new ones. (A home
    /// present at `i` is present at the next instruction too, or read
    /// here, so no later read can have wanted its register.)
    fn note_wants(&mut self, i: Inst) {
        let f = self.f;
        let ops = f.inst_operands(i);
        let base = f.inst_operand_range(i).start;
        for r in f.inst_clobbers(i) {
            self.reread_regs[r.class().index()] &= !(1 << r.hw());
        }
        for &a in &self.allocs[f.inst_operand_range(i)] {
            if let Allocation::Reg(r) = a {
                self.reread_regs[r.class().index()] &= !(1 << r.hw());
            }
        }
        for (k, op) in ops.iter().enumerate() {
            let a = self.allocs[base + k];
            if let (Allocation::Reg(r), true) = (a, op.is_use() && !op.is_nonalloc()) {
                if a != self.home(op.vreg(), i) {
                    let c = r.class().index();
                    self.reread_regs[c] |= 1 << r.hw();
                    self.reread[c][r.hw()] = op.vreg().index() as u32;
                }
            }
        }
    }

    /// Whether operand `k` of `i` may read or write its group's home itself:
    /// the home meets its constraint, holds through the points it occupies
    /// (no clobber at the late point, no parameter written before a branch
    /// into a join), and, for a reused input, may be overwritten. A reusing
    /// def never does: it takes its input's location, and when the two
    /// share a group the input keeps their home taken at the late point.
    fn fits(
        &self,
        i: Inst,
        k: usize,
        live: &[u64],
        clobbered: &[u64; 3],
        overwritten: &[Allocation],
    ) -> bool {
        let ops = self.f.inst_operands(i);
        let op = ops[k];
        if op.is_nonalloc() {
            return false;
        }
        let home = self.home(op.vreg(), i);
        let c = op.class().index();
        let (_, late) = span(ops, k);
        let meets = match (op.constraint(), home) {
            (OperandConstraint::Any, _) => true,
            (OperandConstraint::Stack, Allocation::Stack(_)) => true,
            (OperandConstraint::Reg, Allocation::Reg(_)) => true,
            (OperandConstraint::FixedReg(r), Allocation::Reg(h)) => r == h,
            (OperandConstraint::Limit(n), Allocation::Reg(h)) => limit_mask(n) >> h.hw() & 1 == 1,
            _ => false,
        };
        let holds = match home {
            Allocation::Reg(r) => !late || clobbered[c] >> r.hw() & 1 == 0,
            _ => true,
        };
        let reused = reuser(ops, k).is_some();
        meets
            && holds
            && !overwritten.contains(&home)
            && (!reused || self.reuse_may_overwrite(i, k, live))
    }

    /// Whether the reused input `k` of `i` may be read from its home, which
    /// the reusing def then overwrites: its group is the def's (so the home
    /// goes on as the def's), or its value dies here and no other operand
    /// reads it.
    fn reuse_may_overwrite(&self, i: Inst, k: usize, live: &[u64]) -> bool {
        let ops = self.f.inst_operands(i);
        let u = ops[k].vreg();
        let def = ops[reuser(ops, k).expect("a reused input has its def")];
        if self.g.find(u.index()) == self.g.find(def.vreg().index()) {
            return true;
        }
        let g = self.g.find(u.index());
        let others_read = ops
            .iter()
            .enumerate()
            .any(|(j, o)| j != k && o.is_use() && self.g.find(o.vreg().index()) == g);
        let group_lives_on = dense::members(live).any(|v| self.g.find(v) == g);
        !others_read && !group_lives_on
    }

    /// Names the victim of an instruction whose class-`c` operands cannot
    /// all get registers: the lowest-scored group whose home is one of the
    /// candidates the homes around it hold.
    fn victim(
        &mut self,
        i: Inst,
        live: &[u64],
        c: usize,
        slots: &[RegSlot],
        taken: u64,
    ) -> Result<(), AllocError> {
        let wanted = slots.iter().fold(0u64, |m, s| m | s.candidates) & taken;
        let mut present = std::mem::take(&mut self.present);
        present_at(self.f, i, live, true, true, &mut present);
        let g = self.g;
        // Present values, and the parameters edge moves write before a
        // branch into a join.
        let params = join_params(self.f, i).map_or(&[][..], |(_, params)| params);
        let holders = dense::members(&present)
            .chain(params.iter().map(|p| p.index()))
            .map(|v| g.find(v))
            .filter(|&r| {
                matches!(self.homes.at(r, i), Allocation::Reg(p)
                    if p.class().index() == c && wanted >> p.hw() & 1 == 1)
            });
        let best = holders.min_by(|&a, &b| {
            score(g.cost[a], g.area[a], false)
                .total_cmp(&score(g.cost[b], g.area[b], false))
                .then(a.cmp(&b))
        });
        if self.spill_all_present && best.is_some() {
            // Every group of the class present: whichever of them the next
            // colouring gives the register would hold it here too.
            for v in dense::members(&present) {
                let r = g.find(v);
                if g.class[r] as usize == c {
                    self.victims.push(r);
                }
            }
        }
        self.present = present;
        match best {
            Some(r) => {
                self.victims.push(r);
                Ok(())
            }
            None => Err(AllocError::Impossible(format!(
                "{i}: its {} operands cannot all get registers at once",
                RegClass::from_index(c)
            ))),
        }
    }

    /// The moves of the edges leaving branch `i`: arguments into parameters
    /// and the branch's defs (`stores`) into their homes, at the top of each
    /// successor with one predecessor, or before the branch into a join.
    fn edges(
        &mut self,
        i: Inst,
        stores: &[(VReg, ParallelMove)],
        busy: [u64; 3],
        facts: &Facts,
    ) -> Result<(), AllocError> {
        let f = self.f;
        let b = f.block_of(i);
        // `busy` holds every value live across the edge (the arguments
        // and split groups among them, at the branch); the registers the
        // moves write are the resolver's own to avoid.
        for (t, &s) in f.block_succs(b).iter().enumerate() {
            let first = f.block_insts(s).first();
            for (&a, &p) in f.branch_args(b, t).iter().zip(f.block_params(s)) {
                let (from, to) = (self.home(a, i), self.home(p, first));
                // A parameter nothing reads is not written: it may share
                // a register with a live one.
                if from != to && facts.is_read(p) {
                    self.moves.set.push(ParallelMove {
                        from,
                        to,
                        class: p.class(),
                    });
                }
            }
            // Split groups carried along the edge, in their slot at one end
            // and their register at the other.
            if let Some(members) = &self.homes.members {
                load_live_in(facts, s, &mut self.live_in, &mut self.live_in_of);
                for &z in &self.homes.split {
                    if !members.of(z).any(|v| dense::contains(&self.live_in, v)) {
                        continue;
                    }
                    let (from, to) = (self.homes.at(z, i), self.homes.at(z, first));
                    if from != to {
                        self.moves.set.push(ParallelMove {
                            from,
                            to,
                            class: RegClass::from_index(self.g.class[z] as usize),
                        });
                    }
                }
            }
            if effective_preds(f, s) == 1 {
                // A def goes where its value is read on.
                self.moves.set.extend(
                    stores
                        .iter()
                        .filter(|(v, _)| facts.is_live_in(s, v.index()))
                        .map(|s| s.1),
                );
                self.flush(ProgPoint::before(first), PHASE_EDGE_IN, busy);
            } else {
                if !stores.is_empty() {
                    self.moves.set.clear();
                    return Err(AllocError::Unsupported(format!(
                        "{i}: a def of this branch must be moved to its home, but the branch jumps to {s}, which has several predecessors"
                    )));
                }
                self.flush(ProgPoint::before(i), PHASE_EDGE_OUT, busy);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
