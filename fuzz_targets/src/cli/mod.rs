//! The subcommands of `rafuzz`, as functions that write to a sink and return
//! the exit status, so tests can run them without a process.

use crate::engine::triage::Verdict;
use crate::harness::inputs::{read_file, seeded_bytes};
use crate::harness::narrowing::Narrowing;
use crate::registry::{Settings, DEFAULT};
use crate::tools::reduce::predicate::{
    checker_target_of, reduce_for_allocator, reduce_for_command, ReduceBy,
};
use crate::tools::reduce::report::{
    describe, rafuzz_run, reduced_path, replay_command, write_reduced,
};
use crate::tools::reduce::Input;
use allocator::ir::text::parse_and_validate;
use std::io::Write;
use std::path::Path;

/// `rafuzz validate FILE...`: `FILE: ok` per valid case, `FILE:LINE:COL:
/// message` per error; status 1 if any file has an error.
pub fn validate(files: &[impl AsRef<Path>], out: &mut dyn Write) -> i32 {
    let mut status = 0;
    for path in files {
        let path = path.as_ref();
        let Some(src) = read_file(path, out) else {
            status = 1;
            continue;
        };
        match parse_and_validate(&src) {
            Ok(_) => {
                let _ = writeln!(out, "{}: ok", path.display());
            }
            Err(diags) => {
                status = 1;
                for d in diags {
                    let _ = writeln!(out, "{}:{d}", path.display());
                }
            }
        }
    }
    status
}

/// `rafuzz list`: the allocators and the fuzz targets.
pub fn list(out: &mut dyn Write) -> i32 {
    let _ = writeln!(out, "allocators:");
    for a in crate::registry::allocators(&Settings::default()) {
        let _ = writeln!(out, "  {}", a.name());
    }
    let _ = writeln!(out, "targets:");
    let targets = crate::targets::targets();
    let w = targets.iter().map(|t| t.name.len()).max().unwrap_or(0);
    for t in targets {
        let _ = writeln!(out, "  {:<w$} {}", t.name, t.description);
    }
    0
}

/// `rafuzz gen --seed N [--size BYTES] [--raw]`: the generated case as text,
/// or (`--raw`) the input bytes themselves, for seeding corpora; the cases
/// of the default config narrowed by `narrowing`.
pub fn gen(seed: u64, size: usize, raw: bool, narrowing: &Narrowing, out: &mut dyn Write) -> i32 {
    let bytes = seeded_bytes(seed, size);
    if raw {
        let _ = out.write_all(&bytes);
        return 0;
    }
    let case = ssagen::generate_from_bytes(&bytes, &narrowing.config(&DEFAULT));
    let _ = out.write_all(allocator::ir::text::print(&case).as_bytes());
    0
}

/// `rafuzz gen --stats COUNT [--size BYTES] [--seed S]`: what the generator
/// produces over COUNT inputs (input `i` is `seeded_bytes(S + i, BYTES)`);
/// with a narrowing, each feature's share beside the default config's.
pub fn gen_stats(
    count: usize,
    size: usize,
    seed: u64,
    narrowing: &Narrowing,
    out: &mut dyn Write,
) -> i32 {
    let measure = |config: &ssagen::Config| {
        let mut stats = ssagen::stats::GenStats::default();
        for i in 0..count as u64 {
            let bytes = seeded_bytes(seed.wrapping_add(i), size);
            let t = std::time::Instant::now();
            let case = ssagen::generate_from_bytes(&bytes, config);
            stats.gen_nanos += t.elapsed().as_nanos();
            let valid = ssagen::feasibility::check_case(&case).is_ok();
            stats.record(&ssagen::stats::CaseFeatures::of(&case), valid);
        }
        stats
    };
    let default = ssagen::Config::default();
    let stats = measure(&narrowing.config(&DEFAULT));
    let reference = (!narrowing.is_empty()).then(|| measure(&default));
    let what = match narrowing.args() {
        a if a.is_empty() => String::new(),
        a => format!(" ({})", a.join(" ")),
    };
    let _ = write!(
        out,
        "inputs of {size} bytes{what}\n{}",
        stats.report(reference.as_ref())
    );
    if stats.valid == stats.cases {
        0
    } else {
        1
    }
}

/// Runs one input through a target: its failure, if any.
pub fn run_one(
    target: &crate::targets::Target,
    data: &[u8],
    ctx: &crate::harness::context::Context,
) -> Result<(), crate::harness::failure::Failure> {
    target.failure(data, ctx).map_or(Ok(()), Err)
}

/// `rafuzz run TARGET FILE...`: replays raw inputs (files, or every file of a
/// directory) through one target; a `.ra` file is a case, run through the
/// target's case check (targets that run on generated cases only). Status
/// 1 if any of them fails. The `watchdog`, if any, is told which input
/// runs.
pub fn run(
    target: &str,
    files: &[impl AsRef<Path>],
    narrowing: &Narrowing,
    watchdog: Option<&crate::engine::watchdog::Watchdog>,
    out: &mut dyn Write,
) -> i32 {
    let Some(t) = crate::targets::target_by_name(target) else {
        let _ = writeln!(out, "no target named `{target}` (see `rafuzz list`)");
        return 2;
    };
    let t = t.narrowed(narrowing);
    let inputs = crate::harness::inputs::expand_inputs(files);
    let ctx = crate::harness::context::Context::with_settings(narrowing.settings());
    let (mut ok, mut failed) = (0, 0);
    for path in &inputs {
        if let Some(w) = watchdog {
            w.begin(&path.display().to_string());
        }
        let result = if path.extension().is_some_and(|e| e == "ra") {
            let Some((case, _)) = load_case(path, out) else {
                failed += 1;
                continue;
            };
            match t.case_failure(&case, &ctx) {
                Some(found) => found.map_or(Ok(()), Err),
                None => {
                    let _ = writeln!(
                        out,
                        "{}: target `{target}` does not run on cases",
                        path.display()
                    );
                    failed += 1;
                    continue;
                }
            }
        } else {
            let Some(data) = read_file(path, out) else {
                failed += 1;
                continue;
            };
            run_one(&t, &data, &ctx)
        };
        if let Some(w) = watchdog {
            w.end();
        }
        match result {
            Ok(()) => ok += 1,
            Err(f) => {
                failed += 1;
                let _ = writeln!(out, "{}: FAILED: {f}", path.display());
            }
        }
    }
    if let Some(stats) = t.stats {
        let _ = writeln!(out, "{target}: {}", stats(&ctx));
    }
    let _ = writeln!(out, "{target}: {ok} passed, {failed} failed");
    i32::from(failed > 0)
}

/// Parses and validates a file, reporting `FILE:LINE:COL: message` lines.
fn load_case(
    path: &Path,
    out: &mut dyn Write,
) -> Option<(allocator::Case, allocator::ir::text::SourceMap)> {
    let src = read_file(path, out)?;
    match parse_and_validate(&src) {
        Ok(x) => Some(x),
        Err(diags) => {
            for d in diags {
                let _ = writeln!(out, "{}:{d}", path.display());
            }
            None
        }
    }
}

/// The `--repeat` line: `cases=N insts=N ns_per_inst=N`, the median over
/// rounds of each round's total time per instruction.
fn timing_line(out: &mut dyn Write, cases: usize, insts: usize, rounds: &[f64]) {
    let mut per: Vec<f64> = rounds.iter().map(|t| t / insts.max(1) as f64).collect();
    per.sort_by(|a, b| a.total_cmp(b));
    let median = per.get(per.len() / 2).copied().unwrap_or(0.0);
    let _ = writeln!(out, "cases={cases} insts={insts} ns_per_inst={median:.1}");
}

/// `rafuzz alloc --allocator NAME FILE... [--repeat N]`: prints each case
/// with its allocation section, preceded by a `# checker:` line per error
/// when the checker rejects the allocation (exit status 1, as when the
/// allocator fails); with `--repeat`, runs the allocator N times per case
/// and prints the timing line last.
pub fn alloc(
    name: &str,
    files: &[impl AsRef<Path>],
    repeat: Option<usize>,
    settings: &Settings,
    out: &mut dyn Write,
) -> i32 {
    let Some(a) = crate::registry::allocator_by_name(name, settings) else {
        let _ = writeln!(out, "no allocator named `{name}` (see `rafuzz list`)");
        return 2;
    };
    let mut status = 0;
    let (mut cases, mut insts) = (0usize, 0usize);
    let mut rounds = vec![0f64; repeat.unwrap_or(0)];
    let mut checker = checker::Checker::default();
    for path in files {
        let path = path.as_ref();
        let Some((mut case, _)) = load_case(path, out) else {
            status = 1;
            continue;
        };
        match a.run_with_counters(&case.func, &case.machine) {
            Ok((o, counters)) => {
                for r in rounds.iter_mut() {
                    let t = std::time::Instant::now();
                    let _ = std::hint::black_box(a.run(&case.func, &case.machine));
                    *r += t.elapsed().as_nanos() as f64;
                }
                cases += 1;
                insts += case.func.num_insts();
                let q = crate::harness::quality::Quality::of(&case, Some(&o));
                let cost = q.cost_tenths;
                let _ = writeln!(
                    out,
                    "# {name}: {} moves ({} spills, {} reloads, {} register moves), {} loop-weighted, cost {}.{}, {} spill slots",
                    q.moves, q.spills, q.reloads, q.reg_moves, q.weighted, cost / 10, cost % 10, o.num_spillslots
                );
                if !counters.is_empty() {
                    let list: Vec<String> =
                        counters.iter().map(|(k, v)| format!("{k} {v}")).collect();
                    let _ = writeln!(out, "# {name}: {}", list.join(", "));
                }
                // An allocation the checker rejects is a failure too: say
                // so above it, rather than hand it on as if it were good.
                for e in checker.check(&case.func, &case.machine, &o) {
                    status = 1;
                    let _ = writeln!(out, "# checker: {} [{}]", e.message, e.kind.name());
                }
                case.output = Some(o);
                let _ = out.write_all(allocator::ir::text::print(&case).as_bytes());
            }
            Err(e) => {
                status = 1;
                let _ = writeln!(out, "{}: {name}: {e}", path.display());
            }
        }
    }
    if repeat.is_some() {
        timing_line(out, cases, insts, &rounds);
    }
    status
}

/// `rafuzz check FILE... [--repeat N]`: runs the symbolic checker on cases
/// that hold an allocation; `FILE: ok`, or every error located.
pub fn check(files: &[impl AsRef<Path>], repeat: Option<usize>, out: &mut dyn Write) -> i32 {
    let mut status = 0;
    let (mut cases, mut insts) = (0usize, 0usize);
    let mut rounds = vec![0f64; repeat.unwrap_or(0)];
    let mut checker = checker::Checker::default();
    for path in files {
        let path = path.as_ref();
        let Some((case, map)) = load_case(path, out) else {
            status = 1;
            continue;
        };
        let Some(output) = &case.output else {
            let _ = writeln!(out, "{}: no allocation section to check", path.display());
            status = 1;
            continue;
        };
        let errs = checker.check(&case.func, &case.machine, output);
        for r in rounds.iter_mut() {
            let t = std::time::Instant::now();
            std::hint::black_box(checker.check(&case.func, &case.machine, output));
            *r += t.elapsed().as_nanos() as f64;
        }
        cases += 1;
        insts += case.func.num_insts();
        if errs.is_empty() {
            let _ = writeln!(out, "{}: ok", path.display());
        } else {
            status = 1;
            for e in errs {
                let _ = writeln!(
                    out,
                    "{}:{}: {} [{}]",
                    path.display(),
                    map.locate(e.site),
                    e.message,
                    e.kind.name()
                );
            }
        }
    }
    if repeat.is_some() {
        timing_line(out, cases, insts, &rounds);
    }
    status
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
) -> i32 {
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
    i32::from(!report.findings.is_empty())
}

/// The command that shows a finding again: `rafuzz run` with the limit
/// that caught it, or (a slow allocator) `rafuzz alloc --repeat` on its
/// case, which prints the time per instruction.
fn replay_finding(
    f: &crate::engine::Finding,
    replay: &Path,
    opts: &crate::engine::Options,
) -> String {
    use crate::harness::failure::Oracle;
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
        .map(|t| t.narrowing.clone())
        .unwrap_or_default();
    format!(
        "{}{flag} {} {}",
        rafuzz_run(&narrowing),
        f.target,
        replay.display()
    )
}

/// Reads FILE as a case (a `.ra` file, or any file that parses as one
/// when `must_be_case`) or as raw bytes.
fn read_input(
    path: &Path,
    must_be_case: bool,
    out: &mut dyn Write,
) -> Option<crate::tools::reduce::Input> {
    if must_be_case || path.extension().is_some_and(|e| e == "ra") {
        let (mut case, _) = load_case(path, out)?;
        case.output = None;
        if !crate::tools::reduce::is_candidate(&case) {
            let _ = writeln!(
                out,
                "{}: the case breaks a feasibility rule; the reducer only works on feasible cases",
                path.display()
            );
            return None;
        }
        return Some(crate::tools::reduce::Input::Case(Box::new(case)));
    }
    read_file(path, out).map(crate::tools::reduce::Input::Bytes)
}

/// `rafuzz reduce (--target T | --allocator NAME [--oracle O] | --predicate
/// CMD) FILE [-o OUT] [--jobs N] [--time SECONDS]`: shrinks a failing input
/// to a small one that fails the same way, writes it, and prints its size,
/// its failure and the command that replays it. Status 0 when reduced, 1
/// when the input does not fail, 2 on a usage error.
pub fn reduce(
    by: &ReduceBy,
    file: &Path,
    output: Option<&Path>,
    opts: &crate::tools::reduce::Options,
    isolation: Option<&crate::engine::process::Launcher>,
    narrowing: &Narrowing,
    out: &mut dyn Write,
) -> i32 {
    let (target, outcome) = match by {
        ReduceBy::Target(name) => {
            let Some(t) = crate::targets::target_by_name(name) else {
                let _ = writeln!(out, "no target named `{name}` (see `rafuzz list`)");
                return 2;
            };
            let t = t.narrowed(narrowing);
            let Some(input) = read_input(file, false, out) else {
                return 1;
            };
            let outcome = match isolation {
                Some(l) => {
                    let pool = crate::engine::process::Pool::new(l.clone(), t.name);
                    crate::tools::reduce::reduce_input_with(&t, &input, opts, &pool)
                }
                None => crate::tools::reduce::reduce_input(&t, &input, opts),
            };
            (t.name.to_string(), outcome)
        }
        ReduceBy::Slow(name) => {
            let Some(a) = crate::registry::allocator_by_name(name, &narrowing.settings()) else {
                let _ = writeln!(out, "no allocator named `{name}` (see `rafuzz list`)");
                return 2;
            };
            let Some(Input::Case(case)) = read_input(file, true, out) else {
                return 1;
            };
            (
                String::new(),
                crate::tools::reduce::predicate::reduce_slow(a, case, opts),
            )
        }
        ReduceBy::Allocator(name, oracles) => {
            let Some(a) = crate::registry::allocator_by_name(name, &narrowing.settings()) else {
                let _ = writeln!(out, "no allocator named `{name}` (see `rafuzz list`)");
                return 2;
            };
            let Some(Input::Case(case)) = read_input(file, true, out) else {
                return 1;
            };
            (
                checker_target_of(name),
                reduce_for_allocator(a, *oracles, case, opts),
            )
        }
        ReduceBy::Predicate(cmd) => {
            let Some(Input::Case(case)) = read_input(file, true, out) else {
                return 1;
            };
            (String::new(), reduce_for_command(cmd, case, file, opts))
        }
    };
    let o = match outcome {
        Ok(o) => o,
        Err(e) => {
            let _ = writeln!(out, "{}: {e}", file.display());
            return 1;
        }
    };
    let path = output.map_or_else(|| reduced_path(file), Path::to_path_buf);
    let path = write_reduced(&o, &path, file, by, &target, narrowing);
    let st = &o.stats;
    let _ = writeln!(out, "failure: {}", o.signature);
    let _ = writeln!(out, "before:  {}", describe(&o.original));
    let _ = writeln!(
        out,
        "after:   {} ({} candidates tried, {} kept, {} invalid skipped, {:.2} s, {} threads{})",
        describe(&o.reduced),
        st.tried,
        st.kept,
        st.invalid,
        st.elapsed.as_secs_f64(),
        opts.jobs,
        if st.timed_out {
            ", stopped by --time"
        } else {
            ""
        }
    );
    let _ = writeln!(out, "wrote:   {}", path.display());
    let _ = writeln!(
        out,
        "replay:  {}",
        replay_command(by, &target, narrowing, &path)
    );
    0
}

/// Registers the outside program `--allocator cmd:...` names, with its
/// timeout; a usage error message otherwise.
pub fn register_external(spec: &str, timeout_ms: u64) -> Result<(), String> {
    let cmd = crate::outside::external::command_of(spec).ok_or_else(|| {
        format!("`{spec}`: only an outside program (`cmd:PROGRAM ARGS`) can be added here")
    })?;
    crate::outside::external::register(cmd, std::time::Duration::from_millis(timeout_ms))
        .map(|_| ())
}

/// `rafuzz explain FILE [--vreg V] [--block B] [--html OUT]`: the case's
/// allocation point by point; status 1 when the checker or the interpreter
/// rejects it, 2 on bad input.
pub fn explain(
    file: &Path,
    vreg: Option<&str>,
    block: Option<&str>,
    html: Option<&Path>,
    out: &mut dyn Write,
) -> i32 {
    let Some((case, _)) = load_case(file, out) else {
        return 2;
    };
    let Some(output) = &case.output else {
        let _ = writeln!(out, "{}: no allocation section to explain", file.display());
        return 2;
    };
    let vreg = match vreg {
        None => None,
        Some(t) => match allocator::ir::text::parse_vreg(t) {
            Some(v) => Some(v),
            None => {
                let _ = writeln!(out, "`{t}` is not a vreg (write it as the case does: v7i)");
                return 2;
            }
        },
    };
    let block = match block {
        None => None,
        Some(t) => match t
            .strip_prefix("block")
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|&n| n < case.func.num_blocks())
        {
            Some(n) => Some(allocator::Block::new(n)),
            None => {
                let _ = writeln!(
                    out,
                    "`{t}` is not a block of the case (block0 to block{})",
                    case.func.num_blocks() - 1
                );
                return 2;
            }
        },
    };
    if let Some(v) = vreg.filter(|v| v.index() >= case.func.num_vregs()) {
        let _ = writeln!(out, "the case has no {v}");
        return 2;
    }
    let model = crate::tools::explain::Model::new(&case, output);
    let opts = crate::tools::explain::Options { vreg, block };
    let _ = out.write_all(crate::tools::explain::text(&model, &opts).as_bytes());
    if let Some(path) = html {
        let page = crate::tools::explain::html::page(&model, &file.display().to_string());
        if let Err(e) = std::fs::write(path, page) {
            let _ = writeln!(out, "{}: cannot write: {e}", path.display());
            return 2;
        }
        let _ = writeln!(out, "# wrote {}", path.display());
    }
    i32::from(!model.trace.errors.is_empty() || model.from_interp)
}

/// `rafuzz compare --allocator A --allocator B ...`: see
/// [`crate::tools::compare`]. Status 2 on a usage error.
pub fn compare(
    names: &[String],
    cmd_timeout: u64,
    opts: &crate::tools::compare::Options,
    out: &mut dyn Write,
) -> i32 {
    if names.len() != 2 {
        let _ = writeln!(out, "give --allocator exactly twice: A, then B");
        return 2;
    }
    let mut pair = Vec::new();
    for name in names {
        if crate::outside::external::command_of(name).is_some() {
            if let Err(e) = register_external(name, cmd_timeout) {
                let _ = writeln!(out, "{e}");
                return 2;
            }
        }
        match crate::registry::allocator_by_name(name, &Settings::default()) {
            Some(a) => pair.push(a),
            None => {
                let _ = writeln!(out, "no allocator named `{name}` (see `rafuzz list`)");
                return 2;
            }
        }
    }
    crate::tools::compare::compare(pair[0], pair[1], opts, out)
}

/// `rafuzz scaling`: each allocator's time and peak heap on cases of one
/// shape at growing sizes, with the growth exponents, as a table and
/// (with `plot`) an SVG. Every registered allocator when `names` is
/// empty. Status 2 on an unknown allocator or profile.
pub fn scaling(
    names: &[String],
    opts: &crate::tools::scaling::Options,
    plot: Option<&Path>,
    out: &mut dyn Write,
) -> i32 {
    let allocators: Vec<&dyn allocator::Allocator> = if names.is_empty() {
        crate::registry::allocators(&Settings::default())
    } else {
        let mut v = Vec::new();
        for n in names {
            match crate::registry::allocator_by_name(n, &Settings::default()) {
                Some(a) => v.push(a),
                None => {
                    let _ = writeln!(out, "no allocator named `{n}` (see `rafuzz list`)");
                    return 2;
                }
            }
        }
        v
    };
    let series = crate::tools::scaling::measure(&allocators, opts);
    let _ = write!(out, "{}", crate::tools::scaling::table(&series));
    for s in series.iter().filter(|s| s.points.len() < opts.sizes.len()) {
        let _ = writeln!(
            out,
            "{} took {} of the {} cases and refused the others (--profile picks the kind of case)",
            s.allocator,
            s.points.len(),
            opts.sizes.len()
        );
    }
    if let Some(p) = plot {
        if let Err(e) = std::fs::write(p, crate::tools::scaling::plot(&series)) {
            let _ = writeln!(out, "{}: {e}", p.display());
            return 1;
        }
        let _ = writeln!(out, "plot: {}", p.display());
    }
    0
}
