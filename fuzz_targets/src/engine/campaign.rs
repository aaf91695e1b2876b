//! What a campaign is given ([`Options`]), what its jobs share per target
//! ([`Shared`]), and what it hands back ([`Report`], [`Finding`]).

use super::process;
use crate::books::context::Context;
use crate::judging::failure::Failure;
use crate::targets::Target;
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::sync::Mutex;
use std::time::Duration;

/// What a campaign does.
#[derive(Clone, Debug)]
pub struct Options {
    pub targets: Vec<Target>,
    /// Stop after this long (None: no time limit).
    pub time: Option<Duration>,
    /// Stop after this many executions in all (None: no limit).
    pub runs: Option<u64>,
    pub jobs: usize,
    pub seed: u64,
    /// Seed corpora: `<corpus>/<target>/` (missing folders are fine).
    pub corpus: PathBuf,
    pub artifacts: PathBuf,
    pub keep_going: bool,
    pub max_len: usize,
    /// Interval of the progress line.
    pub progress: Duration,
    /// Write every input that reached a new feature to `DIR/<target>/`.
    pub save_corpus: Option<PathBuf>,
    /// Folders of `.ra` case seeds for every target whose input is a case.
    pub seeds: Vec<PathBuf>,
    /// How the outside allocators run (known bugs suppressed, ...).
    pub settings: crate::registry::Settings,
    /// The checker to cross-examine ours with on every allocation
    /// (see [`Context::cross_check`]).
    pub cross_check: Option<crate::books::context::CrossCheck>,
    /// The edge counters that guide the campaign besides the features
    /// (see [`Context::coverage`]).
    pub coverage: Option<Arc<crate::coverage::edges::Edges>>,
    /// Run inputs in worker processes started so (`None`: in the job's
    /// thread, unprotected against hangs and crashes).
    pub isolation: Option<process::Launcher>,
    /// Report slow allocator runs (see [`crate::books::slow`]).
    pub slow: Option<crate::books::slow::SlowRule>,
}

impl Options {
    /// A campaign over `targets` with `rafuzz fuzz`'s defaults: one job,
    /// no limit, seeds from `corpus/`, findings to `artifacts/`, in-process,
    /// no slow rule, the default settings.
    pub fn new(targets: Vec<Target>) -> Options {
        Options {
            targets,
            time: None,
            runs: None,
            jobs: 1,
            seed: 0,
            corpus: "corpus".into(),
            artifacts: "artifacts".into(),
            keep_going: false,
            max_len: 8192,
            progress: Duration::from_secs(10),
            save_corpus: None,
            seeds: Vec::new(),
            settings: Default::default(),
            cross_check: None,
            coverage: None,
            isolation: None,
            slow: None,
        }
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// A finding: where its input was saved and what the target found.
#[derive(Clone, Debug)]
pub struct Finding {
    pub target: &'static str,
    pub path: PathBuf,
    pub failure: Failure,
    /// How long after the campaign's start it was found, and after how
    /// many executions (of every target).
    pub after: Duration,
    pub execs: u64,
}

/// Per-target state shared by the jobs.
pub(super) struct Shared {
    pub target: Target,
    pub corpus: Mutex<Vec<Arc<Vec<u8>>>>,
    pub features: Mutex<HashSet<u32>>,
    /// The crates whose edges count for the target (with coverage on).
    pub scope: crate::coverage::edges::Scope,
    pub execs: AtomicU64,
    pub findings: AtomicU64,
    /// Time spent running this target, in nanoseconds: workers pick the
    /// target with the least, so every target gets an equal share of time.
    pub nanos: AtomicU64,
}

/// The results of a campaign, per target: (name, execs, corpus, features,
/// findings), plus the findings and the elapsed time.
pub struct Report {
    pub rows: Vec<(&'static str, u64, usize, usize, u64)>,
    pub findings: Vec<Finding>,
    pub elapsed: Duration,
    /// The campaign's settings and the counters its targets kept.
    pub context: Context,
}
