//! Structure-aware mutation of cases: the neighbourhood of a real function
//! (or of any `.ra` seed), explored edit by edit, where byte mutation of a
//! generator input would jump somewhere else entirely. Each step is one
//! edit of a [`Draft`]: insert, delete or duplicate an instruction, change
//! an operand's constraint within the profile, add a use of an available
//! value, add a clobber, split a block, add a block parameter, or swap two
//! uses. The draft's SSA repair then makes the function whole again.
//!
//! Like the generator, mutation never rejects: a step whose result is not
//! a valid, feasible case (by the validator and the generator's own
//! feasibility rules) or breaks a promise of the config the seed keeps
//! ([`ssagen::domain::within`]: the profile's switches, its block
//! numberings) is dropped and another is tried, and after a few misses the
//! input comes back unchanged. So every mutant of a seed inside the
//! profile is a case the profile's allocator takes and must allocate, and
//! a seed from outside (a real function) is never taken further out.

use crate::edit::draft::{Draft, DraftInst};
use allocator::{
    Case, MachineEnv, Opcode, Operand, OperandConstraint, OperandKind, OperandPos, PReg, RegClass,
    VReg,
};
use rand::Rng;
use ssagen::Config;

/// The kinds of edit, in the order [`mutate`] draws them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edit {
    Insert,
    Delete,
    Duplicate,
    Constraint,
    AddUse,
    Clobber,
    SplitBlock,
    BlockParam,
    SwapUses,
}

impl Edit {
    pub const ALL: [Edit; 9] = [
        Edit::Insert,
        Edit::Delete,
        Edit::Duplicate,
        Edit::Constraint,
        Edit::AddUse,
        Edit::Clobber,
        Edit::SplitBlock,
        Edit::BlockParam,
        Edit::SwapUses,
    ];
}

/// Tries this many edits before giving the input back unchanged.
const ATTEMPTS: usize = 8;

/// `case` with `steps` edits applied, each one valid and feasible under
/// `config`'s constraint kinds (the profile of the target fuzzed). Its
/// allocation, if any, is dropped.
pub fn mutate(case: &Case, config: &Config, steps: usize, rng: &mut impl Rng) -> Case {
    let mut current = Case {
        machine: case.machine.clone(),
        func: case.func.clone(),
        output: None,
    };
    // What the seed breaks of the config, once: every mutant of it breaks
    // no more.
    let allowed = ssagen::domain::broken(case, config, false);
    for _ in 0..steps {
        for _ in 0..ATTEMPTS {
            let edit = Edit::ALL[rng.gen_range(0..Edit::ALL.len())];
            if let Some(next) = apply_within(&current, config, &allowed, edit, rng) {
                current = next;
                break;
            }
        }
    }
    current
}

/// `case` with one edit of kind `edit`, if it applies, keeps the case
/// valid and feasible, and breaks no promise of `config` that `case` keeps.
pub fn apply(case: &Case, config: &Config, edit: Edit, rng: &mut impl Rng) -> Option<Case> {
    let allowed = ssagen::domain::broken(case, config, false);
    apply_within(case, config, &allowed, edit, rng)
}

/// [`apply`], with what the seed breaks of `config` already known.
fn apply_within(
    case: &Case,
    config: &Config,
    allowed: &[ssagen::domain::Outside],
    edit: Edit,
    rng: &mut impl Rng,
) -> Option<Case> {
    let mut d = Draft::from_case(case);
    let mut next = next_vreg(&d);
    let changed = match edit {
        Edit::Insert => insert(&mut d, config, &mut next, rng),
        Edit::Delete => delete(&mut d, rng),
        Edit::Duplicate => duplicate(&mut d, &mut next, rng),
        Edit::Constraint => constraint(&mut d, config, rng),
        Edit::AddUse => add_use(&mut d, config, rng),
        Edit::Clobber => clobber(&mut d, rng),
        Edit::SplitBlock => split_block(&mut d, rng),
        Edit::BlockParam => block_param(&mut d, &mut next, rng),
        Edit::SwapUses => swap_uses(&mut d, rng),
    };
    if !changed {
        return None;
    }
    d.repair();
    d.renumber();
    let mutant = d.to_case();
    ssagen::feasibility::check_case(&mutant).ok()?;
    if !ssagen::domain::within(&mutant, config, allowed) {
        return None;
    }
    (mutant != *case).then_some(mutant)
}

/// One past the largest vreg index the draft mentions.
fn next_vreg(d: &Draft) -> usize {
    let mut n = 0;
    for b in &d.blocks {
        for v in &b.params {
            n = n.max(v.index() + 1);
        }
        for i in &b.insts {
            for op in i.operands.iter().filter(|o| !o.is_nonalloc()) {
                n = n.max(op.vreg().index() + 1);
            }
        }
    }
    n
}

fn fresh(next: &mut usize, class: RegClass) -> VReg {
    let v = VReg::new(*next, class);
    *next += 1;
    v
}

/// A random instruction position `(block, index)` before the block's
/// terminator (`at_end` also allows the terminator's own index, to insert
/// before it).
fn position(d: &Draft, rng: &mut impl Rng, at_end: bool) -> Option<(usize, usize)> {
    let b = rng.gen_range(0..d.blocks.len());
    let n = d.blocks[b].insts.len().saturating_sub(1) + at_end as usize;
    (n > 0).then(|| (b, rng.gen_range(0..n)))
}

/// A vreg of `class` the draft defines, any of them: the repair replaces
/// it by the nearest available one where it is not available.
fn some_value(d: &Draft, class: RegClass, rng: &mut impl Rng) -> Option<VReg> {
    let all: Vec<VReg> = d
        .blocks
        .iter()
        .flat_map(|b| {
            b.params
                .iter()
                .copied()
                .chain(b.insts.iter().flat_map(|i| i.defs()))
        })
        .filter(|v| v.class() == class)
        .collect();
    (!all.is_empty()).then(|| all[rng.gen_range(0..all.len())])
}

/// A class the machine allocates.
fn class(env: &MachineEnv, rng: &mut impl Rng) -> Option<RegClass> {
    let with: Vec<RegClass> = RegClass::ALL
        .into_iter()
        .filter(|&c| env.num_allocatable(c) > 0)
        .collect();
    (!with.is_empty()).then(|| with[rng.gen_range(0..with.len())])
}

/// A constraint for an operand of `class` the profile allows (a `def`
/// takes `stack` only where the profile draws stack defs).
fn drawn_constraint(
    env: &MachineEnv,
    config: &Config,
    class: RegClass,
    def: bool,
    rng: &mut impl Rng,
) -> OperandConstraint {
    let k = config.constraints;
    let regs: Vec<PReg> = env.allocatable(class).collect();
    let mut kinds = vec![OperandConstraint::Reg];
    if config.weights[0] > 0 && !config.operands_in_registers {
        kinds.push(OperandConstraint::Any);
    }
    if k.stack && (!def || config.stack_defs) {
        kinds.push(OperandConstraint::Stack);
    }
    if k.fixed && !regs.is_empty() {
        kinds.push(OperandConstraint::FixedReg(
            regs[rng.gen_range(0..regs.len())],
        ));
    }
    if k.limit && !regs.is_empty() {
        let hw = regs[rng.gen_range(0..regs.len())].hw();
        kinds.push(OperandConstraint::Limit(
            (hw + 1).next_power_of_two().min(64) as u8,
        ));
    }
    kinds[rng.gen_range(0..kinds.len())]
}

fn insert(d: &mut Draft, config: &Config, next: &mut usize, rng: &mut impl Rng) -> bool {
    let Some((b, at)) = position(d, rng, true) else {
        return false;
    };
    let Some(c) = class(&d.machine, rng) else {
        return false;
    };
    let mut operands = Vec::new();
    if let Some(v) = some_value(d, c, rng) {
        operands.push(Operand::use_(
            v,
            drawn_constraint(&d.machine, config, c, false, rng),
        ));
    }
    let def = fresh(next, c);
    operands.push(Operand::def(
        def,
        drawn_constraint(&d.machine, config, c, true, rng),
    ));
    let inst = DraftInst {
        opcode: Opcode::Op,
        operands,
        clobbers: Vec::new(),
        targets: Vec::new(),
    };
    d.blocks[b].insts.insert(at, inst);
    true
}

fn delete(d: &mut Draft, rng: &mut impl Rng) -> bool {
    let Some((b, at)) = position(d, rng, false) else {
        return false;
    };
    d.blocks[b].insts.remove(at);
    true
}

fn duplicate(d: &mut Draft, next: &mut usize, rng: &mut impl Rng) -> bool {
    let Some((b, at)) = position(d, rng, false) else {
        return false;
    };
    let mut copy = d.blocks[b].insts[at].clone();
    for op in &mut copy.operands {
        if op.is_def() && !op.is_nonalloc() {
            let v = fresh(next, op.class());
            *op = Operand::new(v, OperandKind::Def, op.pos(), op.constraint());
        }
    }
    d.blocks[b].insts.insert(at + 1, copy);
    true
}

fn constraint(d: &mut Draft, config: &Config, rng: &mut impl Rng) -> bool {
    let Some((b, at)) = position(d, rng, config.branch_operands_into_joins) else {
        return false;
    };
    let machine = d.machine.clone();
    let inst = &mut d.blocks[b].insts[at];
    // A reuse def and the input it reuses keep their constraints (the
    // input stays a `reg` use, as regalloc2 asks).
    let reused: Vec<usize> = inst
        .operands
        .iter()
        .filter_map(|o| match o.constraint() {
            OperandConstraint::Reuse(k) => Some(k),
            _ => None,
        })
        .collect();
    let picks: Vec<usize> = (0..inst.operands.len())
        .filter(|&j| {
            let op = inst.operands[j];
            !op.is_nonalloc()
                && !matches!(op.constraint(), OperandConstraint::Reuse(_))
                && !reused.contains(&j)
        })
        .collect();
    if picks.is_empty() {
        return false;
    }
    let j = picks[rng.gen_range(0..picks.len())];
    let op = inst.operands[j];
    let c = drawn_constraint(&machine, config, op.class(), op.is_def(), rng);
    inst.operands[j] = op.with_constraint(c);
    true
}

fn add_use(d: &mut Draft, config: &Config, rng: &mut impl Rng) -> bool {
    let Some((b, at)) = position(d, rng, config.branch_operands_into_joins) else {
        return false;
    };
    let Some(c) = class(&d.machine, rng) else {
        return false;
    };
    let Some(v) = some_value(d, c, rng) else {
        return false;
    };
    let k = drawn_constraint(&d.machine, config, c, false, rng);
    let pos = if config.late_uses && rng.gen_ratio(1, 8) {
        OperandPos::Late
    } else {
        OperandPos::Early
    };
    d.blocks[b].insts[at]
        .operands
        .push(Operand::new(v, OperandKind::Use, pos, k));
    true
}

fn clobber(d: &mut Draft, rng: &mut impl Rng) -> bool {
    let Some((b, at)) = position(d, rng, false) else {
        return false;
    };
    let Some(c) = class(&d.machine, rng) else {
        return false;
    };
    let regs: Vec<PReg> = d.machine.allocatable(c).collect();
    let r = regs[rng.gen_range(0..regs.len())];
    let inst = &mut d.blocks[b].insts[at];
    if inst.clobbers.contains(&r) {
        return false;
    }
    inst.clobbers.push(r);
    true
}

/// Splits a block before one of its instructions: the first part branches
/// to a new block holding the rest (a single edge, never critical),
/// numbered right after it. The new block dominates what the split block
/// dominated, so the seed's numbering stays what it was: a dominator-tree
/// preorder or a reverse postorder stays one, every block still comes
/// after its dominators and after a predecessor.
fn split_block(d: &mut Draft, rng: &mut impl Rng) -> bool {
    let b = rng.gen_range(0..d.blocks.len());
    let n = d.blocks[b].insts.len();
    if n < 2 {
        return false;
    }
    let at = rng.gen_range(1..n);
    let new = b + 1;
    for blk in &mut d.blocks {
        for i in &mut blk.insts {
            for (t, _) in &mut i.targets {
                if *t >= new {
                    *t += 1;
                }
            }
        }
    }
    let rest = d.blocks[b].insts.split_off(at);
    d.blocks[b].insts.push(DraftInst {
        opcode: Opcode::Branch,
        operands: Vec::new(),
        clobbers: Vec::new(),
        targets: vec![(new, Vec::new())],
    });
    d.blocks.insert(
        new,
        crate::edit::draft::DraftBlock {
            params: Vec::new(),
            insts: rest,
        },
    );
    true
}

/// Adds a parameter to a block other than the entry, fed on every incoming
/// edge by some value of its class (the repair picks an available one),
/// and read by the block's first instruction unless that is its branch
/// (whose operands some profiles keep away from joins).
fn block_param(d: &mut Draft, next: &mut usize, rng: &mut impl Rng) -> bool {
    if d.blocks.len() < 2 {
        return false;
    }
    let b = rng.gen_range(1..d.blocks.len());
    let Some(c) = class(&d.machine, rng) else {
        return false;
    };
    let Some(arg) = some_value(d, c, rng) else {
        return false;
    };
    let p = fresh(next, c);
    d.blocks[b].params.push(p);
    for blk in &mut d.blocks {
        if let Some(last) = blk.insts.last_mut() {
            for (t, args) in &mut last.targets {
                if *t == b {
                    args.push(arg);
                }
            }
        }
    }
    if let Some(first) = d.blocks[b].insts.first_mut() {
        if first.opcode == Opcode::Op {
            first
                .operands
                .push(Operand::use_(p, OperandConstraint::Reg));
        }
    }
    true
}

fn swap_uses(d: &mut Draft, rng: &mut impl Rng) -> bool {
    let Some((b, at)) = position(d, rng, true) else {
        return false;
    };
    let inst = &mut d.blocks[b].insts[at];
    let uses: Vec<usize> = (0..inst.operands.len())
        .filter(|&j| inst.operands[j].is_use() && !inst.operands[j].is_nonalloc())
        .collect();
    if uses.len() < 2 {
        return false;
    }
    let (x, y) = (
        uses[rng.gen_range(0..uses.len())],
        uses[rng.gen_range(0..uses.len())],
    );
    if x == y {
        return false;
    }
    inst.operands.swap(x, y);
    for op in &mut inst.operands {
        match op.constraint() {
            OperandConstraint::Reuse(k) if k == x => {
                *op = op.with_constraint(OperandConstraint::Reuse(y))
            }
            OperandConstraint::Reuse(k) if k == y => {
                *op = op.with_constraint(OperandConstraint::Reuse(x))
            }
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Every kind of edit applies to a generated case and leaves it valid
    /// and feasible.
    #[test]
    fn each_edit_applies_and_keeps_the_case_valid() {
        let config = Config::default();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for edit in Edit::ALL {
            let applied = (0..40).any(|seed| {
                let bytes = crate::harness::inputs::seeded_bytes(seed, 1024);
                let case = ssagen::generate_from_bytes(&bytes, &config);
                apply(&case, &config, edit, &mut rng)
                    .is_some_and(|m| ssagen::feasibility::check_case(&m).is_ok())
            });
            assert!(applied, "{edit:?} never applied");
        }
    }

    /// A split numbers its new block right after the split one, with every
    /// target past it shifted (the split-off terminator's included), so a
    /// preorder or reverse-postorder seed keeps its numbering. (Found by
    /// the release sweep of `fuzz_targets/tests/profile_domain.rs`: the new
    /// block numbered last broke the seed's numbering, then unshifted
    /// targets of the moved terminator broke the repair.)
    #[test]
    fn a_split_block_keeps_the_seeds_numbering() {
        use allocator::analysis::numbering::{classify, Numbering, Numberings};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut split = 0;
        for (numbering, seed) in [Numbering::DomPreorder, Numbering::ReversePostorder]
            .into_iter()
            .flat_map(|n| (0..60).map(move |s| (n, s)))
        {
            let config = Config {
                numberings: Numberings::only(numbering),
                ..Config::default()
            };
            let bytes = crate::harness::inputs::seeded_bytes(seed, 1024);
            let case = ssagen::generate_from_bytes(&bytes, &config);
            let before = classify(&case.func);
            // The edit alone, before any check could drop its result.
            let mut d = Draft::from_case(&case);
            if !split_block(&mut d, &mut rng) {
                continue;
            }
            split += 1;
            let m = d.to_case();
            ssagen::feasibility::check_case(&m).unwrap_or_else(|e| panic!("seed {seed}: {e:?}"));
            assert_eq!(classify(&m.func), before, "seed {seed}");
        }
        assert!(split > 60, "{split} splits");
    }
}
