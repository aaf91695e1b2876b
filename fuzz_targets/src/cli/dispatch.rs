//! `rafuzz`'s command line: reads the arguments ([`super::args`]) and runs
//! the subcommand they name.

use super::args::{Cli, Command, OracleArg};
use super::campaign::{fuzz, run};
use super::cases::{alloc, check, gen, gen_stats, list, validate};
use super::tools::{compare, explain, reduce, register_external, scaling};
use crate::engine::process::Launcher;
use crate::engine::watchdog::Watchdog;
use crate::harness::slow::SlowRule;
use clap::Parser;
use std::io::Write as _;

/// The launcher of worker processes running `targets` with the campaign's
/// `settings`, or exit 2 when the `rafuzz` program cannot be found.
fn worker_launcher(
    targets: &[&str],
    settings: &[String],
    limits: crate::engine::process::Limits,
) -> Launcher {
    Launcher::rafuzz(targets, settings, limits).unwrap_or_else(|e| {
        eprintln!("cannot find the rafuzz program for worker processes: {e}");
        std::process::exit(2);
    })
}

/// Registers `--allocator cmd:...`, if given; exits 2 when it is malformed.
fn register_outside_program(spec: Option<&str>, cmd_timeout: u64) {
    if let Some(spec) = spec {
        if let Err(e) = register_external(spec, cmd_timeout) {
            eprintln!("{e}");
            std::process::exit(2);
        }
    }
}

/// Runs the command line `rafuzz` was given; returns its exit status.
pub fn main() -> i32 {
    let cli = Cli::parse();
    // Not locked for the whole run: `rafuzz run`'s watchdog prints too.
    let mut out = std::io::stdout();
    let status = match cli.command {
        Command::Validate { files } => validate(&files, &mut out),
        Command::List { faults: false } => list(&mut out),
        Command::List { faults: true } => {
            for f in crate::testing::faults::FAULTY.iter() {
                let _ = writeln!(out, "{}", f.target_name());
            }
            0
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
            alloc(&allocator, &files, repeat, &n.settings(), &mut out)
        }
        Command::Check { files, repeat } => check(&files, repeat, &mut out),
        cmd @ Command::Fuzz { .. } => fuzz_command(cmd, &mut out),
        cmd @ Command::Reduce { .. } => reduce_command(cmd, &mut out),
        Command::Run {
            target,
            files,
            allocator,
            cmd_timeout,
            limits,
            narrow,
        } => {
            register_outside_program(allocator.as_deref(), cmd_timeout);
            let narrowing = narrow.parse();
            let watchdog = Watchdog::arm(limits.limits());
            run(&target, &files, &narrowing, Some(&watchdog), &mut out)
        }
        cmd @ Command::Scaling { .. } => scaling_command(cmd, &mut out),
        cmd @ Command::Worker { .. } => worker_command(cmd),
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
            &mut out,
        ),
        cmd @ Command::Compare { .. } => compare_command(cmd, &mut out),
        Command::Serve { allocator } => crate::outside::external::serve::serve(
            &allocator,
            &mut std::io::stdin().lock(),
            &mut out,
        ),
        Command::Gen {
            seed,
            size,
            raw,
            stats,
            narrow,
        } if stats.is_empty() => gen(seed, size, raw, &narrow.parse(), &mut out),
        Command::Gen {
            seed,
            size,
            stats,
            narrow,
            ..
        } => gen_stats(&stats, size, seed, &narrow.parse(), &mut out),
    };
    let _ = std::io::Write::flush(&mut out);
    status
}

/// `rafuzz fuzz`.
fn fuzz_command(cmd: Command, out: &mut dyn std::io::Write) -> i32 {
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
    let narrowing = narrow.parse();
    if cross_check && !cfg!(feature = "regalloc2") {
        eprintln!("--cross-check needs rafuzz built with the `regalloc2` feature");
        std::process::exit(2);
    }
    register_outside_program(allocator.as_deref(), cmd_timeout);
    let chosen: Vec<crate::targets::Target> = if all {
        crate::targets::targets()
    } else {
        let mut v = Vec::new();
        for name in &targets {
            match crate::targets::target_by_name(name) {
                Some(t) => v.push(t),
                None => {
                    eprintln!("no target named `{name}` (see `rafuzz list`)");
                    std::process::exit(2);
                }
            }
        }
        v
    };
    if chosen.is_empty() {
        eprintln!("name a target with --target, or use --all");
        std::process::exit(2);
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
        Some(worker_launcher(&names, &settings, limits))
    };
    let opts = crate::engine::Options {
        isolation,
        slow: (!no_slow).then(SlowRule::default),
        targets: chosen,
        time: time.map(std::time::Duration::from_secs_f64),
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
    let reduce = (!no_reduce).then(|| std::time::Duration::from_secs_f64(reduce_time));
    fuzz(&opts, stats, reduce, out)
}

/// `rafuzz reduce`.
fn reduce_command(cmd: Command, out: &mut dyn std::io::Write) -> i32 {
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
    let narrowing = narrow.parse();
    let limits = limits.limits();
    let isolation = target
        .as_deref()
        .map(|t| worker_launcher(&[t], &narrowing.args(), limits));
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
        time_limit: time.map(std::time::Duration::from_secs_f64),
        ..Default::default()
    };
    if let Some(j) = jobs {
        opts.jobs = j.max(1);
    }
    reduce(
        &by,
        &file,
        output.as_deref(),
        &opts,
        isolation.as_ref(),
        &narrowing,
        out,
    )
}

/// `rafuzz worker`.
fn worker_command(cmd: Command) -> i32 {
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
    register_outside_program(allocator.as_deref(), cmd_timeout);
    let narrowing = narrow.parse();
    let Some(targets) = targets
        .iter()
        .map(|t| crate::targets::target_by_name(t).map(|t| t.narrowed(&narrowing)))
        .collect::<Option<Vec<_>>>()
    else {
        eprintln!("rafuzz worker: an unknown target");
        std::process::exit(2);
    };
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
    i32::from(status.is_err())
}

/// `rafuzz compare`.
fn compare_command(cmd: Command, out: &mut dyn std::io::Write) -> i32 {
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
            profile,
            without,
        },
        None => Source::Files(files),
    };
    let opts = Options {
        source,
        worst,
        save,
        reduce,
        reduce_time: std::time::Duration::from_secs_f64(reduce_time),
        fail_if_median_above,
        plot,
    };
    compare(&allocators, cmd_timeout, &opts, out)
}

/// `rafuzz scaling`.
fn scaling_command(cmd: Command, out: &mut dyn std::io::Write) -> i32 {
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
    let mut given = Vec::new();
    for path in crate::harness::inputs::expand_inputs(&files) {
        match super::cases::load_case(&path, out) {
            Some((case, _)) => given.push(case),
            None => return 1,
        }
    }
    let Some(p) = crate::registry::profile(&profile) else {
        let names: Vec<&str> = crate::registry::profiles().iter().map(|p| p.name).collect();
        eprintln!("no profile named `{profile}` ({})", names.join(", "));
        std::process::exit(2);
    };
    let config = (p.config)();
    let opts = crate::tools::scaling::Options {
        sizes: crate::tools::scaling::sizes_up_to(max_insts),
        seed,
        repeat,
        config,
        given,
    };
    scaling(&allocators, &opts, plot.as_deref(), out)
}
