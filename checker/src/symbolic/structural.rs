//! Every check that needs no dataflow: each operand against its constraint
//! and the machine, spill slot bounds, register classes, interference inside
//! one instruction, defs in clobbered registers, and the placement of edits.

use super::error::{article, slots, vname, CheckError, ErrorKind, Lazy};
use allocator::ir::validate::Site;
use allocator::{
    Allocation, Function, InstPosition, MachineEnv, Operand, OperandConstraint, OperandPos, Output,
    PReg, PRegRole, PRegSet,
};

/// What the machine says about each register, as sets.
pub(super) struct Roles {
    allocatable: PRegSet,
    fixed_stack: PRegSet,
    /// Every register on a machine list (a valid machine's registers whose
    /// role is not [`PRegRole::NonAllocatable`]).
    listed: PRegSet,
}

impl Roles {
    pub(super) fn new(env: &MachineEnv) -> Roles {
        Roles {
            allocatable: env.allocatable_set(),
            fixed_stack: env.fixed_stack_set(),
            listed: env.listed_set(),
        }
    }

    fn is_mem(&self, a: Allocation) -> bool {
        match a {
            Allocation::Stack(_) => true,
            Allocation::Reg(r) => self.fixed_stack.contains(r),
            Allocation::None => false,
        }
    }
}

/// Sorts errors in program order: by instruction; at one instruction the
/// edits before it, its operands, the edits after it.
pub(super) fn site_order(out: &Output, site: Site) -> (u32, u32, u32) {
    match site {
        Site::Alloc(i, k) => (i.0, 1, k as u32),
        Site::Edit(e) => match out.edits.get(e) {
            Some((p, _)) => (
                p.inst().0,
                if p.pos() == InstPosition::Before {
                    0
                } else {
                    2
                },
                e as u32,
            ),
            None => (u32::MAX, 0, e as u32),
        },
        _ => (0, 0, 0),
    }
}

/// Every check that needs no dataflow. Returns whether the allocation
/// writes a value of a class that fills several slots to a slot: a def
/// there, or a move there from such a register. Only such a write puts a
/// value in a slot (a move from a slot copies one already there), so
/// without any, every slot value fills one slot and a write to one slot
/// overlaps no other; the dataflow then looks for no overlaps.
pub(super) fn structural(
    f: &Function,
    env: &MachineEnv,
    roles: &Roles,
    out: &Output,
    errs: &mut Vec<CheckError>,
) -> bool {
    let some_wide = !env.slots.is_unit();
    let wide = |c: allocator::RegClass| some_wide && env.slots.size(c) > 1;
    let mut wide_in_slots = false;
    let mut err = |kind, site, message: String| {
        errs.push(CheckError {
            kind,
            site,
            message,
            read_nothing: false,
        })
    };
    // Registers that `fixed` and `nonalloc` operands name.
    let (mut fixed, mut nonalloc) = (PRegSet::empty(), PRegSet::empty());
    for i in f.insts() {
        let ops = f.inst_operands(i);
        let allocs = out.inst_allocs(f, i);
        let clobbers = f.inst_clobbers(i);
        for (k, (&op, &a)) in ops.iter().zip(allocs).enumerate() {
            match op.constraint() {
                OperandConstraint::FixedReg(r) => fixed.insert(r),
                OperandConstraint::NonAlloc(r) => nonalloc.insert(r),
                _ => {}
            }
            wide_in_slots |= op.is_def() && matches!(a, Allocation::Stack(_)) && wide(op.class());
            let site = Site::Alloc(i, k);
            let what = Lazy(|| format!("{i} operand {k} ({op})"));
            if a.is_none() {
                err(
                    ErrorKind::NoneAllocation,
                    site,
                    format!("{what} has no allocation"),
                );
                continue;
            }
            if let Allocation::Reg(r) = a {
                if r.class() != op.class() {
                    err(
                        ErrorKind::WrongClass,
                        site,
                        format!(
                            "{what} is in {r}, {} {} register, but {} is of class {}",
                            article(r.class()),
                            r.class(),
                            vname(op),
                            op.class()
                        ),
                    );
                    continue;
                }
            }
            if let Allocation::Stack(s) = a {
                if !fits(env, op.class(), s.index(), out.num_spillslots) {
                    err(
                        ErrorKind::SpillSlotRange,
                        site,
                        format!(
                            "{what} is in {s}{}, but the allocation declares {}",
                            filling(env, op.class(), s.index()),
                            slots(out.num_spillslots)
                        ),
                    );
                    continue;
                }
            }
            let role = |r: PReg| env.role(r);
            let allocatable_reg = matches!(a, Allocation::Reg(r) if roles.allocatable.contains(r));
            let ok = match op.constraint() {
                OperandConstraint::NonAlloc(r) | OperandConstraint::FixedReg(r) => {
                    a == Allocation::Reg(r)
                }
                OperandConstraint::Reg => allocatable_reg,
                OperandConstraint::Stack => roles.is_mem(a),
                OperandConstraint::Limit(n) => {
                    allocatable_reg && a.as_reg().is_some_and(|r| r.hw() < n as usize)
                }
                OperandConstraint::Reuse(t) => allocs.get(t) == Some(&a),
                OperandConstraint::Any => allocatable_reg || roles.is_mem(a),
            };
            if !ok {
                let detail = match a {
                    Allocation::Reg(r) => match role(r) {
                        PRegRole::Scratch => format!("{r}, the scratch register"),
                        PRegRole::NonAllocatable => {
                            format!("{r}, which the machine does not allocate")
                        }
                        PRegRole::FixedStack => format!("{r}, a fixed stack location"),
                        _ => r.to_string(),
                    },
                    other => other.to_string(),
                };
                let (kind, want) = match op.constraint() {
                    OperandConstraint::Reuse(t) => (
                        ErrorKind::Constraint,
                        format!(
                            "the allocation of operand {t} ({})",
                            allocs.get(t).copied().unwrap_or_default()
                        ),
                    ),
                    OperandConstraint::Any => (
                        ErrorKind::NotInMachine,
                        "an allocatable register or a stack location".into(),
                    ),
                    c => (ErrorKind::Constraint, format!("what `{c}` allows")),
                };
                err(kind, site, format!("{what} is in {detail}, not {want}"));
            }
            // A clobber destroys its register at the late point: a def, or
            // a late use (read at that point), may not be there.
            if op.is_def() || op.pos() == OperandPos::Late {
                if let Allocation::Reg(r) = a {
                    if clobbers.contains(&r) {
                        let how = if op.is_def() {
                            "defined in"
                        } else {
                            "read at the late point from"
                        };
                        err(
                            ErrorKind::ClobberedDef,
                            site,
                            format!("{what} is {how} {r}, which {i} clobbers"),
                        );
                    }
                }
            }
        }
        // Interference: a def may not share its location with an operand of
        // another vreg that occupies a common point. Two uses may share (the
        // dataflow check proves the values).
        let span = |op: Operand| match (op.is_def(), op.pos()) {
            (false, OperandPos::Early) => (true, false),
            (true, OperandPos::Late) => (false, true),
            _ => (true, true),
        };
        for (k2, (&o2, &a2)) in ops.iter().zip(allocs).enumerate() {
            if o2.is_nonalloc() || a2.is_none() {
                continue;
            }
            for (k1, (&o1, &a1)) in ops[..k2].iter().zip(allocs).enumerate() {
                if a1 != a2 || o1.is_nonalloc() || o1.vreg() == o2.vreg() {
                    continue;
                }
                // Two uses may share a location: if both read their vreg there
                // (the dataflow check), the vregs hold one value (copies).
                if o1.is_use() && o2.is_use() {
                    continue;
                }
                let reuse_of = |d: Operand, k: usize| d.constraint() == OperandConstraint::Reuse(k);
                if reuse_of(o1, k2) || reuse_of(o2, k1) {
                    continue;
                }
                let (s1, s2) = (span(o1), span(o2));
                // A reuse def beside an early input of another vreg is
                // judged by the dataflow, which knows whether the two
                // inputs hold one value (`Checker::check_reuse_sharing`).
                if (s1.0 && s2.0) || (s1.1 && s2.1) {
                    err(
                        ErrorKind::Interference,
                        Site::Alloc(i, k2),
                        format!(
                            "{i} operands {k1} ({o1}) and {k2} ({o2}) are both in {a2}, but one is written while the other still needs its value"
                        ),
                    );
                }
            }
        }
    }
    // Registers in no machine list that a `fixed` operand names and no
    // `nonalloc` operand does: the function hands them to the allocator
    // for those operands, so edits may fill and empty them.
    let handed = |r: PReg| fixed.contains(r) && !nonalloc.contains(r) && !roles.listed.contains(r);
    // Edits.
    let n = f.num_insts();
    let mut last = None;
    for (e, &(p, m)) in out.edits.iter().enumerate() {
        wide_in_slots |=
            matches!((m.from, m.to), (Allocation::Reg(r), Allocation::Stack(_)) if wide(r.class()));
        let site = Site::Edit(e);
        let what = Lazy(|| format!("the edit {p}: {} -> {}", m.from, m.to));
        if last.is_some_and(|l| p < l) {
            err(
                ErrorKind::EditOrder,
                site,
                format!(
                    "{what} comes after an edit at {}: edits must be sorted",
                    last.unwrap()
                ),
            );
        }
        last = Some(p);
        if p.inst().index() >= n {
            err(
                ErrorKind::EditPlacement,
                site,
                format!("{what} names an instruction that does not exist"),
            );
            continue;
        }
        if p.pos() == InstPosition::After && f.opcode(p.inst()).is_terminator() {
            err(
                ErrorKind::EditPlacement,
                site,
                format!(
                    "{what} comes after a {}, where nothing runs",
                    f.opcode(p.inst())
                ),
            );
        }
        if m.from.is_none() || m.to.is_none() {
            err(
                ErrorKind::NoneAllocation,
                site,
                format!("{what} moves from or to `none`"),
            );
            continue;
        }
        if roles.is_mem(m.from) && roles.is_mem(m.to) {
            err(
                ErrorKind::StackToStack,
                site,
                format!("{what} moves memory to memory"),
            );
        }
        // A move between a register and a slot fills the slots a value of
        // the register's class fills.
        let class = m.class().unwrap_or(allocator::RegClass::Int);
        for a in [m.from, m.to] {
            match a {
                Allocation::Stack(s) if !fits(env, class, s.index(), out.num_spillslots) => err(
                    ErrorKind::SpillSlotRange,
                    site,
                    format!(
                        "{what} uses {s}{}, but the allocation declares {}",
                        filling(env, class, s.index()),
                        slots(out.num_spillslots)
                    ),
                ),
                Allocation::Reg(r) if !(roles.listed.contains(r) || handed(r)) => err(
                    ErrorKind::NotInMachine,
                    site,
                    format!("{what} uses {r}, which the machine does not offer"),
                ),
                _ => {}
            }
        }
        if let (Allocation::Reg(a), Allocation::Reg(b)) = (m.from, m.to) {
            if a.class() != b.class() {
                err(
                    ErrorKind::WrongClass,
                    site,
                    format!("{what} moves between register classes"),
                );
            }
        }
    }
    wide_in_slots
}

/// Whether a value of `class` named `stack{k}` lies within the declared
/// `n` slots.
fn fits(env: &MachineEnv, class: allocator::RegClass, k: usize, n: usize) -> bool {
    env.slots.span(class, k).is_some_and(|r| r.end <= n)
}

/// ` (slots A to B)` when a value of `class` fills several slots.
fn filling(env: &MachineEnv, class: allocator::RegClass, k: usize) -> String {
    match env.slots.span(class, k) {
        Some(r) if r.len() > 1 => format!(" (a {class} value: slots {} to {})", r.start, r.end - 1),
        Some(_) => String::new(),
        None => format!(
            " (a {class} value of {} slots named by its last, which would start below slot 0)",
            env.slots.size(class)
        ),
    }
}
