//! The linear scan's assembly (spill stores at definitions, defs sunk into
//! slots, defs made in their home register), seen in the allocations it
//! gives.

use allocator::interface::Allocator;
use allocator::ir::output::{Allocation, Output};
use allocator::ir::text::parse_and_validate;

fn machine() -> String {
    allocator::fixtures::machine(["p0i nonpreferred p1i", "p0f nonpreferred p2f", "p0v"])
}

fn run(function: &str) -> Output {
    run_on(&machine(), function)
}

fn run_on(machine: &str, function: &str) -> Output {
    let text = format!("{machine}function\n{function}end\n");
    let (case, _) = parse_and_validate(text.as_bytes()).unwrap();
    allocator::linear_scan::LinearScan
        .run(&case.func, &case.machine)
        .unwrap()
}

fn is_stack(a: Allocation) -> bool {
    matches!(a, Allocation::Stack(_))
}

#[test]
fn a_def_read_from_its_register_keeps_it() {
    // v0i is read from its register right after the def, or later, and
    // then spilled by the clobber.
    let right_after = "  block0:
    inst0: op def:v0i:any
    inst1: op use:v0i:reg
    inst2: op clobbers(p0i, p1i)
    inst3: ret use:v0i:any
";
    let later = "  block0:
    inst0: op def:v0i:any
    inst1: op
    inst2: op use:v0i:reg
    inst3: op clobbers(p0i, p1i)
    inst4: ret use:v0i:any
";
    for function in [right_after, later] {
        let out = run(function);
        assert!(!is_stack(out.allocs[0]), "{function}{:?}", out.allocs);
        assert_eq!(out.edits.len(), 1, "one store: {:?}", out.edits);
    }
}

#[test]
fn a_register_part_nothing_reads_goes_to_the_slot() {
    // v0f must be defined in a register; its part before the cold loop
    // header (entered by a branch that reads a register) is read by
    // nothing, so it needs no move there: only the store and the reload.
    let out = run("  block0:
    inst0: op def:v0f:reg
    inst1: branch -> block1()
  block1:
    inst2: branch -> block2(), block3()
  block2:
    inst3: branch use:v0f:reg -> block1()
  block3:
    inst4: op clobbers(p0f)
    inst5: branch -> block1()
");
    assert_eq!(out.edits.len(), 2, "{:?}", out.edits);
}

#[test]
fn a_register_part_an_edge_carries_on_in_its_register_stays() {
    // v0f is defined in p1f and spilled by the clobber; its first part
    // reaches the edge into block3, where the next part is in p1f
    // again. Moved to the slot, that part would cost block3 a reload:
    // 4 moves instead of 3.
    let machine =
        allocator::fixtures::machine(["none nonpreferred p3i", "p0f-p1f", "none nonpreferred p2v"]);
    let out = run_on(
        &machine,
        "  block0:
    inst0: branch -> block1()
  block1:
    inst1: op def:v0f:reg
    inst2: op clobbers(p0f)
    inst3: branch -> block3(), block2(v0f)
  block2(v1f):
    inst4: op clobbers(p1f)
    inst5: op use:v0f:reg use:v1f:fixed(p0f)
    inst6: branch -> block1()
  block3:
    inst7: op use:v0f:any
    inst8: branch -> block1()
",
    );
    assert_eq!(out.edits.len(), 3, "{:?}", out.edits);
}

#[test]
fn a_def_stays_when_its_slot_would_feed_another_slot() {
    // v0i's register part feeds the spilled parameter v1i's slot; from
    // v0i's slot that store would be memory to memory.
    let out = run("  block0:
    inst0: op def:v0i:any
    inst1: branch -> block1(v0i)
  block1(v1i):
    inst2: op clobbers(p0i, p1i)
    inst3: branch use:v0i:any -> block2()
  block2:
    inst4: op use:v1i:any
    inst5: ret
");
    assert!(!is_stack(out.allocs[0]), "{:?}", out.allocs);
    assert_eq!(out.edits.len(), 2, "{:?}", out.edits);
}

#[test]
fn a_def_goes_straight_to_its_pieces_register_when_it_may() {
    // v0i must leave p0i at the clobber and come back for the fixed use:
    // defined in p1i at once, it needs one move (it needed two).
    let any = "  block0:
    inst0: op def:v0i:any
    inst1: op clobbers(p0i)
    inst2: op use:v0i:fixed(p0i)
    inst3: ret
";
    let out = run(any);
    assert_eq!(
        out.allocs[0],
        Allocation::Reg(allocator::PReg::new(1, allocator::RegClass::Int))
    );
    assert_eq!(out.edits.len(), 1, "{:?}", out.edits);
    // A `limit(1)` def may not take p1i.
    let out = run(&any.replace("def:v0i:any", "def:v0i:limit(1)"));
    assert_eq!(
        out.allocs[0],
        Allocation::Reg(allocator::PReg::new(0, allocator::RegClass::Int))
    );
}
