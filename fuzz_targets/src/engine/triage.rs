//! After a campaign: each distinct failure (target and signature) is
//! reduced once, within a time limit, and saved beside its input; a repeat
//! points to the first.

use super::Finding;
use crate::failure::Signature;
use crate::reduce::predicate::ReduceBy;
use crate::reduce::report::{describe, reduced_path, write_reduced};
use crate::Target;
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
/// reduced, and repeats are not told apart).
pub fn triage<'a>(
    findings: &'a [Finding],
    targets: &[Target],
    reduce_time: Option<Duration>,
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
            let input = std::fs::read(&f.path).unwrap_or_default();
            let ropts = crate::reduce::Options {
                time_limit: Some(limit),
                ..Default::default()
            };
            let (verdict, replay) = match crate::reduce::reduce_input(
                target,
                &crate::reduce::Input::Bytes(input),
                &ropts,
            ) {
                Ok(o) => {
                    let by = ReduceBy::Target(target.name.to_string());
                    let path = write_reduced(&o, &reduced_path(&f.path), &f.path, &by, target.name);
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
