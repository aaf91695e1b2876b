//! The recording hook `scripts/capture.sh` inserts into a copy of regalloc2
//! (nothing of regalloc2 is kept in this repository): when
//! `RAFUZZ_TAP_DIR` names a directory, every call of `run` or `run_with_ctx`
//! writes there, as one case in rafuzz's text format
//! (`../shared/spec/ir-format.md`), what regalloc2 was asked (the function as
//! its `Function` methods describe it, the `MachineEnv`, the algorithm) and
//! what it answered (the `Output` as an `allocation` section, or the error as
//! a comment). With the variable unset it does nothing. Files are named
//! `<RAFUZZ_TAP_PREFIX>-<call number>.ra`, the call number counting the
//! calls of this process in order.
//!
//! Besides recording, the tap hands each allocation to an observer the
//! capture tool may register ([`set_observer`]): rafuzz's checker run
//! in-process, as a compiler would run it. The time the recording itself
//! takes is counted ([`recording_nanos`]), so that the compilation's own
//! time can be told apart from the tap's.

extern crate std;

use crate::{
    Allocation, Block, Edit, Function, InstPosition, MachineEnv, Operand, OperandConstraint,
    OperandKind, OperandPos, Output, PReg, PRegSet, RegAllocError, RegClass, RegallocOptions, VReg,
};
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

static CALLS: AtomicUsize = AtomicUsize::new(0);
static RECORDING_NANOS: AtomicU64 = AtomicU64::new(0);

/// What sees each allocation regalloc2 makes, in the compiling process.
pub type Observer = fn(&dyn Function, &MachineEnv, &Output);

static OBSERVER: OnceLock<Observer> = OnceLock::new();

/// Registers the observer every later successful call is handed to (the
/// first registration holds).
pub fn set_observer(f: Observer) {
    let _ = OBSERVER.set(f);
}

/// Nanoseconds this process has spent writing cases so far.
pub fn recording_nanos() -> u64 {
    RECORDING_NANOS.load(Ordering::Relaxed)
}

/// Records one call when `RAFUZZ_TAP_DIR` is set, then hands it to the
/// observer (after, so that a case is written even if the observer fails).
pub(crate) fn record<F: Function>(
    func: &F,
    env: &MachineEnv,
    options: &RegallocOptions,
    result: Result<&Output, &RegAllocError>,
) {
    let start = std::time::Instant::now();
    write_case(func, env, options, result);
    RECORDING_NANOS.fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    if let (Some(observe), Ok(out)) = (OBSERVER.get(), result) {
        observe(func, env, out);
    }
}

/// The number of calls recorded so far in this process.
pub fn calls() -> usize {
    CALLS.load(Ordering::Relaxed)
}

fn write_case<F: Function>(
    func: &F,
    env: &MachineEnv,
    options: &RegallocOptions,
    result: Result<&Output, &RegAllocError>,
) {
    let Some(dir) = std::env::var_os("RAFUZZ_TAP_DIR") else {
        return;
    };
    let n = CALLS.fetch_add(1, Ordering::Relaxed);
    let prefix = std::env::var("RAFUZZ_TAP_PREFIX").unwrap_or_else(|_| "call".into());
    let text = case_text(func, env, options, result);
    let path = std::path::Path::new(&dir).join(alloc::format!("{prefix}-{n:05}.ra"));
    let _ = std::fs::write(path, text);
}

fn class_char(c: RegClass) -> char {
    match c {
        RegClass::Int => 'i',
        RegClass::Float => 'f',
        RegClass::Vector => 'v',
    }
}

fn preg(p: PReg) -> String {
    alloc::format!("p{}{}", p.hw_enc(), class_char(p.class()))
}

/// Vregs renumbered densely, in order of first mention, as the format
/// wants them.
struct Names {
    index: std::collections::HashMap<usize, usize>,
}

impl Names {
    fn name(&mut self, v: VReg) -> String {
        let next = self.index.len();
        let k = *self.index.entry(v.vreg()).or_insert(next);
        alloc::format!("v{k}{}", class_char(v.class()))
    }
}

fn list(set: PRegSet, class: RegClass) -> String {
    let regs: Vec<String> = set
        .into_iter()
        .filter(|p| p.class() == class)
        .map(preg)
        .collect();
    if regs.is_empty() {
        "none".into()
    } else {
        regs.join(" ")
    }
}

fn operand(names: &mut Names, op: Operand) -> String {
    if let Some(p) = op.as_fixed_nonallocatable() {
        return alloc::format!("nonalloc({})", preg(p));
    }
    let kind = match op.kind() {
        OperandKind::Def => "def",
        OperandKind::Use => "use",
    };
    let constraint = match op.constraint() {
        OperandConstraint::Any => "any".into(),
        OperandConstraint::Reg => "reg".into(),
        OperandConstraint::Stack => "stack".into(),
        OperandConstraint::FixedReg(p) => alloc::format!("fixed({})", preg(p)),
        OperandConstraint::Reuse(k) => alloc::format!("reuse({k})"),
        OperandConstraint::Limit(n) => alloc::format!("limit({n})"),
    };
    let default = match op.kind() {
        OperandKind::Def => OperandPos::Late,
        OperandKind::Use => OperandPos::Early,
    };
    let pos = match op.pos() {
        p if p == default => "",
        OperandPos::Early => ":early",
        OperandPos::Late => ":late",
    };
    alloc::format!("{kind}:{}:{constraint}{pos}", names.name(op.vreg()))
}

fn allocation(a: Allocation) -> String {
    if let Some(p) = a.as_reg() {
        preg(p)
    } else if let Some(s) = a.as_stack() {
        alloc::format!("stack{}", s.index())
    } else {
        "none".into()
    }
}

fn case_text<F: Function>(
    func: &F,
    env: &MachineEnv,
    options: &RegallocOptions,
    result: Result<&Output, &RegAllocError>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# regalloc2 tap: algorithm {:?}", options.algorithm);
    let _ = writeln!(
        s,
        "# allow_multiple_vreg_defs {}",
        func.allow_multiple_vreg_defs()
    );
    let _ = writeln!(
        s,
        "# debug_value_labels {}",
        func.debug_value_labels().len()
    );
    s.push_str("machine\n");
    for (c, name) in [
        (RegClass::Int, "int   "),
        (RegClass::Float, "float "),
        (RegClass::Vector, "vector"),
    ] {
        let ci = c as usize;
        let _ = write!(
            s,
            "  {name} preferred {} nonpreferred {} scratch {}",
            list(env.preferred_regs_by_class[ci], c),
            list(env.non_preferred_regs_by_class[ci], c),
            env.scratch_by_class[ci].map_or("none".into(), preg)
        );
        let fixed: Vec<String> = env
            .fixed_stack_slots
            .iter()
            .filter(|p| p.class() == c)
            .map(|&p| preg(p))
            .collect();
        if !fixed.is_empty() {
            let _ = write!(s, " fixed_stack {}", fixed.join(" "));
        }
        // A class the machine has no register in may have no spill slot
        // size either (Cranelift's x64 backend panics when asked for one).
        if env.preferred_regs_by_class[ci] != PRegSet::empty()
            || env.non_preferred_regs_by_class[ci] != PRegSet::empty()
        {
            let size = func.spillslot_size(c);
            if size != 1 {
                let _ = write!(s, " slot_size {size}");
            }
        }
        s.push('\n');
    }
    if func.multi_spillslot_named_by_last_slot() {
        s.push_str("  slot_names last\n");
    }
    s.push_str("end\nfunction\n");
    let mut names = Names {
        index: Default::default(),
    };
    for b in 0..func.num_blocks() {
        let block = Block::new(b);
        let params: Vec<String> = func
            .block_params(block)
            .iter()
            .map(|&v| names.name(v))
            .collect();
        if params.is_empty() {
            let _ = writeln!(s, "  block{b}:");
        } else {
            let _ = writeln!(s, "  block{b}({}):", params.join(", "));
        }
        for inst in func.block_insns(block).iter() {
            let opcode = if func.is_ret(inst) {
                "ret"
            } else if func.is_branch(inst) {
                "branch"
            } else {
                "op"
            };
            let _ = write!(s, "    inst{}: {opcode}", inst.index());
            for &op in func.inst_operands(inst) {
                let _ = write!(s, " {}", operand(&mut names, op));
            }
            let clobbers: Vec<String> = func.inst_clobbers(inst).into_iter().map(preg).collect();
            if !clobbers.is_empty() {
                let _ = write!(s, " clobbers({})", clobbers.join(", "));
            }
            if func.is_branch(inst) {
                let targets: Vec<String> = func
                    .block_succs(block)
                    .iter()
                    .enumerate()
                    .map(|(k, t)| {
                        let args: Vec<String> = func
                            .branch_blockparams(block, inst, k)
                            .iter()
                            .map(|&v| names.name(v))
                            .collect();
                        alloc::format!("block{}({})", t.index(), args.join(", "))
                    })
                    .collect();
                let _ = write!(s, " -> {}", targets.join(", "));
            }
            s.push('\n');
        }
    }
    s.push_str("end\n");
    match result {
        Err(e) => {
            let _ = writeln!(s, "# regalloc2 error: {e:?}");
        }
        Ok(out) => {
            s.push_str("allocation\n");
            let _ = writeln!(s, "  spillslots {}", out.num_spillslots);
            let mut edits = out.edits.iter().peekable();
            for b in 0..func.num_blocks() {
                let insns = func.block_insns(Block::new(b));
                let last = insns.last();
                for inst in insns.iter() {
                    let mut edit_lines = |s: &mut String, pos: InstPosition, keep: bool| {
                        while let Some((p, Edit::Move { from, to })) =
                            edits.next_if(|(p, _)| p.inst() == inst && p.pos() == pos)
                        {
                            let where_ = if p.pos() == InstPosition::Before {
                                "before"
                            } else {
                                "after"
                            };
                            if keep {
                                let _ = writeln!(
                                    s,
                                    "  edit {where_} inst{}: {} -> {}",
                                    inst.index(),
                                    allocation(*from),
                                    allocation(*to)
                                );
                            }
                        }
                    };
                    edit_lines(&mut s, InstPosition::Before, true);
                    let allocs = out.inst_allocs(inst);
                    if !allocs.is_empty() {
                        let a: Vec<String> = allocs.iter().map(|&a| allocation(a)).collect();
                        let _ = writeln!(s, "  inst{}: {}", inst.index(), a.join(" "));
                    }
                    // Moves after a block's last instruction never run, as
                    // regalloc2's own `block_insts_and_edits` drops them.
                    edit_lines(
                        &mut s,
                        InstPosition::After,
                        inst != last || !(func.is_branch(inst) || func.is_ret(inst)),
                    );
                }
            }
            s.push_str("end\n");
        }
    }
    s
}
