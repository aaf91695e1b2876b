//! Machines drawn from the input. Small register files are what make
//! spilling, splitting and move cycles happen, so half the classes get one to
//! four registers.
//!
//! Layout of the hardware numbers of each class: allocatable registers are
//! `p0..p(n-1)` (preferred first), the scratch register, when there is one,
//! is `pn`; fixed stack locations are `p48..`; `p62` and `p63` are never
//! listed: `p62` is a register the machine does not allocate that `fixed`
//! operands may name (an argument register), `p63` the one `nonalloc`
//! operands name (a stack pointer).

use crate::choices::Choices;
use crate::config::MachineProfile;
use allocator::{MachineEnv, PReg, RegClass, SlotGeometry};

/// Hardware number of the first fixed stack location of each class.
pub const FIXED_STACK_BASE: usize = 48;
/// The non-allocatable register `fixed` operands may name, in each class.
pub const UNLISTED_HW: usize = 62;
/// The non-allocatable register of `nonalloc` operands, in each class.
pub const NONALLOC_HW: usize = 63;

/// Draws how many slots each class's values fill (a third of the classes
/// two up to `max`) and, on a quarter of the machines with several, whether
/// values are named by their last slot. Nothing when `max` is 1.
pub fn draw_slots(c: &mut Choices, max: usize, slots: &mut SlotGeometry) {
    let top = max.clamp(1, SlotGeometry::MAX_SIZE).ilog2() as usize;
    if top == 0 {
        return;
    }
    for class in RegClass::ALL {
        if c.chance(1, 3) {
            slots.set_size(class, 1 << c.int(1, top));
        }
    }
    slots.named_by_last = !slots.is_unit() && c.chance(1, 4);
}

pub fn generate(c: &mut Choices, p: &MachineProfile) -> MachineEnv {
    if let Some(preset) = p.preset {
        return preset();
    }
    let mut env = MachineEnv::default();
    let lo = p.min_regs.clamp(1, 32);
    let hi = p.max_regs.clamp(lo, 32);
    for class in RegClass::ALL {
        let i = class.index();
        let n = if c.chance(1, 2) {
            c.int(lo, hi.min(lo.max(4)))
        } else {
            c.int(lo, hi)
        };
        let npref = n - c.int(0, n - 1);
        env.preferred[i] = (0..npref).map(|hw| PReg::new(hw, class)).collect();
        env.nonpreferred[i] = (npref..n).map(|hw| PReg::new(hw, class)).collect();
        if p.scratch && (c.chance(1, 2) || p.scratch_always) {
            env.scratch[i] = Some(PReg::new(n, class));
        }
        if p.fixed_stack && c.chance(1, 3) {
            let k = c.int(1, 4);
            env.fixed_stack[i] = (0..k)
                .map(|j| PReg::new(FIXED_STACK_BASE + j, class))
                .collect();
        }
    }
    env
}
