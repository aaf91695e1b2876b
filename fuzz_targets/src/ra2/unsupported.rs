//! The valid cases regalloc2 does not take, recognised before it runs.
//!
//! regalloc2 documents some of these (it returns an error), others it meets
//! with a panic or a `todo!`. Each is a [`Limitation`]; docs/regalloc2.md lists
//! them with a reduced example under `tests/regressions/regalloc2/`, and a test
//! checks that each example is refused for exactly its reason. A case that
//! hits none of them and still fails inside regalloc2 is a finding.

use allocator::{
    Function, FunctionBuilder, MachineEnv, Opcode, Operand, OperandConstraint, OperandKind,
    OperandPos, PRegRole,
};
use regalloc2::Algorithm;

/// One combination regalloc2 does not support.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limitation {
    /// A branch with operands whose successor has several predecessors:
    /// regalloc2 places the edge moves before the branch, where they could
    /// overwrite what the branch reads (`RegAllocError::DisallowedBranchArg`).
    /// Our format allows it; the moves then go before the branch's operands
    /// are read only if the allocator keeps them apart.
    BranchOperandsIntoJoin,
    /// One instruction uses the same vreg twice and one of the uses is
    /// `stack` (ion panics: "multiple uses of vreg with a Stack
    /// constraint are not supported").
    RepeatedStackUse,
    /// One instruction uses the same vreg twice and one of the uses is
    /// `limit` (ion orders the fix-up moves for the repeated uses
    /// wrongly and a use reads a register that holds nothing; its own fuzzer
    /// never generates `limit`).
    RepeatedLimitUse,
    /// One instruction uses the same vreg twice and one of the uses is a
    /// `fixed` use that ion holds to the late point (a late use, or an early
    /// one in an instruction with a `reuse` def other than the reused input):
    /// ion places the copy into the second fixed register after the
    /// instruction, too late. Its own fuzzer has no late uses.
    RepeatedLateFixedUse,
    /// An instruction with a `reuse` def that breaks our feasibility rules
    /// once its early uses, other than the reused input, are held to the
    /// late point, as ion holds them: they then need registers at the late
    /// point too, and may not be in a register the instruction clobbers.
    /// ion fails with `TooManyLiveRegs` or panics ("Could not allocate
    /// minimal bundle"); by our rules those uses die early.
    ReuseExtendsUses,
    /// A `limit` constraint (fastalloc: `todo!("limit constraints are not
    /// yet supported in fastalloc")`).
    LimitInFastalloc,
    /// A def on a branch whose value is used after it (fastalloc panics for
    /// `reg`, `limit` and `reuse` defs, and places the move of a `fixed`
    /// one after the branch, where nothing runs).
    BranchDefInFastalloc,
    /// A branch with a use operand, to successors that are no join (those
    /// are `BranchOperandsIntoJoin`): fastalloc may then place a move after
    /// an earlier block's branch, where nothing runs. Found by a CI fuzz
    /// smoke run (the reduced case has two such branches); regalloc2's own
    /// fuzzer never puts operands on branches.
    BranchUseInFastalloc,
    /// A `stack` def (fastalloc spills a register over the value it just
    /// defined in the slot when the value is later used from a register;
    /// its own fuzzer never generates `stack`).
    StackDefInFastalloc,
    /// `reuse(k)` with k above 31 (regalloc2 packs k in five bits).
    ReuseIndexTooLarge,
    /// `reuse(k)` of a use that is not `reg`: regalloc2 always gives a
    /// reuse pair a register, drops the input's own constraint (`stack`,
    /// `fixed`, `limit`: ion), loses the input's value when it lives on
    /// (`fixed`: fastalloc), and fails with `TooManyLiveRegs` when the
    /// instruction clobbers every register (`any`, which ours may put on
    /// the stack). Its own fuzzer reuses only `reg` uses.
    ReuseOfNonRegUse,
    /// A `fixed` operand naming a register in no machine list. regalloc2
    /// passes a non-allocatable register through only as a vreg-less
    /// `fixed_nonallocatable` operand; with a vreg fixed to one, ion lets
    /// the register's hint reach other operands (it gives a `reg` def the
    /// register) and fastalloc gives up (`TooManyLiveRegs`).
    FixedUnlisted,
}

impl Limitation {
    pub const ALL: [Limitation; 12] = [
        Limitation::BranchOperandsIntoJoin,
        Limitation::RepeatedStackUse,
        Limitation::RepeatedLimitUse,
        Limitation::RepeatedLateFixedUse,
        Limitation::ReuseExtendsUses,
        Limitation::LimitInFastalloc,
        Limitation::BranchDefInFastalloc,
        Limitation::BranchUseInFastalloc,
        Limitation::StackDefInFastalloc,
        Limitation::ReuseIndexTooLarge,
        Limitation::ReuseOfNonRegUse,
        Limitation::FixedUnlisted,
    ];

    /// A short name, used in the `unsupported:` reason and the docs.
    pub fn name(self) -> &'static str {
        match self {
            Limitation::BranchOperandsIntoJoin => "branch-operands-into-join",
            Limitation::RepeatedStackUse => "repeated-stack-use",
            Limitation::RepeatedLimitUse => "repeated-limit-use",
            Limitation::RepeatedLateFixedUse => "repeated-late-fixed-use",
            Limitation::ReuseExtendsUses => "reuse-extends-uses",
            Limitation::LimitInFastalloc => "limit-in-fastalloc",
            Limitation::BranchDefInFastalloc => "branch-def-in-fastalloc",
            Limitation::BranchUseInFastalloc => "branch-use-in-fastalloc",
            Limitation::StackDefInFastalloc => "stack-def-in-fastalloc",
            Limitation::ReuseIndexTooLarge => "reuse-index-too-large",
            Limitation::ReuseOfNonRegUse => "reuse-of-non-reg-use",
            Limitation::FixedUnlisted => "fixed-unlisted",
        }
    }

    /// Which algorithms it applies to.
    pub fn applies_to(self, algorithm: Algorithm) -> bool {
        match self {
            Limitation::BranchOperandsIntoJoin
            | Limitation::ReuseIndexTooLarge
            | Limitation::ReuseOfNonRegUse
            | Limitation::FixedUnlisted => true,
            Limitation::RepeatedStackUse
            | Limitation::RepeatedLimitUse
            | Limitation::RepeatedLateFixedUse
            | Limitation::ReuseExtendsUses => {
                matches!(algorithm, Algorithm::Ion)
            }
            Limitation::LimitInFastalloc
            | Limitation::BranchDefInFastalloc
            | Limitation::BranchUseInFastalloc
            | Limitation::StackDefInFastalloc => {
                matches!(algorithm, Algorithm::Fastalloc)
            }
        }
    }

    /// Whether `func` hits this limitation.
    pub fn hit(self, func: &Function, env: &MachineEnv) -> bool {
        match self {
            Limitation::BranchOperandsIntoJoin => func.blocks().any(|b| {
                let last = func.block_insts(b).last();
                !func.inst_operands(last).is_empty()
                    && func
                        .block_succs(b)
                        .iter()
                        .any(|&s| allocator::analysis::cfg::effective_preds(func, s) > 1)
            }),
            Limitation::RepeatedStackUse => {
                repeated_use(func, |_, o| o.constraint() == OperandConstraint::Stack)
            }
            Limitation::RepeatedLimitUse => repeated_use(func, |_, o| {
                matches!(o.constraint(), OperandConstraint::Limit(_))
            }),
            Limitation::RepeatedLateFixedUse => repeated_use(func, |ops, o| {
                ion_late(ops, o) && matches!(o.constraint(), OperandConstraint::FixedReg(_))
            }),
            Limitation::ReuseExtendsUses => func
                .insts()
                .any(|i| !feasible_with_extended_uses(func, i, env)),
            Limitation::LimitInFastalloc => func.insts().any(|i| {
                func.inst_operands(i)
                    .iter()
                    .any(|o| matches!(o.constraint(), OperandConstraint::Limit(_)))
            }),
            Limitation::BranchDefInFastalloc => {
                let mut used = vec![false; func.num_vregs()];
                for i in func.insts() {
                    for o in func.inst_operands(i) {
                        if o.kind() == OperandKind::Use && !o.is_nonalloc() {
                            used[o.vreg().index()] = true;
                        }
                    }
                }
                for b in func.blocks() {
                    for (t, _) in func.block_succs(b).iter().enumerate() {
                        for v in func.branch_args(b, t) {
                            used[v.index()] = true;
                        }
                    }
                }
                func.insts().filter(|&i| func.is_branch(i)).any(|i| {
                    func.inst_operands(i)
                        .iter()
                        .any(|o| o.is_def() && used[o.vreg().index()])
                })
            }
            // Branches into a join are `BranchOperandsIntoJoin` already.
            Limitation::BranchUseInFastalloc => func.blocks().any(|b| {
                let last = func.block_insts(b).last();
                func.is_branch(last)
                    && func.inst_operands(last).iter().any(|o| o.is_use())
                    && func
                        .block_succs(b)
                        .iter()
                        .all(|&s| allocator::analysis::cfg::effective_preds(func, s) <= 1)
            }),
            Limitation::StackDefInFastalloc => func.insts().any(|i| {
                func.inst_operands(i)
                    .iter()
                    .any(|o| o.is_def() && o.constraint() == OperandConstraint::Stack)
            }),
            Limitation::ReuseIndexTooLarge => func.insts().any(|i| {
                func.inst_operands(i)
                    .iter()
                    .any(|o| matches!(o.constraint(), OperandConstraint::Reuse(k) if k > 31))
            }),
            Limitation::ReuseOfNonRegUse => func.insts().any(|i| {
                let ops = func.inst_operands(i);
                ops.iter().any(|o| {
                    matches!(o.constraint(), OperandConstraint::Reuse(k)
                        if ops.get(k).is_some_and(|u| u.constraint() != OperandConstraint::Reg))
                })
            }),
            Limitation::FixedUnlisted => func.insts().any(|i| {
                func.inst_operands(i).iter().any(|o| {
                    matches!(o.constraint(), OperandConstraint::FixedReg(r)
                        if env.role(r) == PRegRole::NonAllocatable)
                })
            }),
        }
    }
}

/// Whether some instruction uses one vreg twice, one of the two uses one
/// that `special` picks out. (ion's trouble is two uses at one point,
/// but it moves early uses to the late point in some instructions, so any
/// two uses count.)
fn repeated_use(func: &Function, special: impl Fn(&[Operand], Operand) -> bool) -> bool {
    func.insts().any(|i| {
        let ops = func.inst_operands(i);
        ops.iter().enumerate().any(|(k, a)| {
            a.is_use()
                && !a.is_nonalloc()
                && ops[k + 1..].iter().any(|b| {
                    b.is_use()
                        && b.vreg() == a.vreg()
                        && !b.is_nonalloc()
                        && (special(ops, *a) || special(ops, *b))
                })
        })
    })
}

/// The vreg of the first reused input of an instruction, if any.
fn reused_input(ops: &[Operand]) -> Option<allocator::VReg> {
    ops.iter().find_map(|o| match o.constraint() {
        OperandConstraint::Reuse(k) => ops.get(k).map(|u| u.vreg()),
        _ => None,
    })
}

/// Whether ion holds the use `o` of an instruction with operands `ops` to
/// the late point: a late use, or an early use of an instruction with a
/// `reuse` def other than the (first) reused input.
fn ion_late(ops: &[Operand], o: Operand) -> bool {
    o.is_use()
        && !o.is_nonalloc()
        && (o.pos() == OperandPos::Late || reused_input(ops).is_some_and(|v| v != o.vreg()))
}

/// Whether instruction `i` stays feasible by ssagen's rules when the uses
/// ion holds to the late point ([`ion_late`]) are made late uses.
fn feasible_with_extended_uses(func: &Function, i: allocator::Inst, env: &MachineEnv) -> bool {
    let ops = func.inst_operands(i);
    if reused_input(ops).is_none() {
        return true;
    }
    let extended: Vec<Operand> = ops
        .iter()
        .map(|&o| {
            if o.pos() == OperandPos::Early && ion_late(ops, o) {
                Operand::new(o.vreg(), o.kind(), OperandPos::Late, o.constraint())
            } else {
                o
            }
        })
        .collect();
    let mut b = FunctionBuilder::new();
    b.block(&[]);
    b.inst(Opcode::Op, &extended, func.inst_clobbers(i), &[]);
    b.inst(Opcode::Ret, &[], &[], &[]);
    b.finish()
        .map_or(true, |f| ssagen::feasibility::check(&f, env).is_ok())
}

/// The first limitation of `algorithm` that `func` hits, if any.
pub fn check(algorithm: Algorithm, func: &Function, env: &MachineEnv) -> Option<Limitation> {
    Limitation::ALL
        .into_iter()
        .find(|l| l.applies_to(algorithm) && l.hit(func, env))
}

impl std::fmt::Display for Limitation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "regalloc2 does not support {}", self.name())
    }
}
