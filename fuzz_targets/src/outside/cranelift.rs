//! The `cranelift` profiles: generated cases shaped like the allocation
//! problems Cranelift 0.135.8 poses on real programs (docs/real-code.md),
//! one per target, on that target's own machine. Fuzzing an allocator under
//! one fuzzes exactly Cranelift's input domain: `reg`, `fixed` and `reuse`
//! operands only (no `any`, `stack`, `limit`, `nonalloc` or unlisted
//! register; late uses on riscv64 only), calls in nearly every function,
//! `try_call`-like branches passing their own defs on, the target's slot
//! sizes, and sizes skewed as compiled functions are (median in the
//! twenties, a tail to tens of thousands of instructions). `rafuzz gen --stats 2000 --profile
//! cranelift corpus/real/x86_64` shows the calibration beside real code.

use crate::registry::entry::Profile;
use allocator::analysis::numbering::{Numbering, Numberings};
use allocator::MachineEnv;
use ssagen::config::{Sizes, Style};
use ssagen::Config;

/// Cranelift's domain is regalloc2's, so `--no-suppress` widens it to
/// regalloc2's known bugs; without the `regalloc2` feature there is no
/// suppression to lift.
#[cfg(feature = "regalloc2")]
use crate::outside::ra2::profile::with_known_bugs;

#[cfg(not(feature = "regalloc2"))]
fn with_known_bugs(c: Config) -> Config {
    c
}

/// The profile of one target: regalloc2's known bugs for `--no-suppress`,
/// no share of `differential`'s inputs.
const fn target(name: &'static str, config: fn() -> Config) -> Profile {
    Profile {
        name,
        config,
        with_known_bugs,
        differential_share: (0, 1),
    }
}

/// x86-64: Cranelift's machine (no vector class; floats fill two slots).
pub static X86_64: Profile = target("cranelift", x86_64);

/// aarch64.
pub static AARCH64: Profile = target("cranelift-aarch64", aarch64);

/// riscv64 (with the vector extension: vectors fill sixteen slots).
pub static RISCV64: Profile = target("cranelift-riscv64", riscv64);

/// The three, x86-64 first.
pub static ALL: [&Profile; 3] = [&X86_64, &AARCH64, &RISCV64];

/// What the three targets share.
fn common(preset: fn() -> MachineEnv, class_weights: [u32; 3], reuse: bool) -> Config {
    let mut c = Config::default();
    c.constraints.stack = false;
    c.constraints.limit = false;
    c.constraints.reuse = reuse;
    // any, reg, stack, fixed, limit (calls weigh `fixed` four times more).
    c.weights = [0, 30, 0, 2, 0];
    c.operands_in_registers = true;
    c.early_def_sixteenths = 2;
    c.branch_def_sixteenths = 4;
    c.entry_args = true;
    c.call_sixteenths = 4;
    c.multi_class_sixteenths = 2;
    c.block_param_sixteenths = 12;
    c.back_edge_sixteenths = 4;
    // Uses and branch arguments read one of the latest six values: real
    // temporaries die young. Reading any older value one time in sixteen
    // (the default) put 28% of x86-64 cases over a class's registers,
    // against 8.4% of real functions; never, 11%.
    c.recent_uses = 6;
    c.recent_use_sixteenths = 16;
    c.stack_defs = false;
    c.late_uses = false;
    // What regalloc2 takes: ion holds a `reuse` instruction's other uses
    // to the late point, and a vreg read twice in two late fixed
    // registers is its known bug (which Cranelift reaches: --no-suppress).
    c.reuse_holds_uses = true;
    c.repeated_uses.late_fixed = false;
    c.nonalloc = false;
    c.irreducible = false;
    c.branch_operands_into_joins = false;
    c.branch_defs_in_registers = false;
    c.branch_def_args_shared = false;
    c.class_weights = class_weights;
    c.max_block_params = 2;
    c.max_insts_per_block = 8;
    c.max_blocks = 14_000;
    c.sizes = Sizes::Skewed {
        typical: 120,
        largest: 7_000,
        smallest: 1,
    };
    c.machine.preset = Some(preset);
    c.machine.scratch = false;
    c.machine.fixed_stack = false;
    c.machine.fixed_unlisted = false;
    c.machine.max_slot_size = 1;
    // Cranelift hands regalloc2 its lowered block order: every block after
    // its dominators and after a predecessor, as in a reverse postorder
    // (docs/regalloc2.md, "Block numbering").
    c.numberings = Numberings::only(Numbering::ReversePostorder);
    c
}

/// What one program's code sets in its target's profile: the shares in
/// which its functions differ from the other programs' (docs/generator.md,
/// "Program styles"). Each field sets the [`Config`] knob of its name
/// (`call` is `call_sixteenths`, `fixed` is `fixed`'s operand weight).
#[derive(Clone, Copy, Debug)]
struct Knobs {
    /// `Sizes::Skewed`'s typical size: the median function's size.
    typical: usize,
    /// `Sizes::Skewed`'s largest: the tail, up to the program's largest
    /// function.
    largest: usize,
    /// Fewest CFG units (one or three blocks each).
    smallest: usize,
    /// Of 32 operand weights, `fixed`'s on ordinary instructions.
    fixed: u32,
    max_insts_per_block: usize,
    call: u8,
    early_def: u8,
    early_def_case: u8,
    branch_def: u8,
    block_param: u8,
    branch_operand_case: u8,
    back_edge: u8,
    multi_class: u8,
    reuse: u8,
    reuse_case: u8,
    repeated_use_case: u8,
    late_use_case: u8,
    recent_uses: usize,
}

impl Knobs {
    fn apply(&self, c: &mut Config) {
        c.sizes = Sizes::Skewed {
            typical: self.typical,
            largest: self.largest,
            smallest: self.smallest,
        };
        c.weights[3] = self.fixed;
        c.max_insts_per_block = self.max_insts_per_block;
        c.call_sixteenths = self.call;
        c.early_def_sixteenths = self.early_def;
        c.early_def_case_sixteenths = self.early_def_case;
        c.branch_def_sixteenths = self.branch_def;
        c.block_param_sixteenths = self.block_param;
        c.branch_operand_case_sixteenths = self.branch_operand_case;
        c.back_edge_sixteenths = self.back_edge;
        c.multi_class_sixteenths = self.multi_class;
        c.reuse_sixteenths = self.reuse;
        c.reuse_case_sixteenths = self.reuse_case;
        c.repeated_use_case_sixteenths = self.repeated_use_case;
        c.late_use_case_sixteenths = self.late_use_case;
        c.recent_uses = self.recent_uses;
    }
}

/// The programs, by target (x86-64, aarch64, riscv64) and style (c: SQLite,
/// cpp: libjxl, rust: tiktoken, go: esbuild), each calibrated on its own
/// capture (`rafuzz gen --profile P --style S --stats 2000 DIR`).
const KNOBS: [[Knobs; 4]; 3] = {
    const C: Knobs = Knobs {
        typical: 30,
        largest: 1_200,
        smallest: 1,
        fixed: 4,
        max_insts_per_block: 8,
        call: 5,
        early_def: 2,
        early_def_case: 3,
        branch_def: 3,
        block_param: 5,
        branch_operand_case: 12,
        back_edge: 5,
        multi_class: 2,
        reuse: 12,
        reuse_case: 16,
        repeated_use_case: 16,
        late_use_case: 16,
        recent_uses: 9,
    };
    const CPP: Knobs = Knobs {
        typical: 150,
        largest: 2_800,
        smallest: 1,
        fixed: 2,
        max_insts_per_block: 8,
        call: 2,
        early_def: 2,
        early_def_case: 3,
        branch_def: 3,
        block_param: 4,
        branch_operand_case: 11,
        back_edge: 4,
        multi_class: 5,
        reuse: 12,
        reuse_case: 15,
        repeated_use_case: 16,
        late_use_case: 16,
        recent_uses: 10,
    };
    const RUST: Knobs = Knobs {
        typical: 40,
        largest: 2_000,
        smallest: 1,
        fixed: 2,
        max_insts_per_block: 8,
        call: 6,
        early_def: 2,
        early_def_case: 3,
        branch_def: 6,
        block_param: 5,
        branch_operand_case: 11,
        back_edge: 4,
        multi_class: 1,
        reuse: 12,
        reuse_case: 16,
        repeated_use_case: 16,
        late_use_case: 16,
        recent_uses: 10,
    };
    const GO: Knobs = Knobs {
        typical: 10,
        largest: 7_000,
        smallest: 3,
        fixed: 1,
        max_insts_per_block: 4,
        call: 5,
        early_def: 8,
        early_def_case: 16,
        branch_def: 7,
        block_param: 16,
        branch_operand_case: 16,
        back_edge: 8,
        multi_class: 2,
        reuse: 16,
        reuse_case: 16,
        repeated_use_case: 16,
        late_use_case: 16,
        recent_uses: 5,
    };
    // aarch64: three-address code, `reuse` in few functions.
    const C_A: Knobs = Knobs {
        max_insts_per_block: 8,
        reuse: 4,
        reuse_case: 3,
        branch_operand_case: 15,
        repeated_use_case: 10,
        ..C
    };
    const CPP_A: Knobs = Knobs {
        max_insts_per_block: 7,
        reuse: 4,
        reuse_case: 5,
        branch_def: 2,
        branch_operand_case: 15,
        repeated_use_case: 7,
        ..CPP
    };
    const RUST_A: Knobs = Knobs {
        max_insts_per_block: 10,
        reuse: 4,
        reuse_case: 10,
        branch_operand_case: 14,
        repeated_use_case: 10,
        ..RUST
    };
    const GO_A: Knobs = Knobs {
        reuse: 4,
        reuse_case: 12,
        repeated_use_case: 8,
        early_def: 8,
        max_insts_per_block: 3,
        ..GO
    };
    // riscv64: no `reuse`, late uses.
    const C_R: Knobs = Knobs {
        call: 4,
        branch_operand_case: 16,
        max_insts_per_block: 11,
        repeated_use_case: 11,
        late_use_case: 4,
        ..C
    };
    const CPP_R: Knobs = Knobs {
        max_insts_per_block: 10,
        early_def_case: 4,
        call: 2,
        multi_class: 4,
        block_param: 3,
        branch_operand_case: 16,
        repeated_use_case: 7,
        late_use_case: 4,
        ..CPP
    };
    const RUST_R: Knobs = Knobs {
        branch_operand_case: 16,
        max_insts_per_block: 11,
        early_def_case: 5,
        branch_def: 4,
        repeated_use_case: 10,
        late_use_case: 3,
        ..RUST
    };
    const GO_R: Knobs = Knobs {
        early_def: 8,
        max_insts_per_block: 3,
        repeated_use_case: 8,
        late_use_case: 1,
        ..GO
    };
    [
        [C, CPP, RUST, GO],
        [C_A, CPP_A, RUST_A, GO_A],
        [C_R, CPP_R, RUST_R, GO_R],
    ]
};

fn knobs<const T: usize, const P: usize>(c: &mut Config) {
    KNOBS[T][P].apply(c);
}

/// The four styles of target `T`, weighted by each program's functions in
/// the capture, so that the mixture keeps the union's shares.
const fn styles<const T: usize>(functions: [u32; 4]) -> [Style; 4] {
    const fn style(
        name: &'static str,
        program: &'static str,
        weight: u32,
        apply: fn(&mut Config),
    ) -> Style {
        Style {
            name,
            program,
            weight,
            apply,
        }
    }
    [
        style("c", "SQLite", functions[0], knobs::<T, 0>),
        style("cpp", "libjxl", functions[1], knobs::<T, 1>),
        style("rust", "tiktoken", functions[2], knobs::<T, 2>),
        style("go", "esbuild", functions[3], knobs::<T, 3>),
    ]
}

static X86_64_STYLES: [Style; 4] = styles::<0>([2_605, 792, 1_820, 10_633]);
static AARCH64_STYLES: [Style; 4] = styles::<1>([2_602, 792, 1_820, 10_631]);
static RISCV64_STYLES: [Style; 4] = styles::<2>([2_602, 792, 1_820, 10_631]);

/// The config of [`X86_64`]. Two-address arithmetic puts a `reuse` def in
/// nearly every function (96%).
pub fn x86_64() -> Config {
    let mut c = common(machine_x86_64, [24, 1, 0], true);
    c.reuse_sixteenths = 12;
    c.early_def_case_sixteenths = 14;
    c.styles = &X86_64_STYLES;
    c
}

/// The config of [`AARCH64`]. Three-address code: `reuse` in two functions
/// in five, an instruction reading one value twice in half of them, and
/// slightly shorter functions than x86-64's.
pub fn aarch64() -> Config {
    let mut c = common(machine_aarch64, [24, 1, 0], true);
    c.reuse_sixteenths = 12;
    c.reuse_case_sixteenths = 7;
    c.repeated_use_case_sixteenths = 9;
    c.early_def_case_sixteenths = 13;
    c.max_insts_per_block = 7;
    c.styles = &AARCH64_STYLES;
    c
}

/// The config of [`RISCV64`]. No `reuse`; late uses in one function in
/// nine; an instruction reading one value twice in half of them.
pub fn riscv64() -> Config {
    let mut c = common(machine_riscv64, [24, 1, 1], false);
    c.late_uses = true;
    c.late_use_case_sixteenths = 2;
    c.repeated_use_case_sixteenths = 9;
    c.early_def_case_sixteenths = 14;
    c.styles = &RISCV64_STYLES;
    c
}

fn machine(text: &str) -> MachineEnv {
    let src = format!("machine\n{text}end\nfunction\n  block0:\n    inst0: ret\nend\n");
    allocator::ir::text::parse_and_validate(src.as_bytes())
        .expect("a preset machine parses")
        .0
        .machine
}

/// As Cranelift 0.135.8 describes x86-64 to regalloc2 (SysV).
fn machine_x86_64() -> MachineEnv {
    machine(
        "  int preferred p0i p1i p2i p6i p7i p8i p9i p10i p11i nonpreferred p3i p12i-p15i scratch none
  float preferred p0f-p7f nonpreferred p8f-p15f scratch none slot_size 2
  vector preferred none nonpreferred none scratch none
",
    )
}

/// As Cranelift 0.135.8 describes aarch64 to regalloc2.
fn machine_aarch64() -> MachineEnv {
    machine(
        "  int preferred p0i-p15i nonpreferred p19i-p28i scratch none
  float preferred p0f-p7f p16f-p31f nonpreferred p8f-p15f scratch none slot_size 2
  vector preferred none nonpreferred none scratch none
",
    )
}

/// As Cranelift 0.135.8 describes riscv64gc with the vector extension.
fn machine_riscv64() -> MachineEnv {
    machine(
        "  int preferred p10i-p15i nonpreferred p5i-p7i p9i p16i-p29i scratch none
  float preferred p10f-p15f nonpreferred p0f-p9f p16f-p31f scratch none
  vector preferred p8v-p15v nonpreferred p0v-p7v p16v-p31v scratch none slot_size 16
",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each preset is the machine the capture recorded for its target, in
    /// the corpus (`corpus/real/<target>/`).
    #[test]
    fn presets_are_the_captured_machines() {
        for (preset, dir) in [
            (machine_x86_64 as fn() -> MachineEnv, "x86_64"),
            (machine_aarch64, "aarch64"),
            (machine_riscv64, "riscv64gc"),
        ] {
            let files = allocator::fixtures::ra_files(format!("corpus/real/{dir}"));
            let case = allocator::fixtures::read_case(&files[0]);
            assert_eq!(case.machine, preset(), "{dir}");
        }
    }
}
