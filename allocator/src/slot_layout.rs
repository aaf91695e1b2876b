//! Spill slots for machines whose values fill several slots (see
//! [`SlotGeometry`]). Our allocators number their slots one per home, as if
//! every value filled one; [`widen`] then gives each home as many slots as
//! the widest class stored there, aligned to that size as regalloc2 aligns
//! its own, and renames every slot the output names. One pass over the
//! output, and nothing at all on machines of one slot per value.

use crate::ir::function::Function;
use crate::ir::index::{RegClass, SpillSlot};
use crate::ir::machine::{MachineEnv, SlotGeometry};
use crate::ir::output::{Allocation, Output};

/// Lays out `out`'s slots for `env`'s slot geometry: home `k` becomes the
/// run of slots a value of the widest class stored in it fills, and each
/// mention is renamed to the slot that names its own class's value there
/// (the first slot of the run, or its last slot of the value's own size
/// when the geometry names values by their last slot).
pub fn widen(f: &Function, env: &MachineEnv, out: &mut Output) {
    let g = env.slots;
    if g.is_unit() || out.num_spillslots == 0 {
        return;
    }
    // The widest size stored in each home.
    let mut need = vec![1u8; out.num_spillslots];
    let mut note = |a: Allocation, class: RegClass| {
        if let Allocation::Stack(s) = a {
            let n = &mut need[s.index()];
            *n = (*n).max(g.size(class) as u8);
        }
    };
    for i in f.insts() {
        for (op, &a) in f.inst_operands(i).iter().zip(out.inst_allocs(f, i)) {
            if !op.is_nonalloc() {
                note(a, op.class());
            }
        }
    }
    for &(_, m) in &out.edits {
        if let Some(c) = m.class() {
            note(m.from, c);
            note(m.to, c);
        }
    }
    // Runs in home order, each aligned to its own size.
    let mut base = Vec::with_capacity(need.len());
    let mut next = 0usize;
    for &n in &need {
        let n = n as usize;
        next = next.next_multiple_of(n);
        base.push(next);
        next += n;
    }
    let rename = |a: &mut Allocation, class: RegClass| {
        if let Allocation::Stack(s) = *a {
            *a = Allocation::Stack(SpillSlot::new(name(&g, base[s.index()], class)));
        }
    };
    let (allocs, edits) = (&mut out.allocs, &mut out.edits);
    for i in f.insts() {
        let r = f.inst_operand_range(i);
        for (op, a) in f.inst_operands(i).iter().zip(&mut allocs[r]) {
            if !op.is_nonalloc() {
                rename(a, op.class());
            }
        }
    }
    for (_, m) in edits.iter_mut() {
        if let Some(c) = m.class() {
            rename(&mut m.from, c);
            rename(&mut m.to, c);
        }
    }
    out.num_spillslots = next;
}

/// The name of a value of `class` stored in the run starting at `first`.
fn name(g: &SlotGeometry, first: usize, class: RegClass) -> usize {
    if g.named_by_last {
        first + g.size(class) - 1
    } else {
        first
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::unit_case;

    /// Two float homes and an int home on a machine of two slots per float
    /// value: the float homes get slots 0-1 and 2-3, the int home slot 4;
    /// named by last, the floats are stack1 and stack3.
    #[test]
    fn homes_get_runs_of_their_widest_class() {
        let case = unit_case("slot_layout/three_homes");
        let mut out = case.output.clone().unwrap();
        widen(&case.func, &case.machine, &mut out);
        let stacks = |o: &Output| -> Vec<usize> {
            o.allocs
                .iter()
                .filter_map(|a| match a {
                    Allocation::Stack(s) => Some(s.index()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(stacks(&out), vec![0, 2, 4, 0, 2, 4]);
        assert_eq!(out.num_spillslots, 5);
        let mut by_last = case.machine.clone();
        by_last.slots.named_by_last = true;
        let mut out = case.output.clone().unwrap();
        widen(&case.func, &by_last, &mut out);
        assert_eq!(stacks(&out), vec![1, 3, 4, 1, 3, 4]);
    }
}
