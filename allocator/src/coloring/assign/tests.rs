use super::*;
use crate::coloring::graph::build;
use crate::coloring::select::Home;
use crate::fixtures::{case_on, unit_case};
use crate::ir::case::Case;
use crate::ir::text::{print, print_allocation};

/// Assigns `case` with the groups of `vregs` at the homes given, every
/// other group on the stack, and the holes given; the allocation
/// section, the groups to spill, or the error. Homes are set by hand, so
/// each expected allocation below was checked with `rafuzz check`: with
/// `ASSIGN_TEST_PRINT=1` the tests print every case with what it got
/// (in the checker's input format) instead of comparing.
fn assign_with(case: &Case, vregs: &[(usize, Home)], holes: &[(usize, (u32, u32))]) -> String {
    let f = &case.func;
    let facts = Facts::new(f);
    let g = build(f, &case.machine, &facts);
    let mut home = vec![Home::Stack; g.n];
    for &(v, h) in vregs {
        home[g.find(v)] = h;
    }
    let mut hole = vec![Vec::new(); g.n];
    for &(v, h) in holes {
        hole[g.find(v)].push(h);
    }
    let homes = Homes::new(f, &g, &home, hole);
    let got = match assign(f, &case.machine, &facts, &g, &homes, false) {
        Ok(Assigned::Done(out)) => {
            let mut s = String::new();
            print_allocation(&mut s, f, &out);
            s
        }
        Ok(Assigned::Spill(groups)) => format!("spill {groups:?}\n"),
        Err(e) => format!("error: {e}\n"),
    };
    if std::env::var_os("ASSIGN_TEST_PRINT").is_some() {
        eprintln!("=====\n{}{got}", print(case));
    }
    got.lines().map(|l| format!("{}\n", l.trim())).collect()
}

fn expect(got: String, want: &str) {
    let want: String = want
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| format!("{l}\n"))
        .collect();
    if std::env::var_os("ASSIGN_TEST_PRINT").is_none() {
        assert_eq!(got, want);
    }
}

const R0: Home = Home::Reg(0);
const R1: Home = Home::Reg(1);
const R2: Home = Home::Reg(2);

#[test]
fn late_def_avoids_clobbered_register() {
    let f = unit_case("coloring_assign/late_def_avoids_clobbered_register");
    // v1i on the stack: written to the lowest register neither a
    // present value nor the clobber takes, then stored.
    expect(
        assign_with(&f, &[(0, R0)], &[]),
        "
                allocation
                spillslots 1
                inst0: p0i
                inst1: p2i
                edit after inst1: p2i -> stack0
                edit before inst2: stack0 -> p1i
                inst2: p0i p1i
                end
            ",
    );
    // v1i's home is the clobbered p1i: written elsewhere, moved after.
    expect(
        assign_with(&f, &[(0, R0), (1, R1)], &[]),
        "
                allocation
                spillslots 0
                inst0: p0i
                inst1: p2i
                edit after inst1: p2i -> p1i
                inst2: p0i p1i
                end
            ",
    );
}

#[test]
fn fixed_stack_operands_are_copied_through() {
    // p32i and p33i stand for stack locations: the use is copied in
    // from v0i's home, the def out to v1i's; p63i is named as it is.
    let f = unit_case("coloring_assign/fixed_stack_operands_are_copied_through");
    expect(
        assign_with(&f, &[(0, R0), (1, R1)], &[]),
        "
                allocation
                spillslots 0
                inst0: p0i
                edit before inst1: p0i -> p32i
                inst1: p32i p33i p63i
                edit after inst1: p33i -> p1i
                inst2: p1i
                end
            ",
    );
}

#[test]
fn reused_input_copied_to_the_defs_home() {
    // v0i lives on, so the reused input is copied: to p2i, where v1i
    // lives, not to a free register with a second copy after.
    let f = unit_case("coloring_assign/reused_input_copied_to_the_defs_home");
    expect(
        assign_with(&f, &[(0, R0), (1, R2)], &[]),
        "
                allocation
                spillslots 0
                inst0: p0i
                edit before inst1: p0i -> p2i
                inst1: p2i p2i
                inst2: p0i p2i
                end
            ",
    );
}

#[test]
fn copies_prefer_registers_no_value_holds() {
    // A use (early) may take p0i, which v1i's home takes only at the
    // late point, but a register taken at neither point comes first;
    // v0i's def goes where that use wants it (the reload is then
    // redundant).
    let f = unit_case("coloring_assign/copies_prefer_registers_no_value_holds");
    expect(
        assign_with(&f, &[(1, R0)], &[]),
        "
                allocation
                spillslots 1
                inst0: p1i
                edit after inst0: p1i -> stack0
                edit before inst1: stack0 -> p1i
                inst1: p1i p0i
                inst2: p0i
                end
            ",
    );
    // A def (late) may take p0i, whose value dies at the early point,
    // and does, since inst2 reloads v1i into p0i (then redundant).
    expect(
        assign_with(&f, &[(0, R0)], &[]),
        "
                allocation
                spillslots 1
                inst0: p0i
                inst1: p0i p0i
                edit after inst1: p0i -> stack0
                edit before inst2: stack0 -> p0i
                inst2: p0i
                end
            ",
    );
}

#[test]
fn scratch_avoids_registers_held_around_the_instruction() {
    // The defs' stores swap p0 and p1 after inst1. p2 holds v0, read at
    // inst1 from p3; p3 is inst1's operand; v3 lives in p4 across inst1:
    // the cycle goes through p5. In each class, the others having one
    // register.
    let f = "function
  block0:
    inst0: op def:v0i:reg def:v3i:reg
    inst1: op use:v0i:fixed(p3i) def:v1i:fixed(p0i) def:v2i:fixed(p1i)
    inst2: op use:v1i:reg use:v2i:reg use:v3i:reg
    inst3: ret
end
";
    let want = "
                allocation
                spillslots 0
                inst0: p2i p4i
                edit before inst1: p2i -> p3i
                inst1: p3i p0i p1i
                edit after inst1: p1i -> p5i
                edit after inst1: p0i -> p1i
                edit after inst1: p5i -> p0i
                inst2: p1i p0i p4i
                end
            ";
    for (k, c) in ["i", "f", "v"].into_iter().enumerate() {
        let mut regs = ["p0i", "p0f", "p0v"];
        let six = format!("p0{c}-p5{c}");
        regs[k] = &six;
        // Registers and vregs of the int class into class `c`.
        let in_class = |s: &str| {
            (0..6).fold(s.to_string(), |s, n| {
                s.replace(&format!("p{n}i"), &format!("p{n}{c}"))
                    .replace(&format!("v{n}i"), &format!("v{n}{c}"))
            })
        };
        let homes = [(0, R2), (1, R1), (2, R0), (3, Home::Reg(4))];
        expect(
            assign_with(&case_on(regs, &in_class(f)), &homes, &[]),
            &in_class(want),
        );
    }
}

#[test]
fn late_read_of_a_clobbered_home_goes_through_a_temporary_slot() {
    // Temporary slots come after the homes' slots (none here) and the
    // resolver's two.
    let f =
        unit_case("coloring_assign/late_read_of_a_clobbered_home_goes_through_a_temporary_slot");
    expect(
        assign_with(&f, &[(0, R0), (1, R1)], &[]),
        "
                allocation
                spillslots 4
                inst0: p0i p1i
                edit before inst1: p0i -> stack2
                edit before inst1: p1i -> stack3
                inst1: stack2 stack3
                end
            ",
    );
}

#[test]
fn stack_and_limit_operands_read_their_homes() {
    let f = unit_case("coloring_assign/stack_and_limit_operands_read_their_homes");
    expect(
        assign_with(&f, &[(1, R1)], &[]),
        "
                allocation
                spillslots 1
                inst0: p0i
                edit after inst0: p0i -> stack0
                inst1: stack0
                inst2: p1i
                inst3: p1i
                end
            ",
    );
}

#[test]
fn reused_input_overwritten_only_when_no_one_reads_it() {
    // v0i and v1i are not coalesced: the clobbers leave them no
    // register in common. v0i dies at inst2 and only the reused operand
    // reads it: the def overwrites it in place, then moves to p0i.
    let f = unit_case("coloring_assign/reused_input_overwritten_in_place");
    let homes = [(0, R1), (1, R0), (2, R2)];
    expect(
        assign_with(&f, &homes, &[]),
        "
                allocation
                spillslots 0
                inst0: p1i
                inst1: p2i
                inst2: p1i p2i p1i
                edit after inst2: p1i -> p0i
                inst4: p0i
                end
            ",
    );
    // Read twice at inst2: copied first.
    let f = unit_case("coloring_assign/reused_input_read_twice_is_copied_first");
    expect(
        assign_with(&f, &homes, &[]),
        "
                allocation
                spillslots 0
                inst0: p1i
                inst1: p2i
                edit before inst2: p1i -> p0i
                inst2: p0i p1i p0i
                inst4: p0i
                end
            ",
    );
}

#[test]
fn victim_holds_a_register_the_operand_may_take() {
    // inst2's def may only take p0i: v0i, there, is the victim, though
    // v1i (read once) scores lower.
    let f = unit_case("coloring_assign/victim_holds_a_register_the_operand_may_take");
    expect(assign_with(&f, &[(0, R0), (1, R1)], &[]), "spill [0]");
}

#[test]
fn split_group_moves_only_where_its_value_lives() {
    // v0i in its slot at inst1 only, where it is written: no store
    // before inst1 (nothing to store yet), a reload before inst2.
    let f = unit_case("coloring_assign/split_group_written_in_its_hole");
    expect(
        assign_with(&f, &[(0, R0), (1, R1)], &[(0, (1, 1))]),
        "
                allocation
                spillslots 1
                inst0: p1i
                inst1: stack0
                edit before inst2: stack0 -> p0i
                inst2: p0i p1i
                end
            ",
    );
    // v0i is dead in its hole at inst2: no move in or out.
    let f = unit_case("coloring_assign/split_group_dead_in_its_hole");
    expect(
        assign_with(&f, &[(0, R0), (1, R1)], &[(0, (2, 2))]),
        "
                allocation
                spillslots 0
                inst0: p0i
                inst1: p1i p0i
                inst2: p1i
                inst3: p1i
                end
            ",
    );
}

#[test]
fn edge_moves_at_the_successor_or_before_the_branch() {
    // v0i lives on in block1 beside its copy v1i: the edge move goes
    // at the top of block1, the only successor's only predecessor.
    let f = unit_case("coloring_assign/edge_move_at_the_successor_top");
    expect(
        assign_with(&f, &[(0, R0), (1, R1)], &[]),
        "
                allocation
                spillslots 0
                inst0: p0i
                edit before inst2: p0i -> p1i
                inst2: p0i p1i
                end
            ",
    );
    // Into a join: before the branch.
    let f = unit_case("coloring_assign/edge_moves_into_a_join_before_the_branch");
    expect(
        assign_with(&f, &[(0, R0), (1, R1)], &[]),
        "
                allocation
                spillslots 0
                inst0: p0i
                edit before inst2: p0i -> p1i
                edit before inst3: p0i -> p1i
                inst4: p0i p1i
                end
            ",
    );
}

#[test]
fn branch_into_a_join_reads_apart_from_the_parameters_it_writes() {
    // The edge move into block3 writes v2i's p1i before inst3, after
    // inst3's loads: v3i (on the stack) may take neither p1i nor the
    // registers v0i and v1i hold. At inst2, before the branch, it may.
    let f = unit_case("coloring_assign/branch_into_a_join_reads_apart_from_its_parameters");
    let homes = [(0, R0), (1, R2), (2, R1)];
    expect(
        assign_with(&f, &homes, &[]),
        "
                allocation
                spillslots 1
                inst0: p0i p2i p1i
                edit after inst0: p1i -> stack0
                edit before inst2: stack0 -> p3i
                inst2: p3i
                edit before inst3: stack0 -> p3i
                edit before inst3: p2i -> p1i
                inst3: p0i p3i
                edit before inst4: p2i -> p1i
                inst5: p1i p2i
                end
            ",
    );
    // With v3i fixed to p1i at inst3, only v2i, in p1i, can make room:
    // it is the victim.
    let fixed = unit_case("coloring_assign/branch_into_a_join_fixed_to_a_parameters_register");
    expect(assign_with(&fixed, &homes, &[]), "spill [2]");
    // Into a block with one predecessor the edge moves run after the
    // branch: v0i reads its home, which v2i takes after.
    let f = unit_case("coloring_assign/edge_moves_after_a_branch_to_one_predecessor");
    expect(
        assign_with(&f, &[(0, R1), (1, R2), (2, R1)], &[]),
        "
                allocation
                spillslots 0
                inst0: p1i p2i
                inst1: p1i
                edit before inst2: p2i -> p1i
                inst2: p1i p2i
                end
            ",
    );
}

#[test]
fn victims_for_two_operands_short_of_registers() {
    // v0i and v1i live across inst2, whose two defs need both
    // registers: the lower-scored one is the victim.
    let f = unit_case("coloring_assign/victims_for_two_operands_short_of_registers");
    expect(assign_with(&f, &[(0, R0), (1, R1)], &[]), "spill [1]");
}

#[test]
fn parameters_of_a_successor_with_one_predecessor_are_no_victims() {
    // v3i needs a register at inst1, where v0i and v1i hold both: one
    // of them is the victim, never v2i (in v1i's register after it),
    // whose edge move comes after the branch, though its long, lightly
    // used life scores lowest.
    let f =
        unit_case("coloring_assign/parameters_of_a_successor_with_one_predecessor_are_no_victims");
    expect(
        assign_with(&f, &[(0, R0), (1, R1), (2, R1)], &[]),
        "spill [0]",
    );
}

#[test]
fn a_spilled_value_read_again_keeps_the_register_it_was_loaded_into() {
    // v0i (on the stack) is read at inst2 and at inst4; v1i, read at
    // inst3, takes the register inst4 does not want (lowest free first
    // would give it p0i), so the second reload of v0i into p0i is one
    // redundant move elimination drops.
    let f = unit_case(
        "coloring_assign/a_spilled_value_read_again_keeps_the_register_it_was_loaded_into",
    );
    expect(
        assign_with(&f, &[], &[]),
        "
                allocation
                spillslots 2
                inst0: stack0
                inst1: stack1
                edit before inst2: stack0 -> p0i
                inst2: p0i
                edit before inst3: stack1 -> p1i
                inst3: p1i
                edit before inst4: stack0 -> p0i
                inst4: p0i
                end
            ",
    );
}

#[test]
fn scratch_keeps_off_a_register_a_later_reload_wants() {
    // inst3's copy from v1i's slot to the stack-like p3i goes through a
    // scratch register: p1i, not p0i, which v0i's reload at inst4
    // wants, as at inst2.
    let f = unit_case("coloring_assign/scratch_keeps_off_a_register_a_later_reload_wants");
    expect(
        assign_with(&f, &[], &[]),
        "
                allocation
                spillslots 2
                inst0: stack0
                inst1: stack1
                edit before inst2: stack0 -> p0i
                inst2: p0i
                edit before inst3: stack1 -> p1i
                edit before inst3: p1i -> p3i
                inst3: p3i
                edit before inst4: stack0 -> p0i
                inst4: p0i
                end
            ",
    );
}

#[test]
fn slots_follow_copies_and_keep_apart_from_a_reusing_def() {
    // v2i takes v1i's slot across the edge (no move); v4i, reusing
    // v0i (which lives on), may not take the slot of v3i, read by the
    // same instruction, although they do not interfere: v0i is copied
    // into v4i's slot before inst6 reads v3i.
    let f = unit_case("coloring_assign/slots_follow_copies_and_keep_apart_from_a_reusing_def");
    expect(
        assign_with(&f, &[], &[]),
        "
                allocation
                spillslots 3
                inst0: stack0
                inst1: stack1
                inst2: stack0
                inst4: stack1
                inst5: stack1
                edit before inst6: stack0 -> p0i
                edit before inst6: p0i -> stack2
                inst6: stack2 stack2 stack1
                inst7: stack0 stack2
                end
            ",
    );
}

#[test]
fn a_clobber_or_a_def_in_between_ends_the_want() {
    // inst4 reloads v0i into p2i (its fixed register); inst3 writes
    // p2i (a clobber, or v1i's def), so inst2's read of v0i has no
    // reason to take p2i and takes the lowest free register.
    for name in [
        "coloring_assign/a_clobber_in_between_ends_the_want",
        "coloring_assign/a_def_in_between_ends_the_want",
    ] {
        let got = assign_with(&unit_case(name), &[], &[]);
        assert!(
            got.contains("edit before inst2: stack0 -> p0i\n"),
            "{name}: {got}"
        );
    }
    // With nothing in between, inst2 loads it where inst4 wants it.
    let f = unit_case("coloring_assign/nothing_in_between_keeps_the_want");
    let got = assign_with(&f, &[], &[]);
    assert!(got.contains("edit before inst2: stack0 -> p2i\n"), "{got}");
}
