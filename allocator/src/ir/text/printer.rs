//! The canonical printer: one spelling for every case, stable across runs.

use crate::ir::case::Case;
use crate::ir::function::Function;
use crate::ir::index::{InstPosition, PReg, ProgPoint, RegClass};
use crate::ir::machine::MachineEnv;
use crate::ir::output::Output;
use std::fmt::Write;

/// Prints a whole case: machine, function and, when present, allocation.
pub fn print(case: &Case) -> String {
    let mut s = String::new();
    print_machine(&mut s, &case.machine);
    print_function(&mut s, &case.func);
    if let Some(out) = &case.output {
        print_allocation(&mut s, &case.func, out);
    }
    s
}

/// Appends a register list: ascending runs of two or more become ranges,
/// items are separated by spaces, and an empty list is `none`.
fn push_reg_list(s: &mut String, regs: &[PReg]) {
    if regs.is_empty() {
        s.push_str(" none");
        return;
    }
    let mut i = 0;
    while i < regs.len() {
        let mut j = i;
        while j + 1 < regs.len()
            && regs[j + 1].class() == regs[j].class()
            && regs[j + 1].hw() == regs[j].hw() + 1
        {
            j += 1;
        }
        if j > i {
            let _ = write!(s, " {}-{}", regs[i], regs[j]);
        } else {
            let _ = write!(s, " {}", regs[i]);
        }
        i = j + 1;
    }
}

/// Appends the `machine` section.
pub fn print_machine(s: &mut String, env: &MachineEnv) {
    s.push_str("machine\n");
    for c in RegClass::ALL {
        let i = c.index();
        let _ = write!(s, "  {:<6} preferred", c.name());
        push_reg_list(s, &env.preferred[i]);
        s.push_str(" nonpreferred");
        push_reg_list(s, &env.nonpreferred[i]);
        match env.scratch[i] {
            Some(r) => {
                let _ = write!(s, " scratch {r}");
            }
            None => s.push_str(" scratch none"),
        }
        if !env.fixed_stack[i].is_empty() {
            s.push_str(" fixed_stack");
            push_reg_list(s, &env.fixed_stack[i]);
        }
        if env.slots.size(c) != 1 {
            let _ = write!(s, " slot_size {}", env.slots.size(c));
        }
        s.push('\n');
    }
    if env.slots.named_by_last {
        s.push_str("  slot_names last\n");
    }
    s.push_str("end\n");
}

fn push_vregs(s: &mut String, vs: &[crate::ir::index::VReg]) {
    for (k, v) in vs.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        let _ = write!(s, "{v}");
    }
}

/// Appends the `function` section.
pub fn print_function(s: &mut String, f: &Function) {
    s.push_str("function\n");
    for b in f.blocks() {
        let _ = write!(s, "  {b}");
        let params = f.block_params(b);
        if !params.is_empty() {
            s.push('(');
            push_vregs(s, params);
            s.push(')');
        }
        s.push_str(":\n");
        for i in f.block_insts(b).iter() {
            let _ = write!(s, "    {i}: ");
            print_inst(s, f, i);
            s.push('\n');
        }
    }
    s.push_str("end\n");
}

/// Appends instruction `i` as its line says it after `instN: `: opcode,
/// operands, clobbers and targets.
pub fn print_inst(s: &mut String, f: &Function, i: crate::ir::index::Inst) {
    let _ = write!(s, "{}", f.opcode(i));
    for op in f.inst_operands(i) {
        let _ = write!(s, " {op}");
    }
    let clobbers = f.inst_clobbers(i);
    if !clobbers.is_empty() {
        s.push_str(" clobbers(");
        for (k, r) in clobbers.iter().enumerate() {
            if k > 0 {
                s.push_str(", ");
            }
            let _ = write!(s, "{r}");
        }
        s.push(')');
    }
    for t in 0..f.num_targets(i) {
        s.push_str(if t == 0 { " -> " } else { ", " });
        let (block, args) = f.target(i, t);
        let _ = write!(s, "{block}(");
        push_vregs(s, args);
        s.push(')');
    }
}

/// Appends the `allocation` section: each instruction's line, with the edits
/// that run before and after it around it.
pub fn print_allocation(s: &mut String, f: &Function, out: &Output) {
    let _ = writeln!(s, "allocation\n  spillslots {}", out.num_spillslots);
    let mut e = 0;
    let edits_until = |s: &mut String, upto: ProgPoint, e: &mut usize| {
        while *e < out.edits.len() && out.edits[*e].0 <= upto {
            let (p, m) = out.edits[*e];
            let pos = match p.pos() {
                InstPosition::Before => "before",
                InstPosition::After => "after",
            };
            let _ = writeln!(s, "  edit {pos} {}: {} -> {}", p.inst(), m.from, m.to);
            *e += 1;
        }
    };
    for i in f.insts() {
        edits_until(s, ProgPoint::before(i), &mut e);
        let range = f.inst_operand_range(i);
        if !range.is_empty() {
            let _ = write!(s, "  {i}:");
            for a in out.allocs.get(range).unwrap_or(&[]) {
                let _ = write!(s, " {a}");
            }
            s.push('\n');
        }
        edits_until(s, ProgPoint::after(i), &mut e);
    }
    // Edits past the last instruction (an invalid output) are still shown.
    edits_until(
        s,
        ProgPoint::after(crate::ir::index::Inst(u32::MAX >> 1)),
        &mut e,
    );
    s.push_str("end\n");
}
