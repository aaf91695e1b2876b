//! One instruction's operands as use records for the live ranges, with the
//! three rewrites that let the core allocator see one requirement per
//! value per point:
//!
//! - **Several reads of one value.** Reads at one point whose requirements
//!   meet share one record and one location (the others are aliases), and
//!   so do an early and a late read that meet as `any` or `stack`. A read that
//!   cannot share (`fixed(p0)` and `fixed(p1)` of one value, say) gets a
//!   *copy value*: a fresh value live only at this instruction, filled by a
//!   move before it. A `fixed` read of a value that lives on past an
//!   instruction which clobbers or defines that register is a copy too:
//!   the value cannot stay there.
//! - **`reuse`.** The def occupies its location from the early point, with
//!   the requirement of the reused operand, so nothing else the instruction
//!   reads can be there; the reused input is read from the def's location,
//!   filled by a move before the instruction. The input itself is only
//!   needed up to the boundary before the instruction, so when it dies
//!   there it may share the def's location and the move disappears.
//! - **Reads that cannot stay.** A read that needs a register, by a value
//!   that lives on past the instruction, is a copy when the exact search of
//!   [`crate::inst_regs`] finds that the instruction's register operands do
//!   not fit if such reads keep their registers through the late point (as
//!   when the instruction writes or clobbers every register one accepts).
//! - **Early defs** occupy their location through the late point.
//!
//! Clobbers and `nonalloc` registers become reservations, which nothing
//! may overlap and nothing can evict.

use super::points::{e, l, m, Point};
use super::requirement::{Masks, Req};
use crate::inst_regs::{RegSlot, Search};
use crate::interface::AllocError;
use crate::ir::function::Function;
use crate::ir::index::{Inst, PReg, RegClass};
use crate::ir::operand::{OperandConstraint, OperandPos};

/// `slot` of a record that stands for no operand.
pub const GHOST: u32 = u32::MAX;
const NONE: u32 = u32::MAX;

/// A read or write of a value at a point, with what it asks of the
/// location; `slot` is the operand's index in the function, or [`GHOST`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub value: u32,
    pub point: Point,
    pub slot: u32,
    pub req: Req,
}

/// The records of one instruction, in the order the range builder needs
/// them (defs close ranges, uses open them). Kept between instructions.
#[derive(Default)]
pub struct InstRecords {
    pub defs: Vec<Record>,
    pub uses: Vec<Record>,
    /// Copy values: `(copy, source value, the copy's read)`.
    pub copies: Vec<(u32, u32, Record)>,
    reused_by: Vec<u32>,
    slots: Vec<RegSlot>,
    search: Search,
}

/// Move-side facts of the rewrites, for the assembly of the output.
#[derive(Default, Debug)]
pub struct Rewrites {
    /// `(operand, operand whose location it shares)`.
    pub aliases: Vec<(u32, u32)>,
    pub reuses: Vec<Reuse>,
    /// `(instruction, source value, copy value)`.
    pub copies: Vec<(Inst, u32, u32)>,
    /// `(register, from, to)`: no value may be there.
    pub reservations: Vec<(PReg, Point, Point)>,
}

/// A `reuse` def and its input.
#[derive(Clone, Copy, Debug)]
pub struct Reuse {
    pub inst: Inst,
    /// Operand indices in the function.
    pub input_slot: u32,
    pub def_slot: u32,
    /// The values read and defined.
    pub input: u32,
    pub def: u32,
}

/// The values of the function: its vregs, then the copy values.
pub struct Values {
    pub class: Vec<RegClass>,
}

/// Records the operands of `i`. `live_after(v)` says whether vreg `v` is
/// live after `i`. New copy values are appended to `values`.
pub fn plan_inst(
    f: &Function,
    i: Inst,
    masks: &Masks,
    live_after: impl Fn(u32) -> bool,
    values: &mut Values,
    out: &mut InstRecords,
    rw: &mut Rewrites,
) -> Result<(), AllocError> {
    out.defs.clear();
    out.uses.clear();
    out.copies.clear();
    let ops = f.inst_operands(i);
    let base = f.inst_operand_range(i).start as u32;
    out.reused_by.clear();
    out.reused_by.resize(ops.len(), NONE);
    let mut clob = [0u64; 3];
    for &r in f.inst_clobbers(i) {
        clob[r.class().index()] |= 1 << r.hw();
        rw.reservations.push((r, l(i), l(i) + 1));
    }
    for (d, op) in ops.iter().enumerate() {
        match op.constraint() {
            OperandConstraint::Reuse(k) => {
                if out.reused_by[k] != NONE {
                    return Err(AllocError::Impossible(format!(
                        "{i}: two defs reuse operand {k}, so both would be written to one location"
                    )));
                }
                out.reused_by[k] = d as u32;
            }
            OperandConstraint::NonAlloc(r) => rw.reservations.push((r, e(i), l(i) + 1)),
            _ => {}
        }
    }
    for (d, op) in ops.iter().enumerate() {
        if !op.is_def() {
            continue;
        }
        let class = op.class();
        let (point, req) = match op.constraint() {
            OperandConstraint::Reuse(k) => (e(i), Req::of(ops[k].constraint(), class, masks)),
            c if op.pos() == OperandPos::Early => (e(i), Req::of(c, class, masks)),
            c => (l(i), Req::of(c, class, masks)),
        };
        out.defs.push(Record {
            value: op.vreg().index() as u32,
            point,
            slot: base + d as u32,
            req,
        });
    }
    // Reads, grouped per value: `out.uses` holds one record per group, the
    // first group of each value being the value's own read.
    let first_group = out.uses.len();
    for (k, op) in ops.iter().enumerate() {
        if !op.is_use() || op.is_nonalloc() {
            continue;
        }
        let v = op.vreg().index() as u32;
        if out.reused_by[k] != NONE {
            out.uses.push(Record {
                value: v,
                point: m(i),
                slot: GHOST,
                req: Req::Top,
            });
            let d = out.reused_by[k] as usize;
            rw.reuses.push(Reuse {
                inst: i,
                input_slot: base + k as u32,
                def_slot: base + d as u32,
                input: v,
                def: ops[d].vreg().index() as u32,
            });
            continue;
        }
        let req = Req::of(op.constraint(), op.class(), masks);
        let point = if op.pos() == OperandPos::Late {
            l(i)
        } else {
            e(i)
        };
        let slot = base + k as u32;
        // Reads at one point share when their requirements meet; an early
        // and a late read only when they meet as `any` or `stack`, so that
        // the shared location need not be a register the instruction
        // writes.
        let group = out.uses[first_group..].iter_mut().find(|g| {
            let met = g.req.meet(req);
            g.value == v
                && g.slot != GHOST
                && met != Req::Conflict
                && (g.point == point || !met.needs_reg())
        });
        match group {
            Some(g) => {
                g.req = g.req.meet(req);
                g.point = g.point.max(point);
                rw.aliases.push((slot, g.slot));
            }
            None => out.uses.push(Record {
                value: v,
                point,
                slot,
                req,
            }),
        }
    }
    // Per class: do the register operands still fit when the reads of
    // values that live on keep their register through the late point? (A
    // read fixed to a register the instruction clobbers or a def writes
    // does not: its register is taken at the late point.)
    let mut fits = [true; 3];
    for (c, fit) in fits.iter_mut().enumerate() {
        let keeps = out.uses[first_group..].iter().any(|g| {
            g.slot != GHOST
                && g.point == e(i)
                && g.req.needs_reg()
                && values.class[g.value as usize].index() == c
                && live_after(g.value)
        });
        if !keeps {
            continue;
        }
        out.slots.clear();
        let cand = |req: Req| match req {
            Req::Regs(m) => m,
            Req::Fixed(r) | Req::Pinned(r) => 1 << r.hw(),
            _ => 0,
        };
        for r in &out.defs {
            if r.req.needs_reg() && values.class[r.value as usize].index() == c {
                out.slots.push(RegSlot {
                    candidates: cand(r.req) & !clob[c],
                    early: r.point == e(i),
                    late: true,
                    prefer: [0; 2],
                });
            }
        }
        for g in &out.uses[first_group..] {
            if g.slot != GHOST && g.req.needs_reg() && values.class[g.value as usize].index() == c {
                let late = g.point == l(i) || live_after(g.value);
                out.slots.push(RegSlot {
                    candidates: if late {
                        cand(g.req) & !clob[c]
                    } else {
                        cand(g.req)
                    },
                    early: true,
                    late,
                    prefer: [0; 2],
                });
            }
        }
        *fit = out.search.run(&out.slots, 0, 0);
    }
    // Groups after a value's first become copy values, and so does a first
    // group that cannot stay in its register past the instruction.
    for k in first_group..out.uses.len() {
        let g = out.uses[k];
        if g.slot == GHOST {
            continue;
        }
        let first = !out.uses[first_group..k]
            .iter()
            .any(|o| o.value == g.value && o.slot != GHOST);
        let stuck = g.point == e(i)
            && live_after(g.value)
            && g.req.needs_reg()
            && !fits[values.class[g.value as usize].index()];
        if first && !stuck {
            continue;
        }
        let c = values.class.len() as u32;
        values.class.push(values.class[g.value as usize]);
        out.copies.push((c, g.value, Record { value: c, ..g }));
        rw.copies.push((i, g.value, c));
        // The source is read by the copy's move before the instruction.
        out.uses[k] = Record {
            value: g.value,
            point: m(i),
            slot: GHOST,
            req: Req::Top,
        };
    }
    Ok(())
}

/// The records of a branch whose edge moves run before it: its operands
/// are placed apart (see `edge_branch`), so the core allocator only keeps
/// their values live through it.
pub fn plan_edge_branch(f: &Function, i: Inst, out: &mut InstRecords, rw: &mut Rewrites) {
    out.defs.clear();
    out.uses.clear();
    out.copies.clear();
    for &r in f.inst_clobbers(i) {
        rw.reservations.push((r, l(i), l(i) + 1));
    }
    for op in f.inst_operands(i) {
        let point = if op.pos() == OperandPos::Early {
            e(i)
        } else {
            l(i)
        };
        let rec = Record {
            value: op.vreg().index() as u32,
            point,
            slot: GHOST,
            req: Req::Top,
        };
        match op.constraint() {
            OperandConstraint::NonAlloc(r) => rw.reservations.push((r, e(i), l(i) + 1)),
            _ if op.is_def() => out.defs.push(rec),
            _ => out.uses.push(rec),
        }
    }
}

/// The first instruction whose register operands alone cannot all get
/// registers (each use early, and late too when it is a late use; each def
/// late, and early too when it is an early or `reuse` def), as the message
/// of an `Impossible` error; `None` when every instruction fits.
pub fn infeasible_inst(f: &Function, masks: &Masks) -> Option<String> {
    let mut slots: Vec<RegSlot> = Vec::new();
    for i in f.insts() {
        let ops = f.inst_operands(i);
        let mut clob = [0u64; 3];
        for &r in f.inst_clobbers(i) {
            clob[r.class().index()] |= 1 << r.hw();
        }
        // A reused input shares its def's register: one slot for the pair.
        let reused = |k: usize| {
            ops.iter()
                .any(|d| d.constraint() == OperandConstraint::Reuse(k))
        };
        for c in RegClass::ALL {
            slots.clear();
            for (_, op) in ops
                .iter()
                .enumerate()
                .filter(|&(k, op)| op.class() == c && !op.is_nonalloc() && !reused(k))
            {
                let constraint = match op.constraint() {
                    OperandConstraint::Reuse(k) => ops[k].constraint(),
                    other => other,
                };
                let candidates = match Req::of(constraint, c, masks) {
                    Req::Regs(m) => m,
                    Req::Fixed(r) | Req::Pinned(r) => 1 << r.hw(),
                    _ => continue,
                };
                let reuse = matches!(op.constraint(), OperandConstraint::Reuse(_));
                let (early, late) = if op.is_use() {
                    (true, op.pos() == OperandPos::Late)
                } else {
                    (reuse || op.pos() == OperandPos::Early, true)
                };
                slots.push(RegSlot {
                    candidates: if late {
                        candidates & !clob[c.index()]
                    } else {
                        candidates
                    },
                    early,
                    late,
                    prefer: [0; 2],
                });
            }
            if !slots.is_empty() && crate::inst_regs::assign(&slots, 0, 0).is_none() {
                return Some(format!(
                    "{i}: its {c} operands cannot all get registers at once"
                ));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `function` on a machine with int registers `ints`, one float and one
    /// vector register.
    fn case(ints: &str, function: &str) -> crate::ir::case::Case {
        crate::fixtures::case_on([ints, "p0f", "p0v"], function)
    }

    fn point(i: Inst, p: Point) -> &'static str {
        match p {
            p if p == m(i) => "M",
            p if p == e(i) => "E",
            p if p == l(i) => "L",
            _ => "?",
        }
    }

    fn req(r: Req) -> String {
        match r {
            Req::Regs(m) => format!("regs{m:#b}"),
            Req::Fixed(r) => format!("fixed {r}"),
            Req::Pinned(r) => format!("pinned {r}"),
            other => format!("{other:?}").to_lowercase(),
        }
    }

    fn record(i: Inst, r: &Record) -> String {
        let slot = match r.slot {
            GHOST => "ghost".to_string(),
            s => format!("op{s}"),
        };
        format!("v{}@{} {} {slot}", r.value, point(i, r.point), req(r.req))
    }

    /// One line per record and rewrite of instruction `i`.
    fn lines(i: Inst, out: &InstRecords, rw: &Rewrites) -> Vec<String> {
        let mut s = Vec::new();
        s.extend(out.defs.iter().map(|r| format!("def {}", record(i, r))));
        s.extend(out.uses.iter().map(|r| format!("use {}", record(i, r))));
        for (c, from, r) in &out.copies {
            s.push(format!("copy v{c} of v{from}: {}", record(i, r)));
        }
        s.extend(rw.aliases.iter().map(|(a, b)| format!("alias op{a} op{b}")));
        for u in &rw.reuses {
            s.push(format!(
                "reuse op{} v{} by op{} v{}",
                u.input_slot, u.input, u.def_slot, u.def
            ));
        }
        for (r, from, to) in &rw.reservations {
            s.push(format!(
                "reserve {r} {}..{}+1",
                point(i, *from),
                point(i, to - 1)
            ));
        }
        s
    }

    /// The records of instruction 1 of `function`, with the vregs `live`
    /// live after it.
    fn plan(ints: &str, function: &str, live: &[u32]) -> Vec<String> {
        let case = case(ints, function);
        let f = &case.func;
        let masks = Masks::new(&case.machine);
        let mut values = Values {
            class: vec![RegClass::Int; f.num_vregs()],
        };
        let mut out = InstRecords::default();
        let mut rw = Rewrites::default();
        let i = Inst::new(1);
        let live_after = |v| live.contains(&v);
        match plan_inst(f, i, &masks, live_after, &mut values, &mut out, &mut rw) {
            Ok(()) => lines(i, &out, &rw),
            Err(e) => vec![format!("error: {e}")],
        }
    }

    /// A function whose inst1 is `inst1`, reading the vregs inst0 defines
    /// and defining v2 and v3 where it says so.
    fn with_inst1(inst1: &str) -> String {
        format!(
            "function
  block0:
    inst0: op def:v0i:any def:v1i:any
    inst1: {inst1}
    inst2: ret
end
"
        )
    }

    #[test]
    fn clobbers_and_nonalloc_registers_are_reserved() {
        let f = with_inst1("op use:v0i:reg use:v1i:any nonalloc(p63i) clobbers(p1i)");
        assert_eq!(
            plan("p0i-p1i", &f, &[]),
            [
                "use v0@E regs0b11 op2",
                "use v1@E any op3",
                "reserve p1i L..L+1",
                "reserve p63i E..L+1",
            ]
        );
    }

    #[test]
    fn reads_of_one_value_share_where_their_requirements_meet() {
        let f = with_inst1(
            "op use:v0i:reg use:v0i:any use:v1i:any use:v1i:stack:late \
             use:v0i:fixed(p1i) use:v1i:reg:late use:v0i:fixed(p0i)",
        );
        assert_eq!(
            plan("p0i-p1i", &f, &[]),
            [
                "use v0@E fixed p1i op2",
                "use v1@L stack op4",
                "use v1@M top ghost",
                "use v0@M top ghost",
                "copy v2 of v1: v2@L regs0b11 op7",
                "copy v3 of v0: v3@E fixed p0i op8",
                "alias op3 op2",
                "alias op5 op4",
                "alias op6 op2",
            ]
        );
    }

    #[test]
    fn defs_are_recorded_at_their_points() {
        let f = with_inst1("op def:v2i:reg:early def:v3i:any use:v0i:reg def:v4i:reuse(2)");
        assert_eq!(
            plan("p0i-p2i", &f, &[2, 3, 4]),
            [
                "def v2@E regs0b111 op2",
                "def v3@L any op3",
                "def v4@E regs0b111 op5",
                "use v0@M top ghost",
                "reuse op4 v0 by op5 v4",
            ]
        );
    }

    #[test]
    fn reused_input_is_read_by_a_move() {
        let f = with_inst1("op use:v0i:limit(1) def:v2i:reuse(0)");
        assert_eq!(
            plan("p0i-p1i", &f, &[2]),
            [
                "def v2@E regs0b1 op3",
                "use v0@M top ghost",
                "reuse op2 v0 by op3 v2",
            ]
        );
    }

    /// A read of a value that lives on keeps its register through the late
    /// point when the instruction's register operands still fit.
    #[test]
    fn reads_stay_where_the_operands_fit() {
        // v0i in p1i, the fixed def in p0i (and so with p1i: `>>` would
        // empty its candidates).
        for def in ["def:v2i:fixed(p0i)", "def:v2i:fixed(p1i)"] {
            let f = with_inst1(&format!("op use:v0i:reg {def}"));
            let got = plan("p0i-p1i", &f, &[0]);
            assert!(!got.iter().any(|l| l.starts_with("copy")), "{def}: {got:?}");
        }
        // An `any` def needs no register: v0i keeps the only one.
        let f = with_inst1("op use:v0i:reg def:v2i:any");
        assert_eq!(
            plan("p0i", &f, &[0]),
            ["def v2@L any op3", "use v0@E regs0b1 op2"]
        );
        // v1i dies early: the late def takes its register.
        let f = with_inst1("op use:v0i:reg use:v1i:reg def:v2i:reg");
        let got = plan("p0i-p1i", &f, &[0]);
        assert!(!got.iter().any(|l| l.starts_with("copy")), "{got:?}");
    }

    #[test]
    fn reads_that_cannot_stay_are_copies() {
        // Its register is clobbered, or written by a def, or every register
        // is needed at the late point.
        for (inst1, ints) in [
            ("op use:v0i:fixed(p1i) clobbers(p1i)", "p0i-p1i"),
            ("op use:v0i:fixed(p1i) def:v2i:fixed(p1i)", "p0i-p1i"),
            ("op use:v0i:reg def:v2i:reg", "p0i"),
        ] {
            let f = with_inst1(inst1);
            let got = plan(ints, &f, &[0]);
            assert!(
                got.iter()
                    .any(|l| l.starts_with("copy v") && l.contains(" of v0: ")),
                "{inst1}: {got:?}"
            );
        }
    }

    #[test]
    fn edge_branch_records_only_keep_values_live() {
        let src = "function
  block0:
    inst0: op def:v0i:reg
    inst1: branch use:v0i:reg def:v1i:reg nonalloc(p63i) clobbers(p0i) -> block1(), block2()
  block1:
    inst2: ret use:v1i:reg
  block2:
    inst3: ret
end
";
        let case = case("p0i-p1i", src);
        let mut out = InstRecords::default();
        let mut rw = Rewrites::default();
        let i = Inst::new(1);
        plan_edge_branch(&case.func, i, &mut out, &mut rw);
        assert_eq!(
            lines(i, &out, &rw),
            [
                "def v1@L top ghost",
                "use v0@E top ghost",
                "reserve p0i L..L+1",
                "reserve p63i E..L+1",
            ]
        );
    }

    #[test]
    fn infeasible_instructions_are_named() {
        let infeasible = |ints: &str, inst1: &str| {
            let case = case(ints, &with_inst1(inst1));
            infeasible_inst(&case.func, &Masks::new(&case.machine))
        };
        let no = "inst1: its int operands cannot all get registers at once";
        for (ints, inst1) in [
            ("p0i", "op use:v0i:reg use:v1i:reg"),
            ("p1i", "op use:v0i:reg:late clobbers(p1i)"),
            ("p0i-p1i", "op use:v0i:fixed(p0i):late clobbers(p0i)"),
            (
                "p0i-p1i",
                "op use:v0i:limit(2):late use:v1i:fixed(p0i):late def:v2i:reg",
            ),
            ("p0i", "op use:v0i:limit(1) def:v2i:reg:early"),
        ] {
            assert_eq!(infeasible(ints, inst1).as_deref(), Some(no), "{inst1}");
        }
        for (ints, inst1) in [
            ("p0i-p1i", "op use:v0i:reg use:v1i:fixed(p1i)"),
            ("p0i-p1i", "op use:v0i:reg clobbers(p0i, p1i)"),
            (
                "p0i-p1i",
                "op use:v0i:reg use:v1i:reg def:v2f:reg def:v3v:reg",
            ),
            ("p0i", "op use:v0i:reg def:v2i:reuse(0) nonalloc(p63i)"),
            ("p0i", "op use:v0i:any use:v1i:stack def:v2i:any"),
            ("p0i", "op use:v0i:limit(1) def:v2i:reg"),
        ] {
            assert_eq!(infeasible(ints, inst1), None, "{inst1}");
        }
    }
}
