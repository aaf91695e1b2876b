//! The allocators of this crate, as the command line and the fuzz targets
//! list them.

use crate::interface::Allocator;

/// Every allocator of this crate, in a fixed order.
pub fn allocators() -> Vec<&'static dyn Allocator> {
    vec![
        &crate::spill_everywhere::SpillEverywhere,
        &crate::linear_scan::LinearScan,
        &crate::backtracking::Backtracking,
        &crate::coloring::Coloring,
    ]
}

/// Variants of the allocators above with one design choice switched off,
/// for measuring what the choice pays (`rafuzz compare`, the benchmarks);
/// found by name, never fuzzed.
pub fn variants() -> Vec<&'static dyn Allocator> {
    vec![&crate::coloring::ColoringWithoutSplitting]
}

/// The allocator of this crate (or the variant) called `name`.
pub fn allocator_by_name(name: &str) -> Option<&'static dyn Allocator> {
    allocators()
        .into_iter()
        .chain(variants())
        .find(|a| a.name() == name)
}
