//! The cases regalloc2 takes and gets right, as generator configs: the
//! profiles `regalloc2` (ion) and `regalloc2_fastalloc`. docs/regalloc2.md
//! names each combination left out, limitation or known bug.

use crate::registry::entry::Profile;
use allocator::analysis::numbering::Numberings;
use ssagen::config::{Config, MachineProfile, RepeatedUses};

/// Everything ion takes and gets right: branch operands only where no
/// successor is a join, a vreg used twice in one instruction only without
/// `stack`, `limit` or a `fixed` use ion holds to the late point among the
/// uses, reuse as regalloc2 understands it, no `fixed` operand naming a
/// register in no list. `differential` uses it for half its inputs.
pub static REGALLOC2: Profile = Profile {
    name: "regalloc2",
    config: regalloc2,
    with_known_bugs,
    differential_share: (1, 1),
};

/// What fastalloc takes and gets right: [`REGALLOC2`]'s cases with no
/// `limit`, defs on branches only `fixed` or `any`, no `stack` defs, any
/// repeated uses, and every block numbered after its dominators.
pub static FASTALLOC: Profile = Profile {
    name: "regalloc2_fastalloc",
    config: fastalloc,
    with_known_bugs,
    differential_share: (0, 1),
};

/// The config of [`REGALLOC2`].
pub fn regalloc2() -> Config {
    let base = Config::default();
    Config {
        branch_operands_into_joins: false,
        repeated_uses: RepeatedUses {
            allowed: true,
            stack: false,
            limit: false,
            late_fixed: false,
        },
        reuse_holds_uses: true,
        machine: MachineProfile {
            fixed_unlisted: false,
            ..base.machine
        },
        ..base
    }
}

/// The config of [`FASTALLOC`].
pub fn fastalloc() -> Config {
    let mut c = regalloc2();
    c.constraints.limit = false;
    c.branch_defs_in_registers = false;
    c.branch_def_args_shared = false;
    c.stack_defs = false;
    c.repeated_uses.stack = true;
    c.numberings = Numberings::DOMINATORS_FIRST;
    c
}

/// `c` plus the combinations regalloc2 is known to get wrong
/// (docs/regalloc2.md, "Known bugs"), where the config's own switches allow
/// their parts: only switches the regalloc2 profiles turn off for a known
/// bug change.
pub fn with_known_bugs(mut c: Config) -> Config {
    c.repeated_uses.limit = true;
    c.repeated_uses.late_fixed = true;
    c.stack_defs = true;
    c.branch_def_args_shared = true;
    if c.numberings == Numberings::DOMINATORS_FIRST {
        c.numberings = Numberings::ALL;
    }
    c
}
