//! Analyses of a function's control flow and values that the validator and
//! the allocators share: CFG orders and edges, dominators, loops and their
//! depths, a loop-contiguous block order, liveness, the values read, and the bit sets they
//! are computed over and kept in. Each takes a [`crate::Function`] and returns a value;
//! none keeps state between calls.

pub mod bitset;
pub mod block_order;
pub mod block_sets;
pub mod cfg;
pub mod domtree;
pub mod liveness;
pub mod loops;
pub mod numbering;
pub mod read;
