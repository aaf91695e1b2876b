//! The valid cases of ours the adapter keeps from the `regalloc` crate,
//! recognised before lowering, of two kinds (as for regalloc2,
//! [`crate::outside::ra2::exclusions`]):
//!
//! - a **limitation**: something the crate's interface has no form for, or
//!   its documentation says it does not take, with [`Exclusion::source`]
//!   citing regalloc 0.0.34; answered
//!   [`AllocError::Unsupported`](allocator::AllocError::Unsupported);
//! - a **known bug**: a combination the crate takes and gets wrong, found
//!   by fuzzing; answered
//!   [`AllocError::Suppressed`](allocator::AllocError::Suppressed), and run
//!   anyway under `--no-suppress`.
//!
//! docs/regalloc-rs.md lists them, each with an example under
//! `tests/regressions/regalloc_rs/` that a test shows excluded for exactly
//! its reason (and, for a known bug, failing when run anyway).

use crate::judging::refusals::Kind;
use allocator::{Function, MachineEnv, OperandConstraint, OperandKind, OperandPos, PRegRole};

/// One combination the adapter does not hand to the crate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exclusion {
    /// A `stack` operand: an instruction names registers only; memory
    /// operands exist only where the allocator itself folds a reload
    /// (`maybe_direct_reload`), never as a requirement.
    StackOperand,
    /// A `limit` operand: a class's allocatable registers are one range of
    /// the universe, with no subset an operand could ask for.
    LimitOperand,
    /// A branch into a join that must be followed by a copy out of a fixed
    /// def's register: the copy would come after the branch (our generator
    /// only puts defs on branches with several successors).
    FixedDefIntoJoin,
    /// An instruction whose lowered form names more registers of a class
    /// at one point than the crate may allocate (the scratch excluded):
    /// the crate gives every register mention a register, where we may put
    /// an `any` operand on the stack. Found after lowering
    /// ([`super::lower::LoweredFunc::overfull`]).
    TooFewRegisters,
    /// The crate gives up (`RegAllocError::OutOfRegisters`) on a case it
    /// was handed, which we can allocate: the crate documents that it may.
    /// Recognised from its answer, not before the run.
    OutOfRegisters,
    /// Linear scan: a class the function uses has no scratch register; the
    /// crate requires one per class (`MissingSuggestedScratchReg`).
    LsraNoScratch,
    /// Linear scan: a branch that names a register it allocates, into a
    /// join (`AnalysisError::LsraCriticalEdge`).
    LsraBranchIntoJoin,
    /// Backtracking: a class whose values fill more than eight spill
    /// slots; its slot allocator asserts sizes of 1, 2, 4 or 8.
    SlotSizeOver8,
    /// Known bug (backtracking): a block's last instruction defines a value
    /// that is used after it; when the value is spilled, the store is
    /// placed after the branch, where it never runs.
    BranchDefSpilledAfter,
    /// Known bug (linear scan): an instruction that modifies a vreg in
    /// place (a late use, an early def or a `reuse` def, all lowered to
    /// `mod`) and writes a register the scan allocates (a clobber or a
    /// `fixed` def); the scan reads a value from a register that holds
    /// another (and, with the crate's debug assertions on, fails one
    /// splitting the interval).
    LsraModWithWrite,
    /// Known bug (linear scan): values filling several spill slots. The
    /// scan moves its next free slot on by one whatever the size it just
    /// spilled (`src/linear_scan/assign_registers.rs:507`), so the slot
    /// count it returns misses the last value's tail (the frame is too
    /// small) and a smaller value spilled next overlaps the larger one.
    LsraMultiSlotValues,
    /// Known bug of the crate's checker (seen on the linear scan): it
    /// rejects a correct allocation (our checker and interpreter accept
    /// it) with `IncorrectValueInReg` only, naming a value by the register
    /// that defined it: a value reached through a copy into a fixed
    /// register counts as the register's own, and one reached through a
    /// copy the allocator coalesced away (a block parameter) as the copy's
    /// source. Recognised from the checker's answer, not before the run.
    CheckerCopiedValue,
}

impl Exclusion {
    pub const ALL: [Exclusion; 12] = [
        Exclusion::StackOperand,
        Exclusion::LimitOperand,
        Exclusion::FixedDefIntoJoin,
        Exclusion::TooFewRegisters,
        Exclusion::OutOfRegisters,
        Exclusion::LsraNoScratch,
        Exclusion::LsraBranchIntoJoin,
        Exclusion::SlotSizeOver8,
        Exclusion::BranchDefSpilledAfter,
        Exclusion::LsraModWithWrite,
        Exclusion::LsraMultiSlotValues,
        Exclusion::CheckerCopiedValue,
    ];

    /// A short name, used in the `unsupported:` reason and the docs.
    pub fn name(self) -> &'static str {
        match self {
            Exclusion::StackOperand => "stack-operand",
            Exclusion::LimitOperand => "limit-operand",
            Exclusion::FixedDefIntoJoin => "fixed-def-into-join",
            Exclusion::TooFewRegisters => "too-few-registers",
            Exclusion::OutOfRegisters => "out-of-registers",
            Exclusion::LsraNoScratch => "lsra-no-scratch",
            Exclusion::LsraBranchIntoJoin => "lsra-branch-into-join",
            Exclusion::SlotSizeOver8 => "slot-size-over-8",
            Exclusion::BranchDefSpilledAfter => "branch-def-spilled-after",
            Exclusion::LsraModWithWrite => "lsra-mod-with-write",
            Exclusion::LsraMultiSlotValues => "lsra-multi-slot-values",
            Exclusion::CheckerCopiedValue => "checker-copied-value",
        }
    }

    /// A limitation or a known bug.
    pub fn kind(self) -> Kind {
        match self {
            Exclusion::BranchDefSpilledAfter
            | Exclusion::LsraModWithWrite
            | Exclusion::LsraMultiSlotValues
            | Exclusion::CheckerCopiedValue => Kind::KnownBug,
            _ => Kind::Limitation,
        }
    }

    /// Where regalloc 0.0.34 says it, or why the interface has no form (a
    /// limitation), or where the known bug is described.
    pub fn source(self) -> &'static str {
        match self {
            Exclusion::BranchDefSpilledAfter
            | Exclusion::LsraModWithWrite
            | Exclusion::LsraMultiSlotValues
            | Exclusion::CheckerCopiedValue => "docs/regalloc-rs.md, \"Known bugs\"",
            Exclusion::StackOperand => {
                "src/lib.rs:253 (Function::get_regs: an instruction names registers; a spill \
                 slot appears in an instruction only through maybe_direct_reload, src/lib.rs:340, \
                 which the allocator may call, not the client)"
            }
            Exclusion::LimitOperand => {
                "src/data_structures.rs:1218 (RealRegUniverse::allocable_by_class: one contiguous \
                 range of registers per class; no narrower set exists for an operand)"
            }
            Exclusion::FixedDefIntoJoin => {
                "src/lib.rs:508 (\"The control flow graph must not contain any critical edges\"): \
                 the copy out of the register needs a block of its own on the edge"
            }
            Exclusion::TooFewRegisters | Exclusion::OutOfRegisters => {
                "src/lib.rs:423 (RegAllocError::OutOfRegisters) and src/linear_scan/mod.rs:622 \
                 (\"Allocation can fail if there are insufficient registers to even generate \
                 spill/reload code\")"
            }
            Exclusion::SlotSizeOver8 => {
                "src/bt_spillslot_allocator.rs:344 (assert!(req_size == 1 || req_size == 2 || \
                 req_size == 4 || req_size == 8))"
            }
            Exclusion::LsraNoScratch => {
                "src/lib.rs:127 (\"For each class, the universe must offer a reserved \
                 register\"); src/linear_scan/mod.rs:608 (MissingSuggestedScratchReg)"
            }
            Exclusion::LsraBranchIntoJoin => {
                "src/analysis_main.rs:53 (AnalysisError::LsraCriticalEdge: \"Linear scan requires \
                 that if a block ends with a control flow instruction that has at least one \
                 register mention (use, mod or def), then the successor blocks must have a single \
                 predecessor\")"
            }
        }
    }

    /// Whether it applies to the linear scan (`lsra`) or the backtracking
    /// allocator.
    pub fn applies_to(self, lsra: bool) -> bool {
        match self {
            Exclusion::LsraNoScratch
            | Exclusion::LsraBranchIntoJoin
            | Exclusion::LsraModWithWrite
            | Exclusion::LsraMultiSlotValues => lsra,
            Exclusion::BranchDefSpilledAfter | Exclusion::SlotSizeOver8 => !lsra,
            _ => true,
        }
    }
}

impl std::fmt::Display for Exclusion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind() {
            Kind::Limitation => write!(f, "regalloc does not support {}", self.name()),
            Kind::KnownBug => write!(f, "known regalloc bug {}", self.name()),
        }
    }
}

/// The first exclusion `func` on `env` hits for the backtracking allocator
/// (`lsra` false) or the linear scan: limitations before known bugs, so
/// that `--no-suppress` still never hands the crate what it cannot take.
pub fn check(func: &Function, env: &MachineEnv, lsra: bool) -> Option<Exclusion> {
    let mut hits = [false; Exclusion::ALL.len()];
    find(func, env, |x| hits[x as usize] = true);
    let hit = |x: &&Exclusion| hits[**x as usize] && x.applies_to(lsra);
    let limitation = Exclusion::ALL
        .iter()
        .filter(hit)
        .find(|x| x.kind() == Kind::Limitation);
    limitation
        .or_else(|| Exclusion::ALL.iter().find(hit))
        .copied()
}

/// Reports every exclusion `func` on `env` hits, for either algorithm.
fn find(func: &Function, env: &MachineEnv, mut hit: impl FnMut(Exclusion)) {
    let used = super::lower::classes_used(func);
    if allocator::RegClass::ALL
        .iter()
        .any(|&c| used[c.index()] && env.slots.size(c) > 8)
    {
        hit(Exclusion::SlotSizeOver8);
    }
    if allocator::RegClass::ALL
        .iter()
        .any(|&c| used[c.index()] && env.slots.size(c) > 1)
    {
        hit(Exclusion::LsraMultiSlotValues);
    }
    if (0..3).any(|c| used[c] && env.scratch[c].is_none()) {
        hit(Exclusion::LsraNoScratch);
    }
    // What the linear scan allocates: the lists and the scratch of the
    // classes the function uses (lower::Universe).
    let allocated = |r: allocator::PReg| {
        used[r.class().index()]
            && matches!(
                env.role(r),
                PRegRole::Preferred | PRegRole::NonPreferred | PRegRole::Scratch
            )
    };
    let mut read: Option<Vec<bool>> = None;
    for i in func.insts() {
        let ops = func.inst_operands(i);
        for op in ops.iter().filter(|op| !op.is_nonalloc()) {
            match op.constraint() {
                OperandConstraint::Stack => hit(Exclusion::StackOperand),
                OperandConstraint::Limit(_) => hit(Exclusion::LimitOperand),
                _ => {}
            }
        }
        let clobbers = func.inst_clobbers(i).iter().any(|&r| allocated(r));
        let fixed_def = |op: &allocator::Operand| {
            op.is_def() && matches!(op.constraint(), OperandConstraint::FixedReg(r) if allocated(r))
        };
        // What the lowering makes a `mod` of a vreg (a fixed operand is one
        // of its real register instead).
        let in_place = ops.iter().any(|op| match op.constraint() {
            OperandConstraint::NonAlloc(_) | OperandConstraint::FixedReg(_) => false,
            OperandConstraint::Reuse(k) => {
                !matches!(ops[k].constraint(), OperandConstraint::FixedReg(_))
            }
            _ => {
                op.pos()
                    == if op.is_use() {
                        OperandPos::Late
                    } else {
                        OperandPos::Early
                    }
            }
        });
        if in_place && (clobbers || ops.iter().any(fixed_def)) {
            hit(Exclusion::LsraModWithWrite);
        }
        if !func.opcode(i).is_terminator() {
            continue;
        }
        let read = read.get_or_insert_with(|| vregs_read(func));
        if ops.iter().any(|op| op.is_def() && read[op.vreg().index()]) {
            hit(Exclusion::BranchDefSpilledAfter);
        }
        let b = func.block_of(i);
        if !func
            .block_succs(b)
            .iter()
            .any(|&s| func.block_preds(s).len() > 1)
        {
            continue;
        }
        let fixed_def = ops.iter().any(|op| {
            op.kind() == OperandKind::Def
                && match op.constraint() {
                    OperandConstraint::FixedReg(_) => true,
                    OperandConstraint::Reuse(k) => {
                        matches!(ops[k].constraint(), OperandConstraint::FixedReg(_))
                    }
                    _ => false,
                }
        });
        if fixed_def {
            hit(Exclusion::FixedDefIntoJoin);
        }
        let mentions = clobbers
            || ops.iter().any(|op| match op.constraint() {
                OperandConstraint::NonAlloc(_) => false,
                OperandConstraint::FixedReg(r) => allocated(r),
                _ => true,
            });
        if mentions {
            hit(Exclusion::LsraBranchIntoJoin);
        }
    }
}

/// Whether the crate's checker errors are all of the kind of the false
/// alarm [`Exclusion::CheckerCopiedValue`] (the caller has our oracles'
/// verdict).
pub fn is_copied_value_false_alarm(errs: &regalloc::CheckerErrors) -> bool {
    // The errors are private but for their Debug form.
    let text = format!("{errs:?}");
    let n = text.matches("IncorrectValueInReg { ").count();
    n > 0 && n == text.matches("inst: ").count()
}

/// Per vreg, whether an operand or a branch argument reads it.
fn vregs_read(func: &Function) -> Vec<bool> {
    let mut read = vec![false; func.num_vregs()];
    for i in func.insts() {
        for op in func
            .inst_operands(i)
            .iter()
            .filter(|op| op.is_use() && !op.is_nonalloc())
        {
            read[op.vreg().index()] = true;
        }
    }
    for b in func.blocks() {
        for t in 0..func.block_succs(b).len() {
            func.branch_args(b, t)
                .iter()
                .for_each(|v| read[v.index()] = true);
        }
    }
    read
}
