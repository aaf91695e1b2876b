//! `backtracking`: a backtracking allocator after the regalloc2 design
//! (seed 000): live ranges from precise liveness, bundles merged across
//! block parameters and `reuse` pairs, a priority queue of bundles that are
//! allocated, evict cheaper bundles or are split at their first conflict,
//! spill bundles with second-chance allocation, spill slots shared between
//! spill sets that do not overlap, edge moves per incoming edge, and redundant
//! move elimination.
//!
//! The phases, each handing its result to the next:
//! - [`edge_branch`]: the branches whose edge moves run before them get
//!   their operand registers up front → `EdgeBranches`;
//! - [`liveranges`] (with [`operands`]): ranges and use records per value,
//!   copy values for reads a value cannot serve from one location, and
//!   reservations for clobbers → `Ranges`, `Rewrites`;
//! - [`bundles`]: merging → `Bundles`;
//! - [`process`]: the main loop and second chance, over the per-register
//!   maps of [`regmap`] → `Allocated`;
//! - [`slots`]: spill slots → `Slots`;
//! - [`assemble`]: operand allocations and moves, resolved by the shared
//!   resolver; then [`crate::redundant`] drops moves that copy what is already
//!   there → `Output`.
//!
//! Program points are three per instruction ([`points`]); requirements form
//! the lattice of [`requirement`].

mod assemble;
mod bundles;
mod edge_branch;
mod liveranges;
mod operands;
mod points;
mod process;
mod regmap;
mod requirement;
mod slots;

use crate::analysis::{cfg, liveness, loops};
use crate::interface::{AllocError, Allocator, Counters};
use crate::ir::function::Function;
use crate::ir::machine::MachineEnv;
use crate::ir::output::Output;

/// See the module documentation.
pub struct Backtracking;

/// What one allocation did, beyond the move counts of the output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BacktrackingStats {
    pub bundles: u64,
    pub evictions: u64,
    pub splits: u64,
    pub second_chance: u64,
    pub spill_sets_spilled: u64,
    pub slots: u64,
    pub redundant_moves_removed: u64,
    /// Reloads turned into register moves because a register still held
    /// the value.
    pub reloads_from_registers: u64,
}

impl Backtracking {
    /// Allocates and reports what the main loop did.
    pub fn run_with_stats(
        f: &Function,
        env: &MachineEnv,
    ) -> Result<(Output, BacktrackingStats), AllocError> {
        crate::framing::around(f, env, |f| Self::allocate(f, env))
    }

    fn allocate(f: &Function, env: &MachineEnv) -> Result<(Output, BacktrackingStats), AllocError> {
        let masks = requirement::Masks::new(env);
        let live = liveness::compute(f, &cfg::postorder(f));
        let depth = loops::loop_depths(f);
        let edges = edge_branch::EdgeBranches::plan(f, &masks, &live.live_in)?;
        let mut rw = operands::Rewrites::default();
        let mut ranges = liveranges::build(f, &masks, &live.live_out, &depth, &edges, &mut rw)?;
        let merged = bundles::merge(f, &ranges, &rw);
        let nbundles = merged.bundles.len() as u64;
        let mut reservations = std::mem::take(&mut rw.reservations);
        reservations.extend(edges.blockers.iter().map(|&(r, p)| (r, p, p + 1)));
        let allocated = process::run(
            std::mem::take(&mut ranges.ranges),
            &ranges.uses,
            merged,
            env,
            &mut reservations,
        )
        .map_err(|e| match operands::infeasible_inst(f, &masks) {
            Some(m) => AllocError::Impossible(m),
            None => e,
        })?;
        let slots = slots::assign(&allocated.spillsets, |v| {
            let (a, b) = (
                ranges.value_start[v as usize] as usize,
                ranges.value_start[v as usize + 1] as usize,
            );
            &ranges.extents[a..b]
        });
        let mut out = assemble::assemble(
            f,
            env,
            &ranges,
            &allocated,
            &slots,
            &rw,
            &edges,
            &live.live_in,
            &depth,
        );
        let removed = crate::redundant::eliminate(f, &out.allocs, &mut out.edits);
        let stats = BacktrackingStats {
            bundles: nbundles,
            evictions: allocated.stats.evictions,
            splits: allocated.stats.splits,
            second_chance: allocated.stats.second_chance,
            spill_sets_spilled: allocated.spillsets.iter().filter(|s| s.needed).count() as u64,
            slots: u64::from(slots.count),
            redundant_moves_removed: removed.dropped as u64,
            reloads_from_registers: removed.reloads_from_registers as u64,
        };
        Ok((
            Output {
                allocs: out.allocs,
                edits: out.edits,
                num_spillslots: out.num_spillslots,
            },
            stats,
        ))
    }
}

impl Allocator for Backtracking {
    fn name(&self) -> &'static str {
        "backtracking"
    }

    fn run(&self, f: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        Backtracking::run_with_stats(f, env).map(|(o, _)| o)
    }

    fn run_with_counters(
        &self,
        f: &Function,
        env: &MachineEnv,
    ) -> Result<(Output, Counters), AllocError> {
        let (o, s) = Backtracking::run_with_stats(f, env)?;
        Ok((
            o,
            vec![
                ("bundles", s.bundles),
                ("evictions", s.evictions),
                ("splits", s.splits),
                ("second_chance", s.second_chance),
                ("spill_sets_spilled", s.spill_sets_spilled),
                ("slots", s.slots),
                ("redundant_moves_removed", s.redundant_moves_removed),
                ("reloads_from_registers", s.reloads_from_registers),
            ],
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An early def nobody reads holds its register through the late
    /// point: with a late def that can only take the same register, no
    /// allocation exists.
    #[test]
    fn dead_early_def_holds_its_register_through_the_late_point() {
        let case = crate::fixtures::unit_case(
            "backtracking/dead_early_def_holds_its_register_through_the_late_point",
        );
        let got = Backtracking.run(&case.func, &case.machine);
        assert!(
            matches!(&got, Err(AllocError::Impossible(m)) if m.starts_with("inst0: ")),
            "{got:?}"
        );
    }
}
