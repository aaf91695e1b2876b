//! The checker's entry point over regalloc2's own types
//! (`checker::regalloc2`), what a compiler runs in-process, judges exactly
//! what the harness judges: on regalloc2's allocations of generated cases
//! and on the real corpus it gives the verdict, and the errors, of the
//! checker run on the harness's reading of the same output; an allocation
//! broken by one operand is rejected both ways alike; and a function it
//! cannot read is refused as unjudgeable, never judged wrong.
#![cfg(feature = "regalloc2")]

use allocator::{Allocation, Case};
use checker::regalloc2::{self as entry, Rejection};
use fuzz_targets::outside::ra2::adapt;
use rand::{RngCore, SeedableRng};
use regalloc2 as ra2;

/// The verdict of the harness's path: our output read from regalloc2's,
/// then checked.
fn harness_verdict(case: &Case, out: &ra2::Output) -> Vec<checker::CheckError> {
    checker::check(
        &case.func,
        &case.machine,
        &adapt::from_output(&case.func, out),
    )
}

/// Whether `a` and `b` are one function: blocks, parameters, operands,
/// clobbers (as sets: regalloc2 keeps them as one) and targets.
fn same_function(a: &allocator::Function, b: &allocator::Function) -> bool {
    let clobbers = |f: &allocator::Function, i| {
        let mut v = f.inst_clobbers(i).to_vec();
        v.sort();
        v
    };
    a.num_blocks() == b.num_blocks()
        && a.num_insts() == b.num_insts()
        && a.blocks()
            .all(|k| a.block_params(k) == b.block_params(k) && a.block_insts(k) == b.block_insts(k))
        && a.insts().all(|i| {
            a.opcode(i) == b.opcode(i)
                && a.inst_operands(i) == b.inst_operands(i)
                && clobbers(a, i) == clobbers(b, i)
                && (0..a.num_targets(i)).all(|t| a.target(i, t) == b.target(i, t))
        })
}

fn entry_verdict(case: &Case, out: &ra2::Output) -> Vec<checker::CheckError> {
    verdict_of(&mut entry::Ra2Checker::default(), case, out)
}

/// What `checker` says of `out`; a compiler keeps one checker and its
/// storage from function to function.
fn verdict_of(
    checker: &mut entry::Ra2Checker,
    case: &Case,
    out: &ra2::Output,
) -> Vec<checker::CheckError> {
    let adapted = adapt::Adapted::new(&case.func, &case.machine.slots);
    match checker.check(&adapted, &adapt::machine(&case.machine), out) {
        Ok(()) => Vec::new(),
        Err(Rejection::Wrong(errs)) => errs,
        Err(Rejection::Unjudgeable(why)) => panic!("a valid case is unjudgeable: {why:?}"),
    }
}

/// regalloc2's allocation of `case`, if it gives one.
fn allocate(case: &Case, algorithm: ra2::Algorithm) -> Option<ra2::Output> {
    let adapted = adapt::Adapted::new(&case.func, &case.machine.slots);
    let options = ra2::RegallocOptions {
        algorithm,
        ..Default::default()
    };
    std::panic::catch_unwind(|| ra2::run(&adapted, &adapt::machine(&case.machine), &options))
        .ok()?
        .ok()
}

/// The first use's allocation moved to another register of its class (or
/// to a slot when there is none): an allocation the checker rejects unless
/// that location holds the value too.
fn broken(case: &Case, out: &ra2::Output) -> Option<ra2::Output> {
    let f = &case.func;
    let (k, class) = f.insts().find_map(|i| {
        let ops = f.inst_operands(i);
        f.inst_operand_range(i).zip(ops).find_map(|(k, op)| {
            (op.is_use() && !op.is_nonalloc() && !out.allocs[k].is_none()).then(|| (k, op.class()))
        })
    })?;
    let other = case
        .machine
        .allocatable(class)
        .map(Allocation::Reg)
        .find(|&a| adapt::allocation(a) != out.allocs[k])
        .unwrap_or(Allocation::Stack(allocator::SpillSlot::new(
            out.num_spillslots,
        )));
    let mut b = out.clone();
    b.allocs[k] = adapt::allocation(other);
    if b.num_spillslots <= out.num_spillslots && other.as_stack().is_some() {
        b.num_spillslots += case.machine.slots.max_size();
    }
    Some(b)
}

#[test]
fn the_entry_point_judges_generated_allocations_as_the_harness_does() {
    let (mut accepted, mut rejected, mut broken_checked) = (0, 0, 0);
    // One checker kept across every case, as a compiler keeps it: what it
    // reuses from the function before must not change a verdict.
    let mut kept = entry::Ra2Checker::default();
    for (algorithm, config) in [
        (
            ra2::Algorithm::Ion,
            fuzz_targets::outside::ra2::profile::regalloc2(),
        ),
        (
            ra2::Algorithm::Fastalloc,
            fuzz_targets::outside::ra2::profile::fastalloc(),
        ),
    ] {
        // The known bugs let in, so that regalloc2 also gets some wrong.
        let config = fuzz_targets::outside::ra2::profile::with_known_bugs(config);
        for seed in 0..150u64 {
            let mut bytes = vec![0u8; 2048];
            rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut bytes);
            let case = ssagen::generate_from_bytes(&bytes, &config);
            // The function read back through regalloc2's trait is the same.
            let adapted = adapt::Adapted::new(&case.func, &case.machine.slots);
            let read = entry::function(&adapted).expect("a valid case reads back");
            assert!(
                same_function(&read, &case.func),
                "seed {seed}: read back differently"
            );
            let Some(out) = allocate(&case, algorithm) else {
                continue;
            };
            let ours = entry_verdict(&case, &out);
            assert_eq!(
                ours,
                harness_verdict(&case, &out),
                "seed {seed}, {algorithm:?}"
            );
            assert_eq!(
                verdict_of(&mut kept, &case, &out),
                ours,
                "seed {seed}, {algorithm:?}: a kept checker judges otherwise"
            );
            if ours.is_empty() {
                accepted += 1;
                if let Some(b) = broken(&case, &out) {
                    // Another location may hold the value too: the verdicts
                    // must agree, and most are rejections.
                    let errs = entry_verdict(&case, &b);
                    assert_eq!(errs, harness_verdict(&case, &b), "seed {seed}, broken");
                    assert_eq!(verdict_of(&mut kept, &case, &b), errs, "seed {seed}, kept");
                    broken_checked += usize::from(!errs.is_empty());
                }
            } else {
                rejected += 1;
            }
        }
    }
    assert!(
        accepted > 100 && broken_checked > 100,
        "{accepted} accepted, {broken_checked} broken ones rejected"
    );
    assert!(
        rejected > 0,
        "no wrong allocation among the known bugs' cases"
    );
}

#[test]
fn the_entry_point_accepts_ions_recorded_allocations_of_real_code() {
    let files: Vec<_> = ["x86_64", "aarch64", "riscv64gc"]
        .iter()
        .flat_map(|t| allocator::fixtures::ra_files(format!("corpus/real/{t}")))
        .collect();
    assert!(files.len() > 100);
    for p in files {
        let case = allocator::fixtures::read_case(&p);
        let out = case.output.as_ref().expect("a recorded allocation");
        let theirs = adapt::output(&case.func, out);
        assert_eq!(entry_verdict(&case, &theirs), Vec::new(), "{}", p.display());
    }
}

/// A function read through regalloc2's trait with its entry block, or a
/// class's slot size, changed: what our IR has no form for.
struct Twisted<'a> {
    inner: adapt::Adapted<'a>,
    entry: usize,
    float_slots: usize,
}

impl ra2::Function for Twisted<'_> {
    fn num_insts(&self) -> usize {
        self.inner.num_insts()
    }
    fn num_blocks(&self) -> usize {
        self.inner.num_blocks()
    }
    fn entry_block(&self) -> ra2::Block {
        ra2::Block::new(self.entry)
    }
    fn block_insns(&self, block: ra2::Block) -> ra2::InstRange {
        self.inner.block_insns(block)
    }
    fn block_succs(&self, block: ra2::Block) -> &[ra2::Block] {
        self.inner.block_succs(block)
    }
    fn block_preds(&self, block: ra2::Block) -> &[ra2::Block] {
        self.inner.block_preds(block)
    }
    fn block_params(&self, block: ra2::Block) -> &[ra2::VReg] {
        self.inner.block_params(block)
    }
    fn is_ret(&self, insn: ra2::Inst) -> bool {
        self.inner.is_ret(insn)
    }
    fn is_branch(&self, insn: ra2::Inst) -> bool {
        self.inner.is_branch(insn)
    }
    fn branch_blockparams(&self, block: ra2::Block, insn: ra2::Inst, k: usize) -> &[ra2::VReg] {
        self.inner.branch_blockparams(block, insn, k)
    }
    fn inst_operands(&self, insn: ra2::Inst) -> &[ra2::Operand] {
        self.inner.inst_operands(insn)
    }
    fn inst_clobbers(&self, insn: ra2::Inst) -> ra2::PRegSet {
        self.inner.inst_clobbers(insn)
    }
    fn num_vregs(&self) -> usize {
        self.inner.num_vregs()
    }
    fn spillslot_size(&self, class: ra2::RegClass) -> usize {
        match class {
            ra2::RegClass::Float => self.float_slots,
            c => self.inner.spillslot_size(c),
        }
    }
}

#[test]
fn a_function_the_checker_cannot_read_is_unjudgeable_not_wrong() {
    let case = allocator::fixtures::read_case(
        &allocator::fixtures::repo_root().join("tests/regressions/regalloc2/repeated-limit-use.ra"),
    );
    let out = allocate(&case, ra2::Algorithm::Ion).expect("ion allocates it");
    let env = adapt::machine(&case.machine);
    let twisted = |entry, float_slots| Twisted {
        inner: adapt::Adapted::new(&case.func, &case.machine.slots),
        entry,
        float_slots,
    };
    // Just inside: the function as it is (ion gets it wrong: the known bug).
    assert!(matches!(
        entry::check(&twisted(0, 1), &env, &out),
        Err(Rejection::Wrong(_))
    ));
    // Just outside: an entry that is not block 0, a slot size of 3.
    for (first, slots, why) in [
        (1, 1, "the entry block is block1"),
        (0, 3, "fills 3 spill slots"),
    ] {
        match entry::check(&twisted(first, slots), &env, &out) {
            Err(Rejection::Unjudgeable(w)) => assert!(w[0].contains(why), "{w:?}"),
            other => panic!("entry block {first}, slot size {slots}: {other:?}"),
        }
    }
    // A class with no register is never asked its slot size (Cranelift's
    // x86-64 answers the vector class's with `unreachable!`): the float
    // class's size of 3 goes unread once the class has no register.
    let mut no_floats = env.clone();
    no_floats.preferred_regs_by_class[ra2::RegClass::Float as usize] = ra2::PRegSet::empty();
    no_floats.non_preferred_regs_by_class[ra2::RegClass::Float as usize] = ra2::PRegSet::empty();
    no_floats.scratch_by_class[ra2::RegClass::Float as usize] = None;
    no_floats
        .fixed_stack_slots
        .retain(|r| r.class() != ra2::RegClass::Float);
    assert!(case
        .func
        .vreg_classes()
        .iter()
        .all(|&c| c != allocator::RegClass::Float));
    assert!(matches!(
        entry::check(&twisted(0, 3), &no_floats, &out),
        Err(Rejection::Wrong(_))
    ));
}

/// A function numbered as Cranelift numbers it: every vreg 192 above its
/// index in `inner`, the indices below never used.
struct Shifted {
    blocks: Vec<ShiftedBlock>,
    insts: Vec<ShiftedInst>,
    num_vregs: usize,
    slot_sizes: [usize; 3],
}

struct ShiftedBlock {
    insts: ra2::InstRange,
    succs: Vec<ra2::Block>,
    preds: Vec<ra2::Block>,
    params: Vec<ra2::VReg>,
}

struct ShiftedInst {
    operands: Vec<ra2::Operand>,
    clobbers: ra2::PRegSet,
    ret: bool,
    branch: bool,
    /// Per target, its arguments.
    args: Vec<Vec<ra2::VReg>>,
}

const SHIFT: usize = 192;

impl Shifted {
    fn new(f: &adapt::Adapted) -> Shifted {
        use ra2::Function;
        let up = |v: ra2::VReg| ra2::VReg::new(v.vreg() + SHIFT, v.class());
        let blocks = (0..f.num_blocks())
            .map(|b| {
                let b = ra2::Block::new(b);
                ShiftedBlock {
                    insts: f.block_insns(b),
                    succs: f.block_succs(b).to_vec(),
                    preds: f.block_preds(b).to_vec(),
                    params: f.block_params(b).iter().map(|&v| up(v)).collect(),
                }
            })
            .collect();
        let insts = (0..f.num_insts())
            .map(|i| {
                let i = ra2::Inst::new(i);
                let ops = f
                    .inst_operands(i)
                    .iter()
                    .map(|&op| match op.as_fixed_nonallocatable() {
                        Some(r) => ra2::Operand::fixed_nonallocatable(r),
                        None => {
                            ra2::Operand::new(up(op.vreg()), op.constraint(), op.kind(), op.pos())
                        }
                    })
                    .collect();
                let b = (0..f.num_blocks())
                    .map(ra2::Block::new)
                    .find(|&b| f.block_insns(b).iter().any(|j| j == i))
                    .unwrap();
                let args = if f.is_branch(i) {
                    (0..f.block_succs(b).len())
                        .map(|t| {
                            f.branch_blockparams(b, i, t)
                                .iter()
                                .map(|&v| up(v))
                                .collect()
                        })
                        .collect()
                } else {
                    Vec::new()
                };
                ShiftedInst {
                    operands: ops,
                    clobbers: f.inst_clobbers(i),
                    ret: f.is_ret(i),
                    branch: f.is_branch(i),
                    args,
                }
            })
            .collect();
        let classes = [
            ra2::RegClass::Int,
            ra2::RegClass::Float,
            ra2::RegClass::Vector,
        ];
        Shifted {
            blocks,
            insts,
            num_vregs: f.num_vregs() + SHIFT,
            slot_sizes: classes.map(|c| f.spillslot_size(c)),
        }
    }
}

impl ra2::Function for Shifted {
    fn num_insts(&self) -> usize {
        self.insts.len()
    }
    fn num_blocks(&self) -> usize {
        self.blocks.len()
    }
    fn entry_block(&self) -> ra2::Block {
        ra2::Block::new(0)
    }
    fn block_insns(&self, block: ra2::Block) -> ra2::InstRange {
        self.blocks[block.index()].insts
    }
    fn block_succs(&self, block: ra2::Block) -> &[ra2::Block] {
        &self.blocks[block.index()].succs
    }
    fn block_preds(&self, block: ra2::Block) -> &[ra2::Block] {
        &self.blocks[block.index()].preds
    }
    fn block_params(&self, block: ra2::Block) -> &[ra2::VReg] {
        &self.blocks[block.index()].params
    }
    fn is_ret(&self, insn: ra2::Inst) -> bool {
        self.insts[insn.index()].ret
    }
    fn is_branch(&self, insn: ra2::Inst) -> bool {
        self.insts[insn.index()].branch
    }
    fn branch_blockparams(&self, _: ra2::Block, insn: ra2::Inst, k: usize) -> &[ra2::VReg] {
        &self.insts[insn.index()].args[k]
    }
    fn inst_operands(&self, insn: ra2::Inst) -> &[ra2::Operand] {
        &self.insts[insn.index()].operands
    }
    fn inst_clobbers(&self, insn: ra2::Inst) -> ra2::PRegSet {
        self.insts[insn.index()].clobbers
    }
    fn num_vregs(&self) -> usize {
        self.num_vregs
    }
    fn spillslot_size(&self, class: ra2::RegClass) -> usize {
        self.slot_sizes[class as usize]
    }
}

#[test]
fn vregs_numbered_from_192_as_cranelift_does_read_as_the_same_function() {
    let mut read_back = 0;
    // One checker kept across the cases, read unshifted and shifted in
    // turn, so that each reads where the one before left other numbers.
    let mut kept = entry::Ra2Checker::default();
    let files = ["x86_64", "aarch64", "riscv64gc"]
        .iter()
        .flat_map(|t| allocator::fixtures::ra_files(format!("corpus/real/{t}")));
    for p in files {
        let case = allocator::fixtures::read_case(&p);
        let adapted = adapt::Adapted::new(&case.func, &case.machine.slots);
        let shifted = Shifted::new(&adapted);
        let read = entry::function(&shifted).expect("a gap below the first vreg is read");
        assert!(same_function(&read, &case.func), "{}", p.display());
        let theirs = adapt::output(&case.func, case.output.as_ref().unwrap());
        let env = adapt::machine(&case.machine);
        assert_eq!(
            entry::check(&shifted, &env, &theirs),
            Ok(()),
            "{}",
            p.display()
        );
        assert_eq!(
            kept.check(&adapted, &env, &theirs),
            Ok(()),
            "{}",
            p.display()
        );
        assert_eq!(
            kept.check(&shifted, &env, &theirs),
            Ok(()),
            "{}",
            p.display()
        );
        read_back += 1;
    }
    assert!(read_back > 100);
}

/// `message` with every vreg it names (`v<index><class>`) named `by`
/// higher.
fn shift_vreg_names(message: &str, by: usize) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(k) = rest.find('v') {
        let (before, from) = rest.split_at(k);
        out.push_str(before);
        let digits = from[1..].bytes().take_while(u8::is_ascii_digit).count();
        let starts_word = !out.ends_with(|c: char| c.is_ascii_alphanumeric());
        let class = from[1 + digits..].chars().next();
        if starts_word && digits > 0 && matches!(class, Some('i' | 'f' | 'v')) {
            let index: usize = from[1..1 + digits].parse().unwrap();
            out.push_str(&format!("v{}", index + by));
            rest = &from[1 + digits..];
        } else {
            out.push('v');
            rest = &from[1..];
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn a_rejection_names_the_vregs_as_cranelift_numbers_them() {
    assert_eq!(
        shift_vreg_names("v3i in p3v, not v12f (vreg v)", 192),
        "v195i in p3v, not v204f (vreg v)"
    );
    let (mut rejected, mut renamed) = (0, 0);
    let mut kept = entry::Ra2Checker::default();
    for p in allocator::fixtures::ra_files("corpus/real/x86_64") {
        let case = allocator::fixtures::read_case(&p);
        let adapted = adapt::Adapted::new(&case.func, &case.machine.slots);
        let shifted = Shifted::new(&adapted);
        let env = adapt::machine(&case.machine);
        let theirs = adapt::output(&case.func, case.output.as_ref().unwrap());
        let Some(wrong) = broken(&case, &theirs) else {
            continue;
        };
        let (Err(Rejection::Wrong(plain)), Err(Rejection::Wrong(numbered))) = (
            kept.check(&adapted, &env, &wrong),
            kept.check(&shifted, &env, &wrong),
        ) else {
            continue;
        };
        let shifted_plain: Vec<_> = plain
            .iter()
            .map(|e| (e.kind, e.site, shift_vreg_names(&e.message, SHIFT)))
            .collect();
        let as_numbered: Vec<_> = numbered
            .iter()
            .map(|e| (e.kind, e.site, e.message.clone()))
            .collect();
        assert_eq!(shifted_plain, as_numbered, "{}", p.display());
        rejected += 1;
        renamed += usize::from(
            plain
                .iter()
                .zip(&numbered)
                .any(|(a, b)| a.message != b.message),
        );
    }
    assert!(rejected > 20, "only {rejected} broken allocations rejected");
    assert_eq!(renamed, rejected, "a rejection that names no vreg");
}
