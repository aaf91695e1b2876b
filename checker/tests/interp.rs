//! The concrete interpreter on hand-made allocations: each test pins one
//! point of its semantics (the order of effects within an instruction,
//! distinct values per def, poison, bounds) and of its messages.

use allocator::fixtures::unit_case;
use allocator::{Allocation, Inst, Move, PReg, ProgPoint, RegClass, SpillSlot};
use checker::interp::{Divergence, RunStats};

/// The interpreter on a machine whose values fill one slot each (the
/// cases' register lists play no part in it).
fn run(
    f: &allocator::Function,
    out: &allocator::Output,
    seed: u64,
    max_steps: usize,
) -> Result<RunStats, Divergence> {
    checker::interp::run(f, &allocator::MachineEnv::default(), out, seed, max_steps)
}

/// The function and allocation of the unit case `name`, the allocation
/// not validated.
fn case(name: &str) -> (allocator::Function, allocator::Output) {
    let c = unit_case(name);
    (c.func, c.output.unwrap())
}

#[test]
fn a_late_use_sees_an_early_def_written_over_it() {
    let (f, out) = case("checker_interp/a_late_use_sees_an_early_def_written_over_it");
    let d = run(&f, &out, 0, 100).unwrap_err();
    assert_eq!((d.inst, d.operand), (Inst(1), 0));
}

#[test]
fn a_late_use_reads_before_the_clobbers_and_late_defs() {
    // Sharing with a late def is the checker's business (interference); the
    // interpreter's order is: late uses read, then clobbers, then late defs.
    let (f, out) = case("checker_interp/a_late_use_reads_before_the_clobbers_and_late_defs");
    let ok = run(&f, &out, 0, 100).unwrap();
    assert_eq!((ok.uses_checked, ok.returned), (2, true));
}

#[test]
fn an_early_def_in_a_clobbered_register_is_destroyed() {
    let (f, out) = case("checker_interp/an_early_def_in_a_clobbered_register_is_destroyed");
    let d = run(&f, &out, 0, 100).unwrap_err();
    assert_eq!((d.inst, d.step), (Inst(1), 2));
    assert_eq!(d.found, "poison from a clobber at step 1");
}

#[test]
fn two_defs_of_one_instruction_have_different_values() {
    let (f, out) = case("checker_interp/two_defs_of_one_instruction");
    assert!(run(&f, &out, 0, 100).is_ok());
    let (f, swapped) = case("checker_interp/two_defs_of_one_instruction_read_swapped");
    let d = run(&f, &swapped, 0, 100).unwrap_err();
    assert_eq!(d.found, "the current value of vreg 1");
    assert_eq!(d.vreg, allocator::VReg::new(0, RegClass::Int));
    let text = d.to_string();
    assert!(
        text.starts_with("step 2: inst1 operand 0 reads v0i from p1i: expected 0x"),
        "{text}"
    );
    assert!(text.ends_with("(the current value of vreg 1)"), "{text}");
}

#[test]
fn untouched_locations_hold_poison_and_bounds_never_panic() {
    let (f, out) = case("checker_interp/untouched_locations_hold_poison_and_bounds_never_panic");
    let d = run(&f, &out, 0, 100).unwrap_err();
    assert_eq!(d.found, "the initial poison of a location");
    // A slot at or past the declared count reads poison and writes nowhere.
    let mut m = out.clone();
    m.allocs[0] = Allocation::Stack(SpillSlot(1));
    m.allocs[1] = Allocation::Stack(SpillSlot(1));
    let d = run(&f, &m, 0, 100).unwrap_err();
    assert_eq!(d.found, "the initial poison of a location");
    // An edit at an instruction that does not exist is ignored.
    let mut m = out;
    m.allocs[1] = Allocation::Stack(SpillSlot(0));
    m.edits.push((
        ProgPoint::before(Inst(2)),
        Move {
            from: Allocation::Reg(PReg::new(0, RegClass::Int)),
            to: Allocation::Stack(SpillSlot(0)),
        },
    ));
    assert!(run(&f, &m, 0, 100).is_ok());
}

/// On a machine whose float values fill two slots, an int spilled into the
/// second slot of a spilled float cuts it: the float's reload reads the
/// remains. Named by their last slot, the same values sit side by side.
#[test]
fn a_write_into_a_wide_values_slots_cuts_it() {
    let read = |name: &str| {
        let path = allocator::fixtures::repo_root().join(format!("tests/cases/check/{name}.ra"));
        allocator::fixtures::read_case(&path)
    };
    let cut = read("wrong_value_write_overlaps_wide_slot");
    let out = cut.output.as_ref().unwrap();
    let d = checker::interp::run(&cut.func, &cut.machine, out, 0, 100).unwrap_err();
    assert_eq!((d.inst, d.operand), (Inst(3), 0));
    assert!(d.found.contains("cut by a write"), "{}", d.found);
    // One slot per value: the same allocation is right.
    assert!(run(&cut.func, out, 0, 100).is_ok());
    let side = read("wide_slots_named_by_last");
    let out = side.output.as_ref().unwrap();
    assert!(checker::interp::run(&side.func, &side.machine, out, 0, 100).is_ok());
}
