//! Aids for testing the harness itself: allocators with planted bugs
//! ([`faults`]) that the fault benchmark and the tests must find.

pub mod faults;
