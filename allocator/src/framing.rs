//! What each of our allocators does around its own work, in one place:
//! refuse the uses no allocation can meet ([`crate::fixed_clobbered`]),
//! fold the parameters a branch feeds with its own defs
//! ([`crate::own_def_args`]), and after allocating lay the spill slots out
//! for the machine's slot geometry ([`crate::slot_layout`]).

use crate::interface::AllocError;
use crate::ir::function::Function;
use crate::ir::machine::MachineEnv;
use crate::ir::output::Output;

/// Runs `allocate` on `f` as prepared for it and finishes its output for
/// `f` itself; `T` is whatever else the allocator reports (its counters).
pub fn around<T>(
    f: &Function,
    env: &MachineEnv,
    allocate: impl FnOnce(&Function) -> Result<(Output, T), AllocError>,
) -> Result<(Output, T), AllocError> {
    crate::fixed_clobbered::check(f)?;
    let folded = crate::own_def_args::fold(f);
    let g = folded.as_ref().unwrap_or(f);
    let (mut out, extra) = allocate(g)?;
    crate::slot_layout::widen(g, env, &mut out);
    Ok((out, extra))
}
