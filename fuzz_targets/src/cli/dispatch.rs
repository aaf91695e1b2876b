//! `rafuzz`'s command line: reads the arguments ([`super::args`]) and runs
//! the subcommand they name.

use super::args::{
    Cli, Command, CompareArgs, FuzzArgs, OracleArg, ReduceArgs, ScalingArgs, WorkerArgs,
};
use super::campaign::{fuzz, run};
use super::cases::{alloc, check, gen, gen_stats, list, validate};
use super::exit::{Error, Exit, Streams};
use super::lookup::target_named;
use super::tools::{compare, explain, reduce, register_external, scaling};
use crate::books::context::Context;
use crate::books::slow::SlowRule;
use crate::engine::process::Launcher;
use crate::engine::watchdog::Watchdog;
use crate::harness::narrowing::Narrowing;
use crate::spec::{CaseSpec, RunSpec};
use clap::Parser;

/// Registers `--allocator cmd:...`, if given; a usage error when it is
/// malformed.
fn register_outside_program(spec: Option<&str>, cmd_timeout: u64) -> Result<(), Error> {
    match spec {
        Some(spec) => register_external(spec, cmd_timeout).map_err(Error::usage),
        None => Ok(()),
    }
}

/// Runs the command line `rafuzz` was given; returns its exit status
/// (docs/format.md: 0 all well, 1 a failure found, 2 usage, 3 internal).
pub fn main() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                Exit::Usage.code()
            } else {
                Exit::Ok.code() // --help, --version
            };
        }
    };
    // Not locked for the whole run: `rafuzz run`'s watchdog prints too.
    let (mut out, mut err) = (std::io::stdout(), std::io::stderr());
    let mut io = Streams {
        out: &mut out,
        err: &mut err,
    };
    let exit = dispatch(cli.command, &mut io).unwrap_or_else(|e| io.fail(e.exit, e.message));
    let _ = io.out.flush();
    exit.code()
}

/// Runs one subcommand.
fn dispatch(command: Command, io: &mut Streams) -> Result<Exit, Error> {
    Ok(match command {
        Command::Validate { files } => validate(&files, io),
        Command::List { faults: false } => list(io.out),
        Command::List { faults: true } => {
            for f in crate::testing::faults::FAULTY.iter() {
                let _ = writeln!(io.out, "{}", f.target_name());
            }
            Exit::Ok
        }
        Command::Alloc {
            allocator,
            files,
            repeat,
            no_suppress,
        } => {
            let n = Narrowing {
                no_suppress,
                ..Default::default()
            };
            alloc(&allocator, &files, repeat, &n.settings(), io)?
        }
        Command::Check { files, repeat } => check(&files, repeat, io),
        Command::Fuzz(args) => fuzz_command(args, io)?,
        Command::Reduce(args) => reduce_command(args, io)?,
        Command::Coverage(args) => {
            let narrowing = resolve(&args.cases)?;
            // Inputs run once each: no slow-run rule, no guidance.
            let ctx = Context {
                slow: None,
                coverage: None,
                ..context(&args.run, &narrowing)?
            };
            super::tools::coverage(&args, &narrowing, &ctx, io)?
        }
        Command::Run(args) => {
            let narrowing = resolve(&args.cases)?;
            // A replay judges each input once: no slow-run rule.
            let ctx = Context {
                slow: None,
                ..context(&args.run, &narrowing)?
            };
            let watchdog = Watchdog::arm(args.limits.limits());
            run(
                &args.target,
                &args.files,
                &narrowing,
                &ctx,
                Some(&watchdog),
                io,
            )?
        }
        Command::Scaling(args) => scaling_command(args, io)?,
        Command::Worker(args) => worker_command(args)?,
        Command::Explain {
            file,
            vreg,
            block,
            html,
        } => explain(
            &file,
            vreg.as_deref(),
            block.as_deref(),
            html.as_deref(),
            io,
        )?,
        Command::Compare(args) => compare_command(args, io)?,
        Command::Export {
            allocator,
            file,
            output,
            name,
        } => super::tools::export(&allocator, &file, output.as_deref(), name.as_deref(), io)?,
        Command::Serve { allocator } => Exit::from_code(crate::outside::external::serve::serve(
            &*super::lookup::allocator_named(&allocator, &Default::default())?,
            &mut std::io::stdin().lock(),
            io.out,
        )),
        Command::Gen {
            seed,
            size,
            raw,
            stats,
            cases,
        } if stats.is_empty() => gen(seed, size, raw, &resolve(&cases)?, io.out),
        Command::Gen {
            seed,
            size,
            stats,
            cases,
            ..
        } => gen_stats(&stats, size, seed, &resolve(&cases)?, io),
    })
}

/// The narrowing a case spec names, or a usage error.
fn resolve(cases: &CaseSpec) -> Result<Narrowing, Error> {
    Narrowing::resolve(cases).map_err(Error::usage)
}

/// The context a campaign's cases are judged in: the allocators'
/// settings, the cross-check and the slow-run rule of `run`, with the
/// outside program registered; a usage error when it cannot be.
fn context(run: &RunSpec, narrowing: &Narrowing) -> Result<Context, Error> {
    let cross_check = match (run.cross_check, crate::registry::cross_check()) {
        (false, _) => None,
        (true, Some(c)) => Some(c),
        (true, None) => {
            return Err(Error::usage(
                "--cross-check needs rafuzz built with the `regalloc2` feature",
            ))
        }
    };
    register_outside_program(run.program.as_deref(), run.cmd_timeout)?;
    let coverage = match run.coverage {
        false => None,
        true => Some(std::sync::Arc::new(
            crate::coverage::edges::Edges::for_guidance(&crate::registry::all_code())
                .map_err(Error::usage)?,
        )),
    };
    Ok(Context {
        coverage,
        slow: (!run.no_slow).then(|| SlowRule {
            ratio: f64::from(run.slow_ratio),
            ..SlowRule::default()
        }),
        cross_check,
        ..Context::with_settings(narrowing.settings())
    })
}

/// `rafuzz fuzz`.
fn fuzz_command(a: FuzzArgs, io: &mut Streams) -> Result<Exit, Error> {
    let narrowing = resolve(&a.cases)?;
    let ctx = context(&a.run, &narrowing)?;
    let chosen: Vec<crate::targets::Target> = if a.all {
        crate::targets::targets()
    } else {
        a.targets
            .iter()
            .map(|name| target_named(name))
            .collect::<Result<_, _>>()?
    };
    if chosen.is_empty() {
        return Err(Error::usage("name a target with --target, or use --all"));
    }
    let chosen: Vec<_> = chosen.iter().map(|t| t.narrowed(&narrowing)).collect();
    let limits = a.limits.limits();
    let isolation = if a.in_process {
        None
    } else {
        let names: Vec<&str> = chosen.iter().map(|t| t.name).collect();
        Some(worker_launcher(&names, &a.cases, &a.run, limits)?)
    };
    let opts = crate::engine::Options {
        isolation,
        slow: ctx.slow,
        settings: ctx.settings,
        targets: chosen,
        time: a.time,
        runs: a.runs,
        jobs: a
            .jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        seed: a.seed,
        corpus: a.corpus,
        artifacts: a.artifacts,
        keep_going: a.keep_going,
        max_len: a.max_len,
        save_corpus: a.save_corpus,
        seeds: a.seeds,
        cross_check: ctx.cross_check,
        coverage: ctx.coverage.clone(),
        progress: std::time::Duration::from_secs(
            if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
                1
            } else {
                10
            },
        ),
    };
    let reduce = (!a.no_reduce).then_some(a.reduce_time);
    Ok(fuzz(&opts, a.stats, reduce, io.out))
}

/// `rafuzz reduce`.
fn reduce_command(a: ReduceArgs, io: &mut Streams) -> Result<Exit, Error> {
    use crate::judging::judge::Oracles;
    use crate::tools::reduce::predicate::ReduceBy;
    let narrowing = resolve(&a.cases)?;
    let limits = a.limits.limits();
    let isolation = a
        .target
        .as_deref()
        .map(|t| worker_launcher(&[t], &a.cases, &RunSpec::default(), limits))
        .transpose()?;
    let by = match (a.target, a.allocator, a.predicate, a.slow) {
        (_, _, _, Some(name)) => ReduceBy::Slow(name),
        (Some(t), _, _, _) => ReduceBy::Target(t),
        (_, Some(name), _, _) => ReduceBy::Allocator(
            name,
            match a.oracle {
                OracleArg::Checker => Oracles::Checker,
                OracleArg::Interp => Oracles::Interp,
                OracleArg::Both => Oracles::Both,
            },
        ),
        (_, _, Some(p), _) => ReduceBy::Predicate(p),
        _ => {
            return Err(Error::usage(
                "reduce needs --target, --allocator, --predicate or --slow",
            ))
        }
    };
    let mut opts = crate::tools::reduce::Options {
        time_limit: a.time,
        ..Default::default()
    };
    if let Some(j) = a.jobs {
        opts.jobs = j;
    }
    reduce(
        &by,
        &a.file,
        a.output.as_deref(),
        &opts,
        isolation.as_ref(),
        &narrowing,
        io,
    )
}

/// `rafuzz worker`: the campaign's targets under its specs, as the engine
/// started it ([`worker_launcher`]).
fn worker_command(a: WorkerArgs) -> Result<Exit, Error> {
    let narrowing = resolve(&a.cases)?;
    let ctx = context(&a.run, &narrowing)?;
    let targets = a
        .targets
        .iter()
        .map(|t| target_named(t).map(|t| t.narrowed(&narrowing)))
        .collect::<Result<Vec<_>, _>>()?;
    crate::engine::worker::exit_with_parent();
    let status = crate::engine::worker::serve(
        &targets,
        &ctx,
        std::io::stdin().lock(),
        std::io::stdout().lock(),
    );
    Ok(match status {
        Ok(()) => Exit::Ok,
        Err(_) => Exit::Internal,
    })
}

/// The launcher of worker processes running `targets` under the
/// campaign's specs, given back as `rafuzz worker` arguments; an internal
/// error when the `rafuzz` program cannot be found.
fn worker_launcher(
    targets: &[&str],
    cases: &CaseSpec,
    run: &RunSpec,
    limits: crate::engine::process::Limits,
) -> Result<Launcher, Error> {
    let mut settings = cases.to_args();
    settings.extend(run.to_args());
    Launcher::rafuzz(targets, &settings, limits).map_err(|e| {
        Error::internal(format!(
            "cannot find the rafuzz program for worker processes: {e}"
        ))
    })
}

/// `rafuzz compare`.
fn compare_command(a: CompareArgs, io: &mut Streams) -> Result<Exit, Error> {
    use crate::tools::compare::{Options, Source};
    let source = match a.generate {
        Some(count) => Source::Generate {
            count,
            seed: a.seed,
            size: a.size,
            config: Box::new(resolve(&a.cases)?.config(&crate::registry::DEFAULT)),
        },
        None => Source::Files(a.files),
    };
    let opts = Options {
        source,
        worst: a.worst,
        save: a.save,
        reduce: a.reduce,
        reduce_time: a.reduce_time,
        fail_if_median_above: a.fail_if_median_above,
        plot: a.plot,
    };
    compare(&a.allocators, a.cmd_timeout, &opts, io)
}

/// `rafuzz scaling`.
fn scaling_command(a: ScalingArgs, io: &mut Streams) -> Result<Exit, Error> {
    let config = resolve(&a.cases)?.config(&crate::registry::DEFAULT);
    let mut given = Vec::new();
    for path in crate::harness::inputs::expand_inputs(&a.files) {
        match super::cases::load_case(&path, io.err) {
            Ok((case, _)) => given.push(case),
            Err(exit) => return Ok(exit),
        }
    }
    let opts = crate::tools::scaling::Options {
        sizes: crate::tools::scaling::sizes_up_to(a.max_insts),
        seed: a.seed,
        repeat: a.repeat,
        config,
        given,
    };
    scaling(&a.allocators, &opts, a.plot.as_deref(), io)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the run spec says reaches the judging context.
    #[test]
    fn the_run_spec_decides_the_context() {
        let n = Narrowing::default();
        let ctx = context(&RunSpec::default(), &n).unwrap();
        assert_eq!(ctx.slow.map(|r| r.ratio), Some(20.0));
        assert!(ctx.cross_check.is_none());
        let run = RunSpec {
            slow_ratio: 8,
            cross_check: cfg!(feature = "regalloc2"),
            ..RunSpec::default()
        };
        let ctx = context(&run, &n).unwrap();
        assert_eq!(ctx.slow.map(|r| r.ratio), Some(8.0));
        assert_eq!(ctx.cross_check.is_some(), cfg!(feature = "regalloc2"));
        let quiet = RunSpec {
            no_slow: true,
            ..run
        };
        assert!(context(&quiet, &n).unwrap().slow.is_none());
    }
}
