//! What every process of the harness needs besides judging and editing:
//! inputs read from disk and seeded bytes ([`inputs`]), heap peaks
//! ([`heap`]), and the case spec resolved into a profile's config
//! ([`narrowing`]). The contract: nothing here knows a target or an
//! allocator by name.

pub mod heap;
pub mod inputs;
pub mod narrowing;
