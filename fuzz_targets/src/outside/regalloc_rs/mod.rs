//! Bytecodealliance's `regalloc` crate (regalloc.rs, Cranelift's allocator
//! before regalloc2) as two peer allocators, behind the cargo feature
//! `regalloc_rs` (on by default): `regalloc_rs_bt`, its IonMonkey-style
//! backtracking allocator, and `regalloc_rs_lsra`, its linear scan with
//! interval splitting.
//!
//! The crate's model is not ours: no SSA, real registers written into
//! instructions instead of constraints, an output that is a rewritten
//! instruction stream. [`lower`] turns a case into what a client of the
//! crate would have handed it; [`lift`] reads the stream back as our
//! [`Output`], so that both our oracles judge it. What has no form in the
//! crate is refused up front ([`exclusions`]).
//!
//! The crate's own checker runs beside ours (unless the campaign's
//! settings switch it off, as the benchmarks do): when it rejects an
//! allocation ours accepts, that disagreement is the failure.

pub mod exclusions;
pub mod lift;
pub mod lower;
pub mod profile;

use crate::judging::oracle_budget::{MAX_STEPS, PATHS};
use crate::judging::refusals::Kind;
use crate::registry::entry::{Entry, Settings};
use allocator::{AllocError, Allocator, Function, MachineEnv, Output};
use regalloc as rr;
use std::sync::Arc;

/// The release the adapter is built and documented against (pinned with
/// `=` in Cargo.toml).
pub const VERSION: &str = "0.0.34";

/// One of the crate's algorithms behind our [`Allocator`] trait, with its
/// known bugs suppressed or run and its own checker on or off.
#[derive(Clone, Copy)]
pub struct RegallocRs {
    name: &'static str,
    lsra: bool,
    suppress: bool,
    own_checker: bool,
}

/// The crate's backtracking allocator.
pub static BT: RegallocRs = RegallocRs {
    name: "regalloc_rs_bt",
    lsra: false,
    suppress: true,
    own_checker: true,
};

/// The crate's linear scan.
pub static LSRA: RegallocRs = RegallocRs {
    name: "regalloc_rs_lsra",
    lsra: true,
    suppress: true,
    own_checker: true,
};

impl RegallocRs {
    /// This algorithm under the campaign's settings.
    fn with(&self, s: &Settings) -> Arc<dyn Allocator> {
        Arc::new(RegallocRs {
            suppress: s.suppress,
            own_checker: s.own_checker,
            ..*self
        })
    }
}

/// Both as registry entries, the backtracking allocator first, each on
/// the cases of its [`profile`].
pub fn entries() -> [Entry; 2] {
    [
        Entry::outside(
            ("regalloc_rs_bt", "regalloc_rs_bt_checker"),
            &["regalloc"],
            |s| BT.with(s),
            &profile::REGALLOC_RS,
            &[],
        ),
        Entry::outside(
            ("regalloc_rs_lsra", "regalloc_rs_lsra_checker"),
            &["regalloc"],
            |s| LSRA.with(s),
            &profile::LSRA,
            &[],
        ),
    ]
}

impl Allocator for RegallocRs {
    fn name(&self) -> &'static str {
        self.name
    }

    fn run(&self, func: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        self.run_suppressing(func, env, self.suppress, self.own_checker)
    }
}

impl RegallocRs {
    pub fn is_lsra(&self) -> bool {
        self.lsra
    }

    /// Runs the crate unless the case has no allocation (a late use fixed
    /// to a register its instruction clobbers: the crate, which sees only
    /// copies into that register, would answer with a wrong one), is one
    /// of its limitations, or (with `suppress`) one of its known bugs.
    pub fn run_suppressing(
        &self,
        func: &Function,
        env: &MachineEnv,
        suppress: bool,
        own_checker: bool,
    ) -> Result<Output, AllocError> {
        allocator::fixed_clobbered::check(func)?;
        match exclusions::check(func, env, self.lsra) {
            Some(x) if x.kind() == Kind::Limitation => Err(AllocError::Unsupported(x.to_string())),
            Some(x) if suppress => Err(AllocError::Suppressed(x.to_string())),
            _ => self.run_unchecked(func, env, own_checker, suppress),
        }
    }

    /// Lowers `func`, runs the crate (with its own checker when
    /// `own_checker`) and lifts the result, without first ruling out the
    /// [`exclusions`]: for the tests that show each is real. When the
    /// crate's checker rejects an allocation ours accepts, that is the
    /// failure, unless (with `suppress`) it is the known false alarm
    /// [`exclusions::Exclusion::CheckerCopiedValue`].
    pub fn run_unchecked(
        &self,
        func: &Function,
        env: &MachineEnv,
        own_checker: bool,
        suppress: bool,
    ) -> Result<Output, AllocError> {
        match self.allocate(func, env, own_checker)? {
            Err(rr::RegAllocError::RegChecker(errs)) => {
                let out = self.allocate(func, env, false)?.map_err(|e| failed(&e))?;
                let interp_ok =
                    |seed| checker::interp::run(func, env, &out, seed, MAX_STEPS).is_ok();
                if !checker::check(func, env, &out).is_empty() || !(0..PATHS).all(interp_ok) {
                    // Both reject: ours say where, through the judge.
                    return Ok(out);
                }
                let x = exclusions::Exclusion::CheckerCopiedValue;
                if suppress && exclusions::is_copied_value_false_alarm(&errs) {
                    return Err(AllocError::Suppressed(x.to_string()));
                }
                Err(AllocError::Failed(format!(
                    "the checkers disagree: regalloc's own checker rejects its allocation, ours accepts it ({errs:?})"
                )))
            }
            // The crate's idea of a feasible case is narrower than ours,
            // and documented so (src/linear_scan/mod.rs:622): see
            // docs/regalloc-rs.md.
            Err(rr::RegAllocError::OutOfRegisters(c)) => Err(AllocError::Unsupported(format!(
                "{}\n(class {c:?})",
                exclusions::Exclusion::OutOfRegisters
            ))),
            Err(e) => Err(failed(&e)),
            Ok(out) => Ok(out),
        }
    }

    /// The crate's answer on `func`, or the adapter's refusal when the
    /// lowered function has no allocation in the crate's model.
    fn allocate(
        &self,
        func: &Function,
        env: &MachineEnv,
        run_checker: bool,
    ) -> Result<Result<Output, rr::RegAllocError>, AllocError> {
        let universe = lower::Universe::new(func, env, self.lsra);
        let mut lowered = lower::LoweredFunc::new(func, &universe)
            .map_err(|e| AllocError::Unsupported(format!("no lowered form: {}", e.0)))?;
        if let Some(i) = lowered.overfull(&universe) {
            let x = exclusions::Exclusion::TooFewRegisters;
            return Err(AllocError::Unsupported(format!("{x}\n(at {i})")));
        }
        let algorithm = match self.lsra {
            true => rr::Algorithm::LinearScan(Default::default()),
            false => rr::Algorithm::Backtracking(Default::default()),
        };
        let options = rr::Options {
            run_checker,
            algorithm,
        };
        let result =
            rr::allocate_registers_with_opts(&mut lowered, &universe.universe, None, options);
        Ok(result.and_then(|r| {
            lift::lift(&lowered, &universe, &r)
                .map_err(|m| rr::RegAllocError::Other(format!("unreadable output: {m}")))
        }))
    }
}

/// Every error the crate returns on a case it was handed is a finding:
/// the case is valid, feasible and expressible.
fn failed(e: &rr::RegAllocError) -> AllocError {
    AllocError::Failed(format!("regalloc returned {e}"))
}
