//! The subcommands on cases: `validate`, `list`, `gen` (and `--stats`),
//! `alloc` and `check`.

use super::exit::{Error, Exit, Streams};
use crate::harness::inputs::{read_file, seeded_bytes};
use crate::harness::narrowing::Narrowing;
use crate::registry::{Settings, DEFAULT};
use allocator::ir::text::parse_and_validate;
use allocator::Case;
use std::io::Write;
use std::path::Path;

/// `rafuzz validate FILE...`: `FILE: ok` per valid case on stdout,
/// `FILE:LINE:COL: message` per error on stderr; status 1 if any file has
/// an error, 3 if one cannot be read.
pub fn validate(files: &[impl AsRef<Path>], io: &mut Streams) -> Exit {
    let mut status = Exit::Ok;
    for path in files {
        let path = path.as_ref();
        match load_case(path, io.err) {
            Ok(_) => {
                let _ = writeln!(io.out, "{}: ok", path.display());
            }
            Err(exit) => status = status.max(exit),
        }
    }
    status
}

/// `rafuzz list`: the allocators and the fuzz targets.
pub fn list(out: &mut dyn Write) -> Exit {
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
    Exit::Ok
}

/// `rafuzz gen --seed N [--size BYTES] [--raw]`: the generated case as text,
/// or (`--raw`) the input bytes themselves, for seeding corpora; the cases
/// of the default config narrowed by `narrowing`.
pub fn gen(seed: u64, size: usize, raw: bool, narrowing: &Narrowing, out: &mut dyn Write) -> Exit {
    let bytes = seeded_bytes(seed, size);
    if raw {
        let _ = out.write_all(&bytes);
        return Exit::Ok;
    }
    let case = ssagen::generate_from_bytes(&bytes, &narrowing.config(&DEFAULT));
    let _ = out.write_all(allocator::ir::text::print(&case).as_bytes());
    Exit::Ok
}

/// `rafuzz gen --stats COUNT|PATH... [--size BYTES] [--seed S]`: case sets
/// side by side, one column per argument. A COUNT is that many generated
/// cases (input `i` is `seeded_bytes(S + i, BYTES)`), under the narrowing
/// given, and beside the default config's when there is a narrowing and no
/// other column; a PATH is the `.ra` cases of a directory (not its
/// subdirectories) or a file. Exit 1 when a case is invalid, 3 when a
/// file cannot be read.
pub fn gen_stats(
    sets: &[String],
    size: usize,
    seed: u64,
    narrowing: &Narrowing,
    io: &mut Streams,
) -> Exit {
    let generated = |count: usize, config: &ssagen::Config| {
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
    let what = match narrowing.args() {
        a if a.is_empty() => "generated".to_string(),
        a => a.join(" "),
    };
    let mut columns: Vec<(String, ssagen::stats::GenStats)> = Vec::new();
    let mut status = Exit::Ok;
    for set in sets {
        if let Ok(count) = set.parse::<usize>() {
            let stats = generated(count, &narrowing.config(&DEFAULT));
            status = status.max(Exit::failed_if(stats.valid != stats.cases));
            columns.push((what.clone(), stats));
            continue;
        }
        let mut stats = ssagen::stats::GenStats::default();
        for path in case_files(Path::new(set)) {
            match load_case(&path, io.err) {
                Ok((case, _)) => {
                    let valid = ssagen::feasibility::check_case(&case).is_ok();
                    stats.record(&ssagen::stats::CaseFeatures::of(&case), valid);
                    status = status.max(Exit::failed_if(!valid));
                }
                Err(exit) => status = status.max(exit),
            }
        }
        columns.push((set.clone(), stats));
    }
    if columns.len() == 1 && !narrowing.is_empty() && sets[0].parse::<usize>().is_ok() {
        let count = sets[0].parse::<usize>().unwrap_or(0);
        columns.push((
            "default config".into(),
            generated(count, &ssagen::Config::default()),
        ));
    }
    let refs: Vec<(String, &ssagen::stats::GenStats)> =
        columns.iter().map(|(t, g)| (t.clone(), g)).collect();
    let _ = write!(
        io.out,
        "generated inputs of {size} bytes\n{}",
        ssagen::stats::GenStats::table(&refs)
    );
    status
}

/// The `.ra` files of a directory, sorted (not its subdirectories), or the
/// path itself when it is not a directory.
fn case_files(path: &Path) -> Vec<std::path::PathBuf> {
    match std::fs::read_dir(path) {
        Ok(d) => {
            let mut v: Vec<_> = d
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "ra"))
                .collect();
            v.sort();
            v
        }
        Err(_) => vec![path.to_path_buf()],
    }
}

/// Parses and validates a file, writing `FILE:LINE:COL: message` lines on
/// `err`; `Err(Failed)` for a malformed case, `Err(Internal)` when the file
/// cannot be read.
pub(super) fn load_case(
    path: &Path,
    err: &mut dyn Write,
) -> Result<(allocator::Case, allocator::ir::text::SourceMap), Exit> {
    let src = read_file(path, err).ok_or(Exit::Internal)?;
    parse_case(path, &src, err)
}

/// Parses and validates the text `src` of the file `path`, as
/// [`load_case`] does.
pub(super) fn parse_case(
    path: &Path,
    src: &[u8],
    err: &mut dyn Write,
) -> Result<(allocator::Case, allocator::ir::text::SourceMap), Exit> {
    parse_and_validate(src).map_err(|diags| {
        for d in diags {
            let _ = writeln!(err, "{}:{d}", path.display());
        }
        Exit::Failed
    })
}

/// What `--repeat N` times: N rounds over every case, each round's time
/// the sum of one run per case.
struct Repeats {
    on: bool,
    cases: usize,
    insts: usize,
    rounds: Vec<f64>,
}

impl Repeats {
    fn new(repeat: Option<usize>) -> Repeats {
        Repeats {
            on: repeat.is_some(),
            cases: 0,
            insts: 0,
            rounds: vec![0.0; repeat.unwrap_or(0)],
        }
    }

    /// Runs `run` once per round on `case`, adding its time to the round.
    fn time(&mut self, case: &Case, mut run: impl FnMut()) {
        for r in self.rounds.iter_mut() {
            let t = std::time::Instant::now();
            run();
            *r += t.elapsed().as_nanos() as f64;
        }
        self.cases += 1;
        self.insts += case.func.num_insts();
    }

    /// With `--repeat`, the line `cases=N insts=N ns_per_inst=N`: the
    /// median over rounds of each round's total time per instruction.
    fn print(&self, out: &mut dyn Write) {
        if !self.on {
            return;
        }
        let insts = self.insts.max(1) as f64;
        let mut per: Vec<f64> = self.rounds.iter().map(|t| t / insts).collect();
        per.sort_by(|a, b| a.total_cmp(b));
        let median = per.get(per.len() / 2).copied().unwrap_or(0.0);
        let (cases, insts) = (self.cases, self.insts);
        let _ = writeln!(out, "cases={cases} insts={insts} ns_per_inst={median:.1}");
    }
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
    io: &mut Streams,
) -> Result<Exit, Error> {
    let a = super::lookup::allocator_named(name, settings)?;
    let out = &mut *io.out;
    let mut status = Exit::Ok;
    let mut repeats = Repeats::new(repeat);
    let mut checker = checker::Checker::default();
    for path in files {
        let path = path.as_ref();
        let mut case = match load_case(path, io.err) {
            Ok((case, _)) => case,
            Err(exit) => {
                status = status.max(exit);
                continue;
            }
        };
        match a.run_with_counters(&case.func, &case.machine) {
            Ok((o, counters)) => {
                repeats.time(&case, || {
                    let _ = std::hint::black_box(a.run(&case.func, &case.machine));
                });
                let q = crate::books::quality::Quality::of(&case, Some(&o));
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
                    status = status.max(Exit::Failed);
                    let _ = writeln!(out, "# checker: {} [{}]", e.message, e.kind.name());
                }
                case.output = Some(o);
                let _ = out.write_all(allocator::ir::text::print(&case).as_bytes());
            }
            Err(e) => {
                status = status.max(Exit::Failed);
                let _ = writeln!(io.err, "{}: {name}: {e}", path.display());
            }
        }
    }
    repeats.print(out);
    Ok(status)
}

/// `rafuzz check FILE... [--repeat N]`: runs the symbolic checker on cases
/// that hold an allocation; `FILE: ok` on stdout, or every error located
/// on stderr (status 1).
pub fn check(files: &[impl AsRef<Path>], repeat: Option<usize>, io: &mut Streams) -> Exit {
    let mut status = Exit::Ok;
    let mut repeats = Repeats::new(repeat);
    let mut checker = checker::Checker::default();
    for path in files {
        let path = path.as_ref();
        let (case, map) = match load_case(path, io.err) {
            Ok(x) => x,
            Err(exit) => {
                status = status.max(exit);
                continue;
            }
        };
        let Some(output) = &case.output else {
            let _ = writeln!(io.err, "{}: no allocation section to check", path.display());
            status = status.max(Exit::Usage);
            continue;
        };
        let errs = checker.check(&case.func, &case.machine, output);
        repeats.time(&case, || {
            std::hint::black_box(checker.check(&case.func, &case.machine, output));
        });
        if errs.is_empty() {
            let _ = writeln!(io.out, "{}: ok", path.display());
        } else {
            status = status.max(Exit::Failed);
            for e in errs {
                let _ = writeln!(
                    io.err,
                    "{}:{}: {} [{}]",
                    path.display(),
                    map.locate(e.site),
                    e.message,
                    e.kind.name()
                );
            }
        }
    }
    repeats.print(io.out);
    status
}
