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
    if let Some(wide_in_slots) = clean(f, env, roles, out) {
        if cfg!(debug_assertions) {
            let mut found = Vec::new();
            let wide = every_finding(f, env, roles, out, &mut found);
            assert!(
                found.is_empty() && wide == wide_in_slots,
                "the structural checks' fast pass passes what they do not: {found:?}"
            );
        }
        return wide_in_slots;
    }
    every_finding(f, env, roles, out, errs)
}

/// Whether [`every_finding`] finds nothing, in one walk that builds no
/// message: `Some` of whether the allocation writes a value filling
/// several slots to a slot when it finds nothing, `None` when it may find
/// anything. Nearly every allocation a compiler checks is correct, and
/// messages are built only for those that are not.
fn clean(f: &Function, env: &MachineEnv, roles: &Roles, out: &Output) -> Option<bool> {
    let some_wide = !env.slots.is_unit();
    let wide = |c: allocator::RegClass| some_wide && env.slots.size(c) > 1;
    let nslots = out.num_spillslots;
    let mut wide_in_slots = false;
    let (mut fixed, mut nonalloc) = (PRegSet::empty(), PRegSet::empty());
    for (ops, allocs, clobbers) in instructions(f, out) {
        for (k, (&op, &a)) in ops.iter().zip(allocs).enumerate() {
            let c = op.constraint();
            let ok = match a {
                Allocation::None => false,
                Allocation::Reg(r) => {
                    let allocatable = roles.allocatable.contains(r);
                    r.class() == op.class()
                        && match c {
                            OperandConstraint::FixedReg(x) => {
                                fixed.insert(x);
                                r == x
                            }
                            OperandConstraint::NonAlloc(x) => {
                                nonalloc.insert(x);
                                r == x
                            }
                            OperandConstraint::Reg => allocatable,
                            OperandConstraint::Stack => roles.fixed_stack.contains(r),
                            OperandConstraint::Limit(n) => allocatable && r.hw() < n as usize,
                            OperandConstraint::Reuse(t) => allocs.get(t) == Some(&a),
                            OperandConstraint::Any => allocatable || roles.fixed_stack.contains(r),
                        }
                        && !((op.is_def() || op.pos() == OperandPos::Late) && clobbers.contains(&r))
                }
                Allocation::Stack(s) => {
                    wide_in_slots |= op.is_def() && wide(op.class());
                    fits(env, op.class(), s.index(), nslots)
                        && match c {
                            OperandConstraint::Stack | OperandConstraint::Any => true,
                            OperandConstraint::Reuse(t) => allocs.get(t) == Some(&a),
                            _ => false,
                        }
                }
            };
            if !ok {
                return None;
            }
            for k1 in 0..k {
                if allocs[k1] == a && interfere(ops, allocs, k1, k) {
                    return None;
                }
            }
        }
    }
    let mut last = None;
    for &(p, m) in &out.edits {
        if last.is_some_and(|l| p < l)
            || p.inst().index() >= f.num_insts()
            || (p.pos() == InstPosition::After && f.opcode(p.inst()).is_terminator())
            || (roles.is_mem(m.from) && roles.is_mem(m.to))
        {
            return None;
        }
        last = Some(p);
        let class = match (m.from, m.to) {
            (Allocation::Reg(a), Allocation::Reg(b)) if a.class() != b.class() => return None,
            (Allocation::Reg(r), Allocation::Stack(_)) => {
                wide_in_slots |= wide(r.class());
                r.class()
            }
            (Allocation::Reg(r), _) | (_, Allocation::Reg(r)) => r.class(),
            _ => allocator::RegClass::Int,
        };
        for a in [m.from, m.to] {
            let ok = match a {
                Allocation::None => false,
                Allocation::Stack(s) => fits(env, class, s.index(), nslots),
                Allocation::Reg(r) => {
                    roles.listed.contains(r) || (fixed.contains(r) && !nonalloc.contains(r))
                }
            };
            if !ok {
                return None;
            }
        }
    }
    Some(wide_in_slots)
}

/// Each instruction's operands, their allocations and its clobbers, in
/// program order.
fn instructions<'a>(
    f: &'a Function,
    out: &'a Output,
) -> impl Iterator<Item = (&'a [Operand], &'a [Allocation], &'a [PReg])> + 'a {
    f.insts().map(move |i| {
        (
            f.inst_operands(i),
            out.inst_allocs(f, i),
            f.inst_clobbers(i),
        )
    })
}

/// Whether operands `k1` and `k2` (`k1 < k2`) of one instruction share a
/// location while one is written and the other still needs its value.
fn interfere(ops: &[Operand], allocs: &[Allocation], k1: usize, k2: usize) -> bool {
    let (o1, o2) = (ops[k1], ops[k2]);
    let (a1, a2) = (allocs[k1], allocs[k2]);
    if o2.is_nonalloc() || a2.is_none() || a1 != a2 || o1.is_nonalloc() || o1.vreg() == o2.vreg() {
        return false;
    }
    // Two uses may share a location: if both read their vreg there (the
    // dataflow check), the vregs hold one value (copies).
    if o1.is_use() && o2.is_use() {
        return false;
    }
    let reuse_of = |d: Operand, k: usize| d.constraint() == OperandConstraint::Reuse(k);
    if reuse_of(o1, k2) || reuse_of(o2, k1) {
        return false;
    }
    // A reuse def beside an early input of another vreg is judged by the
    // dataflow, which knows whether the two inputs hold one value
    // (`Checker::check_reuse_sharing`).
    let span = |op: Operand| match (op.is_def(), op.pos()) {
        (false, OperandPos::Early) => (true, false),
        (true, OperandPos::Late) => (false, true),
        _ => (true, true),
    };
    let (s1, s2) = (span(o1), span(o2));
    (s1.0 && s2.0) || (s1.1 && s2.1)
}

/// Every finding of the structural checks, each with its message.
fn every_finding(
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
    for (i, (ops, allocs, clobbers)) in f.insts().zip(instructions(f, out)) {
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
        // another vreg that occupies a common point.
        for k2 in 0..ops.len() {
            for k1 in 0..k2 {
                if interfere(ops, allocs, k1, k2) {
                    let (o1, o2, a2) = (ops[k1], ops[k2], allocs[k2]);
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

#[cfg(test)]
mod tests {
    use super::{clean, every_finding, Roles};
    use allocator::fixtures::hand_written;
    use allocator::ir::text::parse_and_validate;

    /// The fast pass passes exactly the hand-written allocations in which
    /// the full checks find nothing, and says whether each writes a value
    /// filling several slots to a slot as they do.
    #[test]
    fn the_fast_pass_passes_exactly_what_the_full_checks_find_nothing_in() {
        let (mut passed, mut failed) = (0, 0);
        for dir in ["check", "valid"] {
            for path in hand_written(dir) {
                let (case, _) = parse_and_validate(&std::fs::read(&path).unwrap()).unwrap();
                let Some(out) = &case.output else { continue };
                if out.allocs.len() != case.func.num_operands() {
                    continue;
                }
                let (f, env) = (&case.func, &case.machine);
                let roles = Roles::new(env);
                let mut found = Vec::new();
                let wide = every_finding(f, env, &roles, out, &mut found);
                let fast = clean(f, env, &roles, out);
                assert_eq!(fast, found.is_empty().then_some(wide), "{}", path.display());
                passed += usize::from(fast.is_some());
                failed += usize::from(fast.is_none());
            }
        }
        assert!(
            passed >= 20 && failed >= 20,
            "{passed} passed, {failed} failed"
        );
    }
}
