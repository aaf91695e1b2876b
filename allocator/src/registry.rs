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

#[cfg(test)]
mod tests {
    use super::*;

    /// The command line and the reproducers name allocators: each name is
    /// found, and finds that allocator.
    #[test]
    fn every_allocator_and_variant_is_found_by_its_own_name() {
        let names: Vec<&str> = allocators()
            .into_iter()
            .chain(variants())
            .map(|a| a.name())
            .collect();
        for name in &names {
            assert_eq!(allocator_by_name(name).map(|a| a.name()), Some(*name));
        }
        assert_eq!(
            names,
            [
                "spill_everywhere",
                "linear_scan",
                "backtracking",
                "coloring",
                "coloring_nosplit"
            ]
        );
    }
}
