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

pub mod entry;

pub use entry::{Build, Entry, Family, Profile, Settings, DEFAULT};

use allocator::Allocator;
use std::sync::{Arc, OnceLock};

/// This repository's allocators, in the order every table lists them.
fn ours() -> [Entry; 4] {
    let ours = |(name, target), a, design_points| Entry {
        name,
        target,
        code: &["allocator"],
        family: Family::Ours,
        build: Build::Fixed(a),
        profile: None,
        design_points,
        false_refusals: &[],
    };
    [
        ours(
            ("spill_everywhere", "spill_everywhere_checker"),
            &allocator::spill_everywhere::SpillEverywhere,
            false,
        ),
        ours(
            ("linear_scan", "linear_scan_checker"),
            &allocator::linear_scan::LinearScan,
            true,
        ),
        ours(
            ("backtracking", "backtracking_checker"),
            &allocator::backtracking::Backtracking,
            true,
        ),
        ours(
            ("coloring", "coloring_checker"),
            &allocator::coloring::Coloring,
            true,
        ),
    ]
}

/// Our allocators with one design choice switched off, to measure what the
/// choice pays.
fn variants() -> [Entry; 1] {
    [Entry {
        name: "coloring_nosplit",
        target: "",
        code: &["allocator"],
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
            target: f.target_name(),
            code: &["allocator", crate::testing::faults::CODE],
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
                    && e.allocator().name() == e.name
                    && (!e.fuzzed() || e.target == format!("{}_checker", e.name))),
            "entry names are unique, name their allocators and their targets"
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
pub fn allocators(s: &Settings) -> Vec<Arc<dyn Allocator>> {
    allocators_of(entries(), s)
}

/// [`allocators`] of a registry made of `entries`.
pub fn allocators_of(entries: &[Entry], s: &Settings) -> Vec<Arc<dyn Allocator>> {
    let mut v: Vec<Arc<dyn Allocator>> = entries
        .iter()
        .filter(|e| e.fuzzed())
        .map(|e| e.build(s))
        .collect();
    if let Some(e) = crate::outside::external::registered() {
        v.push(Arc::new(e));
    }
    v
}

/// The allocator called `name` under the settings `s`: any entry's,
/// variants and faults included; `cmd:PROGRAM ARGS` registers (once) and
/// returns an outside program with the default timeout.
pub fn allocator_by_name(name: &str, s: &Settings) -> Option<Arc<dyn Allocator>> {
    use crate::outside::external;
    if let Some(cmd) = external::command_of(name) {
        return external::register(cmd, external::DEFAULT_TIMEOUT)
            .ok()
            .map(|e| Arc::new(e) as Arc<dyn Allocator>);
    }
    match entry(name) {
        Some(e) => Some(e.build(s)),
        None => external::registered()
            .filter(|e| e.name() == name)
            .map(|e| Arc::new(e) as Arc<dyn Allocator>),
    }
}

/// The `&'static` name of an allocator this process knows, named in text
/// (a worker's reply): an entry's, or the registered outside program's.
pub fn known_name(name: &str) -> Option<&'static str> {
    entry(name).map(|e| e.name).or_else(|| {
        crate::outside::external::registered()
            .map(|e| e.name())
            .filter(|n| *n == name)
    })
}

/// The code of the allocators that take part in the shared targets
/// (`differential` and the others): every entry's but the planted faults',
/// in registry order, once each.
pub fn shared_code() -> Vec<&'static str> {
    code_of(entries().iter().filter(|e| e.family != Family::Fault))
}

/// The code of every entry, planted faults' included: what an instrumented
/// campaign keeps the counters of.
pub fn all_code() -> Vec<&'static str> {
    code_of(entries().iter())
}

fn code_of<'a>(entries: impl Iterator<Item = &'a Entry>) -> Vec<&'static str> {
    once_each(entries.flat_map(|e| e.code.iter().copied()))
}

/// The items of `all` in order, each once.
fn once_each(all: impl Iterator<Item = &'static str>) -> Vec<&'static str> {
    let mut v: Vec<&'static str> = Vec::new();
    for c in all {
        if !v.contains(&c) {
            v.push(c);
        }
    }
    v
}

/// The code a target tests: its allocator's for an allocator's own target
/// (`<name>_checker`, `fault_<fault>`), [`shared_code`] for the others.
pub fn code_under_test(target: &str) -> Vec<&'static str> {
    match entries().iter().find(|e| e.target == target) {
        Some(e) => e.code.to_vec(),
        None => shared_code(),
    }
}

/// The code that several targets test together, each part once.
pub fn code_under_test_of(targets: &[&str]) -> Vec<&'static str> {
    once_each(targets.iter().flat_map(|t| code_under_test(t)))
}

/// The checker `--cross-check` runs beside ours: regalloc2's, when it is
/// built in.
pub fn cross_check() -> Option<crate::books::context::CrossCheck> {
    #[cfg(feature = "regalloc2")]
    return Some(crate::outside::ra2::cross_check::cross_check);
    #[cfg(not(feature = "regalloc2"))]
    None
}

/// The profiles `--profile` names: [`DEFAULT`], then each entry's, in
/// registry order, then the `cranelift` ones ([`crate::outside::cranelift::ALL`]).
pub fn profiles() -> Vec<&'static Profile> {
    let mut v: Vec<&'static Profile> = vec![&DEFAULT];
    for p in entries().iter().filter_map(|e| e.profile) {
        if v.iter().all(|q| q.name != p.name) {
            v.push(p);
        }
    }
    v.extend(crate::outside::cranelift::ALL);
    v
}

/// The profile called `name`.
pub fn profile(name: &str) -> Option<&'static Profile> {
    profiles().into_iter().find(|p| p.name == name)
}
