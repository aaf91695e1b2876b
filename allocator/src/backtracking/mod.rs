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
//! the lattice of [`requirement`]. A [`Ctx`] keeps the phases' storage from
//! one function to the next, each phase taking its part through [`kept`].

mod assemble;
mod bundles;
mod edge_branch;
mod kept;
mod liveranges;
mod operands;
mod points;
mod process;
mod regmap;
mod requirement;
mod slots;

use crate::analysis::block_sets::BlockSets;
use crate::analysis::{cfg, loops};
use crate::interface::{AllocError, Allocator, Counters};
use crate::ir::function::Function;
use crate::ir::machine::MachineEnv;
use crate::ir::output::Output;

/// See the module documentation.
pub struct Backtracking;

/// Storage one allocation leaves to the next, as Cranelift keeps
/// regalloc2's `Ctx` from function to function: each phase's vectors and
/// the register maps, emptied and refilled by the next allocation, which so
/// allocates little but its output. What an allocation computes never
/// depends on what the context held before (every phase clears what it
/// takes); `tests::a_kept_context_allocates_as_a_fresh_one` checks it.
#[derive(Default)]
pub struct Ctx {
    rewrites: operands::Rewrites,
    ranges: liveranges::Spare,
    bundles: bundles::Spare,
    process: process::Spare,
    slots: slots::Spare,
    assemble: assemble::Spare,
}

thread_local! {
    /// The context [`Allocator::run`] keeps per thread (a fuzzing worker,
    /// the bench), since the allocator itself is shared.
    static CTX: std::cell::RefCell<Ctx> = std::cell::RefCell::default();
}

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
    /// Allocates and reports what the main loop did, in this thread's
    /// kept context.
    pub fn run_with_stats(
        f: &Function,
        env: &MachineEnv,
    ) -> Result<(Output, BacktrackingStats), AllocError> {
        CTX.with(|ctx| match ctx.try_borrow_mut() {
            Ok(mut ctx) => Self::run_in(&mut ctx, f, env),
            // Only a nested call (none today) finds it taken.
            Err(_) => Self::run_in(&mut Ctx::default(), f, env),
        })
    }

    /// Allocates in `ctx`, reporting what the main loop did.
    pub fn run_in(
        ctx: &mut Ctx,
        f: &Function,
        env: &MachineEnv,
    ) -> Result<(Output, BacktrackingStats), AllocError> {
        crate::framing::around(f, env, |f| Self::allocate(ctx, f, env))
    }

    fn allocate(
        ctx: &mut Ctx,
        f: &Function,
        env: &MachineEnv,
    ) -> Result<(Output, BacktrackingStats), AllocError> {
        let masks = requirement::Masks::new(env);
        let (live_in, live_out) = BlockSets::liveness(f, &cfg::postorder(f), |_| true);
        let depth = loops::loop_depths(f);
        let edges = edge_branch::EdgeBranches::plan(f, &masks, &live_in)?;
        let mut rw = std::mem::take(&mut ctx.rewrites).cleared();
        let mut ranges = liveranges::build(
            f,
            &masks,
            &live_out,
            &depth,
            &edges,
            &mut rw,
            &mut ctx.ranges,
        )?;
        let merged = bundles::merge(f, &ranges, &rw, &mut ctx.bundles);
        let nbundles = merged.bundles.len() as u64;
        let mut reservations = std::mem::take(&mut rw.reservations);
        reservations.extend(edges.blockers.iter().map(|&(r, p)| (r, p, p + 1)));
        let allocated = process::run(
            std::mem::take(&mut ranges.ranges),
            &ranges.uses,
            merged,
            env,
            &reservations,
            &mut ctx.process,
        )
        .map_err(|e| match operands::infeasible_inst(f, &masks) {
            Some(m) => AllocError::Impossible(m),
            None => e,
        })?;
        let extents = |v: u32| {
            let (a, b) = (
                ranges.value_start[v as usize] as usize,
                ranges.value_start[v as usize + 1] as usize,
            );
            &ranges.extents[a..b]
        };
        let slots = slots::assign(&allocated.spillsets, extents, &mut ctx.slots);
        let mut out = assemble::assemble(
            f,
            env,
            &ranges,
            &allocated,
            &slots,
            &rw,
            &edges,
            &live_in,
            &depth,
            &mut ctx.assemble,
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
        ctx.process.keep(allocated.maps);
        ctx.bundles.keep(
            allocated.bundles,
            allocated.spillsets,
            allocated.range_bundle,
        );
        ctx.ranges.keep(ranges, allocated.ranges);
        rw.reservations = reservations;
        ctx.rewrites = rw;
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
    use crate::fixtures::{hand_written, ra_files, read_case};

    /// One context through real functions of every size, the hand-written
    /// cases (some impossible) and the regressions, largest first so that
    /// every phase finds its storage holding more than the next function
    /// needs: each result is the one a fresh context gives.
    #[test]
    fn a_kept_context_allocates_as_a_fresh_one() {
        let mut files = ra_files("corpus/real/x86_64");
        files.extend(ra_files("corpus/real/aarch64"));
        files.extend(hand_written("backtracking"));
        files.extend(hand_written("impossible"));
        files.extend(ra_files("tests/regressions"));
        let mut cases: Vec<_> = files.iter().map(|p| (p, read_case(p))).collect();
        cases.sort_by_key(|(_, c)| std::cmp::Reverse(c.func.num_insts()));
        let mut kept = Ctx::default();
        for round in 0..2 {
            for (p, c) in &cases {
                let fresh = Backtracking::run_in(&mut Ctx::default(), &c.func, &c.machine);
                let again = Backtracking::run_in(&mut kept, &c.func, &c.machine);
                assert_eq!(
                    format!("{again:?}"),
                    format!("{fresh:?}"),
                    "{} (round {round})",
                    p.display()
                );
            }
            cases.reverse();
        }
    }

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
