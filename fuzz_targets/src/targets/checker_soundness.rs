//! `checker_soundness`: a generated case is allocated by every allocator and
//! both oracles must accept; then the output is mutated (one operand's
//! allocation changed, an edit dropped, duplicated, reordered or retargeted,
//! two operands' allocations swapped). Whenever the interpreter sees a
//! divergence on any of several paths, the checker must reject the mutant: a
//! checker that accepts is a soundness bug. Mutants the checker rejects but
//! the interpreter did not catch are counted (precision is measured, not
//! asserted).

use super::target::{with_case, Input};
use crate::books::context::{bump, Context};
use crate::judging::failure::{Failure, Oracle, Signature};
use crate::judging::judge::{allocate_and_judge, Oracles, MAX_STEPS, PATHS};
use allocator::{Allocation, Case, Output, PReg, RegClass, SpillSlot};
use arbitrary::Unstructured;
use checker::interp;
use ssagen::Choices;
/// Every allocator on the case, both oracles; then, when the case was
/// generated, up to four mutants of each output drawn from the bytes left.
pub fn check(input: &Input, ctx: &Context) -> Result<(), Failure> {
    let Input::Case { case, rest } = *input else {
        panic!("checker_soundness runs on cases");
    };
    let Some(rest) = rest else {
        for a in crate::registry::allocators(&ctx.settings) {
            allocate_and_judge(&*a, case, Oracles::Both, ctx)?;
        }
        return Ok(());
    };
    super::ssagen::note_case(case);
    let mut u = Unstructured::new(rest);
    let mut c = Choices::new(&mut u);
    let counts = &ctx.mutants;
    for a in crate::registry::allocators(&ctx.settings) {
        let out = match allocate_and_judge(&*a, case, Oracles::Both, ctx) {
            Ok(Some(out)) => out,
            Ok(None) => continue,
            Err(f) => return Err(with_case(f, case)),
        };
        for _ in 0..4 {
            let Some((what, m)) = mutate(case, &out, &mut c) else {
                break;
            };
            bump(&counts.mutants, 1);
            let errs = checker::check(&case.func, &case.machine, &m);
            let rejected = !errs.is_empty();
            for e in &errs {
                crate::books::features::note("check_error", e.kind as u64);
            }
            let divergence = (0..PATHS)
                .find_map(|s| interp::run(&case.func, &case.machine, &m, s, MAX_STEPS).err());
            crate::books::features::note(
                "mutant",
                rejected as u64 + 2 * divergence.is_some() as u64,
            );
            bump(&counts.rejected, rejected as u64);
            bump(&counts.diverged, divergence.is_some() as u64);
            bump(
                &counts.rejected_not_diverged,
                (rejected && divergence.is_none()) as u64,
            );
            if let (Some(d), false) = (&divergence, rejected) {
                let mut shown = case.clone();
                shown.output = Some(m);
                return Err(Failure::new(
                    Signature::new(Some(a.name()), Oracle::Soundness, ""),
                    format!(
                        "the checker accepts a mutant of {}'s allocation ({what}) that the interpreter shows is wrong: {d}\n{}",
                        a.name(),
                        allocator::ir::text::print(&shown)
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A random location of `class`: an allocatable register of the machine, a
/// register outside it, a spill slot or `none`.
fn location(case: &Case, out: &Output, class: RegClass, c: &mut Choices) -> Allocation {
    match c.int(0, 5) {
        0 | 1 => {
            let regs: Vec<PReg> = case.machine.allocatable(class).collect();
            c.pick(&regs).map_or(Allocation::None, Allocation::Reg)
        }
        2 => Allocation::Reg(PReg::new(c.int(0, 63), class)),
        3 | 4 => Allocation::Stack(SpillSlot::new(c.int(0, out.num_spillslots.max(1)))),
        _ => Allocation::None,
    }
}

/// One mutation of `out`, described; `None` when there is nothing to mutate.
pub fn mutate(case: &Case, out: &Output, c: &mut Choices) -> Option<(String, Output)> {
    let f = &case.func;
    let mut m = out.clone();
    let nops = m.allocs.len();
    let nedits = m.edits.len();
    match c.int(0, 5) {
        0 if nops > 0 => {
            let k = c.int(0, nops - 1);
            let class = f
                .insts()
                .flat_map(|i| f.inst_operands(i).iter())
                .nth(k)?
                .class();
            let a = location(case, out, class, c);
            let old = m.allocs[k];
            m.allocs[k] = a;
            Some((format!("operand allocation {k}: {old} -> {a}"), m))
        }
        1 if nedits > 0 => {
            let e = c.int(0, nedits - 1);
            let (p, mv) = m.edits.remove(e);
            Some((format!("dropped edit {p}: {} -> {}", mv.from, mv.to), m))
        }
        2 if nedits > 0 => {
            let e = c.int(0, nedits - 1);
            let x = m.edits[e];
            m.edits.insert(e + 1, x);
            Some((format!("duplicated edit {e}"), m))
        }
        3 if nedits > 1 => {
            let e = c.int(0, nedits - 2);
            if m.edits[e].0 != m.edits[e + 1].0 {
                return None;
            }
            m.edits.swap(e, e + 1);
            Some((format!("swapped edits {e} and {}", e + 1), m))
        }
        4 if nedits > 0 => {
            let e = c.int(0, nedits - 1);
            let (_, mv) = m.edits[e];
            let class = [mv.from, mv.to]
                .iter()
                .find_map(|a| a.as_reg().map(|r| r.class()))
                .unwrap_or(RegClass::Int);
            let a = location(case, out, class, c);
            if c.chance(1, 2) {
                m.edits[e].1.from = a;
            } else {
                m.edits[e].1.to = a;
            }
            Some((format!("retargeted edit {e}: {} -> {}", mv.from, mv.to), m))
        }
        _ if nops > 1 => {
            let (k1, k2) = (c.int(0, nops - 1), c.int(0, nops - 1));
            m.allocs.swap(k1, k2);
            Some((format!("swapped operand allocations {k1} and {k2}"), m))
        }
        _ => None,
    }
}
