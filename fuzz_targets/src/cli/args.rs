//! The `rafuzz` command line as clap reads it: the subcommands and their
//! flags. The commands and exit statuses are fixed by the format
//! specification (docs/format.md).

use crate::engine::process::{Limits, DEFAULT_RSS_LIMIT_MB};
use crate::spec::{CaseSpec, RunSpec};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::time::Duration;

#[derive(Parser)]
#[command(
    name = "rafuzz",
    version,
    about = "Differential fuzzing and verification of register allocators"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Check that each case is valid; prints FILE:LINE:COL: message per error.
    Validate {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Name the allocators and the fuzz targets.
    List {
        /// Name the hidden targets of the planted faults instead
        /// (`fault_<fault>`, for scripts/fault-bench.sh).
        #[arg(long, hide = true)]
        faults: bool,
    },
    /// Allocate each case and print it with its allocation section.
    Alloc {
        #[arg(long)]
        allocator: String,
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Run the allocator N more times per case and print the timing line.
        #[arg(long, value_name = "N", value_parser = count)]
        repeat: Option<usize>,
        /// Run an outside allocator on its known bugs instead of
        /// suppressing them (docs/regalloc2.md).
        #[arg(long)]
        no_suppress: bool,
    },
    /// Run the checker on cases that hold an allocation.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Run the checker N more times per case and print the timing line.
        #[arg(long, value_name = "N", value_parser = count)]
        repeat: Option<usize>,
    },
    /// Fuzz targets with the built-in engine (stable Rust, nothing else).
    Fuzz(FuzzArgs),
    /// A worker process of `rafuzz fuzz` (started by the engine): runs
    /// inputs read from stdin, answers on stdout.
    #[command(hide = true)]
    Worker(WorkerArgs),
    /// Answer cases on stdin with their allocations on stdout: an allocator
    /// of this repository behind the outside-program protocol.
    Serve {
        #[arg(long)]
        allocator: String,
    },
    /// Shrink a failing input (a raw fuzz input or a .ra case) to a small
    /// case that fails the same way, and print the command that replays it.
    Reduce(ReduceArgs),
    /// Replay raw fuzz inputs (files or directories) or .ra cases through
    /// one target.
    Run(RunArgs),
    /// What inputs reach of the allocator's own code (a build of
    /// scripts/coverage-build.sh): per file and function, the share of
    /// edges and lines, as text and as HTML pages.
    Coverage(CoverageArgs),
    /// How each allocator's time and peak heap grow with function size:
    /// cases of one shape from about 100 instructions up, a table with
    /// the fitted growth exponents, and a plot.
    Scaling(ScalingArgs),
    /// Print a generated case (machine + function) from seeded random bytes,
    /// or, with --stats, measure the generator over many inputs.
    Gen {
        /// Seed of the ChaCha8 stream the input bytes come from.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Length of the input in bytes.
        #[arg(long, default_value_t = 4096, value_parser = input_size)]
        size: usize,
        /// Print the input bytes instead of the case (to seed a corpus).
        #[arg(long, conflicts_with = "stats")]
        raw: bool,
        /// Print statistics of case sets side by side, one column each: a
        /// COUNT generates that many cases (seeds SEED, SEED+1, ...); a
        /// directory or .ra file reads those cases (a capture, a corpus).
        #[arg(long, value_name = "COUNT|PATH", num_args = 1..)]
        stats: Vec<String>,
        #[command(flatten)]
        cases: CaseSpec,
    },
    /// Show what each register and slot holds at each point of a case's
    /// allocation, with the first error marked where it happens.
    Explain {
        /// A case with its allocation section.
        file: PathBuf,
        /// Follow one value: where it lives, point by point.
        #[arg(long, value_name = "VREG")]
        vreg: Option<String>,
        /// Show one block only.
        #[arg(long, value_name = "BLOCK")]
        block: Option<String>,
        /// Also write the grid as one self-contained HTML page.
        #[arg(long, value_name = "OUT.html")]
        html: Option<PathBuf>,
    },
    /// Write a case as a standalone Rust test against regalloc2's public
    /// API, for its maintainers: it fails on the release and says what is
    /// wrong (docs/reproducers.md).
    Export {
        /// The allocator it reproduces a bug of: regalloc2_ion or
        /// regalloc2_fastalloc.
        #[arg(long, value_name = "NAME")]
        allocator: String,
        /// The case (FILE.ra).
        file: PathBuf,
        /// Where to write the test (default: stdout).
        #[arg(short = 'o', long = "output", value_name = "OUT.rs")]
        output: Option<PathBuf>,
        /// The test's name (default: the file's name).
        #[arg(long)]
        name: Option<String>,
    },
    /// Compare two allocators' loop-weighted cost and time on the same
    /// cases (B against A), both oracles judging every allocation.
    Compare(CompareArgs),
}

/// `rafuzz fuzz`'s arguments.
#[derive(clap::Args)]
pub struct FuzzArgs {
    /// A target to fuzz (repeatable); see `rafuzz list`.
    #[arg(long = "target", value_name = "T")]
    pub targets: Vec<String>,
    /// Fuzz every target.
    #[arg(long, conflicts_with = "targets")]
    pub all: bool,
    /// Stop after this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub time: Option<Duration>,
    /// Stop after this many executions in all.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub runs: Option<u64>,
    /// Worker threads (default: all cores).
    #[arg(long, value_name = "N", value_parser = count)]
    pub jobs: Option<usize>,
    /// Seed of the engine's random choices (ChaCha8).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Seed corpora, read from DIR/<target>/.
    #[arg(long, value_name = "DIR", default_value = "corpus")]
    pub corpus: PathBuf,
    /// Where findings are written (DIR/<target>/crash-<hash>).
    #[arg(long, value_name = "DIR", default_value = "artifacts")]
    pub artifacts: PathBuf,
    /// Go on after a finding.
    #[arg(long)]
    pub keep_going: bool,
    /// Longest input generated.
    #[arg(long, default_value_t = 8192, value_parser = max_len)]
    pub max_len: usize,
    /// Print the targets' own statistics after the table (the
    /// allocators' quality comparison of `differential`, the checker's
    /// precision on mutants of `checker_soundness`).
    #[arg(long)]
    pub stats: bool,
    /// Write each input that reaches a new feature to DIR/<target>/.
    #[arg(long, value_name = "DIR")]
    pub save_corpus: Option<PathBuf>,
    /// Case seeds for every target whose input is a case: the `.ra`
    /// files of DIR (repeatable; e.g. corpus/real/x86_64), mutated as
    /// cases (insert, delete, duplicate, constraint, use, clobber,
    /// split, parameter, swap) as well as generated from.
    #[arg(long, value_name = "DIR")]
    pub seeds: Vec<PathBuf>,
    /// Longest time spent reducing each distinct finding.
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = seconds)]
    pub reduce_time: Duration,
    /// Report findings without reducing them.
    #[arg(long)]
    pub no_reduce: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Run inputs in the engine's own threads, not in worker
    /// processes: a little faster, but a hang, an abort or a stack
    /// overflow then stops the campaign instead of being a finding.
    #[arg(long)]
    pub in_process: bool,
    #[command(flatten)]
    pub cases: CaseSpec,
    #[command(flatten)]
    pub run: RunSpec,
}

/// `rafuzz worker`'s arguments: the targets, and the campaign's specs.
#[derive(clap::Args)]
pub struct WorkerArgs {
    #[arg(long = "target", value_name = "T")]
    pub targets: Vec<String>,
    #[command(flatten)]
    pub cases: CaseSpec,
    #[command(flatten)]
    pub run: RunSpec,
}

/// `rafuzz reduce`'s arguments.
#[derive(clap::Args)]
pub struct ReduceArgs {
    /// Keep candidates that fail this fuzz target with the input's
    /// failure signature.
    #[arg(long, value_name = "T", required_unless_present_any = ["allocator", "predicate", "slow"])]
    pub target: Option<String>,
    /// Keep candidates on which this allocator stays slow: its best
    /// time per instruction at least half what it is on the input.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["target", "allocator", "predicate"])]
    pub slow: Option<String>,
    /// Keep candidates this allocator fails on (allocator error or
    /// panic, or an output the oracle rejects) the same way.
    #[arg(long, value_name = "NAME", conflicts_with_all = ["target", "predicate"])]
    pub allocator: Option<String>,
    /// With --allocator: which oracle judges the output.
    #[arg(long, value_enum, default_value = "both", requires = "allocator")]
    pub oracle: OracleArg,
    /// Keep candidates for which `sh -c 'CMD "$1"' sh CANDIDATE.ra`
    /// exits 0.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["target", "allocator"])]
    pub predicate: Option<String>,
    /// The failing input: a raw fuzz input, or a case (FILE.ra).
    pub file: PathBuf,
    /// Where to write the reduced case (default: FILE.reduced.ra).
    #[arg(short = 'o', long = "output", value_name = "OUT")]
    pub output: Option<PathBuf>,
    /// Threads trying candidates (default: all cores).
    #[arg(long, value_name = "N", value_parser = count)]
    pub jobs: Option<usize>,
    /// Stop after this many seconds with the smallest case so far.
    #[arg(long, value_name = "SECONDS", value_parser = seconds)]
    pub time: Option<Duration>,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// With --target: the cases the input was found among.
    #[command(flatten)]
    pub cases: CaseSpec,
}

/// `rafuzz run`'s arguments.
#[derive(clap::Args)]
pub struct RunArgs {
    pub target: String,
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
    #[command(flatten)]
    pub cases: CaseSpec,
    #[command(flatten)]
    pub run: RunSpec,
}

/// `rafuzz coverage`'s arguments.
#[derive(clap::Args)]
pub struct CoverageArgs {
    /// The target every input runs through; its allocator's code counts
    /// (every allocator's for a target that is no allocator's own). Without
    /// it, each input runs through the target its folder is named for, as a
    /// campaign's --save-corpus DIR keeps them (DIR/<target>/), and the code
    /// of every such target counts.
    #[arg(long)]
    pub target: Option<String>,
    /// Inputs: raw fuzz inputs or .ra cases, files or directories (a
    /// campaign's corpus, corpus/real/TARGET).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Also write an HTML report (index.html, a page per file) here.
    #[arg(long, value_name = "DIR")]
    pub html: Option<PathBuf>,
    /// List each file's functions under it.
    #[arg(long)]
    pub functions: bool,
    #[command(flatten)]
    pub cases: CaseSpec,
    #[command(flatten)]
    pub run: RunSpec,
}

/// `rafuzz scaling`'s arguments.
#[derive(clap::Args)]
pub struct ScalingArgs {
    /// An allocator to measure (repeatable; default: every one).
    #[arg(long = "allocator", value_name = "NAME")]
    pub allocators: Vec<String>,
    /// The largest size, in instructions (at least 100).
    #[arg(long, value_name = "N", default_value_t = 10_000, value_parser = min_insts)]
    pub max_insts: usize,
    /// The generated cases (default: the default profile).
    #[command(flatten)]
    pub cases: CaseSpec,
    /// Seed of the byte stream the cases are cut from.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Runs per allocator and case (the median time is kept).
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = count)]
    pub repeat: usize,
    /// Draw time and peak heap against size as an SVG.
    #[arg(long, value_name = "OUT.svg")]
    pub plot: Option<PathBuf>,
    /// Real functions instead of generated ones: `.ra` files or folders
    /// of them (a capture); for each size, the nearest one.
    pub files: Vec<PathBuf>,
}

/// `rafuzz compare`'s arguments.
#[derive(clap::Args)]
pub struct CompareArgs {
    /// A, then B (give it twice).
    #[arg(long = "allocator", value_name = "NAME", num_args = 1, required = true)]
    pub allocators: Vec<String>,
    /// .ra files or folders of them.
    #[arg(conflicts_with = "generate")]
    pub files: Vec<PathBuf>,
    /// Compare on N generated cases instead.
    #[arg(long, value_name = "N", value_parser = count)]
    pub generate: Option<usize>,
    /// The cases of --generate (default: the default profile).
    #[command(flatten)]
    pub cases: CaseSpec,
    /// First seed of --generate (case k comes from seed SEED+k).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Input size of --generate, in bytes.
    #[arg(long, default_value_t = 4096, value_parser = input_size)]
    pub size: usize,
    /// How many of the cases where B loses most to save.
    #[arg(long, value_name = "K", default_value_t = 5)]
    pub worst: usize,
    /// Where to save them.
    #[arg(long, value_name = "DIR", default_value = "compare-worst")]
    pub save: PathBuf,
    /// Reduce each saved case, keeping B at least half its excess
    /// over A.
    #[arg(long)]
    pub reduce: bool,
    /// Longest time spent reducing each.
    #[arg(long, value_name = "SECONDS", default_value = "60", value_parser = seconds)]
    pub reduce_time: Duration,
    /// Exit 1 when the median cost ratio B/A is above R.
    #[arg(long, value_name = "R", value_parser = ratio)]
    pub fail_if_median_above: Option<f64>,
    /// Draw the distribution of the cost ratio as an SVG.
    #[arg(long, value_name = "OUT.svg")]
    pub plot: Option<PathBuf>,
    /// How long an outside program may take over one case.
    #[arg(long, value_name = "MS", default_value_t = crate::spec::DEFAULT_CMD_TIMEOUT_MS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub cmd_timeout: u64,
}

/// The oracles `rafuzz reduce --allocator` judges with.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum OracleArg {
    Checker,
    Interp,
    Both,
}

/// `--timeout` and `--rss-limit-mb`: past them an input is a `timeout` or
/// an `oom` finding (in `fuzz`, in the reducer's workers, in `run`).
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct LimitArgs {
    /// An input running longer than this is a `timeout`.
    #[arg(long, value_name = "SECONDS", default_value = DEFAULT_TIMEOUT, value_parser = seconds)]
    pub timeout: Duration,
    /// A process growing past this resident size is an `oom` (0: no
    /// limit).
    #[arg(long, value_name = "MB", default_value_t = DEFAULT_RSS_LIMIT_MB)]
    pub rss_limit_mb: u64,
}

impl LimitArgs {
    pub fn limits(self) -> Limits {
        Limits {
            timeout: self.timeout,
            rss_limit_mb: self.rss_limit_mb,
        }
    }
}

/// `--timeout`'s default: [`crate::engine::process::DEFAULT_TIMEOUT_SECS`]
/// as clap reads it.
const DEFAULT_TIMEOUT: &str = "10";

/// The longest duration any flag takes: a year, far past any campaign and
/// well inside what a `Duration` holds.
const MAX_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// A number of seconds: finite, above zero and at most a year.
pub fn seconds(s: &str) -> Result<Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= MAX_SECONDS => Ok(Duration::from_secs_f64(x)),
        _ => Err(format!(
            "`{s}` is not a number of seconds above 0 and at most {MAX_SECONDS}"
        )),
    }
}

/// A count that must be at least one (jobs, repeats, cases).
pub fn count(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("`{s}` is not a whole number of at least 1")),
    }
}

/// `scaling --max-insts`: its smallest case has about 100 instructions.
fn min_insts(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 100 => Ok(n),
        _ => Err(format!("`{s}` is not a whole number of at least 100")),
    }
}

/// A cost ratio: finite and not negative.
fn ratio(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!("`{s}` is not a ratio (a finite number, 0 or more)")),
    }
}

/// The largest input `gen` and `compare` cut cases from: 64 MiB, past
/// which a case is too large to be worth printing.
const MAX_INPUT: usize = 64 << 20;

/// An input size in bytes, at most [`MAX_INPUT`].
fn input_size(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n <= MAX_INPUT => Ok(n),
        _ => Err(format!(
            "`{s}` is not a size in bytes from 0 to {MAX_INPUT}"
        )),
    }
}

/// `fuzz --max-len`: from 1 byte to [`MAX_INPUT`].
fn max_len(s: &str) -> Result<usize, String> {
    match input_size(s) {
        Ok(0) => Err(format!("`{s}`: the longest input is at least 1 byte")),
        r => r,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker parses back the specs its campaign was given, as the
    /// engine writes them (`dispatch::worker_launcher`).
    #[test]
    fn a_worker_reads_back_its_campaigns_specs() {
        use clap::Parser;
        let argv = [
            "rafuzz",
            "fuzz",
            "--target",
            "linear_scan_checker",
            "--profile",
            "regalloc2",
            "--without",
            "reuse,limit",
            "--swarm",
            "--no-suppress",
            "--cross-check",
            "--no-slow",
            "--allocator",
            "cmd:./a b",
            "--cmd-timeout",
            "77",
        ];
        let Command::Fuzz(fuzz) = Cli::try_parse_from(argv).unwrap().command else {
            panic!("parsed as fuzz")
        };
        let mut worker = vec![
            "rafuzz".to_string(),
            "worker".into(),
            "--target".into(),
            "x".into(),
        ];
        worker.extend(fuzz.cases.to_args());
        worker.extend(fuzz.run.to_args());
        let Command::Worker(w) = Cli::try_parse_from(&worker).unwrap().command else {
            panic!("parsed as worker")
        };
        assert_eq!((w.cases, w.run), (fuzz.cases, fuzz.run), "{worker:?}");
    }

    #[test]
    fn the_timeout_default_is_the_engines() {
        assert_eq!(
            seconds(DEFAULT_TIMEOUT).unwrap(),
            Duration::from_secs(crate::engine::process::DEFAULT_TIMEOUT_SECS)
        );
    }

    #[test]
    fn durations_and_counts_refuse_what_cannot_be_one() {
        for bad in ["nan", "inf", "-1", "0", "1e400", "", "x", "31536001"] {
            assert!(seconds(bad).is_err(), "{bad}");
        }
        assert_eq!(seconds("0.5").unwrap(), Duration::from_millis(500));
        for bad in ["0", "-1", "1.5", "x"] {
            assert!(count(bad).is_err(), "{bad}");
        }
        assert_eq!(count("3").unwrap(), 3);
        assert!(ratio("nan").is_err() && ratio("-0.1").is_err());
        assert!(input_size("0").is_ok() && max_len("0").is_err());
    }
}
