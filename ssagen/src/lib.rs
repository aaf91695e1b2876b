//! A random SSA generator that turns any byte string into a valid case: a
//! machine drawn from the input and a function over it, with every block
//! reachable, every critical edge split, structured or irreducible loops,
//! block parameters, every operand constraint, clobbers and three register
//! classes. No input is ever rejected: when the bytes run out, every further
//! choice takes its default and the case is completed.
//!
//! Pipeline: [`swarm`] draws the case's own config (when the config asks
//! for swarm generation), [`machine`] draws the machine, [`cfg`] the CFG skeleton,
//! [`per_case`] the features the config gives only some cases, [`insts`] the
//! values and instructions, keeping each instruction
//! allocatable by the rules in [`feasibility`], and [`numbering`] renumbers
//! the blocks into the numbering the case draws.

pub mod cfg;
pub mod choices;
pub mod config;
pub mod domain;
pub mod feasibility;
pub mod insts;
pub mod machine;
pub mod numbering;
pub mod per_case;
pub mod preorder;
pub mod stats;
pub mod style;
pub mod swarm;

pub use choices::Choices;
pub use config::{Config, ConstraintSet, MachineProfile, RepeatedUses};

use allocator::Case;
use arbitrary::Unstructured;

/// Generates a case from the fuzzer's bytes. Succeeds for every input,
/// including the empty one.
pub fn generate(u: &mut Unstructured, config: &Config) -> Case {
    let input_len = u.len();
    let mut c = Choices::new(u);
    if matches!(config.sizes, config::Sizes::Skewed { .. }) {
        c.extend();
    }
    // A style first, then swarm generation within it.
    let styled;
    let config = if config.styles.is_empty() {
        config
    } else {
        styled = style::draw(&mut c, config);
        &styled
    };
    let swarmed;
    let config = if config.swarm {
        swarmed = swarm::draw(&mut c, config);
        &swarmed
    } else {
        config
    };
    let mut machine = machine::generate(&mut c, &config.machine);
    let skeleton = cfg::generate(&mut c, config, input_len);
    let func = insts::generate(&mut c, config, &machine, &skeleton);
    // Drawn last, from what the function left of the input, so that the
    // slot geometry changes nothing else a given input makes.
    machine::draw_slots(&mut c, config.machine.max_slot_size, &mut machine.slots);
    let func = numbering::draw(&mut c, config.numberings, func);
    Case {
        machine,
        func,
        output: None,
    }
}

/// [`generate`] over a byte slice.
pub fn generate_from_bytes(bytes: &[u8], config: &Config) -> Case {
    generate(&mut Unstructured::new(bytes), config)
}
