//! Small typed indices: blocks, instructions, virtual and physical registers,
//! spill slots and program points.
//!
//! Every entity of a function lives in a dense `Vec` and is named by its index;
//! the newtypes keep the index spaces apart at compile time and cost nothing at
//! run time.

use std::fmt;

/// A register class. Every vreg and preg belongs to exactly one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum RegClass {
    Int = 0,
    Float = 1,
    Vector = 2,
}

impl RegClass {
    /// All classes, in the canonical order of the text format.
    pub const ALL: [RegClass; 3] = [RegClass::Int, RegClass::Float, RegClass::Vector];

    /// The class's dense index (0..3), for per-class arrays.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    /// The class with dense index `i`; `i` must be below 3 (checked in
    /// debug builds). Operands and registers keep their class in two bits,
    /// which index a table of four with no bounds check.
    #[inline]
    pub fn from_index(i: usize) -> RegClass {
        const BY_TWO_BITS: [RegClass; 4] = [
            RegClass::Int,
            RegClass::Float,
            RegClass::Vector,
            RegClass::Vector,
        ];
        debug_assert!(i < 3, "class index {i}");
        BY_TWO_BITS[i & 3]
    }

    /// The one-letter suffix of the text format (`i`, `f`, `v`).
    pub fn suffix(self) -> char {
        match self {
            RegClass::Int => 'i',
            RegClass::Float => 'f',
            RegClass::Vector => 'v',
        }
    }

    /// The class named by a text-format suffix.
    pub fn from_suffix(c: char) -> Option<RegClass> {
        match c {
            'i' => Some(RegClass::Int),
            'f' => Some(RegClass::Float),
            'v' => Some(RegClass::Vector),
            _ => None,
        }
    }

    /// The class's keyword on a machine line (`int`, `float`, `vector`).
    pub fn name(self) -> &'static str {
        match self {
            RegClass::Int => "int",
            RegClass::Float => "float",
            RegClass::Vector => "vector",
        }
    }
}

impl fmt::Display for RegClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

macro_rules! entity {
    ($(#[$m:meta])* $name:ident, $prefix:literal) => {
        $(#[$m])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl $name {
            /// A sentinel that names no entity.
            pub const INVALID: $name = $name(u32::MAX);

            #[inline]
            pub fn new(index: usize) -> Self {
                debug_assert!(index < u32::MAX as usize);
                $name(index as u32)
            }

            #[inline]
            pub fn index(self) -> usize {
                self.0 as usize
            }

            #[inline]
            pub fn is_valid(self) -> bool {
                self != Self::INVALID
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

entity!(
    /// A basic block, by its dense index; `Block(0)` is the entry.
    Block,
    "block"
);
entity!(
    /// An instruction, by its dense index across the whole function.
    Inst,
    "inst"
);
entity!(
    /// A spill slot, by index; slots have no class and hold any value.
    SpillSlot,
    "stack"
);

/// A virtual register: an index in one space shared by all classes, plus its
/// class, packed as `index << 2 | class`.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VReg(u32);

impl VReg {
    /// Largest vreg index an operand can carry (`2^24 - 1`).
    pub const MAX_INDEX: usize = (1 << 24) - 1;

    #[inline]
    pub fn new(index: usize, class: RegClass) -> VReg {
        debug_assert!(index <= Self::MAX_INDEX);
        VReg(((index as u32) << 2) | class as u32)
    }

    #[inline]
    pub fn index(self) -> usize {
        (self.0 >> 2) as usize
    }

    #[inline]
    pub fn class(self) -> RegClass {
        RegClass::from_index((self.0 & 3) as usize)
    }

    #[inline]
    pub(crate) fn bits(self) -> u32 {
        self.0
    }

    #[inline]
    pub(crate) fn from_bits(bits: u32) -> VReg {
        VReg(bits)
    }
}

impl fmt::Display for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}{}", self.index(), self.class().suffix())
    }
}

impl fmt::Debug for VReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A physical register: hardware number 0..=63 plus class, packed into one byte
/// as `class << 6 | hw`, so `PReg::index()` is dense over all 192 registers.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PReg(u8);

impl PReg {
    /// Hardware numbers run from 0 to `MAX_HW`.
    pub const MAX_HW: usize = 63;
    /// Number of distinct pregs over all classes (the size of per-preg arrays).
    pub const NUM_INDEX: usize = 64 * 3;

    #[inline]
    pub fn new(hw: usize, class: RegClass) -> PReg {
        debug_assert!(hw <= Self::MAX_HW);
        PReg(((class as u8) << 6) | hw as u8)
    }

    #[inline]
    pub fn hw(self) -> usize {
        (self.0 & 63) as usize
    }

    #[inline]
    pub fn class(self) -> RegClass {
        RegClass::from_index((self.0 >> 6) as usize)
    }

    /// Dense index over all classes, `0..PReg::NUM_INDEX`.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The preg with dense index `i` (inverse of [`PReg::index`]).
    #[inline]
    pub fn from_index(i: usize) -> PReg {
        debug_assert!(i < Self::NUM_INDEX);
        PReg(i as u8)
    }
}

impl fmt::Display for PReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "p{}{}", self.hw(), self.class().suffix())
    }
}

impl fmt::Debug for PReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// A set of physical registers over all classes: 192 bits, one word per
/// class, and a fourth word, always empty, so that a register's word
/// (its byte's top two bits) is found with no bounds check.
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct PRegSet([u64; 4]);

impl PRegSet {
    pub const fn empty() -> PRegSet {
        PRegSet([0; 4])
    }

    #[inline]
    pub fn contains(&self, r: PReg) -> bool {
        self.0[r.index() >> 6] & (1u64 << (r.index() & 63)) != 0
    }

    #[inline]
    pub fn insert(&mut self, r: PReg) {
        self.0[r.index() >> 6] |= 1u64 << (r.index() & 63);
    }

    #[inline]
    pub fn remove(&mut self, r: PReg) {
        self.0[r.index() >> 6] &= !(1u64 << (r.index() & 63));
    }

    pub fn union_with(&mut self, other: &PRegSet) {
        for (a, b) in self.0.iter_mut().zip(other.0.iter()) {
            *a |= *b;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0 == [0; 4]
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// The set of `regs` (an instruction's clobbers, a class's list).
    #[inline]
    pub fn of(regs: &[PReg]) -> PRegSet {
        let mut s = PRegSet::empty();
        for &r in regs {
            s.insert(r);
        }
        s
    }

    /// The set holding, per class, the registers whose hardware numbers are
    /// set in that class's mask (the inverse of [`PRegSet::class_mask`]).
    #[inline]
    pub fn from_class_masks([int, float, vector]: [u64; 3]) -> PRegSet {
        PRegSet([int, float, vector, 0])
    }

    /// The registers of one class, as a 64-bit mask over hardware numbers.
    #[inline]
    pub fn class_mask(&self, class: RegClass) -> u64 {
        self.0[class.index()]
    }

    /// Every class's mask, indexed by [`RegClass::index`].
    #[inline]
    pub fn class_masks(&self) -> [u64; 3] {
        [self.0[0], self.0[1], self.0[2]]
    }

    /// Iterates in dense-index order (class, then hardware number).
    pub fn iter(&self) -> impl Iterator<Item = PReg> + '_ {
        (0..3).flat_map(move |w| {
            let mut bits = self.0[w];
            std::iter::from_fn(move || {
                if bits == 0 {
                    return None;
                }
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Some(PReg::from_index(w * 64 + b))
            })
        })
    }
}

impl fmt::Debug for PRegSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// Before or after an instruction. Uses read at `Early` (before), defs write
/// at `Late` (after), unless an operand says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum InstPosition {
    Before = 0,
    After = 1,
}

/// A program point: an instruction and a position, packed as `inst << 1 | pos`
/// so that points sort in program order (before inst i < after inst i <
/// before inst i+1).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ProgPoint(u32);

impl ProgPoint {
    #[inline]
    pub fn new(inst: Inst, pos: InstPosition) -> ProgPoint {
        ProgPoint((inst.0 << 1) | pos as u32)
    }

    #[inline]
    pub fn before(inst: Inst) -> ProgPoint {
        Self::new(inst, InstPosition::Before)
    }

    #[inline]
    pub fn after(inst: Inst) -> ProgPoint {
        Self::new(inst, InstPosition::After)
    }

    #[inline]
    pub fn inst(self) -> Inst {
        Inst(self.0 >> 1)
    }

    #[inline]
    pub fn pos(self) -> InstPosition {
        if self.0 & 1 == 0 {
            InstPosition::Before
        } else {
            InstPosition::After
        }
    }

    /// The packed value, for sorting keys.
    #[inline]
    pub fn to_index(self) -> u32 {
        self.0
    }
}

impl fmt::Display for ProgPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pos = match self.pos() {
            InstPosition::Before => "before",
            InstPosition::After => "after",
        };
        write!(f, "{} {}", pos, self.inst())
    }
}

impl fmt::Debug for ProgPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vreg_packs_index_and_class() {
        for class in RegClass::ALL {
            for index in [0, 1, 77, VReg::MAX_INDEX] {
                let v = VReg::new(index, class);
                assert_eq!((v.index(), v.class()), (index, class));
            }
        }
        assert_eq!(VReg::new(12, RegClass::Int).to_string(), "v12i");
    }

    #[test]
    fn preg_index_is_dense_and_invertible() {
        let mut seen = [false; PReg::NUM_INDEX];
        for class in RegClass::ALL {
            for hw in 0..=PReg::MAX_HW {
                let r = PReg::new(hw, class);
                assert_eq!((r.hw(), r.class()), (hw, class));
                assert_eq!(PReg::from_index(r.index()), r);
                assert!(!seen[r.index()]);
                seen[r.index()] = true;
            }
        }
        assert_eq!(PReg::new(3, RegClass::Float).to_string(), "p3f");
    }

    #[test]
    fn pregset_operations() {
        let mut s = PRegSet::empty();
        let a = PReg::new(63, RegClass::Int);
        let b = PReg::new(0, RegClass::Vector);
        s.insert(b);
        s.insert(a);
        assert!(s.contains(a) && s.contains(b));
        assert!(!s.contains(PReg::new(63, RegClass::Float)));
        assert_eq!(s.iter().collect::<Vec<_>>(), vec![a, b]);
        assert_eq!(s.len(), 2);
        assert_eq!(s.class_mask(RegClass::Int), 1 << 63);
        s.remove(a);
        assert_eq!(s.len(), 1);
        let mut t = PRegSet::empty();
        t.union_with(&s);
        assert_eq!(t, s);
        t.remove(b);
        assert!(t.is_empty());
    }

    #[test]
    fn progpoints_sort_in_program_order() {
        let i = Inst::new(4);
        let j = Inst::new(5);
        assert!(ProgPoint::before(i) < ProgPoint::after(i));
        assert!(ProgPoint::after(i) < ProgPoint::before(j));
        assert_eq!(ProgPoint::after(i).inst(), i);
        assert_eq!(ProgPoint::after(i).pos(), InstPosition::After);
        assert_eq!(ProgPoint::before(j).to_string(), "before inst5");
    }
}
