//! What the generator may produce. The default turns everything on; its
//! consumers narrow it (a target that studies the CFG alone has no use for
//! operands, an outside allocator's profile leaves out what it does not
//! take), each beside its own code: the generator knows none of them.

use allocator::analysis::numbering::{Numbering, Numberings};

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
    /// Late uses, early defs and `reuse` defs (which an allocator may model
    /// as modifying a register in place) in instructions that write
    /// registers of their own (clobbers, `fixed` defs).
    pub in_place_with_writes: bool,
    /// Defs written at the early point.
    pub early_defs: bool,
    pub clobbers: bool,
    /// Call-like instructions: many clobbers, fixed arguments and results.
    pub calls: bool,
    pub nonalloc: bool,
    /// Uses on branches and returns.
    pub branch_operands: bool,
    /// ... also on branches into a join (a block with several
    /// predecessors), where edge moves meet the branch's reads.
    pub branch_operands_into_joins: bool,
    /// Defs on branches with two or more successors (with `branch_operands`).
    pub branch_defs: bool,
    /// With `branch_defs`: a branch def may ask for a register (`reg`,
    /// `limit`); otherwise it is `fixed`, `stack` or `any`.
    pub branch_defs_in_registers: bool,
    /// With `branch_defs`: a branch may pass a value it defines to a
    /// successor as a block argument (Cranelift's `try_call` results).
    pub branch_def_args: bool,
    /// With `branch_def_args`: a value passed so that is not a `fixed` def
    /// may also be read elsewhere (by later operands, or as a second
    /// argument); otherwise it feeds exactly one parameter.
    pub branch_def_args_shared: bool,
    /// `stack` constraints on defs (with `constraints.stack`).
    pub stack_defs: bool,
    /// Float and vector values besides int ones.
    pub multiple_classes: bool,
    /// With `calls`: how many of 16 instructions are calls.
    pub call_sixteenths: u8,
    /// With `early_defs`: of the defs that may be early (one in eight
    /// drawn), how many of 16 are (16: all); drawn in eighths, so an odd
    /// value counts as the next even one.
    pub early_def_sixteenths: u8,
    /// With `branch_defs`: how many of 16 branches with two successors or
    /// more define values.
    pub branch_def_sixteenths: u8,
    /// With `multiple_classes`: in how many of 16 cases values of several
    /// classes appear (16: all; drawn per case).
    pub multi_class_sixteenths: u8,
    /// With `constraints.reuse`: how many of 16 defs drawn may `reuse` an
    /// input (4: one in four); drawn in quarters, so a value counts as the
    /// next multiple of 4.
    pub reuse_sixteenths: u8,
    /// How many of 16 blocks after the entry get parameters (8: half).
    pub block_param_sixteenths: u8,
    /// How many of 16 jumps that would close a loop do (16: all; the
    /// others return).
    pub back_edge_sixteenths: u8,
    /// Uses read one of the latest this many int values fifteen times in
    /// sixteen (0: any available value, uniformly).
    pub recent_uses: usize,
    /// With `recent_uses`: how many times in 16 a use reads one of the
    /// latest values (15; the others read any available value, which
    /// keeps values live far from their defs, and so register pressure).
    pub recent_use_sixteenths: u8,
    /// With `constraints.reuse`: in how many of 16 cases `reuse` defs
    /// appear at all (16: every case; drawn per case). Real code has them
    /// per function: nearly every x86-64 function, two in five aarch64 ones.
    pub reuse_case_sixteenths: u8,
    /// With `repeated_uses.allowed`: in how many of 16 cases an instruction
    /// may read one vreg twice (16: every case; drawn per case).
    pub repeated_use_case_sixteenths: u8,
    /// With `late_uses`: in how many of 16 cases late uses appear (16:
    /// every case; drawn per case).
    pub late_use_case_sixteenths: u8,
    /// With `early_defs`: in how many of 16 cases early defs appear (16:
    /// every case; drawn per case).
    pub early_def_case_sixteenths: u8,
    /// With `branch_operands`: in how many of 16 cases branches and returns
    /// read values (16: every case; drawn per case). A third of a C or
    /// Rust program's functions read none there.
    pub branch_operand_case_sixteenths: u8,
    /// The entry's first instruction defines the function's arguments in
    /// `fixed` int registers, as a calling convention does.
    pub entry_args: bool,
    /// With `multiple_classes`: the relative weights of int, float and
    /// vector values (a class the machine gives no register must weigh 0).
    pub class_weights: [u32; 3],
    /// Which uses of one vreg one instruction may hold together.
    pub repeated_uses: RepeatedUses,
    /// Reuse as regalloc2 understands it: the reused input is a `reg` use,
    /// an instruction has at most one `reuse` def, and its other early uses
    /// keep their registers (free, not clobbered) to the late point, since
    /// regalloc2's ion holds them there.
    pub reuse_holds_uses: bool,
    /// Every operand needs a register, `any` included: an operand is drawn
    /// only where a register is left for it, instead of falling back to
    /// `any` (for allocators that give every operand a register, such as
    /// the `regalloc` crate's).
    pub operands_in_registers: bool,
    pub machine: MachineProfile,
    /// Relative weights of the constraint kinds `any`, `reg`, `stack`,
    /// `fixed` and `limit` on the operands of ordinary instructions
    /// (call-like ones favour `fixed` further).
    pub weights: [u32; 5],
    /// Program styles ([`crate::style`]): each case first draws whose code it
    /// looks like and takes that program's knobs (none: the config as it
    /// is, and no byte drawn).
    pub styles: &'static [Style],
    /// Swarm generation: each case draws from its first bytes which of the
    /// features this config allows it uses, and with which weights (see
    /// [`crate::swarm`]). Off (the default): every case uses the config as
    /// it is.
    pub swarm: bool,
    /// How the number of CFG units (one or three blocks each) is drawn.
    pub sizes: Sizes,
    /// The block numberings a case may have, one drawn per case from the
    /// input's last bytes (see [`crate::numbering`]). With one, nothing is
    /// drawn.
    pub numberings: Numberings,
}

/// How big a case is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sizes {
    /// Uniform up to what the input pays for (`1 + len / bytes_per_unit`
    /// units, at most `max_blocks`): longer inputs, larger cases.
    ByInput,
    /// Skewed as compiled code is: most cases small, a few very large. With
    /// probability 63 in 64 the units are `typical^(x^2.5)` for `x` uniform
    /// in [0, 1] (half of the cases at most about `typical^0.18`), else
    /// log-uniform up to `largest`; capped by `max_blocks`. The input is
    /// extended by a stream seeded by it ([`crate::choices::Choices::extend`]),
    /// so a short input can stand for the largest function. Never fewer
    /// than `smallest` units: a Go program's functions, for one, almost
    /// all branch (a stack check first).
    Skewed {
        typical: usize,
        largest: usize,
        smallest: usize,
    },
}

/// One program's code within a profile: how [`crate::style::draw`] changes
/// the config for the cases drawn in it.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// The name `--style` takes: the program's source language.
    pub name: &'static str,
    /// The program the style is calibrated on.
    pub program: &'static str,
    /// Its weight in the profile's mixture: the program's share of the
    /// captured functions, so the mixture keeps the union's shares.
    pub weight: u32,
    /// The program's knobs, over the profile's.
    pub apply: fn(&mut Config),
}

/// A feature the generator can leave out: its name, as `rafuzz gen --stats`
/// prints it, and how a config drops it.
pub type Feature = (&'static str, fn(&mut Config));

/// Every feature that can be left out (`any`, `loops` and `pressure`
/// cannot be): the names `--without` takes, and the switches swarm
/// generation draws.
pub static FEATURES: [Feature; 21] = [
    ("reg", |c| c.constraints.reg = false),
    ("stack", |c| c.constraints.stack = false),
    ("fixed", |c| c.constraints.fixed = false),
    ("reuse", |c| c.constraints.reuse = false),
    ("limit", |c| c.constraints.limit = false),
    ("nonalloc", |c| c.nonalloc = false),
    ("late-uses", |c| c.late_uses = false),
    ("early-defs", |c| c.early_defs = false),
    // Calls are instructions with many clobbers: they go too.
    ("clobbers", |c| (c.clobbers, c.calls) = (false, false)),
    ("calls", |c| c.calls = false),
    ("block-params", |c| c.max_block_params = 0),
    ("branch-operands", |c| c.branch_operands = false),
    ("branch-def-args", |c| c.branch_def_args = false),
    ("repeated-uses", |c| c.repeated_uses.allowed = false),
    ("unlisted-fixed", |c| c.machine.fixed_unlisted = false),
    ("classes", |c| c.multiple_classes = false),
    ("scratch", |c| c.machine.scratch = false),
    ("fixed-stack", |c| c.machine.fixed_stack = false),
    ("slot-sizes", |c| c.machine.max_slot_size = 1),
    ("irreducible", |c| c.irreducible = false),
    // Every block after its dominators.
    ("free-numbering", |c| {
        c.numberings = c.numberings.without(Numbering::Free)
    }),
];

/// Which constraint kinds operands may carry (`any` is always allowed).
#[derive(Clone, Copy, Debug)]
pub struct ConstraintSet {
    pub reg: bool,
    pub stack: bool,
    pub fixed: bool,
    pub reuse: bool,
    pub limit: bool,
}

/// Whether an instruction may use one vreg more than once, and with which
/// constraints among those uses. A use that breaks the rule is not drawn.
#[derive(Clone, Copy, Debug)]
pub struct RepeatedUses {
    /// At all (false: every use of an instruction reads a different vreg).
    pub allowed: bool,
    /// A `stack` use among them.
    pub stack: bool,
    /// A `limit` use among them.
    pub limit: bool,
    /// A `fixed` use that regalloc2's ion holds to the late point among
    /// them: a late one, or any in an instruction with a `reuse` def.
    pub late_fixed: bool,
}

/// The range of machines drawn from the input.
#[derive(Clone, Copy, Debug)]
pub struct MachineProfile {
    /// Allocatable registers per class, `min_regs..=max_regs` (1..=32).
    pub min_regs: usize,
    pub max_regs: usize,
    /// May a class have a dedicated scratch register.
    pub scratch: bool,
    /// With `scratch`: every class has one (the `regalloc` crate's linear
    /// scan requires it).
    pub scratch_always: bool,
    /// May a class have fixed stack locations.
    pub fixed_stack: bool,
    /// May `fixed` operands name `p62`, a register in no list (an argument
    /// register the machine does not allocate): values are moved into and
    /// out of it around those operands.
    pub fixed_unlisted: bool,
    /// A fixed machine instead of a drawn one (a real target's: the
    /// `cranelift` profiles), with its slot sizes.
    pub preset: Option<fn() -> allocator::MachineEnv>,
    /// The most spill slots a class's values may fill (a power of two; 1:
    /// one slot per value), and with more than one, slots may be named by a
    /// value's last slot, as regalloc2 lets Cranelift ask.
    pub max_slot_size: usize,
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
            in_place_with_writes: true,
            early_defs: true,
            clobbers: true,
            calls: true,
            nonalloc: true,
            branch_operands: true,
            branch_operands_into_joins: true,
            branch_defs: true,
            branch_defs_in_registers: true,
            branch_def_args: true,
            branch_def_args_shared: true,
            stack_defs: true,
            multiple_classes: true,
            call_sixteenths: 1,
            early_def_sixteenths: 16,
            branch_def_sixteenths: 1,
            entry_args: false,
            multi_class_sixteenths: 16,
            reuse_sixteenths: 4,
            block_param_sixteenths: 8,
            back_edge_sixteenths: 16,
            recent_uses: 0,
            recent_use_sixteenths: 15,
            reuse_case_sixteenths: 16,
            repeated_use_case_sixteenths: 16,
            late_use_case_sixteenths: 16,
            early_def_case_sixteenths: 16,
            branch_operand_case_sixteenths: 16,
            styles: &[],
            class_weights: [6, 3, 2],
            repeated_uses: RepeatedUses {
                allowed: true,
                stack: true,
                limit: true,
                late_fixed: true,
            },
            reuse_holds_uses: false,
            operands_in_registers: false,
            machine: MachineProfile {
                min_regs: 1,
                max_regs: 32,
                scratch: true,
                scratch_always: false,
                fixed_stack: true,
                fixed_unlisted: true,
                max_slot_size: 16,
                preset: None,
            },
            weights: [3, 4, 1, 2, 1],
            swarm: false,
            sizes: Sizes::ByInput,
            numberings: Numberings::ALL,
        }
    }
}

impl Config {
    /// CFG only: terminators, no values beyond what block parameters need.
    pub fn cfg_only() -> Config {
        Config {
            insts: false,
            ..Config::default()
        }
    }
}
