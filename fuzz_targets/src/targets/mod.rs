//! The registry of fuzz targets. Each target is a plain function over the
//! fuzzer's bytes that passes on every input except a real finding, for
//! which it returns a [`Failure`] naming what went wrong.

#[cfg(feature = "regalloc2")]
pub mod checker_agreement;
pub mod checker_soundness;
pub mod differential;
mod domtree;
mod moves;
mod ssagen;

use crate::failure::Failure;
use allocator::Case;
use std::sync::Arc;

/// A target's body: runs one input, `Err` on a finding.
pub type Check = Arc<dyn Fn(&[u8]) -> Result<(), Failure> + Send + Sync>;

/// The part of a target's body that runs on a case, for targets whose input
/// is a generated case: what `rafuzz run` does with a `.ra` file and what
/// the reducer asks of each candidate.
pub type CaseCheck = Arc<dyn Fn(&Case) -> Result<(), Failure> + Send + Sync>;

/// A fuzz target: a name, a one-line description and its body.
#[derive(Clone)]
pub struct Target {
    pub name: &'static str,
    pub description: &'static str,
    /// Runs one input; `Err` on a finding (a panic of the target's own code
    /// is a finding too, see [`Target::failure`]).
    pub check: Check,
    /// The same check on a case given directly, when the input is a case.
    pub check_case: Option<CaseCheck>,
    /// Counters the target keeps over a process, as one line, if any.
    pub stats: Option<fn() -> String>,
    /// The case the target builds from an input, when it builds one: saved
    /// beside a finding, and where reduction starts.
    pub case_of: CaseOf,
}

impl Target {
    /// What `data` finds: the target's failure, or a panic of its code.
    pub fn failure(&self, data: &[u8]) -> Option<Failure> {
        match crate::panics::catch(|| (self.check)(data)) {
            Ok(r) => r.err(),
            Err(msg) => Some(Failure::panic(&msg)),
        }
    }

    /// What `case` finds, for a target that runs on cases (`None` for the
    /// others). The case must be valid and feasible.
    pub fn case_failure(&self, case: &Case) -> Option<Option<Failure>> {
        let check = self.check_case.as_ref()?;
        Some(match crate::panics::catch(|| check(case)) {
            Ok(r) => r.err(),
            Err(msg) => Some(Failure::panic(&msg)),
        })
    }

    /// Runs one input the way an engine wrapper does: panics on a finding,
    /// with `TARGET: SIGNATURE: message` as the panic message.
    pub fn run(&self, data: &[u8]) {
        if let Err(f) = (self.check)(data) {
            panic!("{}: {f}", self.name);
        }
    }
}

/// How a target turns its input into a case, when it has one.
pub type CaseOf = fn(&[u8]) -> Option<Case>;

/// The failure `check` finds in the case the default generator makes from
/// `data`, with the case appended to the message.
pub fn check_generated(
    data: &[u8],
    check: impl FnOnce(&Case) -> Result<(), Failure>,
) -> Result<(), Failure> {
    check_generated_with(data, &::ssagen::Config::default(), check)
}

/// [`check_generated`] with another generator config.
pub fn check_generated_with(
    data: &[u8],
    config: &::ssagen::Config,
    check: impl FnOnce(&Case) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let case = ::ssagen::generate_from_bytes(data, config);
    ssagen::note_case(&case);
    check(&case).map_err(|mut f| {
        f.message.push('\n');
        f.message.push_str(&allocator::ir::text::print(&case));
        f
    })
}

/// The case the default generator makes from `data`.
pub fn generated_case(data: &[u8]) -> Option<Case> {
    Some(::ssagen::generate_from_bytes(
        data,
        &::ssagen::Config::default(),
    ))
}

/// The case [`::ssagen::Config::regalloc2`] makes from `data`: what the
/// regalloc2 allocators' checker targets run.
pub fn regalloc2_case(data: &[u8]) -> Option<Case> {
    Some(::ssagen::generate_from_bytes(
        data,
        &::ssagen::Config::regalloc2(),
    ))
}

/// The generator config `differential` uses for `data`, and the bytes left
/// for it: with regalloc2 among the allocators, an input whose first byte
/// is odd gets [`::ssagen::Config::regalloc2`] (so that regalloc2 takes
/// part), every other input the default config, over all its bytes.
pub fn differential_config(data: &[u8]) -> (::ssagen::Config, &[u8]) {
    match data.first() {
        Some(b) if cfg!(feature = "regalloc2") && b & 1 == 1 => {
            (::ssagen::Config::regalloc2(), &data[1..])
        }
        _ => (::ssagen::Config::default(), data),
    }
}

fn differential_case(data: &[u8]) -> Option<Case> {
    let (config, rest) = differential_config(data);
    Some(::ssagen::generate_from_bytes(rest, &config))
}

/// The case [`::ssagen::Config::regalloc2_fastalloc`] makes from `data`.
pub fn regalloc2_fastalloc_case(data: &[u8]) -> Option<Case> {
    Some(::ssagen::generate_from_bytes(
        data,
        &::ssagen::Config::regalloc2_fastalloc(),
    ))
}

fn cfg_case(data: &[u8]) -> Option<Case> {
    Some(::ssagen::generate_from_bytes(
        data,
        &::ssagen::Config::cfg_only(),
    ))
}

fn no_case(_: &[u8]) -> Option<Case> {
    None
}

/// Every target, in a fixed order.
pub fn targets() -> Vec<Target> {
    [
        Target {
            name: "ssagen",
            description: "the generator's case must validate, be feasible and round-trip through the text format",
            check: Arc::new(ssagen::check),
            check_case: Some(Arc::new(ssagen::check_case)),
            stats: None,
            case_of: generated_case,
        },
        Target {
            name: "domtree",
            description: "dominators must match a naive dataflow and hold along a random path",
            check: Arc::new(domtree::check),
            check_case: Some(Arc::new(|c: &Case| domtree::check_tree(c).map(|_| ()))),
            stats: None,
            case_of: cfg_case,
        },
        Target {
            name: "moves",
            description: "resolved parallel moves must pass the abstract interpreter",
            check: Arc::new(moves::check),
            check_case: None,
            stats: None,
            case_of: no_case,
        },
        Target {
            name: "checker_soundness",
            description: "every allocator passes both oracles; mutants the interpreter catches, the checker must reject",
            check: Arc::new(checker_soundness::check),
            check_case: Some(Arc::new(checker_soundness::check_case)),
            stats: Some(checker_soundness::stats),
            case_of: generated_case,
        },
        Target {
            name: "differential",
            description: "every allocator on one case: both oracles, the same values at every use, quality compared",
            check: Arc::new(|d: &[u8]| {
                let (config, rest) = differential_config(d);
                check_generated_with(rest, &config, differential::check_case)
            }),
            check_case: Some(Arc::new(differential::check_case)),
            stats: Some(differential::stats),
            case_of: differential_case,
        },
    ]
    .into_iter()
    .chain(agreement())
    .chain(crate::allocators().into_iter().map(differential::checker_target))
    .collect()
}

/// `checker_agreement`, when regalloc2's checker is built in.
fn agreement() -> Option<Target> {
    #[cfg(feature = "regalloc2")]
    return Some(Target {
        name: "checker_agreement",
        description: "our checker and regalloc2's give the same verdict on every allocator's output and on mutants of it",
        check: Arc::new(checker_agreement::check),
        check_case: Some(Arc::new(checker_agreement::check_case)),
        stats: Some(checker_agreement::stats),
        case_of: differential_case,
    });
    #[cfg(not(feature = "regalloc2"))]
    None
}

/// The target called `name`, including the test-only ones: `planted` and
/// the `fault_*` targets of [`crate::faults`].
pub fn target_by_name(name: &str) -> Option<Target> {
    targets()
        .into_iter()
        .chain([planted()])
        .chain(crate::faults::targets())
        .find(|t| t.name == name)
}

/// The input that makes `planted` fail.
pub const PLANTED_MAGIC: &[u8] = b"RAFZ!";

/// A test-only target, never in [`targets`]: it fails on inputs that start
/// with [`PLANTED_MAGIC`], and notes how many leading bytes match so that a
/// feature-guided engine can climb to it. It proves that every engine
/// wrapper and script really reports a crash.
pub fn planted() -> Target {
    Target {
        name: "planted",
        description: "test only: fails on inputs starting with RAFZ!",
        check: Arc::new(|data: &[u8]| {
            let n = data
                .iter()
                .zip(PLANTED_MAGIC)
                .take_while(|(a, b)| a == b)
                .count();
            crate::features::note("planted_prefix", n as u64);
            // One branch per byte, so that coverage-guided engines (which
            // see edges, not our features) climb the magic byte by byte.
            if data.first() == Some(&b'R')
                && data.get(1) == Some(&b'A')
                && data.get(2) == Some(&b'F')
                && data.get(3) == Some(&b'Z')
                && data.get(4) == Some(&b'!')
            {
                panic!("planted: the magic input was found");
            }
            Ok(())
        }),
        check_case: None,
        stats: None,
        case_of: no_case,
    }
}
