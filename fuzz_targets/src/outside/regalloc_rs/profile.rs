//! The cases the `regalloc` crate takes and gets right, as generator
//! configs: the profiles `regalloc_rs` (its backtracking allocator) and
//! `regalloc_rs_lsra` (its linear scan). docs/regalloc-rs.md names each
//! combination left out, limitation or known bug.

use crate::registry::entry::Profile;
use ssagen::Config;

/// Everything the backtracking allocator can be handed and gets right: no
/// `stack` and no `limit` operands, which its interface has no form for,
/// every operand in a register, as the crate gives them, and no defs on
/// branches (a known bug).
pub static REGALLOC_RS: Profile = Profile {
    name: "regalloc_rs",
    config: regalloc_rs,
    with_known_bugs,
    differential_share: (0, 1),
};

/// What the linear scan takes and gets right: [`REGALLOC_RS`]'s cases with
/// a scratch register in every class, no branch operands into a join, and
/// no late use, early def or `reuse` def in an instruction with clobbers or
/// `fixed` defs (a known bug). `differential` uses it for a quarter of its
/// inputs.
pub static LSRA: Profile = Profile {
    name: "regalloc_rs_lsra",
    config: lsra,
    with_known_bugs,
    differential_share: (3, 2),
};

/// The config of [`REGALLOC_RS`].
pub fn regalloc_rs() -> Config {
    let mut c = Config::default();
    c.constraints.stack = false;
    c.constraints.limit = false;
    c.stack_defs = false;
    c.operands_in_registers = true;
    c.branch_defs = false;
    c.machine.max_slot_size = 8;
    c
}

/// The config of [`LSRA`].
pub fn lsra() -> Config {
    let mut c = regalloc_rs();
    c.machine.scratch_always = true;
    c.branch_operands_into_joins = false;
    c.in_place_with_writes = false;
    c.machine.max_slot_size = 1;
    c
}

/// `c` plus the combinations the crate is known to get wrong
/// (docs/regalloc-rs.md, "Known bugs") that its profiles leave out.
pub fn with_known_bugs(mut c: Config) -> Config {
    c.branch_defs = true;
    c.in_place_with_writes = true;
    c.machine.max_slot_size = c.machine.max_slot_size.max(8);
    c
}
