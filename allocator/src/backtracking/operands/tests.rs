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
    let case = crate::fixtures::unit_case("backtracking/edge_branch_records_only_keep_values_live");
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
