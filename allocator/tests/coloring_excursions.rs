//! The coloring allocator's excursions (a split group waiting out its hole
//! in a free register instead of its slot), seen in the allocations it
//! gives.

use allocator::fixtures::{allocation_lines, unit_case};
use allocator::interface::Allocator;

/// `coloring`'s allocation section for the unit case `name`.
fn allocate(name: &str) -> String {
    let case = unit_case(name);
    let out = allocator::coloring::Coloring
        .run(&case.func, &case.machine)
        .unwrap();
    allocation_lines(&case.func, &out)
}

#[test]
fn a_slot_read_inside_the_hole_keeps_the_store() {
    // inst3 reads v0i from its slot inside the hole around inst2:
    // the store stays, and so does the reload, although p2i is free.
    let got = allocate("coloring_excursions/a_slot_read_inside_the_hole_keeps_the_store");
    assert!(
        got.contains(
            "edit before inst2: p0i -> stack0\ninst3: stack0\nedit before inst4: stack0 -> p0i\n"
        ),
        "{got}"
    );
}

#[test]
fn the_register_waited_in_is_free_from_the_store_to_the_reload() {
    // Around inst2 only p2i is spared, and v1i, live across inst2,
    // holds it: v0i stays in its slot. Without v1i it waits in p2i.
    let with = allocate("coloring_excursions/the_waiting_register_is_held_by_another_value");
    assert!(with.contains("p0i -> stack0\n"), "{with}");
    let without = allocate("coloring_excursions/the_waiting_register_is_free");
    assert!(
        without.contains("edit before inst2: p0i -> p2i\nedit before inst3: p2i -> p0i\n"),
        "{without}"
    );
}

#[test]
fn two_holes_around_one_call_do_not_wait_in_the_same_register() {
    // v0i (p0i) and v1i (p1i) both step aside at inst3, which spares
    // only p3i: the first waits there, the second in its slot.
    // (In a second block, so that rows are counted from its top.)
    let got =
        allocate("coloring_excursions/two_holes_around_one_call_do_not_wait_in_the_same_register");
    assert!(
        got.contains(
            "edit before inst3: p0i -> p3i
edit before inst3: p1i -> stack1
edit before inst4: p3i -> p0i
edit before inst4: stack1 -> p1i
"
        ),
        "{got}"
    );
}
