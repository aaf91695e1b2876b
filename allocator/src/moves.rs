//! The parallel move resolver every allocator shares: turns a set of moves
//! that happen "at once" at one program point (block parameter assignments,
//! moves between the split pieces of values) into a sequence of ordinary
//! moves with the same effect.
//!
//! Ordering: move `a` must come before move `b` when `b` overwrites `a`'s
//! source. Destinations are unique, so each move has at most one such
//! successor (the one move that writes its source): the relation is a
//! functional graph. In a functional graph every strongly connected
//! component is a simple cycle: inside a component of `k` moves each move
//! needs an edge to stay connected and has at most one, so there are exactly
//! `k` edges, and a strongly connected graph with as many edges as nodes is
//! one cycle. So no general SCC algorithm is needed: a depth-first walk
//! along successor links, emitting in reverse postorder, meets each cycle as
//! a successor that is still on the walk's stack. The move on top of the
//! stack is then broken: its source is first copied to a scratch location
//! `T` (before the cycle's other moves run) and its destination is written
//! from `T` last.
//!
//! `T` is the class's dedicated scratch register; else a register the caller
//! says is free and that the set does not touch; else, when the broken move
//! goes register to register, an extra spill slot; else a register borrowed
//! for the cycle (saved to an extra spill slot and restored after); else the
//! extra spill slot anyway. Memory-to-memory moves (spill slots and fixed
//! stack locations are memory) are never emitted: each goes through the
//! scratch register, a free register, a register the set overwrites and
//! never reads whose own move has not run yet (moves into such registers
//! are emitted last where the order allows), or a borrowed one that is
//! saved and restored around it.

use crate::ir::index::{PReg, PRegSet, RegClass, SpillSlot};
use crate::ir::machine::MachineEnv;
use crate::ir::output::{Allocation, Move};
use std::cell::Cell;

/// One move of a parallel set: `to := from`, moving a value of `class`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParallelMove {
    pub from: Allocation,
    pub to: Allocation,
    pub class: RegClass,
}

/// What the resolver may use besides the locations of the set.
#[derive(Clone, Copy, Debug)]
pub struct MoveContext<'a> {
    pub env: &'a MachineEnv,
    /// Registers that hold no live value at this point; the resolver may
    /// overwrite those that the set does not touch.
    pub free: PRegSet,
    /// Two spill slots reserved for the resolver's own saves: `[0]` for a
    /// cycle's scratch, `[1]` for a register borrowed around a
    /// memory-to-memory move. They may be overwritten.
    pub extra_slots: [SpillSlot; 2],
}

/// What one resolution did (for statistics and fuzzing features).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ResolveStats {
    pub cycles: usize,
    pub scratch_dedicated: usize,
    pub scratch_free: usize,
    pub scratch_stack: usize,
    pub scratch_borrowed: usize,
    /// Memory-to-memory moves routed through a register.
    pub mem_to_mem: usize,
    /// Of those, routed through a borrowed (saved and restored) register.
    pub mem_to_mem_borrowed: usize,
    /// Of those, routed through a register the set overwrites later and
    /// never reads (free of charge, like a spare one).
    pub mem_to_mem_doomed: usize,
}

const NONE: u32 = u32::MAX;

/// A step of the ordered sequence, before scratch locations are chosen.
#[derive(Clone, Copy, Debug)]
enum Step {
    Move(u32),
    /// `T := from` of a broken move (starts its cycle).
    Save(u32),
    /// `to := T` of a broken move (ends its cycle).
    Restore(u32),
}

/// The resolver; keeps its buffers between calls so that resolving
/// allocates nothing once they have grown.
#[derive(Default)]
pub struct MoveResolver {
    moves: Vec<ParallelMove>,
    by_dst: Vec<(u32, u32)>,
    succ: Vec<u32>,
    state: Vec<u8>,
    head_of: Vec<u32>,
    stack: Vec<u32>,
    post: Vec<Step>,
    /// Registers the set overwrites and never reads: their values are dead
    /// at the set's point, so until their own move they may carry memory
    /// to memory moves. Moves into them go last where the order allows.
    doomed: PRegSet,
}

/// A dense key per location: pregs first, then spill slots.
fn key(a: Allocation) -> u32 {
    match a {
        Allocation::Reg(r) => r.index() as u32,
        Allocation::Stack(s) => PReg::NUM_INDEX as u32 + s.0,
        Allocation::None => NONE,
    }
}

impl MoveResolver {
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends to `out` a sequence of moves with the effect of the parallel
    /// set `input`. Requires: destinations unique, no `none` location, every
    /// register of its move's class. Self-moves are dropped.
    pub fn resolve(
        &mut self,
        input: &[ParallelMove],
        ctx: &MoveContext,
        out: &mut Vec<Move>,
    ) -> ResolveStats {
        let mut stats = ResolveStats::default();
        self.moves.clear();
        self.moves
            .extend(input.iter().filter(|m| m.from != m.to).copied());
        let n = self.moves.len();
        if n == 0 {
            return stats;
        }
        if n == 1 {
            // The common case: one move, no order to find. Only a move
            // between two memory locations needs the router.
            let m = self.moves[0];
            let is_mem = |a: Allocation| match a {
                Allocation::Stack(_) => true,
                Allocation::Reg(r) => ctx.env.fixed_stack[r.class()].contains(&r),
                Allocation::None => false,
            };
            if !(is_mem(m.from) && is_mem(m.to)) {
                out.push(Move {
                    from: m.from,
                    to: m.to,
                });
                return stats;
            }
        }
        self.by_dst.clear();
        self.by_dst.extend(
            self.moves
                .iter()
                .enumerate()
                .map(|(i, m)| (key(m.to), i as u32)),
        );
        self.by_dst.sort_unstable();
        debug_assert!(
            self.by_dst.windows(2).all(|w| w[0].0 != w[1].0),
            "destinations must be unique"
        );
        self.succ.clear();
        let mut any_succ = false;
        for m in &self.moves {
            let k = key(m.from);
            let s = match self.by_dst.binary_search_by_key(&k, |e| e.0) {
                Ok(j) => self.by_dst[j].1,
                Err(_) => NONE,
            };
            any_succ |= s != NONE;
            self.succ.push(s);
        }
        self.find_doomed(ctx);
        self.post.clear();
        if !any_succ && self.doomed == PRegSet::empty() {
            self.post.extend((0..n as u32).rev().map(Step::Move));
        } else if !any_succ {
            // Fast path: no move overwrites another's source. `post` is
            // emitted backwards: moves into doomed registers last.
            let doomed = self.doomed;
            let into_doomed = |m: &ParallelMove| m.to.as_reg().is_some_and(|r| doomed.contains(r));
            let moves = &self.moves;
            self.post.extend(
                (0..n as u32)
                    .rev()
                    .filter(|&m| into_doomed(&moves[m as usize]))
                    .map(Step::Move),
            );
            self.post.extend(
                (0..n as u32)
                    .rev()
                    .filter(|&m| !into_doomed(&moves[m as usize]))
                    .map(Step::Move),
            );
        } else {
            self.order();
        }
        self.emit(ctx, out, &mut stats);
        stats
    }

    /// Sets `doomed`, which only memory-to-memory moves use: left empty
    /// when the set has none.
    fn find_doomed(&mut self, ctx: &MoveContext) {
        self.doomed = PRegSet::empty();
        let fixed_stack = |r: PReg| ctx.env.fixed_stack[r.class()].contains(&r);
        let is_mem = |a: Allocation| match a {
            Allocation::Stack(_) => true,
            Allocation::Reg(r) => fixed_stack(r),
            Allocation::None => false,
        };
        if !self.moves.iter().any(|m| is_mem(m.from) && is_mem(m.to)) {
            return;
        }
        let mut read = PRegSet::empty();
        for m in &self.moves {
            if let Allocation::Reg(r) = m.from {
                read.insert(r);
            }
        }
        for m in &self.moves {
            if let Allocation::Reg(r) = m.to {
                if !read.contains(r) && !fixed_stack(r) {
                    self.doomed.insert(r);
                }
            }
        }
    }

    /// Fills `post` in postorder of the "must come before" graph, with the
    /// back edge of every cycle broken.
    fn order(&mut self) {
        let n = self.moves.len();
        self.state.clear();
        self.state.resize(n, 0);
        self.head_of.clear();
        self.head_of.resize(n, NONE);
        let mut broken = std::mem::take(&mut self.stack);
        broken.clear();
        // `broken` doubles as the walk's stack; broken moves are marked in
        // `state` as 3 once finished. Walks from moves into doomed registers
        // come first, so that they are emitted last (no move reads what
        // those write, so no walk reaches them).
        let doomed = self.doomed;
        let moves = &self.moves;
        let into_doomed = |m: u32| {
            moves[m as usize]
                .to
                .as_reg()
                .is_some_and(|r| doomed.contains(r))
        };
        let roots = (0..n as u32)
            .filter(|&m| into_doomed(m))
            .chain((0..n as u32).filter(|&m| !into_doomed(m)));
        for m0 in roots {
            if self.state[m0 as usize] != 0 {
                continue;
            }
            broken.push(m0);
            self.state[m0 as usize] = 1;
            while let Some(&top) = broken.last() {
                let s = self.succ[top as usize];
                if s != NONE && self.state[s as usize] == 0 {
                    self.state[s as usize] = 1;
                    broken.push(s);
                    continue;
                }
                let is_broken = s != NONE && self.state[s as usize] == 1;
                if is_broken {
                    self.head_of[s as usize] = top;
                }
                broken.pop();
                self.state[top as usize] = 2;
                self.post.push(if is_broken {
                    Step::Restore(top)
                } else {
                    Step::Move(top)
                });
                if self.head_of[top as usize] != NONE {
                    self.post.push(Step::Save(self.head_of[top as usize]));
                }
            }
        }
        self.stack = broken;
    }

    /// Walks `post` backwards (reverse postorder), choosing each cycle's
    /// scratch and routing memory-to-memory moves.
    fn emit(&mut self, ctx: &MoveContext, out: &mut Vec<Move>, stats: &mut ResolveStats) {
        let env = ctx.env;
        let fixed_stack = env.fixed_stack_set();
        let is_mem = |a: Allocation| match a {
            Allocation::Stack(_) => true,
            Allocation::Reg(r) => fixed_stack.contains(r),
            Allocation::None => false,
        };
        let mut involved = PRegSet::empty();
        for m in &self.moves {
            for a in [m.from, m.to] {
                if let Allocation::Reg(r) = a {
                    involved.insert(r);
                }
            }
        }
        // Free registers the set does not touch: ours to overwrite.
        let mut spare = ctx.free;
        for r in involved.iter().chain(fixed_stack.iter()) {
            spare.remove(r);
        }
        let router = Router {
            env,
            spare,
            doomed: Cell::new(self.doomed),
            extra: ctx.extra_slots,
            is_mem: &is_mem,
        };
        // The current cycle's scratch, and the register to restore after it.
        let mut t = Allocation::None;
        let mut t_borrowed: Option<PReg> = None;
        for idx in (0..self.post.len()).rev() {
            match self.post[idx] {
                Step::Move(m) => {
                    let m = self.moves[m as usize];
                    router.emit(m.from, m.to, m.class, t.as_reg(), out, stats);
                }
                Step::Save(p) => {
                    let pm = self.moves[p as usize];
                    let (choice, borrowed) = self.choose_scratch(idx, pm, &router, stats);
                    t = choice;
                    t_borrowed = borrowed;
                    if let Some(r) = borrowed {
                        out.push(Move {
                            from: Allocation::Reg(r),
                            to: Allocation::Stack(ctx.extra_slots[0]),
                        });
                    }
                    router.emit(pm.from, t, pm.class, t.as_reg(), out, stats);
                }
                Step::Restore(p) => {
                    let pm = self.moves[p as usize];
                    router.emit(t, pm.to, pm.class, None, out, stats);
                    if let Some(r) = t_borrowed.take() {
                        out.push(Move {
                            from: Allocation::Stack(ctx.extra_slots[0]),
                            to: Allocation::Reg(r),
                        });
                    }
                    t = Allocation::None;
                }
            }
        }
    }

    /// Picks the scratch `T` for the cycle whose `Save` step is at
    /// `post[save_idx]` (its steps run down to the matching `Restore`).
    /// Returns `T` and the register to save and restore when `T` is borrowed.
    fn choose_scratch(
        &self,
        save_idx: usize,
        pm: ParallelMove,
        router: &Router,
        stats: &mut ResolveStats,
    ) -> (Allocation, Option<PReg>) {
        stats.cycles += 1;
        let class = pm.class;
        let is_mem = router.is_mem;
        // The cycle's registers, and whether it moves memory to memory
        // (then routing needs a register other than a register `T`).
        let mut seg_regs = PRegSet::empty();
        let mut mem_mem = false;
        for step in self.post[..save_idx].iter().rev() {
            let m = match *step {
                Step::Move(m) => self.moves[m as usize],
                Step::Restore(_) => break,
                Step::Save(_) => continue,
            };
            mem_mem |= is_mem(m.from) && is_mem(m.to);
            for a in [m.from, m.to] {
                if let Allocation::Reg(r) = a {
                    seg_regs.insert(r);
                }
            }
        }
        for a in [pm.from, pm.to] {
            if let Allocation::Reg(r) = a {
                seg_regs.insert(r);
            }
        }
        let alloc = || router.env.allocatable(class);
        let another_allocatable = |r: PReg| alloc().any(|x| x != r);
        if let Some(s) = router.env.scratch[class] {
            stats.scratch_dedicated += 1;
            return (Allocation::Reg(s), None);
        }
        if let Some(r) = router.spare_reg(class, None) {
            if !mem_mem || another_allocatable(r) {
                stats.scratch_free += 1;
                return (Allocation::Reg(r), None);
            }
        }
        let extra = Allocation::Stack(router.extra[0]);
        if !is_mem(pm.from) && !is_mem(pm.to) {
            stats.scratch_stack += 1;
            return (extra, None);
        }
        if let Some(r) =
            alloc().find(|&r| !seg_regs.contains(r) && (!mem_mem || another_allocatable(r)))
        {
            stats.scratch_borrowed += 1;
            return (Allocation::Reg(r), Some(r));
        }
        stats.scratch_stack += 1;
        (extra, None)
    }
}

/// Emits single moves, routing memory-to-memory ones through a register.
struct Router<'a> {
    env: &'a MachineEnv,
    spare: PRegSet,
    /// Registers the set overwrites without reading them whose own move has
    /// not been emitted yet.
    doomed: Cell<PRegSet>,
    /// `[0]`: a cycle's scratch or the save of its borrowed register;
    /// `[1]`: the save of a register borrowed for routing.
    extra: [SpillSlot; 2],
    is_mem: &'a dyn Fn(Allocation) -> bool,
}

impl Router<'_> {
    /// A spare (free, untouched) register of `class` other than `avoid`.
    fn spare_reg(&self, class: RegClass, avoid: Option<PReg>) -> Option<PReg> {
        let mask = self.spare.class_mask(class);
        let mut m = mask;
        while m != 0 {
            let r = PReg::new(m.trailing_zeros() as usize, class);
            m &= m - 1;
            if Some(r) != avoid {
                return Some(r);
            }
        }
        None
    }

    /// Emits `to := from`; `live_t` is a register holding a cycle's saved
    /// value, which routing must not touch.
    fn emit(
        &self,
        from: Allocation,
        to: Allocation,
        class: RegClass,
        live_t: Option<PReg>,
        out: &mut Vec<Move>,
        stats: &mut ResolveStats,
    ) {
        if from == to {
            return;
        }
        if let Allocation::Reg(r) = to {
            let mut d = self.doomed.get();
            d.remove(r);
            self.doomed.set(d);
        }
        if !((self.is_mem)(from) && (self.is_mem)(to)) {
            out.push(Move { from, to });
            return;
        }
        stats.mem_to_mem += 1;
        let via = |r: PReg, out: &mut Vec<Move>| {
            out.push(Move {
                from,
                to: Allocation::Reg(r),
            });
            out.push(Move {
                from: Allocation::Reg(r),
                to,
            });
        };
        if let Some(s) = self.env.scratch[class].filter(|&s| Some(s) != live_t) {
            return via(s, out);
        }
        if let Some(r) = self.spare_reg(class, live_t) {
            return via(r, out);
        }
        let doomed = self.doomed.get().class_mask(class);
        if let Some(r) = (0..64)
            .filter(|&hw| doomed & (1 << hw) != 0)
            .map(|hw| PReg::new(hw, class))
            .find(|&r| Some(r) != live_t)
        {
            stats.mem_to_mem_doomed += 1;
            return via(r, out);
        }
        // Borrow: any allocatable register of the class but the live scratch.
        let r = self
            .env
            .allocatable(class)
            .find(|&r| Some(r) != live_t)
            .expect("a class has an allocatable register besides the cycle's scratch");
        stats.mem_to_mem_borrowed += 1;
        let save = Allocation::Stack(self.extra[1]);
        out.push(Move {
            from: Allocation::Reg(r),
            to: save,
        });
        via(r, out);
        out.push(Move {
            from: save,
            to: Allocation::Reg(r),
        });
    }
}
