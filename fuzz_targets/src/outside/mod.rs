//! Allocators written elsewhere, behind our `Allocator` trait: regalloc2's
//! two ([`ra2`], cargo feature `regalloc2`), with the cases Cranelift hands
//! it ([`cranelift`]), the `regalloc` crate's two ([`regalloc_rs`],
//! feature `regalloc_rs`), and any program speaking the text protocol
//! ([`external`]). Each family defines its registry entries and profiles
//! here; the registry above lists them.

pub mod cranelift;
pub mod external;
#[cfg(feature = "regalloc2")]
pub mod ra2;
#[cfg(feature = "regalloc_rs")]
pub mod regalloc_rs;
