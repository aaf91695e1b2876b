//! The subcommands for a person holding a finding or a question: `reduce`,
//! `explain`, `compare` and `scaling`, and the registration of an outside
//! program as allocator.

use super::cases::load_case;
use crate::harness::inputs::read_file;
use crate::harness::narrowing::Narrowing;
use crate::registry::Settings;
use crate::tools::reduce::predicate::{
    checker_target_of, reduce_for_allocator, reduce_for_command, ReduceBy,
};
use crate::tools::reduce::report::{describe, reduced_path, replay_command, write_reduced};
use crate::tools::reduce::Input;
use std::io::Write;
use std::path::Path;

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
                reduce_for_allocator(a, *oracles, case, narrowing.settings(), opts),
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
