//! The operand rules of the validator: each instruction's constraints
//! against the machine and against each other, with what they ask of the
//! machine found once per machine.

use super::error::{err, Site, ValidationError};
use crate::ir::function::Function;
use crate::ir::index::{Inst, PRegSet, RegClass};
use crate::ir::machine::{MachineEnv, PRegRole};
use crate::ir::operand::{OperandConstraint, OperandPos};

/// What the operand rules ask of the machine, found once per validation
/// instead of by a scan of its lists at every operand.
pub(super) struct MachineFacts {
    /// Registers whose role is not [`PRegRole::NonAllocatable`].
    listed: PRegSet,
    /// Registers whose role is [`PRegRole::Scratch`].
    scratch: PRegSet,
    /// Per class, the lowest hardware number of an allocatable register
    /// (`usize::MAX` when there is none).
    lowest_allocatable: [usize; 3],
}

impl MachineFacts {
    pub(super) fn new(env: &MachineEnv) -> MachineFacts {
        let mut scratch = PRegSet::empty();
        for r in env.scratch.iter().flatten() {
            if env.role(*r) == PRegRole::Scratch {
                scratch.insert(*r);
            }
        }
        MachineFacts {
            listed: env.listed_set(),
            scratch,
            lowest_allocatable: RegClass::ALL.map(|c| {
                env.allocatable(c)
                    .map(|r| r.hw())
                    .min()
                    .unwrap_or(usize::MAX)
            }),
        }
    }
}

/// Constraints against the machine and against each other within one
/// instruction.
pub(super) fn check_operands(
    f: &Function,
    facts: &MachineFacts,
    env: &MachineEnv,
    i: Inst,
    errs: &mut Vec<ValidationError>,
) {
    let ops = f.inst_operands(i);
    let clobbers = f.inst_clobbers(i);
    let mut clobbered = PRegSet::empty();
    for (k, &r) in clobbers.iter().enumerate() {
        if clobbered.contains(r) {
            errs.push(err(
                Site::Clobber(i, k),
                format!("{r} is clobbered twice by {i}"),
            ));
        }
        clobbered.insert(r);
    }
    // Only these constraints have rules of their own; most instructions
    // have none of them.
    let ruled = |c| {
        matches!(
            c,
            OperandConstraint::NonAlloc(_)
                | OperandConstraint::FixedReg(_)
                | OperandConstraint::Reuse(_)
                | OperandConstraint::Limit(_)
        )
    };
    if !ops.iter().any(|op| ruled(op.constraint())) {
        return;
    }
    // Registers named by nonalloc operands: no fixed operand may use them.
    let named: PRegSet = {
        let mut n = PRegSet::empty();
        for op in ops {
            if let OperandConstraint::NonAlloc(r) = op.constraint() {
                n.insert(r);
            }
        }
        n
    };
    // Fixed registers claimed at the early and the late point (by whom is
    // looked up again only for a message).
    let mut claimed = [PRegSet::empty(), PRegSet::empty()];
    for (k, op) in ops.iter().enumerate() {
        let site = Site::Operand(i, k);
        match op.constraint() {
            OperandConstraint::NonAlloc(r) if facts.listed.contains(r) => {
                errs.push(err(
                    site,
                    format!(
                        "nonalloc({r}) names a register the machine lists ({}); nonalloc is for registers in no list",
                        role_name(env.role(r))
                    ),
                ));
            }
            OperandConstraint::FixedReg(r) => {
                let v = op.vreg();
                if r.class() != v.class() {
                    errs.push(err(
                        site,
                        format!(
                            "fixed({r}) names a {} register for {v}, of class {}",
                            r.class(),
                            v.class()
                        ),
                    ));
                }
                if named.contains(r) {
                    errs.push(err(
                        site,
                        format!("fixed({r}) names a register that a nonalloc operand of {i} names directly"),
                    ));
                }
                if facts.scratch.contains(r) {
                    errs.push(err(
                        site,
                        format!(
                            "fixed({r}) names the scratch register, which belongs to the allocator"
                        ),
                    ));
                }
                let point = op.pos() as usize;
                if claimed[point].contains(r) {
                    let first = ops[..k]
                        .iter()
                        .position(|o| {
                            o.pos() == op.pos() && o.constraint() == OperandConstraint::FixedReg(r)
                        })
                        .unwrap_or(0);
                    let at = match op.pos() {
                        OperandPos::Early => "early",
                        OperandPos::Late => "late",
                    };
                    errs.push(err(
                        site,
                        format!("operands {first} and {k} of {i} both need {r} at the {at} point"),
                    ));
                } else {
                    claimed[point].insert(r);
                }
                if op.is_def() && clobbered.contains(r) {
                    errs.push(err(
                        site,
                        format!("the def of {v} is fixed to {r}, which {i} clobbers"),
                    ));
                }
            }
            OperandConstraint::Reuse(target) => {
                let v = op.vreg();
                if !op.is_def() {
                    errs.push(err(site, "reuse is for defs only".into()));
                } else if target >= ops.len() {
                    errs.push(err(
                        site,
                        format!(
                            "reuse({target}) names operand {target}, but {i} has {} operands",
                            ops.len()
                        ),
                    ));
                } else if !ops[target].is_use() {
                    errs.push(err(
                        site,
                        format!("reuse({target}) must name a use, but operand {target} of {i} is not one"),
                    ));
                } else if ops[target].class() != v.class() {
                    errs.push(err(
                        site,
                        format!(
                            "reuse({target}) names a use of class {}, but {v} is of class {}",
                            ops[target].class(),
                            v.class()
                        ),
                    ));
                } else if let Some(j) = ops[..k]
                    .iter()
                    .position(|o| o.is_def() && o.constraint() == OperandConstraint::Reuse(target))
                {
                    errs.push(err(
                        site,
                        format!(
                            "operands {j} and {k} of {i} both reuse operand {target}: two defs cannot both take one input's location"
                        ),
                    ));
                }
            }
            OperandConstraint::Limit(n) => {
                let class = op.class();
                if facts.lowest_allocatable[class.index()] >= n as usize {
                    errs.push(err(
                        site,
                        format!("limit({n}) admits no allocatable {class} register (none has a number below {n})"),
                    ));
                }
            }
            _ => {}
        }
    }
}

fn role_name(r: PRegRole) -> &'static str {
    match r {
        PRegRole::Preferred => "preferred",
        PRegRole::NonPreferred => "nonpreferred",
        PRegRole::Scratch => "scratch",
        PRegRole::FixedStack => "fixed_stack",
        PRegRole::NonAllocatable => "none",
    }
}
