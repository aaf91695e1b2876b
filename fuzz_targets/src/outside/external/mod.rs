//! Any program as an allocator under test (`--allocator cmd:'PROGRAM
//! ARGS'`): the harness starts the program once (once per worker thread)
//! and keeps it running, writes each case to its stdin in the text format
//! (machine and function, ending with the function's `end` line), and reads
//! the reply from its stdout: an `allocation` section through its `end`
//! line, or a single line `unsupported: REASON` (counted apart, never a
//! finding) or `error: REASON` (the program says the case has no allocation: a
//! `refused-feasible` finding when one of our allocators finds one).
//!
//! A crash, a reply that does not come within the timeout, and a reply that
//! does not parse as an allocation of the case are failures of the
//! allocator ([`AllocError::Failed`]), found, saved and reduced like any
//! other; the program is restarted for the next case. `rafuzz serve` is an
//! example of such a program: this repository's allocators behind the
//! protocol.
//!
//! The allocator is registered once per process under the name `cmd`; it
//! then joins `differential` and gets the `cmd_checker` target.

mod client;
pub mod serve;

pub use client::{command_of, register, registered, External, DEFAULT_TIMEOUT, NAME, TARGET};
