//! After a campaign: each distinct failure (target and signature) is
//! reduced once, within a time limit, and saved beside its input; a repeat
//! points to the first.

use super::process::{Launcher, Pool};
use super::Finding;
use crate::judging::failure::{Oracle, Signature};
use crate::targets::Target;
use crate::tools::reduce::predicate::ReduceBy;
use crate::tools::reduce::report::{describe, reduced_path, write_reduced};
use crate::tools::reduce::{reduce_input_with, Input, Outcome};
use std::path::PathBuf;
use std::time::Duration;

/// What became of one finding.
pub struct Triaged<'a> {
    pub finding: &'a Finding,
    /// What happened to it: the first of its failure, or a repeat.
    pub verdict: Verdict,
    /// The file that replays it: the reduced case when there is one, else
    /// the input.
    pub replay: PathBuf,
}

/// Whether a finding was reduced.
pub enum Verdict {
    /// The same target and signature as an earlier finding, whose replay
    /// file this is.
    SameAs(PathBuf),
    /// Reduced: the file written, its size in words, and the seconds taken.
    Reduced(PathBuf, String, f64),
    /// The reducer gave up, saying why.
    NotReduced(String),
    /// No reduction asked for.
    Kept,
}

/// Triages the campaign's `findings` in order; `targets` are the
/// campaign's, `reduce_time` the limit per reduction (`None`: none is
/// reduced, and repeats are not told apart). Findings that take their
/// process down (crash, timeout, oom) are reduced in worker processes
/// started by `isolation`; without it they are kept as found.
pub fn triage<'a>(
    findings: &'a [Finding],
    targets: &[Target],
    reduce_time: Option<Duration>,
    isolation: Option<&Launcher>,
) -> Vec<Triaged<'a>> {
    let mut firsts: Vec<(&str, Signature, PathBuf)> = Vec::new();
    let mut out = Vec::new();
    for f in findings {
        let same = firsts
            .iter()
            .find(|(t, s, _)| *t == f.target && *s == f.failure.signature);
        let (verdict, replay) = if let Some((_, _, path)) = same {
            (Verdict::SameAs(path.clone()), path.clone())
        } else if let Some(limit) = reduce_time {
            let target = targets
                .iter()
                .find(|t| t.name == f.target)
                .expect("findings come from the campaign's targets");
            let ropts = crate::tools::reduce::Options {
                time_limit: Some(limit),
                ..Default::default()
            };
            let (verdict, replay) = match reduce(f, target, &ropts, isolation) {
                Ok((o, by)) => {
                    let path = write_reduced(
                        &o,
                        &reduced_path(&f.path),
                        &f.path,
                        &by,
                        target.name,
                        &target.narrowing(),
                    );
                    let secs = o.stats.elapsed.as_secs_f64();
                    (
                        Verdict::Reduced(path.clone(), describe(&o.reduced), secs),
                        path,
                    )
                }
                Err(e) => (Verdict::NotReduced(e), f.path.clone()),
            };
            firsts.push((f.target, f.failure.signature.clone(), replay.clone()));
            (verdict, replay)
        } else {
            (Verdict::Kept, f.path.clone())
        };
        out.push(Triaged {
            finding: f,
            verdict,
            replay,
        });
    }
    out
}

/// The longest a candidate of a `timeout` finding may run before it counts
/// as hanging still (or the campaign's `--timeout`, if shorter): the
/// reducer tries hundreds of candidates.
pub const REDUCE_TIMEOUT: Duration = Duration::from_secs(1);

/// Reduces one finding the way its kind needs, with what keeps it.
fn reduce(
    f: &Finding,
    target: &Target,
    ropts: &crate::tools::reduce::Options,
    isolation: Option<&Launcher>,
) -> Result<(Outcome, ReduceBy), String> {
    let bytes = std::fs::read(&f.path).map_err(|e| e.to_string())?;
    let sig = &f.failure.signature;
    if sig.oracle == Oracle::Slow {
        let name = sig.allocator.ok_or("a slow finding names its allocator")?;
        let a = crate::registry::allocator_by_name(name, &target.narrowing().settings())
            .ok_or("the allocator is not known")?;
        let case = target.case_of(&bytes).ok_or("the target makes no case")?;
        let o = crate::tools::reduce::predicate::reduce_slow(&*a, Box::new(case), ropts)?;
        return Ok((o, ReduceBy::Slow(name.to_string())));
    }
    let input = Input::Bytes(bytes);
    let by = ReduceBy::Target(target.name.to_string());
    if !sig.oracle.needs_isolation() {
        return Ok((
            crate::tools::reduce::reduce_input(target, &input, ropts)?,
            by,
        ));
    }
    let Some(launcher) = isolation else {
        return Err("a finding of this kind is reduced in worker processes only".into());
    };
    let mut launcher = launcher.clone();
    launcher.limits.timeout = launcher.limits.timeout.min(REDUCE_TIMEOUT);
    let pool = Pool::new(launcher, target.name);
    Ok((reduce_input_with(target, &input, ropts, &pool)?, by))
}
