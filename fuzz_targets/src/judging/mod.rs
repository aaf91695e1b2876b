//! Judging: how an allocation is run and judged ([`judge`]), what a finding
//! is and how it is named ([`failure`]), the refusals that are not findings
//! ([`refusals`]), panics caught as findings ([`panics`]) and the bound on
//! the oracles' work ([`oracle_budget`]). The contract: a target fails only
//! on a real finding, with a signature the engine deduplicates by and a
//! message naming the instruction, operand, vreg and allocation.

pub mod failure;
pub mod judge;
pub mod oracle_budget;
pub mod panics;
pub mod refusals;
