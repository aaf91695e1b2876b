//! The subcommands that run targets: `run` on saved inputs and cases, and
//! `fuzz`, the built-in engine's campaign with its report and the
//! reduction of what it found.

use super::cases::load_case;
use super::exit::{Error, Exit, Streams};
use crate::engine::triage::Verdict;
use crate::harness::inputs::read_file;
use crate::harness::narrowing::Narrowing;
use crate::tools::reduce::report::rafuzz_run;
use std::io::Write;
use std::path::Path;

/// Runs one input through a target: its failure, if any.
pub fn run_one(
    target: &crate::targets::Target,
    data: &[u8],
    ctx: &crate::books::context::Context,
) -> Result<(), crate::judging::failure::Failure> {
    target.failure(data, ctx).map_or(Ok(()), Err)
}

/// `rafuzz run TARGET FILE...`: replays raw inputs (files, or every file of a
/// directory) through one target; a `.ra` file is a case, run through the
/// target's case check (targets that run on generated cases only). Status
/// 1 if any of them fails, 2 when there is no input, 3 when one cannot be
/// read. Cases are judged in `ctx`; the `watchdog`, if any, is told which
/// input runs.
pub fn run(
    target: &str,
    files: &[impl AsRef<Path>],
    narrowing: &Narrowing,
    ctx: &crate::books::context::Context,
    watchdog: Option<&crate::engine::watchdog::Watchdog>,
    io: &mut Streams,
) -> Result<Exit, Error> {
    let t = super::lookup::target_named(target)?.narrowed(narrowing);
    let inputs = crate::harness::inputs::expand_inputs(files);
    if inputs.is_empty() {
        let given: Vec<String> = files
            .iter()
            .map(|f| f.as_ref().display().to_string())
            .collect();
        return Err(Error::usage(format!(
            "no input to run in {} (an empty directory?)",
            given.join(", ")
        )));
    }
    let (mut ok, mut failed) = (0, 0);
    let mut status = Exit::Ok;
    let out = &mut *io.out;
    for path in &inputs {
        if let Some(w) = watchdog {
            w.begin(&path.display().to_string());
        }
        let result = if path.extension().is_some_and(|e| e == "ra") {
            let case = match load_case(path, io.err) {
                Ok((case, _)) => case,
                Err(exit) => {
                    failed += 1;
                    status = status.max(exit);
                    continue;
                }
            };
            match t.case_failure(&case, ctx) {
                Some(found) => found.map_or(Ok(()), Err),
                None => {
                    let _ = writeln!(
                        io.err,
                        "{}: target `{target}` does not run on cases",
                        path.display()
                    );
                    failed += 1;
                    status = status.max(Exit::Usage);
                    continue;
                }
            }
        } else {
            let Some(data) = read_file(path, io.err) else {
                failed += 1;
                status = status.max(Exit::Internal);
                continue;
            };
            run_one(&t, &data, ctx)
        };
        if let Some(w) = watchdog {
            w.end();
        }
        match result {
            Ok(()) => ok += 1,
            Err(f) => {
                failed += 1;
                status = status.max(Exit::Failed);
                let _ = writeln!(out, "{}: FAILED: {f}", path.display());
            }
        }
    }
    if let Some(stats) = t.stats {
        let _ = writeln!(out, "{target}: {}", stats(ctx));
    }
    if !ctx.refusals.is_empty() {
        let _ = writeln!(
            out,
            "{target}: refused, by reason:\n{}",
            ctx.refusals.report()
        );
    }
    let _ = writeln!(out, "{target}: {ok} passed, {failed} failed");
    Ok(status)
}

/// `rafuzz fuzz`: runs the built-in engine, prints the final table and each
/// finding with its replay command; status 1 if anything was found. Each
/// distinct failure (target and signature) is reduced for at most
/// `reduce_time` (unless `None`) and saved beside its input.
pub fn fuzz(
    opts: &crate::engine::Options,
    stats: bool,
    reduce_time: Option<std::time::Duration>,
    out: &mut dyn Write,
) -> Exit {
    let mut log = std::io::stderr();
    let report = crate::engine::fuzz(opts, &mut log);
    let secs = report.elapsed.as_secs_f64().max(1e-9);
    let w = report
        .rows
        .iter()
        .map(|r| r.0.len())
        .max()
        .unwrap_or(0)
        .max(6);
    let _ = writeln!(
        out,
        "{:<w$} {:>10} {:>10} {:>7} {:>9} {:>9}",
        "target", "execs", "execs/s", "corpus", "features", "findings"
    );
    for (name, execs, corpus, feats, found) in &report.rows {
        let _ = writeln!(
            out,
            "{name:<w$} {execs:>10} {:>10.0} {corpus:>7} {feats:>9} {found:>9}",
            *execs as f64 / secs
        );
    }
    if !report.context.refusals.is_empty() {
        let _ = writeln!(
            out,
            "\nrefused, not findings (unsupported: not taken by the allocator; suppressed: a \
             known bug, run with --no-suppress):\n{}",
            report.context.refusals.report()
        );
    }
    // differential's comparison table is its main output: always shown.
    for t in opts
        .targets
        .iter()
        .filter(|t| stats || t.name == "differential")
    {
        if let Some(stats) = t.stats {
            let _ = writeln!(out, "\n{}:\n{}", t.name, stats(&report.context));
        }
    }
    let isolation = opts.isolation.as_ref();
    for t in crate::engine::triage::triage(&report.findings, &opts.targets, reduce_time, isolation)
    {
        let f = t.finding;
        let _ = writeln!(
            out,
            "\nFOUND in {}: {}",
            f.target,
            f.failure.to_string().lines().next().unwrap_or("")
        );
        let _ = writeln!(
            out,
            "  after:   {:.2} s ({} executions)",
            f.after.as_secs_f64(),
            f.execs
        );
        let _ = writeln!(out, "  input:   {}", f.path.display());
        let case = f.path.with_extension("ra");
        if case.exists() {
            let _ = writeln!(out, "  case:    {}", case.display());
        }
        let _ = writeln!(out, "  message: {}", f.path.with_extension("txt").display());
        if f.failure.proof.is_some() {
            let proof = f.path.with_extension("proof.ra");
            let _ = writeln!(
                out,
                "  proof:   {} (rafuzz explain shows it)",
                proof.display()
            );
        }
        match &t.verdict {
            Verdict::SameAs(path) => {
                let _ = writeln!(out, "  same failure as: {}", path.display());
            }
            Verdict::Reduced(path, size, secs) => {
                let _ = writeln!(out, "  reduced: {} ({size}, {secs:.1} s)", path.display());
            }
            Verdict::NotReduced(e) => {
                let _ = writeln!(out, "  not reduced: {e}");
            }
            Verdict::Kept => {}
        }
        let _ = writeln!(out, "  replay:  {}", replay_finding(f, &t.replay, opts));
    }
    Exit::failed_if(!report.findings.is_empty())
}

/// The command that shows a finding again: `rafuzz run` with the limit
/// that caught it, or (a slow allocator) `rafuzz alloc --repeat` on its
/// case, which prints the time per instruction.
fn replay_finding(
    f: &crate::engine::Finding,
    replay: &Path,
    opts: &crate::engine::Options,
) -> String {
    use crate::judging::failure::Oracle;
    let limits = opts
        .isolation
        .as_ref()
        .map(|l| l.limits)
        .unwrap_or_default();
    let sig = &f.failure.signature;
    let flag = match sig.oracle {
        Oracle::Slow => {
            let case = if replay.extension().is_some_and(|e| e == "ra") {
                replay.to_path_buf()
            } else {
                replay.with_extension("ra")
            };
            let a = sig.allocator.unwrap_or("?");
            return format!("rafuzz alloc --allocator {a} --repeat 3 {}", case.display());
        }
        Oracle::Timeout => format!(" --timeout {}", limits.timeout.as_secs_f64()),
        Oracle::OutOfMemory => format!(" --rss-limit-mb {}", limits.rss_limit_mb),
        _ => String::new(),
    };
    let narrowing = opts
        .targets
        .iter()
        .find(|t| t.name == f.target)
        .map(|t| t.narrowing())
        .unwrap_or_default();
    format!(
        "{}{flag} {} {}",
        rafuzz_run(&narrowing),
        f.target,
        replay.display()
    )
}
