//! What the generator may produce. The default turns everything on; targets
//! narrow it (a target that studies the CFG alone has no use for operands).

/// Generator settings. Sizes are caps: the actual size is drawn from the
/// input and grows with its length.
#[derive(Clone, Debug)]
pub struct Config {
    /// At most this many blocks (at least 1).
    pub max_blocks: usize,
    /// At most this many non-terminator instructions per block.
    pub max_insts_per_block: usize,
    /// At most this many block parameters per block (0: none).
    pub max_block_params: usize,
    /// Input bytes per unit of CFG size: an input of `n` bytes yields at most
    /// `1 + n / bytes_per_unit` CFG units (one or three blocks each).
    pub bytes_per_unit: usize,
    /// Let loop back edges and forward jumps cross (irreducible loops);
    /// otherwise every loop is entered through its header.
    pub irreducible: bool,
    /// Emit instructions at all (false: only terminators, for CFG targets).
    pub insts: bool,
    pub constraints: ConstraintSet,
    /// Uses read at the late point.
    pub late_uses: bool,
    /// Defs written at the early point.
    pub early_defs: bool,
    pub clobbers: bool,
    /// Call-like instructions: many clobbers, fixed arguments and results.
    pub calls: bool,
    pub nonalloc: bool,
    /// Uses on branches and returns (and, rarely, defs on branches).
    pub branch_operands: bool,
    /// Float and vector values besides int ones.
    pub multiple_classes: bool,
    /// An instruction never uses one vreg twice.
    pub distinct_uses: bool,
    /// Reuse as regalloc2 understands it: the reused input is a `reg` use,
    /// an instruction has at most one `reuse` def, and its other early uses
    /// keep their registers (free, not clobbered) to the late point, since
    /// regalloc2's ion holds them there.
    pub reuse_holds_uses: bool,
    pub machine: MachineProfile,
}

/// Which constraint kinds operands may carry (`any` is always allowed).
#[derive(Clone, Copy, Debug)]
pub struct ConstraintSet {
    pub reg: bool,
    pub stack: bool,
    pub fixed: bool,
    pub reuse: bool,
    pub limit: bool,
}

/// The range of machines drawn from the input.
#[derive(Clone, Copy, Debug)]
pub struct MachineProfile {
    /// Allocatable registers per class, `min_regs..=max_regs` (1..=32).
    pub min_regs: usize,
    pub max_regs: usize,
    /// May a class have a dedicated scratch register.
    pub scratch: bool,
    /// May a class have fixed stack locations.
    pub fixed_stack: bool,
    /// May `fixed` operands name `p62`, a register in no list (an argument
    /// register the machine does not allocate): values are moved into and
    /// out of it around those operands.
    pub fixed_unlisted: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            max_blocks: 300,
            max_insts_per_block: 10,
            max_block_params: 4,
            bytes_per_unit: 64,
            irreducible: true,
            insts: true,
            constraints: ConstraintSet {
                reg: true,
                stack: true,
                fixed: true,
                reuse: true,
                limit: true,
            },
            late_uses: true,
            early_defs: true,
            clobbers: true,
            calls: true,
            nonalloc: true,
            branch_operands: true,
            multiple_classes: true,
            distinct_uses: false,
            reuse_holds_uses: false,
            machine: MachineProfile {
                min_regs: 1,
                max_regs: 32,
                scratch: true,
                fixed_stack: true,
                fixed_unlisted: true,
            },
        }
    }
}

impl Config {
    /// Everything regalloc2 takes (see docs/regalloc2.md for the list of its
    /// limitations): no `limit`, no operands on branches and returns, no
    /// vreg used twice by one instruction, reuse as regalloc2 understands it,
    /// no `fixed` operand naming a register in no list.
    /// The `differential` target draws half its cases with it so that
    /// regalloc2 takes part.
    pub fn regalloc2() -> Config {
        let mut c = Config::default();
        c.constraints.limit = false;
        c.branch_operands = false;
        c.distinct_uses = true;
        c.reuse_holds_uses = true;
        c.machine.fixed_unlisted = false;
        c
    }

    /// [`Config::regalloc2`] without `stack` constraints, which regalloc2's
    /// fastalloc mishandles on defs.
    pub fn regalloc2_fastalloc() -> Config {
        let mut c = Config::regalloc2();
        c.constraints.stack = false;
        c
    }

    /// CFG only: terminators, no values beyond what block parameters need.
    pub fn cfg_only() -> Config {
        Config {
            insts: false,
            ..Config::default()
        }
    }
}
