//! The fuzz targets. Each is a plain function over the fuzzer's bytes that
//! passes on every input except a real finding, for which it returns a
//! [`Failure`](crate::judging::failure::Failure) naming what went wrong.
//! Besides the fixed ones, every fuzzed registry entry gets a
//! `<name>_checker` target ([`differential::checker_target`]) and takes
//! part in `differential`.

#[cfg(feature = "regalloc2")]
pub mod checker_agreement;
pub mod checker_soundness;
pub mod differential;
mod domtree;
mod moves;
pub mod planted;
mod ssagen;
pub mod target;
pub mod wrapped;

pub use planted::{planted, PLANTED_MAGIC};
pub use target::{case_body, with_case, Body, Decode, Input, Target};

use crate::harness::narrowing::Narrowing;
use crate::registry::{self, Entry, DEFAULT};
use std::sync::Arc;

/// Every target, in a fixed order: the fixed ones, then one
/// `<name>_checker` per fuzzed registry entry.
pub fn targets() -> Vec<Target> {
    targets_of(registry::entries())
}

/// The targets a registry made of `entries` has: `differential` runs every
/// fuzzed one of them, and each gets its `<name>_checker` target.
pub fn targets_of(entries: &'static [Entry]) -> Vec<Target> {
    [
        Target {
            name: "ssagen",
            description: "the generator's case must validate, be feasible and round-trip through the text format",
            decode: Decode::Generate(&DEFAULT, Narrowing::default()),
            body: case_body(false, |c, _| ssagen::check_case(c)),
            stats: None,
        },
        Target {
            name: "domtree",
            description: "dominators must match a naive dataflow and hold along a random path",
            decode: Decode::Generate(&domtree::CFG_ONLY, Narrowing::default()),
            body: Arc::new(domtree::check),
            stats: None,
        },
        Target {
            name: "moves",
            description: "resolved parallel moves must pass the abstract interpreter",
            decode: Decode::Bytes,
            body: Arc::new(moves::check),
            stats: None,
        },
        Target {
            name: "checker_soundness",
            description: "every allocator passes both oracles; mutants the interpreter catches, the checker must reject",
            decode: Decode::Generate(&DEFAULT, Narrowing::default()),
            body: Arc::new(checker_soundness::check),
            stats: Some(|ctx| ctx.mutants.report()),
        },
        Target {
            name: "differential",
            description: "every allocator on one case: both oracles, the same values at every use, quality compared",
            decode: Decode::Differential(Narrowing::default()),
            body: case_body(true, move |case, ctx| {
                differential::check_case(&registry::allocators_of(entries, &ctx.settings), case, ctx)
            }),
            stats: Some(|ctx| ctx.quality.report()),
        },
    ]
    .into_iter()
    .chain(agreement())
    .chain(
        entries
            .iter()
            .filter(|e| e.fuzzed())
            .map(differential::checker_target),
    )
    .chain(
        crate::outside::external::registered()
            .map(|e| differential::own_checker_target(e, crate::outside::external::TARGET)),
    )
    .collect()
}

/// `checker_agreement`, when regalloc2's checker is built in.
fn agreement() -> Option<Target> {
    #[cfg(feature = "regalloc2")]
    return Some(Target {
        name: "checker_agreement",
        description: "our checker and regalloc2's give the same verdict on every allocator's output and on mutants of it",
        decode: Decode::Differential(Narrowing::default()),
        body: Arc::new(checker_agreement::check),
        stats: Some(|ctx| ctx.verdicts.report()),
    });
    #[cfg(not(feature = "regalloc2"))]
    None
}

/// The target called `name`, including the test-only ones: `planted` and
/// the `fault_*` targets, one per planted-fault entry of the registry.
pub fn target_by_name(name: &str) -> Option<Target> {
    targets()
        .into_iter()
        .chain([planted()])
        .chain(crate::testing::faults::FAULTY.iter().map(|a| Target {
            name: a.target_name(),
            description: "test only: linear_scan with a planted bug, both oracles",
            decode: Decode::Generate(&DEFAULT, Narrowing::default()),
            body: case_body(true, move |case, ctx| {
                differential::allocator_check(a, case, ctx)
            }),
            stats: None,
        }))
        .find(|t| t.name == name)
}
