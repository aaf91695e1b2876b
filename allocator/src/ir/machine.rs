//! The machine environment: which physical registers each class offers to the
//! allocator, in what order of preference, and which are reserved.

use crate::ir::index::{PReg, PRegSet, RegClass};
use crate::ir::per_class::PerClass;

/// What the machine says about one physical register.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PRegRole {
    /// Allocatable, tried first.
    Preferred,
    /// Allocatable, tried after the preferred ones (callee-saved, say).
    NonPreferred,
    /// The class's dedicated scratch register: the allocator's own, for move
    /// cycles and stack-to-stack moves; never allocated to a vreg.
    Scratch,
    /// Stands for a fixed stack location (an argument slot); it behaves as
    /// memory, is never allocated, but `fixed` constraints may name it.
    FixedStack,
    /// In no list: named only by `fixed` and `nonalloc` operands.
    NonAllocatable,
}

/// Per class: preferred and non-preferred
/// allocatable registers in preference order, an optional dedicated scratch
/// register, and the registers standing for fixed stack locations; and how
/// many spill slots a value of each class fills.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct MachineEnv {
    pub preferred: PerClass<Vec<PReg>>,
    pub nonpreferred: PerClass<Vec<PReg>>,
    pub scratch: PerClass<Option<PReg>>,
    pub fixed_stack: PerClass<Vec<PReg>>,
    pub slots: SlotGeometry,
}

/// How values sit in spill slots: a value of class `c` fills `size(c)`
/// consecutive slots (Cranelift's x86-64 float class, which holds 128-bit
/// vectors, fills two 8-byte slots), and `stackK` names the first of them,
/// or the last when `named_by_last` (regalloc2's
/// `multi_spillslot_named_by_last_slot`). The default, one slot per value,
/// is what a case without `slot_size` keywords means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SlotGeometry {
    size: PerClass<u8>,
    pub named_by_last: bool,
}

impl Default for SlotGeometry {
    fn default() -> Self {
        SlotGeometry {
            size: PerClass::splat(1),
            named_by_last: false,
        }
    }
}

impl SlotGeometry {
    /// The largest size a class may have (a power of two).
    pub const MAX_SIZE: usize = 64;

    /// How many slots a value of `class` fills.
    #[inline]
    pub fn size(&self, class: RegClass) -> usize {
        self.size[class] as usize
    }

    /// Sets the size of `class`: a power of two up to [`Self::MAX_SIZE`]
    /// (the parser and the generator guarantee it).
    pub fn set_size(&mut self, class: RegClass, n: usize) {
        debug_assert!(n.is_power_of_two() && n <= Self::MAX_SIZE, "slot size {n}");
        self.size[class] = n as u8;
    }

    /// Every value fills one slot: slots need no geometry at all.
    #[inline]
    pub fn is_unit(&self) -> bool {
        *self.size == [1; 3]
    }

    /// The largest size of any class.
    pub fn max_size(&self) -> usize {
        self.size.iter().copied().max().unwrap_or(1) as usize
    }

    /// The slots a value of `class` named `stackK` fills, as a half-open
    /// range; `None` when the name is below slot 0's reach (named by last,
    /// `K + 1 < size`).
    #[inline]
    pub fn span(&self, class: RegClass, k: usize) -> Option<std::ops::Range<usize>> {
        let n = self.size(class);
        if self.named_by_last {
            (k + 1 >= n).then(|| k + 1 - n..k + 1)
        } else {
            Some(k..k + n)
        }
    }
}

impl MachineEnv {
    /// The allocatable registers of a class, preferred first.
    pub fn allocatable(&self, class: RegClass) -> impl Iterator<Item = PReg> + '_ {
        self.preferred[class]
            .iter()
            .chain(self.nonpreferred[class].iter())
            .copied()
    }

    pub fn num_allocatable(&self, class: RegClass) -> usize {
        self.preferred[class].len() + self.nonpreferred[class].len()
    }

    /// Every allocatable register of every class.
    pub fn allocatable_set(&self) -> PRegSet {
        let mut s = PRegSet::empty();
        for c in RegClass::ALL {
            self.allocatable(c).for_each(|r| s.insert(r));
        }
        s
    }

    /// Every fixed stack location of every class.
    pub fn fixed_stack_set(&self) -> PRegSet {
        let mut s = PRegSet::empty();
        for list in &self.fixed_stack {
            list.iter().for_each(|&r| s.insert(r));
        }
        s
    }

    /// Every register on a list of its own class: those whose
    /// [`MachineEnv::role`] is not [`PRegRole::NonAllocatable`].
    pub fn listed_set(&self) -> PRegSet {
        let mut s = PRegSet::empty();
        for c in RegClass::ALL {
            self.allocatable(c)
                .chain(self.scratch[c])
                .chain(self.fixed_stack[c].iter().copied())
                .filter(|r| r.class() == c)
                .for_each(|r| s.insert(r));
        }
        s
    }

    /// The role of `r`, looked up in the lists of its own class (the first
    /// list that names it, in the order preferred, nonpreferred, scratch,
    /// fixed_stack).
    pub fn role(&self, r: PReg) -> PRegRole {
        let c = r.class();
        if self.preferred[c].contains(&r) {
            PRegRole::Preferred
        } else if self.nonpreferred[c].contains(&r) {
            PRegRole::NonPreferred
        } else if self.scratch[c] == Some(r) {
            PRegRole::Scratch
        } else if self.fixed_stack[c].contains(&r) {
            PRegRole::FixedStack
        } else {
            PRegRole::NonAllocatable
        }
    }

    /// A small conventional machine, handy for tests and examples: per class,
    /// `n` preferred registers `p0..p(n-1)`, no scratch, no fixed stack.
    pub fn simple(n: usize) -> MachineEnv {
        let mut env = MachineEnv::default();
        for c in RegClass::ALL {
            env.preferred[c] = (0..n).map(|hw| PReg::new(hw, c)).collect();
        }
        env
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_follow_the_lists() {
        let mut env = MachineEnv::simple(2);
        let i = RegClass::Int;
        env.nonpreferred[0] = vec![PReg::new(5, i)];
        env.scratch[0] = Some(PReg::new(6, i));
        env.fixed_stack[0] = vec![PReg::new(32, i)];
        assert_eq!(env.role(PReg::new(1, i)), PRegRole::Preferred);
        assert_eq!(env.role(PReg::new(5, i)), PRegRole::NonPreferred);
        assert_eq!(env.role(PReg::new(6, i)), PRegRole::Scratch);
        assert_eq!(env.role(PReg::new(32, i)), PRegRole::FixedStack);
        assert_eq!(env.role(PReg::new(7, i)), PRegRole::NonAllocatable);
        assert_eq!(
            env.role(PReg::new(5, RegClass::Float)),
            PRegRole::NonAllocatable
        );
        assert_eq!(env.num_allocatable(i), 3);
        assert_eq!(
            env.allocatable(i).collect::<Vec<_>>(),
            vec![PReg::new(0, i), PReg::new(1, i), PReg::new(5, i)]
        );
        assert_eq!(env.allocatable_set().len(), 7);
        assert_eq!(env.fixed_stack_set().len(), 1);
    }
}
