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
//! - [`assign`]: spill slots (`Homes`), then every operand's location and
//!   every move → `Output`, or the groups to spill in the next round;
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
mod facts;
mod graph;
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
    /// Colouring rounds (1 when the first colouring fits every instruction).
    pub rounds: u64,
    /// Copies removed by coalescing.
    pub coalesced: u64,
    /// Groups (live ranges after coalescing).
    pub groups: u64,
    /// Groups that live on the stack.
    pub spilled: u64,
    /// Groups that step aside, in part of their life, for another (passive
    /// splitting), and the splits made.
    pub split: u64,
    pub splits: u64,
    /// Moves dropped, and reloads turned into register moves, by redundant
    /// move elimination.
    pub redundant_moves_removed: u64,
    pub reloads_from_registers: u64,
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
        let facts = facts::Facts::new(f);
        let g = graph::build(f, env, &facts);
        let points = passive_splitting.then(|| points::Points::new(f, &facts));
        let mut forced = vec![false; g.n];
        let mut stats = ColoringStats {
            coalesced: g.coalesced,
            groups: (0..g.n).filter(|&v| g.find(v) == v).count() as u64,
            ..ColoringStats::default()
        };
        let mut splitter = points
            .as_ref()
            .map(|p| split::Splitter::new(f, &g, p, &facts));
        // Every round spills at least one more group, so there are at most
        // as many rounds as groups.
        for _ in 0..=g.n {
            stats.rounds += 1;
            if let Some(s) = splitter.as_mut() {
                s.reset();
            }
            let home = select::color(&g, &forced, splitter.as_mut());
            let (holes, splits) = splitter
                .as_ref()
                .map_or((Vec::new(), 0), |s| (s.holes.clone(), s.splits));
            let homes = assign::Homes::new(f, &g, &home, holes);
            match assign::assign(f, env, &facts, &g, &homes)? {
                assign::Assigned::Done(mut out) => {
                    stats.spilled = (0..g.n)
                        .filter(|&v| g.find(v) == v && home[v] == select::Home::Stack)
                        .count() as u64;
                    stats.split = homes.split_groups() as u64;
                    stats.splits = splits;
                    let removed = crate::redundant::eliminate(f, &out.allocs, &mut out.edits);
                    stats.redundant_moves_removed = removed.dropped as u64;
                    stats.reloads_from_registers = removed.reloads_from_registers as u64;
                    return Ok((out, stats));
                }
                assign::Assigned::Spill(victims) => {
                    for v in victims {
                        forced[v] = true;
                    }
                }
            }
        }
        Err(AllocError::Impossible(
            "coloring: the spill rounds ran out".to_string(),
        ))
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
                ("split", s.split),
                ("splits", s.splits),
                ("redundant_moves_removed", s.redundant_moves_removed),
                ("reloads_from_registers", s.reloads_from_registers),
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
