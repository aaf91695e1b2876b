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
use allocator::{MachineEnv, PReg, RegClass};

/// Hardware number of the first fixed stack location of each class.
pub const FIXED_STACK_BASE: usize = 48;
/// The non-allocatable register `fixed` operands may name, in each class.
pub const UNLISTED_HW: usize = 62;
/// The non-allocatable register of `nonalloc` operands, in each class.
pub const NONALLOC_HW: usize = 63;

pub fn generate(c: &mut Choices, p: &MachineProfile) -> MachineEnv {
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
