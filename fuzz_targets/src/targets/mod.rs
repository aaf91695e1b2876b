//! The registry of fuzz targets. Each target is a plain function over the
//! fuzzer's bytes that returns normally on every input except a real finding,
//! on which it panics with a message naming what went wrong.

pub mod checker_soundness;
mod domtree;
mod moves;
mod ssagen;

/// A fuzz target: a name, a one-line description and its body.
#[derive(Clone, Copy)]
pub struct Target {
    pub name: &'static str,
    pub description: &'static str,
    /// Runs one input; panics on a finding.
    pub run: fn(&[u8]),
    /// Counters the target keeps over a process, as one line, if any.
    pub stats: Option<fn() -> String>,
}

/// Every target, in a fixed order.
pub fn targets() -> Vec<Target> {
    vec![
        Target {
            name: "ssagen",
            description: "the generator's case must validate, be feasible and round-trip through the text format",
            run: ssagen::run,
            stats: None,
        },
        Target {
            name: "domtree",
            description: "dominators must match a naive dataflow and hold along a random path",
            run: domtree::run,
            stats: None,
        },
        Target {
            name: "moves",
            description: "resolved parallel moves must pass the abstract interpreter",
            run: moves::run,
            stats: None,
        },
        Target {
            name: "checker_soundness",
            description: "every allocator passes both oracles; mutants the interpreter catches, the checker must reject",
            run: checker_soundness::run,
            stats: Some(checker_soundness::stats),
        },
    ]
}

/// The target called `name`.
pub fn target_by_name(name: &str) -> Option<Target> {
    targets().into_iter().find(|t| t.name == name)
}
