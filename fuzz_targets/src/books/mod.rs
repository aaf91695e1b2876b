//! A campaign's books: its settings and counters ([`context`]), the quality
//! of the allocations it saw ([`quality`]), the time each allocator takes by
//! case size ([`slow`]) and the features an input reached ([`features`]).
//! The contract: books only record; what they record never changes a
//! verdict, except the slow-run rule, which turns a recorded time into a
//! `slow` finding.

pub mod context;
pub mod features;
pub mod quality;
pub mod slow;
