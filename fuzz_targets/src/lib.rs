//! Fuzz target bodies as plain functions over `&[u8]`, the registry of
//! allocators they run, and everything around them: judging ([`judging`]),
//! case editing ([`edit`]), a campaign's books ([`books`]), process aids
//! ([`harness`]), the built-in engine ([`engine`]), tools for a person
//! holding a finding ([`tools`]), the allocator's own edge coverage in an
//! instrumented build ([`coverage`]), the outside allocators ([`outside`]), the
//! `rafuzz` command line ([`cli`]), what decides what a campaign runs
//! ([`spec`]) and test aids ([`testing`]).
//!
//! A target reports a [`judging::failure::Failure`] only on a real finding,
//! with a signature and a message that names what went wrong; every other
//! input, however odd, passes. Engine wrappers turn a failure into a panic.

pub mod books;
pub mod cli;
pub mod coverage;
pub mod edit;
pub mod engine;
pub mod harness;
pub mod judging;
pub mod outside;
pub mod registry;
pub mod spec;
pub mod targets;
pub mod testing;
pub mod tools;
