//! Fuzz target bodies as plain functions over `&[u8]`, their registry, and
//! the pieces of the `rafuzz` command line that are worth testing.
//!
//! A target panics only on a real finding, with a message that names what
//! went wrong; every other input, however odd, returns normally.

pub mod cli;
pub mod targets;

pub use targets::{target_by_name, targets, Target};
