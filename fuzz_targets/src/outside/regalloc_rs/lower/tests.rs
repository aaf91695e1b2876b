//! The lowering on small hand-written cases: the stream it hands the crate.

use super::*;
use allocator::Case;

fn case(function: &str) -> Case {
    let machine = allocator::fixtures::machine([
        "p0i-p1i nonpreferred none scratch p2i",
        "p0f nonpreferred none scratch p1f",
        "p0v nonpreferred none scratch p1v",
    ]);
    let src = format!("{machine}function\n{function}end\n");
    allocator::ir::text::parse_and_validate(src.as_bytes())
        .unwrap_or_else(|e| panic!("{}", e[0]))
        .0
}

/// The lowered stream as text: `c D <- S` for a copy, `i N` for an
/// instruction of ours, `e R` for an early def's placeholder.
fn shape(l: &LoweredFunc) -> Vec<String> {
    let name = |r: Reg| match r.as_virtual_reg() {
        Some(v) => format!("v{}", v.get_index()),
        None => format!("r{}", r.get_index()),
    };
    l.insts
        .iter()
        .map(|x| match x {
            Lowered::Case { inst, .. } => format!("i{inst}"),
            Lowered::Copy { dst, src } => format!("c {} <- {}", name(dst.to_reg()), name(*src)),
            Lowered::EarlyDef { reg } => format!("e {}", name(reg.to_reg())),
            other => format!("{other:?}"),
        })
        .collect()
}

fn lowered(c: &Case, lsra: bool) -> Vec<String> {
    let u = Universe::new(&c.func, &c.machine, lsra);
    shape(&LoweredFunc::new(&c.func, &u).unwrap())
}

#[test]
fn swapped_loop_parameters_go_through_temporaries() {
    let c = case(
        "  block0:\n    inst0: op def:v0i:reg def:v1i:reg\n    inst1: branch -> block1(v0i, v1i)\n  block1(v2i, v3i):\n    inst2: op use:v2i:reg use:v3i:reg\n    inst3: branch -> block1(v3i, v2i)\n",
    );
    let s = lowered(&c, false);
    // Into the join from block0: plain copies before its branch; the
    // back edge swaps through v4 and v5.
    assert_eq!(
        s,
        [
            "i0",
            "c v2 <- v0",
            "c v3 <- v1",
            "i1",
            "i2",
            "c v4 <- v3",
            "c v5 <- v2",
            "c v2 <- v4",
            "c v3 <- v5",
            "i3"
        ]
    );
}

#[test]
fn a_branch_reads_a_parameter_of_its_target_from_a_copy() {
    let c = case(
        "  block0:\n    inst0: op def:v0f:any\n    inst1: branch -> block1(v0f)\n  block1(v1f):\n    inst2: op def:v2f:any\n    inst3: branch use:v1f:any -> block1(v2f)\n",
    );
    let u = Universe::new(&c.func, &c.machine, false);
    let l = LoweredFunc::new(&c.func, &u).unwrap();
    assert_eq!(shape(&l)[4..], ["c v3 <- v1", "c v1 <- v2", "i3"]);
    let Lowered::Case { regs, .. } = &l.insts[6] else {
        panic!()
    };
    assert_eq!(regs[0].reg.as_virtual_reg().unwrap().get_index(), 3);
}

#[test]
fn copies_around_an_instruction_take_registers_last_and_free_them_first() {
    // p62i is in no list: not allocatable. Universe: p0i p1i, then the
    // other classes' registers and the scratch registers, then p62i.
    let c = case(
        "  block0:\n    inst0: op def:v0i:any def:v1i:any\n    inst1: op use:v0i:fixed(p0i) use:v1i:fixed(p62i) def:v2i:fixed(p62i) def:v3i:fixed(p1i)\n    inst2: ret use:v2i:any use:v3i:any\n",
    );
    let s = lowered(&c, false);
    assert_eq!(
        s,
        [
            "i0",
            "c r7 <- v1",
            "c r0 <- v0",
            "i1",
            "c v3 <- r1",
            "c v2 <- r7",
            "i2"
        ]
    );
}

#[test]
fn late_uses_reuse_and_early_defs_are_modified_in_place() {
    let c = case(
        "  block0:\n    inst0: op def:v0i:any def:v1i:any\n    inst1: op def:v2i:reuse(1) use:v0i:reg use:v1i:any:late\n    inst2: op def:v3i:reg:early use:v2i:reg\n    inst3: ret use:v3i:any use:v0i:any\n",
    );
    let u = Universe::new(&c.func, &c.machine, false);
    let l = LoweredFunc::new(&c.func, &u).unwrap();
    assert_eq!(shape(&l), ["i0", "c v2 <- v0", "i1", "e v3", "i2", "i3"]);
    let roles = |k: usize| match &l.insts[k] {
        Lowered::Case { regs, .. } => regs.iter().map(|m| m.role).collect::<Vec<_>>(),
        _ => panic!(),
    };
    assert_eq!(roles(2), [Role::Mod, Role::Mod]);
    assert_eq!(roles(4), [Role::Mod, Role::Use]);
    // Operand 1 of inst1, the reused input, reads the def's register.
    assert_eq!(l.sources[2], l.sources[3]);
}

#[test]
fn an_instruction_naming_more_registers_than_a_class_has_is_overfull() {
    let c = case(
        "  block0:\n    inst0: op def:v0i:any def:v1i:any\n    inst1: op def:v2i:any\n    inst2: op use:v0i:any use:v1i:any use:v2i:any\n    inst3: ret\n",
    );
    for lsra in [false, true] {
        let u = Universe::new(&c.func, &c.machine, lsra);
        let l = LoweredFunc::new(&c.func, &u).unwrap();
        assert_eq!(l.overfull(&u), Some(Inst::new(2)));
    }
    let c = case("  block0:\n    inst0: op def:v0i:any def:v1i:any\n    inst1: ret use:v0i:any use:v1i:any\n");
    let u = Universe::new(&c.func, &c.machine, true);
    assert_eq!(LoweredFunc::new(&c.func, &u).unwrap().overfull(&u), None);
}
