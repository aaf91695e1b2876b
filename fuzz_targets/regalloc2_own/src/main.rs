//! regalloc2's own fuzz targets (`regalloc2::fuzzing::{ion, fastalloc}`:
//! its generator `Func` through `arbitrary`, the allocator, its checker)
//! as targets of rafuzz's built-in engine, guided by the edges of
//! regalloc2's code, for the side-by-side reach of docs/coverage.md.
//!
//!   rafuzz-regalloc2-own fuzz SECONDS SEED OUT      a campaign; OUT/<target>/ is its corpus
//!   rafuzz-regalloc2-own coverage INPUT_DIR...      the report `rafuzz coverage` prints
//!
//! One job in this process: regalloc2's targets are no target of the
//! `rafuzz` binary that worker processes run. Its findings are kept going
//! past (fastalloc's own target panics on cases it refuses).

use arbitrary::{Arbitrary, Unstructured};
use fuzz_targets::coverage::{counters, edges::Edges, report};
use fuzz_targets::engine::{fuzz, Options};
use fuzz_targets::targets::{Decode, Input, Target};
use regalloc2::fuzzing::{fastalloc, ion};
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
            "usage: rafuzz-regalloc2-own fuzz SECONDS SEED OUT | coverage [--functions] [--html DIR] INPUT_DIR..."
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
        _ => usage(),
    }
}
