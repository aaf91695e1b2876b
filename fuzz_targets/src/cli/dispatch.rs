//! `rafuzz`'s command line: reads the arguments ([`super::args`]) and runs
//! the subcommand they name.

use super::args::{Cli, Command, OracleArg};
use super::campaign::{fuzz, run};
use super::cases::{alloc, check, gen, gen_stats, list, validate};
use super::exit::{Error, Exit, Streams};
use super::lookup::{profile_named, target_named};
use super::tools::{compare, explain, reduce, register_external, scaling};
use crate::engine::process::Launcher;
use crate::engine::watchdog::Watchdog;
use crate::harness::slow::SlowRule;
use clap::Parser;

/// The launcher of worker processes running `targets` with the campaign's
/// `settings`, or an internal error when the `rafuzz` program cannot be
/// found.
fn worker_launcher(
    targets: &[&str],
    settings: &[String],
    limits: crate::engine::process::Limits,
) -> Result<Launcher, Error> {
    Launcher::rafuzz(targets, settings, limits).map_err(|e| {
        Error::internal(format!(
            "cannot find the rafuzz program for worker processes: {e}"
        ))
    })
}

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
            let n = crate::harness::narrowing::Narrowing {
                no_suppress,
                ..Default::default()
            };
            alloc(&allocator, &files, repeat, &n.settings(), io)?
        }
        Command::Check { files, repeat } => check(&files, repeat, io),
        cmd @ Command::Fuzz { .. } => fuzz_command(cmd, io)?,
        cmd @ Command::Reduce { .. } => reduce_command(cmd, io)?,
        Command::Run {
            target,
            files,
            allocator,
            cmd_timeout,
            limits,
            narrow,
        } => {
            register_outside_program(allocator.as_deref(), cmd_timeout)?;
            let narrowing = narrow.parse()?;
            let watchdog = Watchdog::arm(limits.limits());
            run(&target, &files, &narrowing, Some(&watchdog), io)?
        }
        cmd @ Command::Scaling { .. } => scaling_command(cmd, io)?,
        cmd @ Command::Worker { .. } => worker_command(cmd)?,
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
        cmd @ Command::Compare { .. } => compare_command(cmd, io)?,
        Command::Export {
            allocator,
            file,
            output,
            name,
        } => super::tools::export(&allocator, &file, output.as_deref(), name.as_deref(), io)?,
        Command::Serve { allocator } => Exit::from_code(crate::outside::external::serve::serve(
            &allocator,
            &mut std::io::stdin().lock(),
            io.out,
        )),
        Command::Gen {
            seed,
            size,
            raw,
            stats,
            narrow,
        } if stats.is_empty() => gen(seed, size, raw, &narrow.parse()?, io.out),
        Command::Gen {
            seed,
            size,
            stats,
            narrow,
            ..
        } => gen_stats(&stats, size, seed, &narrow.parse()?, io),
    })
}

/// `rafuzz fuzz`.
fn fuzz_command(cmd: Command, io: &mut Streams) -> Result<Exit, Error> {
    let Command::Fuzz {
        targets,
        all,
        time,
        runs,
        jobs,
        seed,
        corpus,
        artifacts,
        keep_going,
        max_len,
        stats,
        save_corpus,
        seeds,
        reduce_time,
        no_reduce,
        allocator,
        cmd_timeout,
        cross_check,
        limits,
        in_process,
        no_slow,
        narrow,
    } = cmd
    else {
        unreachable!("dispatched by its variant")
    };
    let narrowing = narrow.parse()?;
    if cross_check && !cfg!(feature = "regalloc2") {
        return Err(Error::usage(
            "--cross-check needs rafuzz built with the `regalloc2` feature",
        ));
    }
    register_outside_program(allocator.as_deref(), cmd_timeout)?;
    let chosen: Vec<crate::targets::Target> = if all {
        crate::targets::targets()
    } else {
        targets
            .iter()
            .map(|name| target_named(name))
            .collect::<Result<_, _>>()?
    };
    if chosen.is_empty() {
        return Err(Error::usage("name a target with --target, or use --all"));
    }
    let chosen: Vec<_> = chosen.iter().map(|t| t.narrowed(&narrowing)).collect();
    let limits = limits.limits();
    let isolation = if in_process {
        None
    } else {
        let names: Vec<&str> = chosen.iter().map(|t| t.name).collect();
        let mut settings = Vec::new();
        if cross_check {
            settings.push("--cross-check".to_string());
        }
        if !no_slow {
            settings.push("--slow".to_string());
        }
        if let Some(spec) = &allocator {
            settings.extend(["--allocator".to_string(), spec.clone()]);
            settings.extend(["--cmd-timeout".to_string(), cmd_timeout.to_string()]);
        }
        settings.extend(narrowing.args());
        Some(worker_launcher(&names, &settings, limits)?)
    };
    let opts = crate::engine::Options {
        isolation,
        slow: (!no_slow).then(SlowRule::default),
        targets: chosen,
        time,
        runs,
        jobs: jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        seed,
        corpus,
        artifacts,
        keep_going,
        max_len,
        save_corpus,
        seeds,
        cross_check,
        progress: std::time::Duration::from_secs(
            if std::io::IsTerminal::is_terminal(&std::io::stderr()) {
                1
            } else {
                10
            },
        ),
    };
    let reduce = (!no_reduce).then_some(reduce_time);
    Ok(fuzz(&opts, stats, reduce, io.out))
}

/// `rafuzz reduce`.
fn reduce_command(cmd: Command, io: &mut Streams) -> Result<Exit, Error> {
    let Command::Reduce {
        target,
        allocator,
        oracle,
        predicate,
        file,
        output,
        jobs,
        time,
        slow,
        limits,
        narrow,
    } = cmd
    else {
        unreachable!("dispatched by its variant")
    };
    use crate::harness::judge::Oracles;
    use crate::tools::reduce::predicate::ReduceBy;
    let narrowing = narrow.parse()?;
    let limits = limits.limits();
    let isolation = target
        .as_deref()
        .map(|t| worker_launcher(&[t], &narrowing.args(), limits))
        .transpose()?;
    let by = match (target, allocator, predicate, slow) {
        (_, _, _, Some(a)) => ReduceBy::Slow(a),
        (Some(t), _, _, _) => ReduceBy::Target(t),
        (_, Some(a), _, _) => ReduceBy::Allocator(
            a,
            match oracle {
                OracleArg::Checker => Oracles::Checker,
                OracleArg::Interp => Oracles::Interp,
                OracleArg::Both => Oracles::Both,
            },
        ),
        (_, _, Some(p), _) => ReduceBy::Predicate(p),
        _ => unreachable!("clap requires one of them"),
    };
    let mut opts = crate::tools::reduce::Options {
        time_limit: time,
        ..Default::default()
    };
    if let Some(j) = jobs {
        opts.jobs = j;
    }
    reduce(
        &by,
        &file,
        output.as_deref(),
        &opts,
        isolation.as_ref(),
        &narrowing,
        io,
    )
}

/// `rafuzz worker`.
fn worker_command(cmd: Command) -> Result<Exit, Error> {
    let Command::Worker {
        targets,
        cross_check,
        slow,
        allocator,
        cmd_timeout,
        narrow,
    } = cmd
    else {
        unreachable!("dispatched by its variant")
    };
    register_outside_program(allocator.as_deref(), cmd_timeout)?;
    let narrowing = narrow.parse()?;
    let targets = targets
        .iter()
        .map(|t| target_named(t).map(|t| t.narrowed(&narrowing)))
        .collect::<Result<Vec<_>, _>>()?;
    let ctx = crate::harness::context::Context {
        slow: slow.then(SlowRule::default),
        cross_check,
        ..crate::harness::context::Context::with_settings(narrowing.settings())
    };
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

/// `rafuzz compare`.
fn compare_command(cmd: Command, io: &mut Streams) -> Result<Exit, Error> {
    let Command::Compare {
        allocators,
        files,
        generate,
        profile,
        without,
        seed,
        size,
        worst,
        save,
        reduce,
        reduce_time,
        fail_if_median_above,
        plot,
        cmd_timeout,
    } = cmd
    else {
        unreachable!("dispatched by its variant")
    };
    use crate::tools::compare::{Options, Source};
    let source = match generate {
        Some(count) => Source::Generate {
            count,
            seed,
            size,
            config: Box::new(
                crate::harness::narrowing::Narrowing::parse(Some(&profile), &without)
                    .map_err(Error::usage)?
                    .config(&crate::registry::DEFAULT),
            ),
        },
        None => Source::Files(files),
    };
    let opts = Options {
        source,
        worst,
        save,
        reduce,
        reduce_time,
        fail_if_median_above,
        plot,
    };
    compare(&allocators, cmd_timeout, &opts, io)
}

/// `rafuzz scaling`.
fn scaling_command(cmd: Command, io: &mut Streams) -> Result<Exit, Error> {
    let Command::Scaling {
        allocators,
        max_insts,
        profile,
        seed,
        repeat,
        plot,
        files,
    } = cmd
    else {
        unreachable!("dispatched by its variant")
    };
    let config = profile_named(&profile)?;
    let mut given = Vec::new();
    for path in crate::harness::inputs::expand_inputs(&files) {
        match super::cases::load_case(&path, io.err) {
            Ok((case, _)) => given.push(case),
            Err(exit) => return Ok(exit),
        }
    }
    let opts = crate::tools::scaling::Options {
        sizes: crate::tools::scaling::sizes_up_to(max_insts),
        seed,
        repeat,
        config,
        given,
    };
    scaling(&allocators, &opts, plot.as_deref(), io)
}
