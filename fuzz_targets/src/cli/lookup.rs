//! Names on the command line looked up in the registry: the target or
//! allocator named, or a usage error saying where the names are listed.

use super::exit::Error;

/// The fuzz target `name`, or a usage error naming where the list is.
pub fn target_named(name: &str) -> Result<crate::targets::Target, Error> {
    crate::targets::target_by_name(name)
        .ok_or_else(|| Error::usage(format!("no target named `{name}` (see `rafuzz list`)")))
}

/// The allocator `name` under `settings`, or a usage error.
pub fn allocator_named(
    name: &str,
    settings: &crate::registry::Settings,
) -> Result<std::sync::Arc<dyn allocator::Allocator>, Error> {
    crate::registry::allocator_by_name(name, settings)
        .ok_or_else(|| Error::usage(format!("no allocator named `{name}` (see `rafuzz list`)")))
}
