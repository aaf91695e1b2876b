//! `coloring`: a Chaitin-Briggs graph-coloring allocator after HotSpot C2's
//! (seed 004): live range groups of vregs, an interference graph built
//! backwards from liveness, aggressive coalescing of block-parameter copies
//! and `reuse` pairs, C2's cost-against-area score, simplify with Briggs'
//! optimistic push, select within each group's register mask, and rounds
//! that spill and colour again until every instruction's operands fit.
//!
//! The phases, each handing its result to the next:
//! - [`facts`]: liveness rows, block frequencies → `Facts`;
//! - [`graph`]: groups, masks, cost, area, interference, coalescing →
//!   `Graph`;
//! - [`points`]: presence intervals, references, spill costs → `Points`;
//! - [`select`]: simplify and select, asking [`split`] (passive live-range
//!   splitting) for a group left without a register → a `Home` per group
//!   and the holes where split groups are in their slots;
//! - [`homes`]: each group's register or spill slot, and the holes of
//!   split groups → `Homes`;
//! - [`assign`]: every operand's location and every move → `Output`, or
//!   the groups to spill in the next round;
//! - [`crate::redundant`]: moves that copy what is already there are
//!   dropped, reloads a register can serve read it → `Output`.
//!
//! A group lives in one place for its whole life, but in its slot within
//! the holes passive splitting gave it. An operand whose
//! constraint its group's home does not meet (a `fixed` register, a
//! `limit`, `stack`, a register for a spilled group) gets a location of its
//! own at its instruction, with a copy before or after: spilling a group is
//! giving it a stack home, and its operands then load and store around
//! themselves as in `spill_everywhere`.

mod assign;
mod excursions;
mod facts;
mod graph;
mod homes;
mod points;
mod select;
mod split;

use crate::interface::{AllocError, Allocator, Counters};
use crate::ir::function::Function;
use crate::ir::machine::MachineEnv;
use crate::ir::output::Output;

/// See the module documentation.
pub struct Coloring;

/// The same allocator with passive splitting switched off: a group that
/// finds no register is spilled everywhere. For measuring what splitting
/// pays.
pub struct ColoringWithoutSplitting;

/// What one allocation did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ColoringStats {
    /// Colouring rounds (1 when the first colouring fits every
    /// instruction).
    pub rounds: u64,
    /// Copies removed by coalescing.
    pub coalesced: u64,
    /// Groups (live ranges after coalescing).
    pub groups: u64,
    /// Groups that live on the stack.
    pub spilled: u64,
    /// Groups select pushed optimistically that found a register.
    pub optimistic: u64,
    /// Groups that step aside, in part of their life, for another (passive
    /// splitting), and the splits made.
    pub split: u64,
    pub splits: u64,
    /// Moves dropped, and reloads turned into register moves, by redundant
    /// move elimination.
    pub redundant_moves_removed: u64,
    /// Holes within a block turned into a wait in a free register.
    pub excursions: u64,
    pub reloads_from_registers: u64,
    pub slots_kept_in_loops: u64,
}

impl Coloring {
    /// Allocates and reports what the rounds did.
    pub fn run_with_stats(
        f: &Function,
        env: &MachineEnv,
    ) -> Result<(Output, ColoringStats), AllocError> {
        Coloring::run_with_options(f, env, true)
    }

    /// Allocates, with passive splitting or without.
    pub fn run_with_options(
        f: &Function,
        env: &MachineEnv,
        passive_splitting: bool,
    ) -> Result<(Output, ColoringStats), AllocError> {
        crate::framing::around(f, env, |f| Self::allocate(f, env, passive_splitting))
    }

    fn allocate(
        f: &Function,
        env: &MachineEnv,
        passive_splitting: bool,
    ) -> Result<(Output, ColoringStats), AllocError> {
        let facts = facts::Facts::new(f);
        let points = passive_splitting.then(|| points::Points::new(f, &facts));
        let mut stats = ColoringStats::default();
        // The vregs spilled by earlier rounds: a group holding one lives on
        // the stack. Every round that does not finish spills at least one
        // more, so one round per vreg and a last one always suffice.
        let mut forced = vec![false; f.num_vregs()];
        let g = graph::build(f, env, &facts);
        let rounds = Rounds {
            f,
            env,
            facts: &facts,
            points: points.as_ref(),
        };
        if let Some(out) = rounds.run(&g, &mut forced, &mut stats, f.num_vregs())? {
            return Ok(out);
        }
        Err(AllocError::Impossible(
            "coloring: the spill rounds ran out".to_string(),
        ))
    }
}

/// Rounds after which an instruction short of registers spills every group
/// of the class present there, not only the lowest-scored holder of a
/// register it needs, and each next round keeps the last colouring with
/// its victims on the stack ([`Kept::without`]) instead of colouring
/// again. A spilled group's operands need registers of their own that the
/// colouring does not see, so the register spilling one group frees goes,
/// coloured again, to the next group live across the instruction: one
/// round per group (65 rounds on a swarm case of 167 instructions, 20
/// times the allocator's median time per instruction).
const SPILL_ALL_PRESENT_AFTER: u64 = 2;

/// What the spill rounds read.
struct Rounds<'a> {
    f: &'a Function,
    env: &'a MachineEnv,
    facts: &'a facts::Facts,
    points: Option<&'a points::Points>,
}

impl Rounds<'_> {
    /// One round on `g` and up to `more` after it: colour (or keep the last
    /// colouring), assign, and either finish or spill the victims (all
    /// their vregs, into `forced`) and go again.
    fn run(
        &self,
        g: &graph::Graph,
        forced: &mut [bool],
        stats: &mut ColoringStats,
        more: usize,
    ) -> Result<Option<(Output, ColoringStats)>, AllocError> {
        let f = self.f;
        let mut splitter = self
            .points
            .map(|p| split::Splitter::new(f, g, p, self.facts));
        let mut on_stack = vec![false; g.n];
        // The last round's colouring with its victims moved to the stack,
        // for a round that spills every group present to start from.
        let mut kept: Option<Kept> = None;
        for _ in 0..=more {
            stats.rounds += 1;
            let all = stats.rounds > SPILL_ALL_PRESENT_AFTER;
            let Kept {
                home,
                holes,
                splits,
                optimistic,
            } = match kept.take() {
                Some(k) => k,
                None => self.colour(g, forced, &mut on_stack, splitter.as_mut()),
            };
            let homes = homes::Homes::new(f, g, &home, holes);
            match assign::assign(f, self.env, self.facts, g, &homes, all)? {
                assign::Assigned::Done(mut out) => {
                    stats.coalesced = g.coalesced;
                    stats.groups = (0..g.n).filter(|&v| g.find(v) == v).count() as u64;
                    stats.spilled = (0..g.n)
                        .filter(|&v| g.find(v) == v && home[v] == select::Home::Stack)
                        .count() as u64;
                    stats.split = homes.split_groups() as u64;
                    stats.splits = splits;
                    stats.optimistic = optimistic;
                    stats.excursions = excursions::make(f, g, self.facts, &homes, &mut out) as u64;
                    let removed = crate::redundant::eliminate(f, &out.allocs, &mut out.edits);
                    stats.redundant_moves_removed = removed.dropped as u64;
                    stats.reloads_from_registers = removed.reloads_from_registers as u64;
                    stats.slots_kept_in_loops =
                        crate::slot_cache::cache_in_loops(f, self.env, &mut out) as u64;
                    return Ok(Some((out, *stats)));
                }
                assign::Assigned::Spill(victims) => {
                    for v in 0..g.n {
                        if victims.binary_search(&g.find(v)).is_ok() {
                            forced[v] = true;
                        }
                    }
                    if stats.rounds >= SPILL_ALL_PRESENT_AFTER {
                        kept = Some(Kept::without(
                            home,
                            homes.into_holes(),
                            &victims,
                            splits,
                            optimistic,
                        ));
                    }
                }
            }
        }
        Ok(None)
    }

    /// Simplify and select on `g` with the `forced` vregs' groups on the
    /// stack, and the holes passive splitting made.
    fn colour(
        &self,
        g: &graph::Graph,
        forced: &[bool],
        on_stack: &mut [bool],
        mut splitter: Option<&mut split::Splitter>,
    ) -> Kept {
        on_stack.fill(false);
        for v in 0..g.n {
            on_stack[g.find(v)] |= forced[v];
        }
        if let Some(s) = splitter.as_deref_mut() {
            s.reset();
        }
        let select::Colouring { home, optimistic } =
            select::color(g, on_stack, splitter.as_deref_mut());
        let (mut holes, splits) = splitter
            .as_ref()
            .map_or((Vec::new(), 0), |s| (s.holes.clone(), s.splits));
        split::lengthen(self.f, g, &mut holes);
        Kept {
            home,
            holes,
            splits,
            optimistic,
        }
    }
}

/// A round's colouring: each group's home, the holes of split groups, and
/// what select counted.
struct Kept {
    home: Vec<select::Home>,
    holes: Vec<split::Intervals>,
    splits: u64,
    optimistic: u64,
}

impl Kept {
    /// The colouring with the `victims` (representatives, sorted) on the
    /// stack and every other group where it was. Once an instruction short
    /// of registers spills every group present, a round colours no more:
    /// colouring again would hand the registers the victims free to other
    /// groups, short of registers where the victims' operands now need
    /// some (a 17,991-instruction tiktoken function spilled 602 groups,
    /// then 1,107 more, in two rounds that coloured again). Kept, a
    /// colouring only loses holders, so each round frees registers and
    /// takes none.
    fn without(
        mut home: Vec<select::Home>,
        mut holes: Vec<split::Intervals>,
        victims: &[usize],
        splits: u64,
        optimistic: u64,
    ) -> Kept {
        for &r in victims {
            home[r] = select::Home::Stack;
            if let Some(h) = holes.get_mut(r) {
                h.clear();
            }
        }
        Kept {
            home,
            holes,
            splits,
            optimistic,
        }
    }
}

impl Allocator for Coloring {
    fn name(&self) -> &'static str {
        "coloring"
    }

    fn run(&self, f: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        Coloring::run_with_stats(f, env).map(|r| r.0)
    }

    fn run_with_counters(
        &self,
        f: &Function,
        env: &MachineEnv,
    ) -> Result<(Output, Counters), AllocError> {
        let (out, s) = Coloring::run_with_stats(f, env)?;
        Ok((
            out,
            vec![
                ("rounds", s.rounds),
                ("groups", s.groups),
                ("coalesced", s.coalesced),
                ("spilled", s.spilled),
                ("optimistic", s.optimistic),
                ("split", s.split),
                ("splits", s.splits),
                ("redundant_moves_removed", s.redundant_moves_removed),
                ("reloads_from_registers", s.reloads_from_registers),
                ("excursions", s.excursions),
                ("slots_kept_in_loops", s.slots_kept_in_loops),
            ],
        ))
    }
}

impl Allocator for ColoringWithoutSplitting {
    fn name(&self) -> &'static str {
        "coloring_nosplit"
    }

    fn run(&self, f: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        Coloring::run_with_options(f, env, false).map(|r| r.0)
    }
}
