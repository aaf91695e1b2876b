//! regalloc2 as a peer allocator, and its checker as a second symbolic
//! oracle (cargo feature `regalloc2`, on by default).
//!
//! Two allocators, `regalloc2_ion` (the backtracking allocator) and
//! `regalloc2_fastalloc` (the single-pass one), run the pinned regalloc2
//! release on our functions through [`adapt`]; like every allocator they get
//! a `<name>_checker` target and join `differential`, on the cases of their
//! [`profile`]. The combinations of
//! operands regalloc2 does not take are recognised before it runs
//! ([`unsupported`]) and answered with [`AllocError::Unsupported`], which
//! targets count apart and never report. [`cross_check`] runs regalloc2's
//! checker beside ours on any allocation and reports where they disagree.

pub mod adapt;
pub mod cross_check;
pub mod exclusions;
pub mod false_refusals;
pub mod profile;

use crate::registry::entry::{Entry, Settings};
use allocator::{AllocError, Allocator, Function, MachineEnv, Output};
use exclusions::Kind;
use regalloc2 as ra2;
use std::sync::Arc;

/// The version of regalloc2 the adapter is built and documented against
/// (the dependency is pinned to it with `=`).
pub const VERSION: &str = "0.15.2";

/// One of regalloc2's algorithms behind our [`Allocator`] trait, with its
/// known bugs suppressed or run.
#[derive(Clone, Copy)]
pub struct Regalloc2 {
    name: &'static str,
    algorithm: ra2::Algorithm,
    suppress: bool,
}

/// regalloc2's backtracking allocator (IonMonkey's design).
pub static ION: Regalloc2 = Regalloc2 {
    name: "regalloc2_ion",
    algorithm: ra2::Algorithm::Ion,
    suppress: true,
};

/// regalloc2's fast single-pass allocator.
pub static FASTALLOC: Regalloc2 = Regalloc2 {
    name: "regalloc2_fastalloc",
    algorithm: ra2::Algorithm::Fastalloc,
    suppress: true,
};

/// Both as registry entries, ion first: each takes the cases of its
/// profile ([`profile`]).
pub fn entries() -> [Entry; 2] {
    [
        Entry::outside(
            ("regalloc2_ion", "regalloc2_ion_checker"),
            &["regalloc2"],
            |s| ION.with(s),
            &profile::REGALLOC2,
            &[exclusions::TOO_MANY_LIVE_REGS],
        ),
        Entry::outside(
            ("regalloc2_fastalloc", "regalloc2_fastalloc_checker"),
            &["regalloc2"],
            |s| FASTALLOC.with(s),
            &profile::FASTALLOC,
            &[exclusions::FASTALLOC_NO_FREE_REGISTER],
        ),
    ]
}

/// How a case runs regalloc2, chosen from the case itself so that a replay
/// runs it the same way. Most run as `regalloc2::run` with the SSA validator
/// on; one case in eight each instead runs with the validator off (as
/// Cranelift's release builds run it), with `verbose_log` (its annotation
/// and dump code), or twice on one `Ctx` (as Cranelift reuses one), so that
/// the code behind those options is fuzzed too (docs/coverage.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    Fresh,
    Unvalidated,
    Verbose,
    ReusedCtx,
}

impl Way {
    /// The way of `func`: from its instruction and vreg counts, which every
    /// mutation and reduction step may change, so a campaign sees all four.
    pub fn of(func: &Function) -> Way {
        match (func.num_insts() * 7 + func.num_vregs()) % 8 {
            0 => Way::Unvalidated,
            1 => Way::Verbose,
            2 => Way::ReusedCtx,
            _ => Way::Fresh,
        }
    }
}

impl Regalloc2 {
    pub fn algorithm(&self) -> ra2::Algorithm {
        self.algorithm
    }

    /// This algorithm under the campaign's settings.
    fn with(&self, s: &Settings) -> Arc<dyn Allocator> {
        Arc::new(Regalloc2 {
            suppress: s.suppress,
            ..*self
        })
    }
}

impl Allocator for Regalloc2 {
    fn name(&self) -> &'static str {
        self.name
    }

    fn run(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        self.run_suppressing(func, env, self.suppress)
    }
}

impl Regalloc2 {
    /// Runs regalloc2 unless the case has no allocation regalloc2 may be
    /// asked for (a late use fixed to a register its instruction clobbers,
    /// which its interface calls illegal, src/lib.rs:1286), is one of its
    /// limitations, or (with `suppress`) one of its known bugs.
    pub fn run_suppressing(
        &self,
        func: &Function,
        env: &MachineEnv,
        suppress: bool,
    ) -> Result<Output, AllocError> {
        allocator::fixed_clobbered::check(func)?;
        match exclusions::check(self.algorithm, func, env) {
            Some(x) if x.kind() == Kind::Limitation => Err(AllocError::Unsupported(x.to_string())),
            Some(x) if suppress => Err(AllocError::Suppressed(x.to_string())),
            _ => self.run_unchecked(func, env),
        }
    }

    /// Runs regalloc2 without first ruling out its [`exclusions`]: for the
    /// tests that show each is real. The case picks how ([`Way::of`]).
    pub fn run_unchecked(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        self.run_as(func, env, Way::of(func))
    }

    /// Runs regalloc2 the given way, whatever the case would pick.
    pub fn run_as(
        &self,
        func: &Function,
        env: &MachineEnv,
        way: Way,
    ) -> Result<Output, AllocError> {
        let adapted = adapt::Adapted::new(func, &env.slots);
        let machine = adapt::machine(env);
        let options = ra2::RegallocOptions {
            validate_ssa: way != Way::Unvalidated,
            verbose_log: way == Way::Verbose,
            algorithm: self.algorithm,
        };
        let result = if way == Way::ReusedCtx {
            // The second run on a `Ctx` the first one filled, as Cranelift
            // reuses one per compiler thread: both must give one allocation.
            let mut ctx = ra2::Ctx::default();
            let first = ra2::run_with_ctx(&adapted, &machine, &options, &mut ctx)
                .map(|out| adapt::from_output(func, out));
            let second = ra2::run_with_ctx(&adapted, &machine, &options, &mut ctx)
                .map(|out| adapt::from_output(func, out));
            match (first, second) {
                (Ok(a), Ok(b)) if a != b => return Err(AllocError::Failed(
                    "regalloc2 allocated differently when run again on the Ctx of its first run"
                        .into(),
                )),
                (_, second) => second,
            }
        } else {
            ra2::run(&adapted, &machine, &options).map(|out| adapt::from_output(func, &out))
        };
        match result {
            Ok(out) => Ok(out),
            // regalloc2 documents this error as "too many pinned VRegs +
            // Reg-constrained Operands are live at once, making allocation
            // impossible" (src/lib.rs:1667): a claim that the case has no
            // allocation, which the judge checks against ours.
            Err(ra2::RegAllocError::TooManyLiveRegs) => Err(AllocError::Impossible(
                "regalloc2 gave up with TooManyLiveRegs".into(),
            )),
            // Every other error means regalloc2 judges a case valid by our
            // rules as malformed or infeasible: a finding either way.
            Err(e) => Err(AllocError::Failed(format!("regalloc2 returned {e:?}"))),
        }
    }
}
