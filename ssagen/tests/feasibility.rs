//! Each feasibility rule has a case that breaks it, which the independent
//! checker must reject; generated cases must keep the machine rules.

use allocator::ir::text::parse;
use allocator::{PRegRole, RegClass};
use ssagen::{
    feasibility::check,
    generate_from_bytes,
    machine::{NONALLOC_HW, UNLISTED_HW},
    Config,
};

fn machine() -> String {
    allocator::fixtures::machine(["p0i-p1i nonpreferred none scratch p2i", "p0f", "p0v"])
}

fn verdict(body: &str) -> Result<(), String> {
    let src = format!("{}function\n  block0:\n{body}end\n", machine());
    let (case, _) = parse(src.as_bytes()).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let errs = allocator::ir::validate::validate(&case.func, &case.machine);
    assert!(errs.is_empty(), "{:?}", errs);
    check(&case.func, &case.machine)
}

#[test]
fn rule1_registers_at_a_point() {
    let defs = "    inst0: op def:v0i:any def:v1i:any def:v2i:any\n";
    // Two int registers: two register uses fit, three do not.
    assert!(verdict(&format!(
        "{defs}    inst1: op use:v0i:reg use:v1i:reg\n    inst2: ret\n"
    ))
    .is_ok());
    let e = verdict(&format!(
        "{defs}    inst1: op use:v0i:reg use:v1i:reg use:v2i:reg\n    inst2: ret\n"
    ))
    .unwrap_err();
    assert!(e.contains("early point"), "{e}");
    // limit(1) and fixed(p0i) both need p0i.
    let e = verdict(&format!(
        "{defs}    inst1: op use:v0i:limit(1) use:v1i:fixed(p0i)\n    inst2: ret\n"
    ))
    .unwrap_err();
    assert!(e.contains("early point"), "{e}");
    // A late use holds its register at the late point too.
    let e = verdict(&format!("{defs}    inst1: op use:v0i:reg:late def:v3i:fixed(p0i) def:v4i:fixed(p1i)\n    inst2: ret\n")).unwrap_err();
    assert!(e.contains("late point"), "{e}");
}

#[test]
fn rule2_clobbers() {
    let defs = "    inst0: op def:v0i:any\n";
    // An early use may sit in a clobbered register; a late def may not.
    assert!(verdict(&format!(
        "{defs}    inst1: op use:v0i:fixed(p0i) clobbers(p0i)\n    inst2: ret\n"
    ))
    .is_ok());
    let e = verdict(&format!(
        "{defs}    inst1: op def:v1i:limit(1) clobbers(p0i)\n    inst2: ret\n"
    ))
    .unwrap_err();
    assert!(e.contains("clobbered"), "{e}");
    let e = verdict(&format!(
        "{defs}    inst1: op use:v0i:fixed(p1i):late clobbers(p1i)\n    inst2: ret\n"
    ))
    .unwrap_err();
    assert!(e.contains("clobbered"), "{e}");
}

#[test]
fn rule3_reuse() {
    let defs = "    inst0: op def:v0i:any\n";
    assert!(verdict(&format!(
        "{defs}    inst1: op def:v1i:reuse(1) use:v0i:reg\n    inst2: ret\n"
    ))
    .is_ok());
    let e = verdict(&format!(
        "{defs}    inst1: op def:v1i:reuse(1) use:v0i:reg:late\n    inst2: ret\n"
    ))
    .unwrap_err();
    assert!(e.contains("reuse rule"), "{e}");
    let e = verdict(&format!(
        "{defs}    inst1: op def:v1i:reuse(1):early use:v0i:reg\n    inst2: ret\n"
    ))
    .unwrap_err();
    assert!(e.contains("reuse rule"), "{e}");
}

#[test]
fn rule4_machine() {
    for seed in 0..2000u64 {
        let bytes: Vec<u8> = (0..512)
            .map(|i| (seed.wrapping_mul(2654435761).wrapping_add(i * 40503) >> 7) as u8)
            .collect();
        let case = generate_from_bytes(&bytes, &Config::default());
        let env = &case.machine;
        for class in RegClass::ALL {
            assert!(env.num_allocatable(class) >= 1);
            assert_eq!(
                env.role(allocator::PReg::new(NONALLOC_HW, class)),
                PRegRole::NonAllocatable
            );
        }
        let f = &case.func;
        for i in f.insts() {
            for op in f.inst_operands(i) {
                if let allocator::OperandConstraint::FixedReg(r) = op.constraint() {
                    assert_ne!(env.role(r), PRegRole::Scratch);
                    if env.role(r) == PRegRole::NonAllocatable {
                        assert_eq!(r.hw(), UNLISTED_HW, "{r}");
                    }
                }
            }
        }
    }
}

#[test]
fn rule5_values_come_before_their_uses() {
    // A block parameter with no value of its class anywhere: the generator
    // defines one just before the branch instead of failing.
    for seed in 0..500u64 {
        let bytes: Vec<u8> = (0..2048)
            .map(|i| ((seed * 131 + i * 7) % 251) as u8)
            .collect();
        let case = generate_from_bytes(&bytes, &Config::cfg_only());
        assert!(allocator::ir::validate::validate(&case.func, &case.machine).is_empty());
    }
}
