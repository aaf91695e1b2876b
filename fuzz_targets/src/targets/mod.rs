//! The registry of fuzz targets. Each target is a plain function over the
//! fuzzer's bytes that returns normally on every input except a real finding,
//! on which it panics with a message naming what went wrong.

pub mod checker_soundness;
pub mod differential;
mod domtree;
mod moves;
mod ssagen;

/// A target's body: runs one input, panics on a finding.
pub type Body = std::sync::Arc<dyn Fn(&[u8]) + Send + Sync>;

/// A fuzz target: a name, a one-line description and its body.
#[derive(Clone)]
pub struct Target {
    pub name: &'static str,
    pub description: &'static str,
    /// Runs one input; panics on a finding.
    pub run: Body,
    /// Counters the target keeps over a process, as one line, if any.
    pub stats: Option<fn() -> String>,
    /// The case (text format) the target builds from an input, when it
    /// builds one: saved beside a finding.
    pub case_of: fn(&[u8]) -> Option<String>,
}

/// The case the default generator makes from `data`.
pub fn generated_case(data: &[u8]) -> Option<String> {
    Some(allocator::text::print(&::ssagen::generate_from_bytes(
        data,
        &::ssagen::Config::default(),
    )))
}

fn cfg_case(data: &[u8]) -> Option<String> {
    Some(allocator::text::print(&::ssagen::generate_from_bytes(
        data,
        &::ssagen::Config::cfg_only(),
    )))
}

fn no_case(_: &[u8]) -> Option<String> {
    None
}

/// Every target, in a fixed order.
pub fn targets() -> Vec<Target> {
    [
        Target {
            name: "ssagen",
            description: "the generator's case must validate, be feasible and round-trip through the text format",
            run: std::sync::Arc::new(ssagen::run),
            stats: None,
            case_of: generated_case,
        },
        Target {
            name: "domtree",
            description: "dominators must match a naive dataflow and hold along a random path",
            run: std::sync::Arc::new(domtree::run),
            stats: None,
            case_of: cfg_case,
        },
        Target {
            name: "moves",
            description: "resolved parallel moves must pass the abstract interpreter",
            run: std::sync::Arc::new(moves::run),
            stats: None,
            case_of: no_case,
        },
        Target {
            name: "checker_soundness",
            description: "every allocator passes both oracles; mutants the interpreter catches, the checker must reject",
            run: std::sync::Arc::new(checker_soundness::run),
            stats: Some(checker_soundness::stats),
            case_of: generated_case,
        },
        Target {
            name: "differential",
            description: "every allocator on one case: both oracles, the same values at every use, quality compared",
            run: std::sync::Arc::new(differential::run),
            stats: Some(differential::stats),
            case_of: generated_case,
        },
    ]
    .into_iter()
    .chain(crate::allocators().into_iter().map(differential::checker_target))
    .collect()
}

/// The target called `name`, including the test-only `planted` target.
pub fn target_by_name(name: &str) -> Option<Target> {
    targets()
        .into_iter()
        .chain([planted()])
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
        run: std::sync::Arc::new(|data: &[u8]| {
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
        }),
        stats: None,
        case_of: no_case,
    }
}
