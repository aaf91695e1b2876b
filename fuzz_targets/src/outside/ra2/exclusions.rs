//! The valid cases of ours the adapter keeps from regalloc2, recognised
//! before it runs, of two kinds:
//!
//! - a **limitation** is what regalloc2 says it does not take: its
//!   documentation, an error it defines for the case, or an explicit
//!   "not supported" in its code ([`Exclusion::source`] cites the line of
//!   regalloc2 0.15.2). Answered [`AllocError::Unsupported`].
//! - a **known bug** is a combination regalloc2 claims to take and gets
//!   silently wrong: a suppression, as sanitizers have. Answered
//!   [`AllocError::Suppressed`], counted apart from the limitations, and
//!   run anyway under `--no-suppress` so that a fix can be checked.
//!
//! docs/regalloc2.md lists both with a reduced example under
//! `tests/regressions/regalloc2/`, and for each known bug a report a
//! regalloc2 maintainer can act on; a test checks that each example is
//! excluded for exactly its reason and that regalloc2, run anyway, fails on
//! it. A case that hits none of them and still fails inside regalloc2 is a
//! finding.
//!
//! [`AllocError::Unsupported`]: allocator::AllocError::Unsupported
//! [`AllocError::Suppressed`]: allocator::AllocError::Suppressed

use allocator::{
    Function, MachineEnv, Operand, OperandConstraint, OperandKind, OperandPos, PRegRole,
};
use regalloc2::Algorithm;

pub use crate::judging::refusals::Kind;
use crate::registry::entry::FalseRefusal;

/// A known bug of ion (docs/regalloc2.md): it gives up with
/// `TooManyLiveRegs`, which regalloc2 documents as "making allocation
/// impossible", on cases one of our allocators allocates and both oracles
/// accept, when an instruction needs every register of a class at one of
/// its points and one operand needs its register at both
/// ([`super::false_refusals::ion_tight_instruction`]). Suppressed by
/// default; `--no-suppress` reports each as a `refused-feasible` finding
/// with its proof. A false refusal of any other shape is a finding.
pub const TOO_MANY_LIVE_REGS: FalseRefusal = FalseRefusal {
    name: "too-many-live-regs",
    shape: super::false_refusals::ion_tight_instruction,
};

/// A known bug of fastalloc (docs/regalloc2.md): it gives up with
/// `TooManyLiveRegs` where a class has no free register left at an
/// instruction, instead of moving a value to its slot: a `reg` operand
/// finds the last register taken by a value an `any` operand could have
/// left in its slot, or (with no scratch register in the class) a move
/// between two stack locations finds none for its scratch
/// ([`super::false_refusals::fastalloc_no_free_register`]). Suppressed by
/// default, like [`TOO_MANY_LIVE_REGS`].
pub const FASTALLOC_NO_FREE_REGISTER: FalseRefusal = FalseRefusal {
    name: "fastalloc-no-free-register",
    shape: super::false_refusals::fastalloc_no_free_register,
};

/// One combination the adapter does not hand to regalloc2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exclusion {
    /// A branch with operands whose successor has several predecessors:
    /// regalloc2 places the edge moves before the branch, where they could
    /// overwrite what the branch reads (`RegAllocError::DisallowedBranchArg`).
    BranchOperandsIntoJoin,
    /// One instruction uses the same vreg twice and one of the uses is
    /// `stack` (ion panics: "multiple uses of vreg with a Stack
    /// constraint are not supported").
    RepeatedStackUse,
    /// Known bug: one instruction uses the same vreg twice and one of the
    /// uses is `limit`; ion orders the fix-up moves for the repeated uses
    /// wrongly and a use reads a register that holds nothing (its own
    /// fuzzer never generates `limit`).
    RepeatedLimitUse,
    /// Known bug: one instruction uses the same vreg twice and one of the
    /// uses is a `fixed` use that ion holds to the late point (a late use,
    /// or an early one in an instruction with a `reuse` def other than the
    /// reused input); ion places the copy into the second fixed register
    /// after the instruction, too late. Its own fuzzer has no late uses.
    RepeatedLateFixedUse,
    /// An instruction with a `reuse` def that breaks our feasibility rules
    /// once its early uses, other than the reused input, are held to the
    /// late point, as ion holds them by design: they then need registers at
    /// the late point too, and may not be in a register the instruction
    /// clobbers. ion fails with `TooManyLiveRegs` or panics ("Could not
    /// allocate minimal bundle"); by our rules those uses die early.
    ReuseExtendsUses,
    /// A `limit` constraint (fastalloc: `todo!("limit constraints are not
    /// yet supported in fastalloc")`).
    LimitInFastalloc,
    /// A `reg`, `limit` or `reuse` def on a branch whose value is used
    /// after it: fastalloc panics, saying it does not support them. Its
    /// code has cases for `fixed`, `stack` and `any` branch defs, which it
    /// is handed.
    BranchDefInFastalloc,
    /// Known bug: a `stack` def; fastalloc spills a register over the value
    /// it just defined in the slot when the value is later used from a
    /// register (its own fuzzer never generates `stack`).
    StackDefInFastalloc,
    /// Known bug: an `any` or `stack` def of a branch passed as a block
    /// argument and read elsewhere too (by an operand, or as another
    /// argument); fastalloc writes the def to the value's own slot while
    /// the parameter is read from the parameter's slot, which nothing
    /// wrote (Cranelift's `try_call` results feed one parameter each).
    BranchDefArgElsewhere,
    /// Known bug: a value an instruction of block D defines is live into a
    /// block numbered before D (a block numbered before a block that
    /// dominates it, which regalloc2's API allows: "there are no
    /// requirements related to the ordering of blocks"). fastalloc walks the
    /// blocks from the last to the first and stores a def to its slot only
    /// when a block it has already walked asked for the slot, so the
    /// earlier-numbered block reloads a slot nothing wrote.
    LiveInBeforeDef,
    /// Known bug: a value live at the end of block `D - 1` (live out of
    /// it, or an argument of its branch) is defined by an early def of
    /// block `D`'s first instruction (so `D` dominates the block numbered
    /// just before it, which regalloc2's API allows). ion joins the range
    /// that ends with block `D - 1` to the one the def starts, which
    /// touch, and its move insertion then finds no source for an edge the
    /// value crosses: it panics ("no entry found for key",
    /// `src/ion/moves.rs:633`, or an unwrap of `None`, `:658`).
    EarlyDefAfterLiveOut,
    /// `reuse(k)` with k above 31 (regalloc2 packs k in five bits).
    ReuseIndexTooLarge,
    /// `reuse(k)` of a use that is not `reg`: regalloc2 documents that the
    /// reused input is a `reg` use. Given another, ion drops the input's
    /// own constraint (`stack`, `fixed`, `limit`), fastalloc loses a
    /// `fixed` input's value when it lives on, and both fail with
    /// `TooManyLiveRegs` when the instruction clobbers every register
    /// (`any`, which ours may put on the stack).
    ReuseOfNonRegUse,
    /// A `fixed` operand naming a register in no machine list. regalloc2
    /// takes a non-allocatable register only as a vreg-less
    /// `fixed_nonallocatable` operand; with a vreg fixed to one, ion lets
    /// the register's hint reach other operands (it gives a `reg` def the
    /// register) and fastalloc gives up (`TooManyLiveRegs`).
    FixedUnlisted,
}

impl Exclusion {
    pub const ALL: [Exclusion; 14] = [
        Exclusion::BranchOperandsIntoJoin,
        Exclusion::RepeatedStackUse,
        Exclusion::RepeatedLimitUse,
        Exclusion::RepeatedLateFixedUse,
        Exclusion::ReuseExtendsUses,
        Exclusion::LimitInFastalloc,
        Exclusion::BranchDefInFastalloc,
        Exclusion::StackDefInFastalloc,
        Exclusion::BranchDefArgElsewhere,
        Exclusion::LiveInBeforeDef,
        Exclusion::EarlyDefAfterLiveOut,
        Exclusion::ReuseIndexTooLarge,
        Exclusion::ReuseOfNonRegUse,
        Exclusion::FixedUnlisted,
    ];

    /// A short name, used in the `unsupported:` reason and the docs.
    pub fn name(self) -> &'static str {
        match self {
            Exclusion::BranchOperandsIntoJoin => "branch-operands-into-join",
            Exclusion::RepeatedStackUse => "repeated-stack-use",
            Exclusion::RepeatedLimitUse => "repeated-limit-use",
            Exclusion::RepeatedLateFixedUse => "repeated-late-fixed-use",
            Exclusion::ReuseExtendsUses => "reuse-extends-uses",
            Exclusion::LimitInFastalloc => "limit-in-fastalloc",
            Exclusion::BranchDefInFastalloc => "branch-def-in-fastalloc",
            Exclusion::StackDefInFastalloc => "stack-def-in-fastalloc",
            Exclusion::BranchDefArgElsewhere => "branch-def-arg-elsewhere",
            Exclusion::LiveInBeforeDef => "live-in-before-def",
            Exclusion::EarlyDefAfterLiveOut => "early-def-after-live-out",
            Exclusion::ReuseIndexTooLarge => "reuse-index-too-large",
            Exclusion::ReuseOfNonRegUse => "reuse-of-non-reg-use",
            Exclusion::FixedUnlisted => "fixed-unlisted",
        }
    }

    /// A limitation or a known bug.
    pub fn kind(self) -> Kind {
        match self {
            Exclusion::RepeatedLimitUse
            | Exclusion::RepeatedLateFixedUse
            | Exclusion::StackDefInFastalloc
            | Exclusion::BranchDefArgElsewhere
            | Exclusion::LiveInBeforeDef
            | Exclusion::EarlyDefAfterLiveOut => Kind::KnownBug,
            _ => Kind::Limitation,
        }
    }

    /// Where regalloc2 0.15.2 says it does not take the case (a
    /// limitation), or the examples under `tests/regressions/regalloc2/`
    /// and docs/regalloc2.md (a known bug, which regalloc2 says nothing of).
    pub fn source(self) -> &'static str {
        match self {
            Exclusion::BranchOperandsIntoJoin => {
                "src/lib.rs:1661 (RegAllocError::DisallowedBranchArg: \"A branch has non-blockparam \
                 arg(s) and at least one of the successor blocks has more than one predecessor [...] \
                 This is disallowed\")"
            }
            Exclusion::RepeatedStackUse => {
                "src/ion/liveranges.rs:837 (panic!(\"multiple uses of vreg with a Stack constraint \
                 are not supported\"))"
            }
            Exclusion::ReuseExtendsUses => {
                "src/ion/liveranges.rs:584 (\"If there are any reused inputs in this instruction, \
                 and this is *not* the reused vreg, force `pos` to `After`\")"
            }
            Exclusion::LimitInFastalloc => {
                "src/fastalloc/mod.rs:671 (todo!(\"limit constraints are not yet supported in \
                 fastalloc\"))"
            }
            Exclusion::BranchDefInFastalloc => {
                "src/fastalloc/mod.rs:264 and :274 (panic!(\"fastalloc does not support using \
                 any-reg or reuse constraints [...] defined on a branch instruction as a branch \
                 arg/livein on the same instruction\"))"
            }
            Exclusion::ReuseIndexTooLarge => {
                "src/lib.rs:669 (operand encoding \"01xxxxx => Reuse(index)\": five bits)"
            }
            Exclusion::ReuseOfNonRegUse => {
                "src/lib.rs:831 (Operand::reg_reuse_def: the input \"must be constraint to a \
                 register, i.e., be the result of `Operand::reg_use(vreg)`\")"
            }
            Exclusion::FixedUnlisted => {
                "src/lib.rs:923 (Operand::fixed_nonallocatable, the operand for a register no \
                 list allocates, has no vreg)"
            }
            Exclusion::RepeatedLimitUse
            | Exclusion::RepeatedLateFixedUse
            | Exclusion::StackDefInFastalloc
            | Exclusion::BranchDefArgElsewhere
            | Exclusion::LiveInBeforeDef
            | Exclusion::EarlyDefAfterLiveOut => "docs/regalloc2.md, \"Known bugs\"",
        }
    }

    /// Which algorithms it applies to.
    pub fn applies_to(self, algorithm: Algorithm) -> bool {
        match self {
            Exclusion::BranchOperandsIntoJoin
            | Exclusion::ReuseIndexTooLarge
            | Exclusion::ReuseOfNonRegUse
            | Exclusion::FixedUnlisted => true,
            Exclusion::RepeatedStackUse
            | Exclusion::RepeatedLimitUse
            | Exclusion::RepeatedLateFixedUse
            | Exclusion::ReuseExtendsUses
            | Exclusion::EarlyDefAfterLiveOut => {
                matches!(algorithm, Algorithm::Ion)
            }
            Exclusion::LimitInFastalloc
            | Exclusion::BranchDefInFastalloc
            | Exclusion::StackDefInFastalloc
            | Exclusion::BranchDefArgElsewhere
            | Exclusion::LiveInBeforeDef => {
                matches!(algorithm, Algorithm::Fastalloc)
            }
        }
    }

    /// Whether `func` hits this exclusion.
    pub fn hit(self, func: &Function, env: &MachineEnv) -> bool {
        match self {
            Exclusion::BranchOperandsIntoJoin => func.blocks().any(|b| {
                let last = func.block_insts(b).last();
                !func.inst_operands(last).is_empty()
                    && func
                        .block_succs(b)
                        .iter()
                        .any(|&s| allocator::analysis::cfg::effective_preds(func, s) > 1)
            }),
            Exclusion::RepeatedStackUse => {
                repeated_use(func, |_, o| o.constraint() == OperandConstraint::Stack)
            }
            Exclusion::RepeatedLimitUse => repeated_use(func, |_, o| {
                matches!(o.constraint(), OperandConstraint::Limit(_))
            }),
            Exclusion::RepeatedLateFixedUse => repeated_use(func, |ops, o| {
                ssagen::domain::held_late(ops, o)
                    && matches!(o.constraint(), OperandConstraint::FixedReg(_))
            }),
            Exclusion::ReuseExtendsUses => func
                .insts()
                .any(|i| !ssagen::domain::feasible_with_held_uses(func, i, env)),
            Exclusion::LimitInFastalloc => func.insts().any(|i| {
                func.inst_operands(i)
                    .iter()
                    .any(|o| matches!(o.constraint(), OperandConstraint::Limit(_)))
            }),
            Exclusion::BranchDefInFastalloc => {
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
                    func.inst_operands(i).iter().any(|o| {
                        o.is_def()
                            && used[o.vreg().index()]
                            && matches!(
                                o.constraint(),
                                OperandConstraint::Reg
                                    | OperandConstraint::Limit(_)
                                    | OperandConstraint::Reuse(_)
                            )
                    })
                })
            }
            Exclusion::StackDefInFastalloc => func.insts().any(|i| {
                func.inst_operands(i)
                    .iter()
                    .any(|o| o.is_def() && o.constraint() == OperandConstraint::Stack)
            }),
            Exclusion::BranchDefArgElsewhere => branch_def_arg_elsewhere(func),
            Exclusion::LiveInBeforeDef => live_in_before_def(func).is_some(),
            Exclusion::EarlyDefAfterLiveOut => early_def_after_live_out(func).is_some(),
            Exclusion::ReuseIndexTooLarge => func.insts().any(|i| {
                func.inst_operands(i)
                    .iter()
                    .any(|o| matches!(o.constraint(), OperandConstraint::Reuse(k) if k > 31))
            }),
            Exclusion::ReuseOfNonRegUse => func.insts().any(|i| {
                let ops = func.inst_operands(i);
                ops.iter().any(|o| {
                    matches!(o.constraint(), OperandConstraint::Reuse(k)
                        if ops.get(k).is_some_and(|u| u.constraint() != OperandConstraint::Reg))
                })
            }),
            Exclusion::FixedUnlisted => func.insts().any(|i| {
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

/// Whether a branch passes an `any` or `stack` def of its own as a block
/// argument while the value is read elsewhere too: by an operand, or as a
/// second argument.
fn branch_def_arg_elsewhere(func: &Function) -> bool {
    let mut reads = vec![0u32; func.num_vregs()];
    for i in func.insts() {
        for o in func.inst_operands(i) {
            if o.is_use() && !o.is_nonalloc() {
                reads[o.vreg().index()] += 1;
            }
        }
        for t in 0..func.num_targets(i) {
            for v in func.target(i, t).1 {
                reads[v.index()] += 1;
            }
        }
    }
    func.insts().filter(|&i| func.is_branch(i)).any(|i| {
        func.inst_operands(i).iter().any(|o| {
            o.is_def()
                && matches!(
                    o.constraint(),
                    OperandConstraint::Any | OperandConstraint::Stack
                )
                && reads[o.vreg().index()] >= 2
                && (0..func.num_targets(i)).any(|t| func.target(i, t).1.contains(&o.vreg()))
        })
    })
}

/// A value defined by an instruction of block `D` and live into a block
/// `C` numbered before `D`, as `(value, D, C)`: the first such in block and
/// vreg order. In SSA `D` then dominates `C`, so a numbering with every
/// block after its dominators (dominator-tree preorder, reverse
/// postorder) never has one.
pub fn live_in_before_def(
    func: &Function,
) -> Option<(allocator::VReg, allocator::Block, allocator::Block)> {
    use allocator::analysis::{cfg, domtree::DomTree, liveness, numbering};
    if numbering::dominators_first(func, &DomTree::new(func)) {
        return None;
    }
    let mut def_block = vec![u32::MAX; func.num_vregs()];
    for i in func.insts() {
        for o in func.inst_operands(i) {
            if o.is_def() && !o.is_nonalloc() {
                def_block[o.vreg().index()] = func.block_of(i).index() as u32;
            }
        }
    }
    let live = liveness::compute(func, &cfg::postorder(func));
    let classes = func.vreg_classes();
    func.blocks().find_map(|c| {
        live.live_in[c.index()].iter().find_map(|v| {
            let d = def_block[v];
            (d != u32::MAX && d as usize > c.index()).then(|| {
                (
                    allocator::VReg::new(v, classes[v]),
                    allocator::Block::new(d as usize),
                    c,
                )
            })
        })
    })
}

/// A value live at the end of block `D - 1` (live out, or an argument of
/// its branch) that an early def of block `D`'s first instruction
/// defines, as `(value, D)`: the first such in block order. `D` then dominates `D - 1`, so a numbering with every block after
/// its dominators never has one.
pub fn early_def_after_live_out(func: &Function) -> Option<(allocator::VReg, allocator::Block)> {
    use allocator::analysis::{cfg, domtree::DomTree, liveness, numbering};
    if numbering::dominators_first(func, &DomTree::new(func)) {
        return None;
    }
    let first_early_def = |d: allocator::Block| {
        let i = func.block_insts(d).first();
        func.inst_operands(i)
            .iter()
            .filter(|o| o.is_def() && !o.is_nonalloc() && o.pos() == OperandPos::Early)
            .map(|o| o.vreg())
            .collect::<Vec<_>>()
    };
    let candidates: Vec<(allocator::Block, Vec<allocator::VReg>)> = func
        .blocks()
        .skip(1)
        .map(|d| (d, first_early_def(d)))
        .filter(|(_, defs)| !defs.is_empty())
        .collect();
    if candidates.is_empty() {
        return None;
    }
    let live = liveness::compute(func, &cfg::postorder(func));
    candidates.into_iter().find_map(|(d, defs)| {
        let before = allocator::Block::new(d.index() - 1);
        let out = &live.live_out[before.index()];
        let last = func.block_insts(before).last();
        let passed = |v: allocator::VReg| {
            (0..func.num_targets(last)).any(|t| func.target(last, t).1.contains(&v))
        };
        defs.into_iter()
            .find(|&v| out.contains(v.index()) || passed(v))
            .map(|v| (v, d))
    })
}

/// The first exclusion of `algorithm` that `func` hits, limitations before
/// known bugs (a case that hits both is unsupported, suppressed or not).
pub fn check(algorithm: Algorithm, func: &Function, env: &MachineEnv) -> Option<Exclusion> {
    [Kind::Limitation, Kind::KnownBug]
        .into_iter()
        .find_map(|kind| {
            Exclusion::ALL
                .into_iter()
                .find(|x| x.kind() == kind && x.applies_to(algorithm) && x.hit(func, env))
        })
}

impl std::fmt::Display for Exclusion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind() {
            Kind::Limitation => write!(f, "regalloc2 does not support {}", self.name()),
            Kind::KnownBug => write!(f, "known regalloc2 bug {}", self.name()),
        }
    }
}
