//! The subcommands for a person holding a finding or a question: `reduce`,
//! `explain`, `compare` and `scaling`, and the registration of an outside
//! program as allocator.

use super::cases::load_case;
use super::exit::{Error, Exit, Streams};
use super::lookup::{allocator_named, target_named};
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
/// when `must_be_case`) or as raw bytes; the status to end with, its
/// message written to `err`, when it cannot.
fn read_input(
    path: &Path,
    must_be_case: bool,
    err: &mut dyn Write,
) -> Result<crate::tools::reduce::Input, Exit> {
    if must_be_case || path.extension().is_some_and(|e| e == "ra") {
        let (mut case, _) = load_case(path, err)?;
        case.output = None;
        if !crate::tools::reduce::is_candidate(&case) {
            let _ = writeln!(
                err,
                "{}: the case breaks a feasibility rule; the reducer only works on feasible cases",
                path.display()
            );
            return Err(Exit::Usage);
        }
        return Ok(crate::tools::reduce::Input::Case(Box::new(case)));
    }
    read_file(path, err)
        .map(crate::tools::reduce::Input::Bytes)
        .ok_or(Exit::Internal)
}

/// [`read_input`] of a case.
fn read_case(path: &Path, err: &mut dyn Write) -> Result<Box<allocator::Case>, Exit> {
    match read_input(path, true, err)? {
        Input::Case(case) => Ok(case),
        Input::Bytes(_) => unreachable!("read as a case"),
    }
}

/// `rafuzz reduce (--target T | --allocator NAME [--oracle O] | --predicate
/// CMD) FILE [-o OUT] [--jobs N] [--time SECONDS]`: shrinks a failing input
/// to a small one that fails the same way, writes it, and prints its size,
/// its failure and the command that replays it. Status 0 when reduced, 1
/// when the input does not fail or is malformed, 2 on a usage error, 3
/// when a file cannot be read or written.
pub fn reduce(
    by: &ReduceBy,
    file: &Path,
    output: Option<&Path>,
    opts: &crate::tools::reduce::Options,
    isolation: Option<&crate::engine::process::Launcher>,
    narrowing: &Narrowing,
    io: &mut Streams,
) -> Result<Exit, Error> {
    let (target, outcome) = match by {
        ReduceBy::Target(name) => {
            let t = target_named(name)?.narrowed(narrowing);
            let input = match read_input(file, false, io.err) {
                Ok(input) => input,
                Err(exit) => return Ok(exit),
            };
            if matches!(input, Input::Case(_)) && !t.takes_cases() {
                return Err(Error::usage(format!(
                    "{}: target `{}` does not run on cases",
                    file.display(),
                    t.name
                )));
            }
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
            let a = allocator_named(name, &narrowing.settings())?;
            let case = match read_case(file, io.err) {
                Ok(case) => case,
                Err(exit) => return Ok(exit),
            };
            (
                String::new(),
                crate::tools::reduce::predicate::reduce_slow(&*a, case, opts),
            )
        }
        ReduceBy::Allocator(name, oracles) => {
            let a = allocator_named(name, &narrowing.settings())?;
            let case = match read_case(file, io.err) {
                Ok(case) => case,
                Err(exit) => return Ok(exit),
            };
            (
                checker_target_of(name),
                reduce_for_allocator(&*a, *oracles, case, narrowing.settings(), opts),
            )
        }
        ReduceBy::Predicate(cmd) => {
            let case = match read_case(file, io.err) {
                Ok(case) => case,
                Err(exit) => return Ok(exit),
            };
            (String::new(), reduce_for_command(cmd, case, file, opts))
        }
    };
    let o = match outcome {
        Ok(o) => o,
        Err(e) => return Ok(io.fail(Exit::Failed, format_args!("{}: {e}", file.display()))),
    };
    let out = &mut *io.out;
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
    Ok(Exit::Ok)
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
/// rejects it (or the case is malformed), 2 on a bad argument, 3 when a file
/// cannot be read or written.
pub fn explain(
    file: &Path,
    vreg: Option<&str>,
    block: Option<&str>,
    html: Option<&Path>,
    io: &mut Streams,
) -> Result<Exit, Error> {
    let case = match load_case(file, io.err) {
        Ok((case, _)) => case,
        Err(exit) => return Ok(exit),
    };
    let Some(output) = &case.output else {
        return Err(Error::usage(format!(
            "{}: no allocation section to explain",
            file.display()
        )));
    };
    let vreg = match vreg {
        None => None,
        Some(t) => Some(allocator::ir::text::parse_vreg(t).ok_or_else(|| {
            Error::usage(format!(
                "`{t}` is not a vreg (write it as the case does: v7i)"
            ))
        })?),
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
                return Err(Error::usage(format!(
                    "`{t}` is not a block of the case (block0 to block{})",
                    case.func.num_blocks() - 1
                )))
            }
        },
    };
    if let Some(v) = vreg.filter(|v| v.index() >= case.func.num_vregs()) {
        return Err(Error::usage(format!("the case has no {v}")));
    }
    let out = &mut *io.out;
    let model = crate::tools::explain::Model::new(&case, output);
    let opts = crate::tools::explain::Options { vreg, block };
    let _ = out.write_all(crate::tools::explain::text(&model, &opts).as_bytes());
    if let Some(path) = html {
        let page = crate::tools::explain::html::page(&model, &file.display().to_string());
        if let Err(e) = std::fs::write(path, page) {
            return Err(Error::internal(format!(
                "{}: cannot write: {e}",
                path.display()
            )));
        }
        let _ = writeln!(out, "# wrote {}", path.display());
    }
    Ok(Exit::failed_if(
        !model.trace.errors.is_empty() || model.from_interp,
    ))
}

/// `rafuzz compare --allocator A --allocator B ...`: see
/// [`crate::tools::compare`]. Status 2 on a usage error.
pub fn compare(
    names: &[String],
    cmd_timeout: u64,
    opts: &crate::tools::compare::Options,
    io: &mut Streams,
) -> Result<Exit, Error> {
    if names.len() != 2 {
        return Err(Error::usage("give --allocator exactly twice: A, then B"));
    }
    let mut pair = Vec::new();
    for name in names {
        if crate::outside::external::command_of(name).is_some() {
            register_external(name, cmd_timeout).map_err(Error::usage)?;
        }
        pair.push(allocator_named(name, &Settings::default())?);
    }
    Ok(Exit::from_code(crate::tools::compare::compare(
        &*pair[0], &*pair[1], opts, io.out, io.err,
    )))
}

/// `rafuzz coverage`: runs every input through the target in this
/// process, counting the edges of the code under test, and reports what
/// was reached. Status 2 for a build that counts no edges, 3 when the HTML
/// cannot be written.
pub fn coverage(
    a: &super::args::CoverageArgs,
    narrowing: &Narrowing,
    ctx: &crate::books::context::Context,
    io: &mut Streams,
) -> Result<Exit, Error> {
    use crate::coverage::{counters, edges::Edges, report};
    let inputs = crate::harness::inputs::expand_inputs(&a.files);
    if inputs.is_empty() {
        return Err(Error::usage("no input found in the files given"));
    }
    // Each input's target: the one named, or its folder's.
    let mut targets: Vec<crate::targets::Target> = Vec::new();
    let mut of_input = Vec::with_capacity(inputs.len());
    for path in &inputs {
        let named = a.target.as_deref();
        let name = named.or_else(|| crate::harness::inputs::folder_name(path));
        let k = match targets.iter().position(|t| Some(t.name) == name) {
            Some(k) => k,
            None => {
                let target = match named {
                    Some(n) => target_named(n)?,
                    None => name
                        .and_then(crate::targets::target_by_name)
                        .ok_or_else(|| {
                            Error::usage(format!(
                                "{}: its folder names no target; say which with --target",
                                path.display()
                            ))
                        })?,
                };
                targets.push(target.narrowed(narrowing));
                targets.len() - 1
            }
        };
        of_input.push(k);
    }
    let names: Vec<&str> = targets.iter().map(|t| t.name).collect();
    let crates = crate::registry::code_under_test_of(&names);
    let edges = Edges::of_process(&crates).map_err(Error::usage)?;
    let scope = edges.scope(&crates);
    let mut hits = vec![0u32; counters::total()];
    for (path, &k) in inputs.iter().zip(&of_input) {
        let data =
            std::fs::read(path).map_err(|e| Error::internal(format!("{}: {e}", path.display())))?;
        // What the input finds is `run`'s business; here only what it reaches.
        let _ = targets[k].failure(&data, ctx);
        edges.gather(scope, &mut hits);
    }
    let files = report::files(&edges.sites, &edges.numbers(scope), &hits);
    let _ = writeln!(
        io.out,
        "{} inputs through {}; the code of {}:",
        inputs.len(),
        names.join(", "),
        crates.join(", ")
    );
    let _ = io
        .out
        .write_all(report::text(&files, a.functions).as_bytes());
    if let Some(dir) = &a.html {
        let title = format!("{}: coverage of {}", names.join(", "), crates.join(", "));
        report::html(&files, &title, dir)
            .map_err(|e| Error::internal(format!("{}: {e}", dir.display())))?;
        let _ = writeln!(io.out, "HTML: {}", dir.join("index.html").display());
    }
    Ok(Exit::Ok)
}

/// `rafuzz scaling`: each allocator's time and peak heap on cases of one
/// shape at growing sizes, with the growth exponents, as a table and
/// (with `plot`) an SVG. Every registered allocator when `names` is
/// empty. Status 2 on an unknown allocator, 3 when the plot cannot be
/// written.
pub fn scaling(
    names: &[String],
    opts: &crate::tools::scaling::Options,
    plot: Option<&Path>,
    io: &mut Streams,
) -> Result<Exit, Error> {
    let allocators: Vec<std::sync::Arc<dyn allocator::Allocator>> = if names.is_empty() {
        crate::registry::allocators(&Settings::default())
    } else {
        names
            .iter()
            .map(|n| allocator_named(n, &Settings::default()))
            .collect::<Result<_, _>>()?
    };
    let out = &mut *io.out;
    let allocators: Vec<&dyn allocator::Allocator> = allocators.iter().map(|a| &**a).collect();
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
            return Err(Error::internal(format!(
                "{}: cannot write: {e}",
                p.display()
            )));
        }
        let _ = writeln!(out, "plot: {}", p.display());
    }
    Ok(Exit::Ok)
}

/// `rafuzz export --allocator NAME FILE [-o OUT] [--name NAME]`: the case as
/// a standalone Rust test against regalloc2's public API
/// ([`crate::tools::export`]). Status 1 for a malformed case, 2 for an
/// allocator that is not regalloc2's, 3 when a file cannot be read or
/// written.
pub fn export(
    allocator: &str,
    file: &Path,
    output: Option<&Path>,
    name: Option<&str>,
    io: &mut Streams,
) -> Result<Exit, Error> {
    #[cfg(feature = "regalloc2")]
    {
        use crate::tools::export::{about_of, algorithm_of, rust_test, About};
        let algorithm = algorithm_of(allocator).ok_or_else(|| {
            Error::usage(format!(
                "`{allocator}`: export writes reproducers for regalloc2_ion and regalloc2_fastalloc"
            ))
        })?;
        let Some(src) = read_file(file, io.err) else {
            return Ok(Exit::Internal);
        };
        let (case, _) = match super::cases::parse_case(file, &src, io.err) {
            Ok(x) => x,
            Err(exit) => return Ok(exit),
        };
        let stem = file
            .file_stem()
            .map_or("reproducer".into(), |s| s.to_string_lossy().into_owned());
        let about = About {
            name: name.unwrap_or(&stem),
            what: &about_of(&String::from_utf8_lossy(&src)),
            source: &file.display().to_string(),
            algorithm,
        };
        let text = rust_test(&case, &about);
        match output {
            None => {
                let _ = io.out.write_all(text.as_bytes());
            }
            Some(path) => {
                std::fs::write(path, text).map_err(|e| {
                    Error::internal(format!("{}: cannot write: {e}", path.display()))
                })?;
                let _ = writeln!(io.out, "wrote:   {}", path.display());
            }
        }
        Ok(Exit::Ok)
    }
    #[cfg(not(feature = "regalloc2"))]
    {
        let _ = (allocator, file, output, name, io);
        Err(Error::usage(
            "export needs rafuzz built with the `regalloc2` feature",
        ))
    }
}
