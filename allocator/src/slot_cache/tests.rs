use crate::fixtures::{allocation_lines, unit_case};

/// The allocation of the unit case `name` after the pass, one
/// trimmed line each, and how many slots it kept.
fn cached(name: &str) -> (String, usize) {
    let case = unit_case(name);
    let mut out = case.output.unwrap();
    let kept = super::cache_in_loops(&case.func, &case.machine, &mut out);
    (allocation_lines(&case.func, &out), kept)
}

#[test]
fn a_slot_the_loop_only_reads_is_kept_in_a_free_register() {
    // p0i is used in the loop and p1i holds v1 through it: p2i is copied
    // before the branch into the loop, and inst3 reads it where it read
    // the reload (p0i is read nothing else).
    let (got, kept) = cached("slot_cache/kept_in_a_free_register");
    assert_eq!(kept, 1, "{got}");
    assert!(got.contains("edit before inst2: stack0 -> p2i\n"), "{got}");
    assert!(got.contains("inst3: p2i\n"), "{got}");
    assert!(!got.contains("edit before inst3"), "{got}");
}

#[test]
fn a_read_fixed_to_the_reload_register_keeps_its_move() {
    let (got, kept) = cached("slot_cache/a_fixed_read_keeps_its_move");
    assert_eq!(kept, 1, "{got}");
    assert!(got.contains("edit before inst2: stack0 -> p2i\n"), "{got}");
    assert!(got.contains("edit before inst3: p2i -> p0i\n"), "{got}");
    assert!(got.contains("inst3: p0i\n"), "{got}");
}

#[test]
fn a_register_live_through_the_loop_is_not_free() {
    let (got, kept) = cached("slot_cache/no_free_register");
    assert_eq!(kept, 0, "{got}");
    assert!(got.contains("edit before inst3: stack0 -> p0i\n"), "{got}");
}

#[test]
fn a_slot_the_loop_writes_is_not_kept() {
    let (got, kept) = cached("slot_cache/the_loop_writes_the_slot");
    assert_eq!(kept, 0, "{got}");
    assert!(got.contains("edit before inst3: stack0 -> p0i\n"), "{got}");
}

#[test]
fn a_register_the_entry_branch_reads_is_not_used() {
    let (got, kept) = cached("slot_cache/the_entry_branch_reads_the_register");
    assert_eq!(kept, 0, "{got}");
    assert!(got.contains("edit before inst3: stack0 -> p0i\n"), "{got}");
}

#[test]
fn the_copy_before_an_inner_loop_is_kept_by_the_outer_one() {
    // Inner loop first: p1i, copied in block1; the outer loop then keeps
    // the slot in p2i (p1i is live in the inner loop), copied in block0.
    let (got, kept) = cached("slot_cache/nested_loops");
    assert_eq!(kept, 2, "{got}");
    assert!(got.contains("edit before inst1: stack0 -> p2i\n"), "{got}");
    assert!(got.contains("edit before inst2: p2i -> p1i\n"), "{got}");
    assert!(got.contains("inst3: p1i\n"), "{got}");
}

#[test]
fn a_register_read_again_later_keeps_its_move() {
    let (got, kept) = cached("slot_cache/a_later_read_keeps_its_move");
    assert_eq!(kept, 1, "{got}");
    assert!(got.contains("edit before inst3: p2i -> p0i\n"), "{got}");
    assert!(got.contains("inst4: p0i\n"), "{got}");
}

#[test]
fn a_slot_is_kept_only_where_the_copies_cost_less_than_the_reloads() {
    let (got, kept) = cached("slot_cache/more_entries_than_it_saves");
    assert_eq!(kept, 0, "{got}");
    assert!(got.contains("edit before inst6: stack0 -> p0i\n"), "{got}");
}
