//! Allocators written elsewhere, behind our `Allocator` trait: regalloc2's
//! two ([`ra2`], cargo feature `regalloc2`), the `regalloc` crate's two
//! ([`regalloc_rs`], feature `regalloc_rs`), and any program speaking the
//! text protocol ([`external`]).

pub mod external;
#[cfg(feature = "regalloc2")]
pub mod ra2;
#[cfg(feature = "regalloc_rs")]
pub mod regalloc_rs;
