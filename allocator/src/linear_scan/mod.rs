//! `linear_scan`: a linear scan allocator on SSA form, after Wimmer and
//! Franz's linear scan on SSA and the MoarVM expression JIT's allocator.
//!
//! The phases, each handing its result to the next:
//! - [`layout`]: blocks in the loop-contiguous order of
//!   [`crate::analysis::block_order`], two positions per instruction (early
//!   and late point) → `Layout`;
//! - [`ranges`]: lifetime intervals with holes from precise liveness, and
//!   use positions → `Ranges`;
//! - [`scan`]: the walk that gives each interval [`part`] a register or its
//!   spill slot, splitting at conflicts and at uses, evicting the part used
//!   farthest ahead ([`place`]), and gives every operand its location ([`operands`]),
//!   helped by the table of known conflicts ([`fixed`]), the hint groups
//!   ([`groups`]), what each value is known ahead to want ([`hints`]) and
//!   the cold joins ([`cold`]) → `Scanned`;
//! - [`refills`]: the join parameters whose register the edges into their
//!   block would refill at more cost than their slot; when there are any,
//!   [`scan`] runs again with those starting in their slot → `Scanned`;
//! - [`homes`]: where each value lives over its life, as the parts left it;
//! - [`assemble`]: spill slots ([`slots`]: shared by the members of a
//!   hint group whose lives do not meet), spill stores at definitions, moves
//!   between parts, operand copies and edge moves, through the shared
//!   parallel move resolver → `Output`.
//!
//! A parameter prefers the register its argument holds at the end of a
//! predecessor already scanned, a value passed back to a loop header the
//! register of the parameter it is passed to, and a value with a `fixed`
//! read that read's register, each saving the move an edge or the read
//! would need. Failing those, values joined through block parameters form
//! a union-find group that prefers the register its first member got. A `reuse`
//! pair (x86's `a = a + b`) gets its own register (or the def's slot),
//! filled with a copy of the input unless the input dies there and already
//! sits in a suitable register.
//!
//! What it leaves out: interval pieces never move between registers except
//! at splits, and values of different groups never share a spill slot. A loop
//! nested in an irreducible one is not contiguous when no order keeping
//! the CFG's forward edges forward can make it so (see
//! [`crate::analysis::block_order`]).

mod assemble;
mod cold;
mod fixed;
mod groups;
mod hints;
mod homes;
mod layout;
mod operands;
mod part;
mod place;
mod ranges;
mod refills;
mod reused;
mod scan;
mod slots;

use crate::interface::{AllocError, Allocator};
use crate::ir::function::Function;
use crate::ir::machine::MachineEnv;
use crate::ir::output::Output;

/// See the module documentation.
pub struct LinearScan;

impl Allocator for LinearScan {
    fn name(&self) -> &'static str {
        "linear_scan"
    }

    fn run(&self, f: &Function, env: &MachineEnv) -> Result<Output, AllocError> {
        crate::framing::around(f, env, |f| {
            let layout = layout::Layout::new(f);
            let ranges = ranges::Ranges::new(f, &layout);
            let mut scanned = scan::Scan::new(f, env, &layout, &ranges)?.run()?;
            if let Some(params) = refills::params_to_slot(f, &layout, &ranges, &scanned) {
                scanned = scan::Scan::new(f, env, &layout, &ranges)?
                    .with_params_in_slot(params)
                    .run()?;
            }
            Ok((assemble::assemble(f, env, &layout, &ranges, scanned), ()))
        })
        .map(|(out, ())| out)
    }
}
