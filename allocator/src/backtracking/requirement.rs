//! What a bundle's uses ask of its location, as a meet-semilattice: `Top`
//! (no operand there) above `Any` (an allocatable register or memory),
//! `Conflict` at the bottom, and in between a set of registers (`reg` and
//! `limit`), one register (`fixed`), one register in no machine list that
//! only its own operands may see (`Pinned`) or a spill slot (`stack`).
//! `limit` is a register set like `reg`, so `limit(4)` meets `reg` as
//! `limit(4)` and `fixed(p2)` as `fixed(p2)`.

use crate::ir::index::{PReg, RegClass};
use crate::ir::machine::MachineEnv;
use crate::ir::operand::{limit_mask, OperandConstraint};

/// A requirement on one location of one class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Req {
    /// Nothing: the value only has to be live (a read by a move).
    Top,
    /// A register or a spill slot.
    Any,
    /// One of these allocatable registers (hardware numbers of the class).
    Regs(u64),
    /// Exactly this register, allocatable or a fixed stack location.
    Fixed(PReg),
    /// Exactly this register, which is in no machine list: an `any`
    /// operand may not see it.
    Pinned(PReg),
    /// The spill slot of the value.
    Stack,
    /// No location satisfies every use.
    Conflict,
}

/// Per class: the allocatable registers, and those in no machine list.
#[derive(Clone, Copy, Debug, Default)]
pub struct Masks {
    pub alloc: [u64; 3],
    pub pinned: [u64; 3],
}

impl Masks {
    pub fn new(env: &MachineEnv) -> Masks {
        let mut m = Masks::default();
        for c in RegClass::ALL {
            let k = c.index();
            m.alloc[k] = env.allocatable(c).fold(0, |a, r| a | 1 << r.hw());
            let listed = env.fixed_stack[k]
                .iter()
                .chain(env.scratch[k].iter())
                .fold(m.alloc[k], |a, r| a | 1 << r.hw());
            m.pinned[k] = !listed;
        }
        m
    }
}

impl Req {
    /// The requirement of one operand constraint on a value of `class`.
    /// `reuse` and `nonalloc` ask nothing of the value itself.
    pub fn of(c: OperandConstraint, class: RegClass, masks: &Masks) -> Req {
        let k = class.index();
        match c {
            OperandConstraint::Any => Req::Any,
            OperandConstraint::Reuse(_) | OperandConstraint::NonAlloc(_) => Req::Top,
            OperandConstraint::Reg => Req::Regs(masks.alloc[k]),
            OperandConstraint::Limit(n) => Req::Regs(masks.alloc[k] & limit_mask(n)),
            OperandConstraint::FixedReg(r) if masks.pinned[k] & (1 << r.hw()) != 0 => {
                Req::Pinned(r)
            }
            OperandConstraint::FixedReg(r) => Req::Fixed(r),
            OperandConstraint::Stack => Req::Stack,
        }
    }

    /// The greatest requirement below both.
    pub fn meet(self, other: Req) -> Req {
        use Req::*;
        match (self, other) {
            (Top, x) | (x, Top) => x,
            (Conflict, _) | (_, Conflict) => Conflict,
            (Pinned(a), Pinned(b)) if a == b => Pinned(a),
            (Pinned(_), _) | (_, Pinned(_)) => Conflict,
            (Any, x) | (x, Any) => x,
            (Stack, Stack) => Stack,
            (Regs(a), Regs(b)) if a & b != 0 => Regs(a & b),
            (Regs(a), Fixed(r)) | (Fixed(r), Regs(a)) if a & (1 << r.hw()) != 0 => Fixed(r),
            (Fixed(a), Fixed(b)) if a == b => Fixed(a),
            _ => Conflict,
        }
    }

    /// Whether a register is needed (a spill slot will not do).
    pub fn needs_reg(self) -> bool {
        matches!(self, Req::Regs(_) | Req::Fixed(_) | Req::Pinned(_))
    }

    /// Whether a spill slot will do.
    pub fn stack_ok(self) -> bool {
        matches!(self, Req::Top | Req::Any)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::index::RegClass;

    #[test]
    fn the_lattice_meets_as_documented() {
        let p = |hw| PReg::new(hw, RegClass::Int);
        let masks = Masks {
            alloc: [0b1111; 3],
            pinned: [!0b1_1111_1111; 3],
        };
        let of = |c| Req::of(c, RegClass::Int, &masks);
        let reg = of(OperandConstraint::Reg);
        let lim = of(OperandConstraint::Limit(2));
        assert_eq!(of(OperandConstraint::FixedReg(p(20))), Req::Pinned(p(20)));
        assert_eq!(of(OperandConstraint::FixedReg(p(8))), Req::Fixed(p(8)));
        assert_eq!(of(OperandConstraint::Reuse(0)), Req::Top);
        assert_eq!(Req::Pinned(p(20)).meet(Req::Top), Req::Pinned(p(20)));
        assert_eq!(Req::Pinned(p(20)).meet(Req::Any), Req::Conflict);
        assert_eq!(
            Req::Pinned(p(20)).meet(Req::Pinned(p(20))),
            Req::Pinned(p(20))
        );
        assert_eq!(Req::Any.meet(Req::Top), Req::Any);
        assert!(Req::Any.stack_ok() && Req::Top.stack_ok() && !Req::Stack.stack_ok());
        assert_eq!(reg, Req::Regs(0b1111));
        assert_eq!(lim, Req::Regs(0b11));
        assert_eq!(reg.meet(lim), lim);
        assert_eq!(Req::Any.meet(lim), lim);
        assert_eq!(lim.meet(Req::Fixed(p(1))), Req::Fixed(p(1)));
        assert_eq!(lim.meet(Req::Fixed(p(2))), Req::Conflict);
        assert_eq!(Req::Fixed(p(9)).meet(Req::Any), Req::Fixed(p(9)));
        assert_eq!(Req::Fixed(p(9)).meet(reg), Req::Conflict);
        assert_eq!(Req::Fixed(p(1)).meet(Req::Fixed(p(1))), Req::Fixed(p(1)));
        assert_eq!(Req::Fixed(p(1)).meet(Req::Fixed(p(2))), Req::Conflict);
        assert_eq!(Req::Stack.meet(Req::Stack), Req::Stack);
        assert_eq!(Req::Stack.meet(reg), Req::Conflict);
        assert_eq!(Req::Regs(0b01).meet(Req::Regs(0b10)), Req::Conflict);
        assert_eq!(Req::Conflict.meet(Req::Any), Req::Conflict);
        assert!(reg.needs_reg() && !Req::Stack.needs_reg() && !Req::Any.needs_reg());
    }
}
