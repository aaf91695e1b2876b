//! Running an allocator on a case and judging its output with the oracles:
//! the step every allocator target, the reducer and `rafuzz reduce
//! --allocator` share, so that they all name failures the same way.

use crate::context::Context;
use crate::failure::{Failure, Oracle, Signature};
use allocator::{AllocError, Allocator, Case, Output};
use checker::interp;

/// Interpreter paths tried per allocation.
pub const PATHS: u64 = 3;
/// Steps per interpreter path.
pub const MAX_STEPS: usize = 5_000;

/// Which oracles judge an allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Oracles {
    /// The checker, then the interpreter on [`PATHS`] paths.
    Both,
    Checker,
    Interp,
}

/// Judges `out` as an allocation of `case` by the allocator `name`: the
/// checker's first error (its kind is the signature's detail) or the first
/// interpreter divergence; with [`Context::cross_check`] set, first any
/// disagreement between our checker and regalloc2's.
pub fn judge(
    name: &'static str,
    case: &Case,
    out: &Output,
    oracles: Oracles,
    ctx: &Context,
) -> Result<(), Failure> {
    #[cfg(not(feature = "regalloc2"))]
    let _ = ctx;
    #[cfg(feature = "regalloc2")]
    if ctx.cross_check {
        crate::ra2::cross_check::cross_check(name, case, out, &ctx.verdicts)?;
    }
    if oracles != Oracles::Interp {
        let errs = checker::check(&case.func, &case.machine, out);
        if let Some(e) = errs.first() {
            return Err(Failure::new(
                Signature::new(Some(name), Oracle::Checker, e.kind.name()),
                format!(
                    "{name}'s allocation is rejected by the checker: {} [{}] ({} errors)",
                    e.message,
                    e.kind.name(),
                    errs.len()
                ),
            ));
        }
    }
    if oracles != Oracles::Checker {
        for seed in 0..PATHS {
            if let Err(d) = interp::run(&case.func, out, seed, MAX_STEPS) {
                return Err(Failure::new(
                    Signature::new(Some(name), Oracle::Interp, ""),
                    format!("{name}'s allocation diverges in the interpreter (path {seed}): {d}"),
                ));
            }
        }
    }
    Ok(())
}

/// Runs `a` on `case` (a panic is caught) and judges the output: the
/// output when accepted, `None` when the allocator does not support the
/// case, the failure otherwise. The case must be valid and feasible.
pub fn allocate_and_judge(
    a: &dyn Allocator,
    case: &Case,
    oracles: Oracles,
    ctx: &Context,
) -> Result<Option<Output>, Failure> {
    let name = a.name();
    let out = match crate::panics::catch(|| a.run(&case.func, &case.machine)) {
        Ok(Ok(o)) => o,
        Ok(Err(AllocError::Unsupported(_))) => return Ok(None),
        Ok(Err(e)) => {
            return Err(Failure::new(
                Signature::new(Some(name), Oracle::AllocError, &e.to_string()),
                format!("{name} fails on a feasible case: {e}"),
            ))
        }
        Err(msg) => {
            return Err(Failure::new(
                Signature::new(Some(name), Oracle::AllocPanic, &msg),
                format!("{name} panics: {msg}"),
            ))
        }
    };
    judge(name, case, &out, oracles, ctx)?;
    Ok(Some(out))
}
