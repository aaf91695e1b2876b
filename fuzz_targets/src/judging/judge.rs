//! Running an allocator on a case and judging its output with the oracles:
//! the step every allocator target, the reducer and `rafuzz reduce
//! --allocator` share, so that they all name failures the same way.

use crate::books::context::Context;
use crate::judging::failure::{Failure, Oracle, Signature};
use crate::judging::refusals::Refused;
use allocator::{AllocError, Allocator, Case, Output};
use checker::interp;

pub use crate::judging::oracle_budget::{MAX_STEPS, PATHS};

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
/// disagreement between our checker and that one.
pub fn judge(
    name: &'static str,
    case: &Case,
    out: &Output,
    oracles: Oracles,
    ctx: &Context,
) -> Result<(), Failure> {
    if let Some(cross_check) = ctx.cross_check {
        cross_check(name, case, out, &ctx.verdicts)?;
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
            if let Err(d) = interp::run(&case.func, &case.machine, out, seed, MAX_STEPS) {
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
/// output when accepted, `None` when the allocator refuses the case
/// (counted in the context's refusals), the failure otherwise. The case must
/// be valid and feasible.
pub fn allocate_and_judge(
    a: &dyn Allocator,
    case: &Case,
    oracles: Oracles,
    ctx: &Context,
) -> Result<Option<Output>, Failure> {
    allocate_and_judge_refusal(a, case, oracles, ctx).map(Result::ok)
}

/// [`allocate_and_judge`], saying which kind of refusal a refused case got.
pub fn allocate_and_judge_refusal(
    a: &dyn Allocator,
    case: &Case,
    oracles: Oracles,
    ctx: &Context,
) -> Result<Result<Output, Refused>, Failure> {
    let name = a.name();
    let start = std::time::Instant::now();
    let run = crate::judging::panics::catch(|| a.run(&case.func, &case.machine));
    if let (Some(rule), Ok(Ok(_))) = (&ctx.slow, &run) {
        slow(a, case, rule, start.elapsed(), ctx)?;
    }
    let out = match run {
        Ok(Ok(o)) => o,
        Ok(Err(AllocError::Unsupported(m))) => {
            ctx.refusals.record(name, Refused::Unsupported, &m);
            return Ok(Err(Refused::Unsupported));
        }
        Ok(Err(AllocError::Suppressed(m))) => {
            ctx.refusals.record(name, Refused::Suppressed, &m);
            return Ok(Err(Refused::Suppressed));
        }
        Ok(Err(AllocError::Impossible(m))) => {
            let Some((by, out)) = proof_of_feasibility(name, case) else {
                ctx.refusals.record(name, Refused::Infeasible, &m);
                return Ok(Err(Refused::Infeasible));
            };
            let known = crate::registry::entry(name)
                .and_then(|e| e.false_refusals.iter().find(|k| k.matches(case)));
            return match known {
                Some(k) if ctx.settings.suppress => {
                    let why = format!("known bug {}: calls a feasible case infeasible", k.name);
                    ctx.refusals.record(name, Refused::Suppressed, &why);
                    Ok(Err(Refused::Suppressed))
                }
                _ => Err(refused_feasible(name, &m, by, case, out)),
            };
        }
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
    Ok(Ok(out))
}

/// An allocation of `case` by one of our allocators other than `refuser`
/// that passes both oracles, trying them in registry order (the cheapest
/// first), with the allocator's name: the proof that a refusal claiming the
/// case has no allocation is wrong.
pub fn proof_of_feasibility(refuser: &str, case: &Case) -> Option<(&'static str, Output)> {
    let quiet = Context::default();
    crate::registry::entries()
        .iter()
        .filter(|e| e.family == crate::registry::Family::Ours && e.name != refuser)
        .find_map(|e| {
            let a = e.allocator();
            let out = crate::judging::panics::catch(|| a.run(&case.func, &case.machine))
                .ok()?
                .ok()?;
            judge(a.name(), case, &out, Oracles::Both, &quiet).ok()?;
            Some((a.name(), out))
        })
}

/// The `refused-feasible` finding of `name`, which refused `case` saying
/// `why`, though `by`'s allocation `out` passes both oracles. The signature
/// keeps the reason and the prover, so a reduction keeps both.
fn refused_feasible(name: &'static str, why: &str, by: &str, case: &Case, out: Output) -> Failure {
    let mut proof = case.clone();
    proof.output = Some(out);
    let mut f = Failure::new(
        Signature::new(
            Some(name),
            Oracle::RefusedFeasible,
            &format!("{why}; {by} allocates it"),
        ),
        format!(
            "{name} refuses the case as having no allocation ({why}), but {by}'s allocation \
             passes both oracles (the proof, saved beside the finding as .proof.ra)"
        ),
    );
    f.proof = Some(allocator::ir::text::print(&proof));
    f
}

/// A slow run as a failure: `first` breaks the campaign's rule and a
/// second run, timed alone, breaks it again.
fn slow(
    a: &dyn Allocator,
    case: &Case,
    rule: &crate::books::slow::SlowRule,
    first: std::time::Duration,
    ctx: &Context,
) -> Result<(), Failure> {
    let name = a.name();
    let insts = case.func.num_insts();
    let Some(base) = ctx.timing.observe(rule, name, insts, first) else {
        return Ok(());
    };
    let start = std::time::Instant::now();
    let _ = crate::judging::panics::catch(|| a.run(&case.func, &case.machine));
    let again = start.elapsed();
    let per_inst = |t: std::time::Duration| t.as_nanos() as f64 / insts.max(1) as f64;
    let limit = rule.ratio * base.median_ns_per_inst;
    if again < rule.floor || per_inst(again) < limit {
        return Ok(());
    }
    Err(Failure::new(
        Signature::new(Some(name), Oracle::Slow, ""),
        format!(
            "{name} is slow: {:.1} ms, then {:.1} ms on a re-run, over {insts} instructions \
             ({:.0} ns per instruction), where its median on cases of this size is {:.0} ns \
             per instruction (over {} cases; the limit is {}x)",
            first.as_secs_f64() * 1e3,
            again.as_secs_f64() * 1e3,
            per_inst(again),
            base.median_ns_per_inst,
            base.samples,
            rule.ratio
        ),
    ))
}
