//! Tools for a person holding a finding or a question: the reducer
//! ([`reduce`]), `rafuzz explain` ([`explain`]), `rafuzz compare`
//! ([`compare`]) and `rafuzz scaling` ([`scaling`]).

pub mod compare;
pub mod explain;
#[cfg(feature = "regalloc2")]
pub mod export;
pub mod reduce;
pub mod scaling;
