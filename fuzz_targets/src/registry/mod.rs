//! One entry per allocator the harness knows ([`Entry`]): this
//! repository's, the outside ones (each family defines its entries and
//! profiles beside its adapter), the variants measured but never fuzzed,
//! and the planted faults the harness's own tests must find. The targets,
//! `differential`, the `--profile` names, the design-point tests, the
//! quality tables, the bench and `rafuzz list` all read this list: adding
//! an allocator is its folder and one entry in [`ours`].
//!
//! An outside program registered at run time (`--allocator cmd:...`) is
//! no entry: it joins [`allocators`] once registered.

pub mod cranelift;
pub mod entry;

pub use entry::{Build, Entry, Family, Profile, Settings, DEFAULT};

use allocator::Allocator;
use std::sync::OnceLock;

/// This repository's allocators, in the order every table lists them.
fn ours() -> [Entry; 4] {
    let ours = |name, a, design_points| Entry {
        name,
        family: Family::Ours,
        build: Build::Fixed(a),
        profile: None,
        design_points,
        false_refusals: &[],
    };
    [
        ours(
            "spill_everywhere",
            &allocator::spill_everywhere::SpillEverywhere,
            false,
        ),
        ours("linear_scan", &allocator::linear_scan::LinearScan, true),
        ours("backtracking", &allocator::backtracking::Backtracking, true),
        ours("coloring", &allocator::coloring::Coloring, true),
    ]
}

/// Our allocators with one design choice switched off, to measure what the
/// choice pays.
fn variants() -> [Entry; 1] {
    [Entry {
        name: "coloring_nosplit",
        family: Family::Variant,
        build: Build::Fixed(&allocator::coloring::ColoringWithoutSplitting),
        profile: None,
        design_points: false,
        false_refusals: &[],
    }]
}

/// Every entry: ours, regalloc2's two and the `regalloc` crate's two (with
/// their cargo features), the variants, then the planted faults.
pub fn entries() -> &'static [Entry] {
    static ALL: OnceLock<Vec<Entry>> = OnceLock::new();
    ALL.get_or_init(|| {
        let mut v = Vec::from(ours());
        #[cfg(feature = "regalloc2")]
        v.extend(crate::outside::ra2::entries());
        #[cfg(feature = "regalloc_rs")]
        v.extend(crate::outside::regalloc_rs::entries());
        v.extend(variants());
        v.extend(crate::testing::faults::FAULTY.iter().map(|f| Entry {
            name: f.name,
            family: Family::Fault,
            build: Build::Fixed(f),
            profile: None,
            design_points: false,
            false_refusals: &[],
        }));
        debug_assert!(
            v.iter()
                .enumerate()
                .all(|(i, e)| v[..i].iter().all(|o| o.name != e.name)
                    && e.allocator().name() == e.name),
            "entry names are unique and name their allocators"
        );
        v
    })
}

/// The entry called `name`.
pub fn entry(name: &str) -> Option<&'static Entry> {
    entries().iter().find(|e| e.name == name)
}

/// The allocators campaigns fuzz, under the settings `s`, in registry
/// order, then the outside program when one is registered.
pub fn allocators(s: &Settings) -> Vec<&'static dyn Allocator> {
    allocators_of(entries(), s)
}

/// [`allocators`] of a registry made of `entries`.
pub fn allocators_of(entries: &[Entry], s: &Settings) -> Vec<&'static dyn Allocator> {
    let mut v: Vec<&'static dyn Allocator> = entries
        .iter()
        .filter(|e| e.fuzzed())
        .map(|e| e.build(s))
        .collect();
    if let Some(e) = crate::outside::external::registered() {
        v.push(e);
    }
    v
}

/// The allocator called `name` under the settings `s`: any entry's,
/// variants and faults included; `cmd:PROGRAM ARGS` registers (once) and
/// returns an outside program with the default timeout.
pub fn allocator_by_name(name: &str, s: &Settings) -> Option<&'static dyn Allocator> {
    use crate::outside::external;
    if let Some(cmd) = external::command_of(name) {
        return external::register(cmd, external::DEFAULT_TIMEOUT)
            .ok()
            .map(|e| e as &dyn Allocator);
    }
    match entry(name) {
        Some(e) => Some(e.build(s)),
        None => external::registered()
            .filter(|e| e.name() == name)
            .map(|e| e as &dyn Allocator),
    }
}

/// The `&'static` name of an allocator named in text (a worker's reply,
/// its counters): the registered allocator's, or (a name this process does
/// not know) the text, kept for good.
pub fn allocator_name(name: &str) -> &'static str {
    allocator_by_name(name, &Settings::default())
        .map(|a| a.name())
        .filter(|n| *n == name)
        .unwrap_or_else(|| Box::leak(name.to_string().into_boxed_str()))
}

/// The profiles `--profile` names: [`DEFAULT`], then each entry's, in
/// registry order, then the `cranelift` ones ([`cranelift::ALL`]).
pub fn profiles() -> Vec<&'static Profile> {
    let mut v: Vec<&'static Profile> = vec![&DEFAULT];
    for p in entries().iter().filter_map(|e| e.profile) {
        if v.iter().all(|q| q.name != p.name) {
            v.push(p);
        }
    }
    v.extend(cranelift::ALL);
    v
}

/// The profile called `name`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    profiles().into_iter().find(|p| p.name == name)
}
