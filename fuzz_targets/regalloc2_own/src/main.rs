//! regalloc2's own fuzz targets (`regalloc2::fuzzing::{ion, fastalloc}`:
//! its generator `Func` through `arbitrary`, the allocator, its checker)
//! as targets of rafuzz's built-in engine, guided by the edges of
//! regalloc2's code, for the side-by-side reach of docs/coverage.md.
//!
//!   rafuzz-regalloc2-own fuzz SECONDS SEED OUT      a campaign; OUT/<target>/ is its corpus
//!   rafuzz-regalloc2-own coverage INPUT_DIR...      the report `rafuzz coverage` prints
//!   rafuzz-regalloc2-own cases OUT INPUT_DIR...     each ion input's function as a case
//!
//! `cases` reads the function regalloc2's ion target would build from each
//! input of a `regalloc2_own_ion` folder through the checker's entry point
//! over regalloc2's types and writes it to OUT as a `.ra` case on
//! regalloc2's fuzzing machine: to see whether our format, and our targets,
//! reach what regalloc2's own generator does.
//!
//! One job in this process: regalloc2's targets are no target of the
//! `rafuzz` binary that worker processes run. Its findings are kept going
//! past (fastalloc's own target panics on cases it refuses).

use arbitrary::{Arbitrary, Unstructured};
use fuzz_targets::coverage::{counters, edges::Edges, report};
use fuzz_targets::engine::{fuzz, Options};
use fuzz_targets::targets::{Decode, Input, Target};
use regalloc2::fuzzing::{fastalloc, func, ion};
use std::sync::Arc;
use std::time::Duration;

/// regalloc2's two fuzz targets, as its `fuzz/` folder runs them.
fn targets() -> Vec<Target> {
    let target = |name, body: fn(&[u8])| Target {
        name,
        description: "regalloc2's own generator, allocator and checker",
        decode: Decode::Bytes,
        body: Arc::new(move |input: &Input, _ctx: &_| {
            if let Input::Bytes(data) = input {
                body(data);
            }
            Ok(())
        }),
        stats: None,
    };
    vec![
        target("regalloc2_own_ion", |data| {
            if let Ok(t) = ion::TestCase::arbitrary(&mut Unstructured::new(data)) {
                ion::check(t);
            }
        }),
        target("regalloc2_own_fastalloc", |data| {
            if let Ok(t) = fastalloc::TestCase::arbitrary(&mut Unstructured::new(data)) {
                fastalloc::check(t);
            }
        }),
    ]
}

/// The generator options regalloc2's own ion target draws its functions
/// with (`regalloc2::fuzzing::ion`, private there): so that the same bytes
/// give the same function.
const ION_OPTIONS: func::Options = func::Options {
    reused_inputs: true,
    fixed_regs: true,
    fixed_nonallocatable: true,
    clobbers: true,
    reftypes: true,
    callsite_ish_constraints: true,
    ..func::Options::DEFAULT
};

/// Writes each ion input of `dirs` as a case in `out`; returns how many
/// were written and how many could not be read into our IR.
fn cases(out: &std::path::Path, dirs: &[String]) -> std::io::Result<(usize, usize)> {
    std::fs::create_dir_all(out)?;
    let env = func::machine_env();
    let (mut written, mut unreadable) = (0, 0);
    for path in fuzz_targets::harness::inputs::expand_inputs(dirs) {
        if fuzz_targets::harness::inputs::folder_name(&path) != Some("regalloc2_own_ion") {
            continue;
        }
        let data = std::fs::read(&path)?;
        let Ok(f) = func::Func::arbitrary_with_options(&mut Unstructured::new(&data), &ION_OPTIONS)
        else {
            continue;
        };
        let case = match (
            checker::regalloc2::function(&f),
            checker::regalloc2::machine(&env, &f),
        ) {
            (Ok(func), Ok(machine)) => allocator::Case {
                machine,
                func,
                output: None,
            },
            _ => {
                unreadable += 1;
                continue;
            }
        };
        let name = path
            .file_name()
            .map_or("input".into(), |n| n.to_string_lossy());
        std::fs::write(
            out.join(format!("{name}.ra")),
            allocator::ir::text::print(&case),
        )?;
        written += 1;
    }
    Ok((written, unreadable))
}

fn edges() -> Edges {
    Edges::of_process(&["regalloc2"]).unwrap_or_else(|e| {
        eprintln!("rafuzz-regalloc2-own: {e}");
        std::process::exit(2)
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || -> ! {
        eprintln!(
            "usage: rafuzz-regalloc2-own fuzz SECONDS SEED OUT | coverage [--functions] [--html DIR] INPUT_DIR... | cases OUT INPUT_DIR..."
        );
        std::process::exit(2)
    };
    match args.first().map(String::as_str) {
        Some("fuzz") if args.len() == 4 => {
            let (Ok(secs), Ok(seed)) = (args[1].parse::<f64>(), args[2].parse::<u64>()) else {
                usage()
            };
            let out = std::path::PathBuf::from(&args[3]);
            let opts = Options {
                time: Some(Duration::from_secs_f64(secs)),
                seed,
                keep_going: true,
                corpus: out.join("no-seeds"),
                artifacts: out.join("artifacts"),
                save_corpus: Some(out.clone()),
                coverage: Some(Arc::new(edges())),
                ..Options::new(targets())
            };
            let report = fuzz(&opts, &mut std::io::stderr());
            for (name, execs, corpus, features, findings) in report.rows {
                println!("{name}: {execs} execs, corpus {corpus}, features {features}, findings {findings}");
            }
        }
        Some("coverage") if args.len() > 1 => {
            let mut rest = &args[1..];
            let mut functions = false;
            let mut html = None;
            loop {
                match rest {
                    [flag, tail @ ..] if flag == "--functions" => {
                        functions = true;
                        rest = tail;
                    }
                    [flag, dir, tail @ ..] if flag == "--html" => {
                        html = Some(std::path::PathBuf::from(dir));
                        rest = tail;
                    }
                    _ => break,
                }
            }
            if rest.is_empty() {
                usage();
            }
            let edges = edges();
            let scope = edges.scope(&["regalloc2"]);
            let mut hits = vec![0u32; counters::total()];
            let ctx = Default::default();
            let all = targets();
            let inputs = fuzz_targets::harness::inputs::expand_inputs(rest);
            for path in &inputs {
                let Ok(data) = std::fs::read(path) else {
                    continue;
                };
                let name = fuzz_targets::harness::inputs::folder_name(path);
                for t in all.iter().filter(|t| Some(t.name) == name) {
                    let _ = t.failure(&data, &ctx);
                }
                edges.gather(scope, &mut hits);
            }
            let files = report::files(&edges.sites, &edges.numbers(scope), &hits);
            println!("{} inputs through regalloc2's own targets:", inputs.len());
            print!("{}", report::text(&files, functions));
            if let Some(dir) = html {
                if let Err(e) = report::html(&files, "regalloc2's own targets", &dir) {
                    eprintln!("rafuzz-regalloc2-own: {}: {e}", dir.display());
                    std::process::exit(3);
                }
            }
        }
        Some("cases") if args.len() > 2 => {
            match cases(std::path::Path::new(&args[1]), &args[2..]) {
                Ok((written, unreadable)) => {
                    println!(
                        "{written} cases written to {}; {unreadable} functions our IR cannot hold",
                        args[1]
                    )
                }
                Err(e) => {
                    eprintln!("rafuzz-regalloc2-own: {e}");
                    std::process::exit(3);
                }
            }
        }
        _ => usage(),
    }
}
