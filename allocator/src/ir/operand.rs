//! Operands: one vreg mention with its kind, position and constraint, packed
//! into a single `u64`.
//!
//! Layout (low to high bits):
//! - `0..32`  the vreg, packed as [`VReg`] packs itself (for `nonalloc`: zero
//!   plus the register's class);
//! - `32`     kind: 0 use, 1 def;
//! - `33`     position: 0 early, 1 late;
//! - `34..37` constraint tag (see `TAG_*`);
//! - `40..48` constraint payload: a preg index (`fixed`, `nonalloc`), the
//!   reused operand's index (`reuse`) or the bound `n` (`limit`).

use crate::ir::index::{PReg, RegClass, VReg};
use std::fmt;

/// Whether the operand reads or writes its vreg.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    Use = 0,
    Def = 1,
}

/// When, relative to the instruction, the operand is read or written. A late
/// use stays live while the defs are written; an early def is written while
/// the uses are still read, so it may share no location with any of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandPos {
    Early = 0,
    Late = 1,
}

/// Where the allocator may place an operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OperandConstraint {
    /// A register or a stack slot.
    Any,
    /// An allocatable register of the vreg's class.
    Reg,
    /// A spill slot or a fixed stack location.
    Stack,
    /// Exactly this register (of the vreg's class).
    FixedReg(PReg),
    /// Defs only: the same allocation as operand `k` of the instruction, which
    /// is a use of the same class.
    Reuse(usize),
    /// A register whose hardware number is below `n` (a power of two, 1..=64).
    Limit(u8),
    /// Not a vreg mention at all: names a non-allocatable register directly
    /// (a stack pointer, say). It carries no value and is always a use.
    NonAlloc(PReg),
}

const TAG_ANY: u64 = 0;
const TAG_REG: u64 = 1;
const TAG_STACK: u64 = 2;
const TAG_FIXED: u64 = 3;
const TAG_REUSE: u64 = 4;
const TAG_LIMIT: u64 = 5;
const TAG_NONALLOC: u64 = 6;

/// A bit-packed operand; see the module doc for the layout.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operand(u64);

impl Operand {
    /// Largest operand index a `reuse(k)` can name.
    pub const MAX_REUSE: usize = 255;

    /// Packs an operand. `constraint` must not be `NonAlloc` (use
    /// [`Operand::nonalloc`]), a `Reuse` index must be at most `MAX_REUSE`, and
    /// a `Limit` bound a power of two from 1 to 64 (checked in debug builds;
    /// the parser and the generator guarantee them).
    #[inline]
    pub fn new(
        vreg: VReg,
        kind: OperandKind,
        pos: OperandPos,
        constraint: OperandConstraint,
    ) -> Operand {
        let (tag, payload) = match constraint {
            OperandConstraint::Any => (TAG_ANY, 0),
            OperandConstraint::Reg => (TAG_REG, 0),
            OperandConstraint::Stack => (TAG_STACK, 0),
            OperandConstraint::FixedReg(r) => (TAG_FIXED, r.index() as u64),
            OperandConstraint::Reuse(k) => {
                debug_assert!(k <= Self::MAX_REUSE, "reuse index {k} out of range");
                (TAG_REUSE, (k as u64).min(Self::MAX_REUSE as u64))
            }
            OperandConstraint::Limit(n) => {
                debug_assert!(
                    n.is_power_of_two() && n <= 64,
                    "limit {n} is not a power of two in 1..=64"
                );
                (TAG_LIMIT, n as u64 & 0x7f)
            }
            OperandConstraint::NonAlloc(_) => panic!("use Operand::nonalloc"),
        };
        Operand(
            vreg.bits() as u64
                | (kind as u64) << 32
                | (pos as u64) << 33
                | tag << 34
                | payload << 40,
        )
    }

    /// A use of `vreg` at the early point.
    pub fn use_(vreg: VReg, constraint: OperandConstraint) -> Operand {
        Self::new(vreg, OperandKind::Use, OperandPos::Early, constraint)
    }

    /// A def of `vreg` at the late point.
    pub fn def(vreg: VReg, constraint: OperandConstraint) -> Operand {
        Self::new(vreg, OperandKind::Def, OperandPos::Late, constraint)
    }

    /// A mention of the non-allocatable register `preg`.
    pub fn nonalloc(preg: PReg) -> Operand {
        let class_bits = preg.class() as u64;
        Operand(class_bits | TAG_NONALLOC << 34 | (preg.index() as u64) << 40)
    }

    #[inline]
    fn tag(self) -> u64 {
        (self.0 >> 34) & 7
    }

    #[inline]
    fn payload(self) -> usize {
        ((self.0 >> 40) & 0xff) as usize
    }

    /// The vreg mentioned. Meaningless for a `nonalloc` operand, which names
    /// no vreg (its index reads as 0).
    #[inline]
    pub fn vreg(self) -> VReg {
        VReg::from_bits(self.0 as u32)
    }

    #[inline]
    pub fn class(self) -> RegClass {
        RegClass::from_index((self.0 & 3) as usize)
    }

    #[inline]
    pub fn kind(self) -> OperandKind {
        if self.0 & (1 << 32) == 0 {
            OperandKind::Use
        } else {
            OperandKind::Def
        }
    }

    #[inline]
    pub fn pos(self) -> OperandPos {
        if self.0 & (1 << 33) == 0 {
            OperandPos::Early
        } else {
            OperandPos::Late
        }
    }

    #[inline]
    pub fn is_nonalloc(self) -> bool {
        self.tag() == TAG_NONALLOC
    }

    #[inline]
    pub fn is_def(self) -> bool {
        self.kind() == OperandKind::Def && !self.is_nonalloc()
    }

    #[inline]
    pub fn is_use(self) -> bool {
        self.kind() == OperandKind::Use && !self.is_nonalloc()
    }

    #[inline]
    pub fn constraint(self) -> OperandConstraint {
        match self.tag() {
            TAG_ANY => OperandConstraint::Any,
            TAG_REG => OperandConstraint::Reg,
            TAG_STACK => OperandConstraint::Stack,
            TAG_FIXED => OperandConstraint::FixedReg(PReg::from_index(self.payload())),
            TAG_REUSE => OperandConstraint::Reuse(self.payload()),
            TAG_LIMIT => OperandConstraint::Limit(self.payload() as u8),
            TAG_NONALLOC => OperandConstraint::NonAlloc(PReg::from_index(self.payload())),
            _ => unreachable!("invalid operand tag"),
        }
    }

    /// Whether the operand has the default position of its kind (early use,
    /// late def); the text format omits the position then.
    pub fn has_default_pos(self) -> bool {
        match self.kind() {
            OperandKind::Use => self.pos() == OperandPos::Early,
            OperandKind::Def => self.pos() == OperandPos::Late,
        }
    }

    /// The same operand with another constraint (for reducers and mutators).
    pub fn with_constraint(self, constraint: OperandConstraint) -> Operand {
        Operand::new(self.vreg(), self.kind(), self.pos(), constraint)
    }

    /// The same operand naming `vreg` instead (of the same class; for
    /// renumbering). Not for a `nonalloc` operand, which names no vreg.
    #[inline]
    pub fn with_vreg(self, vreg: VReg) -> Operand {
        debug_assert!(!self.is_nonalloc() && vreg.class() == self.class());
        Operand((self.0 & !0xffff_ffff) | vreg.bits() as u64)
    }

    /// The raw packed word.
    pub fn bits(self) -> u64 {
        self.0
    }
}

impl fmt::Display for OperandConstraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OperandConstraint::Any => f.write_str("any"),
            OperandConstraint::Reg => f.write_str("reg"),
            OperandConstraint::Stack => f.write_str("stack"),
            OperandConstraint::FixedReg(r) => write!(f, "fixed({r})"),
            OperandConstraint::Reuse(k) => write!(f, "reuse({k})"),
            OperandConstraint::Limit(n) => write!(f, "limit({n})"),
            OperandConstraint::NonAlloc(r) => write!(f, "nonalloc({r})"),
        }
    }
}

/// The text-format spelling: `use:v3i:reg`, `def:v4f:any:early`, `nonalloc(p7i)`.
impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_nonalloc() {
            return write!(f, "{}", self.constraint());
        }
        let kind = match self.kind() {
            OperandKind::Use => "use",
            OperandKind::Def => "def",
        };
        write!(f, "{kind}:{}:{}", self.vreg(), self.constraint())?;
        if !self.has_default_pos() {
            f.write_str(match self.pos() {
                OperandPos::Early => ":early",
                OperandPos::Late => ":late",
            })?;
        }
        Ok(())
    }
}

impl fmt::Debug for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The hardware numbers `limit(n)` admits (those below `n`, at most 64), as
/// a mask over one class's registers.
pub fn limit_mask(n: u8) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_constraints() -> Vec<OperandConstraint> {
        vec![
            OperandConstraint::Any,
            OperandConstraint::Reg,
            OperandConstraint::Stack,
            OperandConstraint::FixedReg(PReg::new(63, RegClass::Vector)),
            OperandConstraint::FixedReg(PReg::new(0, RegClass::Int)),
            OperandConstraint::Reuse(0),
            OperandConstraint::Reuse(Operand::MAX_REUSE),
            OperandConstraint::Limit(1),
            OperandConstraint::Limit(64),
        ]
    }

    #[test]
    fn every_field_round_trips() {
        for class in RegClass::ALL {
            let vreg = VReg::new(VReg::MAX_INDEX, class);
            for kind in [OperandKind::Use, OperandKind::Def] {
                for pos in [OperandPos::Early, OperandPos::Late] {
                    for c in all_constraints() {
                        let op = Operand::new(vreg, kind, pos, c);
                        assert_eq!(op.vreg(), vreg);
                        assert_eq!(op.class(), class);
                        assert_eq!(op.kind(), kind);
                        assert_eq!(op.pos(), pos);
                        assert_eq!(op.constraint(), c);
                        assert!(!op.is_nonalloc());
                        assert_eq!(op.is_def(), kind == OperandKind::Def);
                        assert_eq!(op.is_use(), kind == OperandKind::Use);
                    }
                }
            }
        }
    }

    #[test]
    fn nonalloc_names_its_register() {
        let r = PReg::new(7, RegClass::Float);
        let op = Operand::nonalloc(r);
        assert!(op.is_nonalloc() && !op.is_use() && !op.is_def());
        assert_eq!(op.constraint(), OperandConstraint::NonAlloc(r));
        assert_eq!(op.class(), RegClass::Float);
        assert_eq!(op.to_string(), "nonalloc(p7f)");
    }

    #[test]
    fn display_omits_default_positions() {
        let v = VReg::new(3, RegClass::Int);
        assert_eq!(
            Operand::use_(v, OperandConstraint::Reg).to_string(),
            "use:v3i:reg"
        );
        assert_eq!(
            Operand::def(v, OperandConstraint::Reuse(1)).to_string(),
            "def:v3i:reuse(1)"
        );
        let late_use = Operand::new(
            v,
            OperandKind::Use,
            OperandPos::Late,
            OperandConstraint::Limit(8),
        );
        assert_eq!(late_use.to_string(), "use:v3i:limit(8):late");
        let early_def = Operand::new(
            v,
            OperandKind::Def,
            OperandPos::Early,
            OperandConstraint::Stack,
        );
        assert_eq!(early_def.to_string(), "def:v3i:stack:early");
    }

    #[test]
    #[should_panic]
    fn limit_must_be_a_power_of_two() {
        Operand::use_(VReg::new(0, RegClass::Int), OperandConstraint::Limit(3));
    }

    #[test]
    fn limit_mask_admits_the_numbers_below_the_bound() {
        assert_eq!(limit_mask(1), 1);
        assert_eq!(limit_mask(8), 0xff);
        assert_eq!(limit_mask(32), 0xffff_ffff);
        assert_eq!(limit_mask(64), u64::MAX);
    }
}
