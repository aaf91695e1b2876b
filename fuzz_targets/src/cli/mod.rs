//! The `rafuzz` command line: its arguments ([`args`]), the dispatch to
//! the subcommand ([`dispatch`]), and the subcommands as functions that
//! write to a sink and return the exit status, so tests can run them
//! without a process: on cases ([`cases`]), running targets
//! ([`campaign`]), and tools for a finding ([`tools`]).

mod args;
pub mod campaign;
pub mod cases;
mod dispatch;
pub mod exit;
mod lookup;
pub mod tools;

pub use campaign::{fuzz, run, run_one};
pub use cases::{alloc, check, gen, gen_stats, list, validate};
pub use dispatch::main;
pub use exit::{Exit, Streams};
pub use tools::{compare, explain, reduce, register_external, scaling};
