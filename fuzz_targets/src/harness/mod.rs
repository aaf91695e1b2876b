//! The harness core every target and tool shares: a campaign's settings and
//! counters ([`context`]), how an allocation is judged ([`judge`]) and what a
//! finding is ([`failure`]), the refused cases ([`refusals`]), quality and
//! timing books ([`quality`], [`slow`]), what the user narrows cases to
//! ([`profile`]), and small process-level aids (features noted for the
//! engine, panics caught as findings, inputs read from disk, heap peaks).

pub mod context;
pub mod draft;
pub mod failure;
pub mod features;
pub mod heap;
pub mod inputs;
pub mod judge;
pub mod mutate;
pub mod narrowing;
pub mod oracle_budget;
pub mod panics;
pub mod quality;
pub mod refusals;
pub mod slow;
