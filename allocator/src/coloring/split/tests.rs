use super::*;
use crate::fixtures::unit_case;

/// v1i is read in the loop block1-block2, v0i lives across it and is
/// read in the loop block4-block5 (`tests/cases/coloring/split_beats_spill.ra`).
const TWO_LOOPS: &str = "coloring_split/two_loops";

/// Runs `check` on a splitter for the unit case `name`.
fn with_splitter(name: &str, check: impl FnOnce(&mut Splitter)) {
    let case = unit_case(name);
    let f = &case.func;
    let facts = Facts::new(f);
    let g = super::super::graph::build(f, &case.machine, &facts);
    let points = Points::new(f, &facts);
    check(&mut Splitter::new(f, &g, &points, &facts));
}

#[test]
fn difference_keeps_what_the_other_leaves() {
    let a = vec![(0, 10), (20, 30)];
    assert_eq!(
        difference(&a, &[(2, 3), (5, 25)]),
        vec![(0, 1), (4, 4), (26, 30)]
    );
    assert_eq!(difference(&a, &[]), a);
    assert_eq!(difference(&a, &[(0, 30)]), vec![]);
    assert_eq!(difference(&a, &[(10, 20)]), vec![(0, 9), (21, 30)]);
    assert_eq!(difference(&[(5, 5)], &[(0, 4), (6, 9)]), vec![(5, 5)]);
}

#[test]
fn in_its_register_only_in_the_blocks_that_read_it_and_a_latch_between() {
    with_splitter(
        "coloring_split/in_its_register_only_in_the_blocks_that_read_it",
        |s| {
            let plan = s.plan_in_blocks(0).expect("cheaper than spilling");
            // block0, block3 to block5 (block5, the latch, between block4
            // and itself) in the register; the first loop in the slot. The
            // top of block1 counts as both: the edge copies into it run
            // before block0's branch, which the neighbours keep clear of.
            assert_eq!(plan.inside, vec![(0, 2), (9, 13)]);
            assert_eq!(plan.outside, vec![(2, 8)]);
            // A store on the way in (block0's branch, into the join block1),
            // a reload on the way out (the top of block3).
            assert_eq!(plan.base, 5.0);
            assert_eq!(s.points.spill_cost[0], 1.0 + 4.0 + 2.0 * 16.0);
            assert_eq!(s.split_in_blocks(0, |_| None), Some(0));
            assert_eq!(s.holes[0], vec![(2, 8)]);
            // In the slot in the first loop, the reads of block4 would be
            // reloads.
            assert_eq!(s.refs_cost(0, &[(10, 10)]), 16.0);
            assert_eq!(s.refs_cost(0, &[(0, 0), (9, 11)]), 1.0 + 4.0 + 32.0);
        },
    );
}

#[test]
fn the_copies_where_slot_and_register_meet_and_the_reads_left_in_the_slot_are_the_price() {
    // Nothing reads v0i in block3 any more: the branch of block3 is in
    // the slot, and with it the top of the join block4 (the edge copies
    // run before the branch). A store on the way into block1 (1.0), the
    // read at inst10 in the slot (16.0), a reload before inst11
    // (16.0): 33.0, no less than spilling (a store and two reloads in
    // the loop, 33.0).
    with_splitter(
        "coloring_split/the_reads_left_in_the_slot_are_the_price",
        |s| {
            assert_eq!(s.points.spill_cost[0], 33.0);
            assert!(s.plan_in_blocks(0).is_none());
        },
    );
}

#[test]
fn only_the_groups_own_register_operands_count_in_the_slot() {
    with_splitter(
        "coloring_split/only_the_groups_own_register_operands_count_in_the_slot",
        |s| {
            // One reload for v0i's `reg` read; its `any` read takes the slot
            // and v1i's read is v1i's.
            assert_eq!(s.refs_cost(0, &[(10, 10)]), 16.0);
            assert_eq!(s.refs_cost(1, &[(10, 10)]), 16.0);
        },
    );
}

#[test]
fn a_point_at_a_read_that_rules_a_register_out_costs_the_read() {
    // In the second loop, p0i is clobbered at a late read of v0i and
    // p1i where v0i is not read. In its slot at inst10 to keep p0i,
    // v0i pays a store, a reload before inst12 and the read's own
    // reload (36.0); at inst11 to keep p1i, only the store and the
    // reload (20.0).
    with_splitter(
        "coloring_split/a_point_at_a_read_that_rules_a_register_out_costs_the_read",
        |s| {
            assert_eq!(s.split_in_blocks(0, |_| None), Some(1));
            assert_eq!(s.holes[0], vec![(2, 8), (11, 11)]);
        },
    );
}

#[test]
fn a_branch_def_is_never_in_its_slot_for_a_stretch() {
    with_splitter(
        "coloring_split/a_branch_def_is_never_in_its_slot_for_a_stretch",
        |s| {
            assert!(s.plan_in_blocks(0).is_none());
            assert_eq!(s.split_in_blocks(0, |_| None), None);
            assert!(s.holes[0].is_empty());
        },
    );
}

#[test]
fn a_neighbour_read_where_it_is_kept_rules_its_register_out() {
    with_splitter(
        "coloring_split/a_neighbour_read_where_it_is_kept_rules_its_register_out",
        |s| {
            assert!(s.g.interferes(0, 1));
            // v1i holds p0i and is read in block4, where v0i is kept: v0i
            // takes p1i.
            assert_eq!(s.split_in_blocks(0, |z| (z == 1).then_some(0)), Some(1));
            assert_eq!(s.holes[0], vec![(2, 8)]);
            s.holes[0].clear();
            // With p1i held by another value read there too, nothing is
            // left.
            let both = |z: usize| [None, Some(0), Some(1)].get(z).copied().flatten();
            assert_eq!(s.split_in_blocks(0, both), None);
            assert!(s.holes[0].is_empty());
        },
    );
}

#[test]
fn a_hole_lengthens_to_the_next_register_read_short_of_the_branch() {
    with_splitter(
        "coloring_split/a_hole_lengthens_to_the_next_register_read_short_of_the_branch",
        |s| {
            let mut holes = vec![vec![(1, 1)], vec![(1, 1), (7, 7)]];
            lengthen(s.f, s.g, &mut holes);
            // v0i: through its `any` read, up to its `reg` read at inst3.
            assert_eq!(holes[0], vec![(1, 2)]);
            // v1i: through its `stack` and `any` reads, not over the
            // branch; a hole ending at a block's last instruction stays.
            assert_eq!(holes[1], vec![(1, 4), (7, 7)]);
        },
    );
}

#[test]
fn exclusions_gather_the_points_of_each_register_apart() {
    // Two int registers: p0i clobbered at inst1 and inst2 (one
    // stretch), p1i at inst4 (apart from inst1's: no merge across the
    // gap).
    with_splitter(
        "coloring_split/exclusions_gather_the_points_of_each_register_apart",
        |s| {
            let x = s.exclusions(0);
            assert_eq!(x.len(), 2);
            assert_eq!((x[0].0, &*x[0].1), (0, &vec![(1, 2)]));
            assert_eq!((x[1].0, &*x[1].1), (1, &vec![(1, 1), (4, 4)]));
        },
    );
}

#[test]
fn registers_taken_out_at_the_same_points_share_a_class() {
    // p0 and p1 at inst1 and inst4, p2 at inst4 only, p3 at inst1 only.
    let points = [(1, 0b1011), (4, 0b0111)];
    let mut classes = same_points(&points);
    classes.sort_unstable();
    assert_eq!(classes, vec![0b0011, 0b0100, 0b1000]);
    // One clobber everywhere: one class, whatever its size.
    assert_eq!(same_points(&[(1, 0xff), (3, 0xff), (9, 0xff)]), vec![0xff]);
    assert!(same_points(&[]).is_empty());
}

#[test]
fn a_hole_end_costs_a_reload_only_where_the_register_is_needed_again() {
    // v0i: read `reg` at inst3, `any` at inst5; live out of block0 in
    // the second case only.
    with_splitter("coloring_split/a_hole_end_in_a_single_block", |s| {
        let present = s.presence(0);
        let b = Block::new(0);
        assert!(s.read_again(0, &present, 2, b));
        assert!(s.read_again(0, &present, 3, b));
        assert!(!s.read_again(0, &present, 4, b));
    });
    with_splitter("coloring_split/a_hole_end_live_out_of_its_block", |s| {
        let present = s.presence(0);
        assert!(s.read_again(0, &present, 4, Block::new(0)));
    });
}

#[test]
fn containment_ignores_reads_that_take_a_slot() {
    with_splitter(
        "coloring_split/containment_ignores_reads_that_take_a_slot",
        |s| {
            assert!(s.contains(0, &[(1, 2)]));
            assert!(!s.contains(0, &[(2, 3)]));
            assert!(!s.contains(0, &[(0, 0)]));
        },
    );
}

#[test]
fn regions_and_containment_follow_presence_and_references() {
    with_splitter(TWO_LOOPS, |s| {
        assert_eq!(s.region(0), vec![(0, 9)]);
        assert_eq!(s.region(1), vec![(1, 5)]);
        // v0i is not read where v1i is present; v1i is read where v0i is.
        assert!(s.contains(0, &s.region(1)));
        assert!(!s.contains(1, &s.region(0)));
        assert!(s.contains(1, &[(6, 10)]));
        assert!(!s.contains(0, &[(7, 7)]));
    });
}

#[test]
fn a_hole_costs_its_stores_and_reloads_where_they_run() {
    with_splitter(TWO_LOOPS, |s| {
        // Stored before inst1 (block0, frequency 1); reloaded on the
        // edge block1 -> block3, at the top of block3 (frequency 1).
        assert_eq!(s.grow(0, &[(1, 5)]).0, 1.0 + 4.0);
        // Around the loop block4: stored on both edges into the join
        // block4 (before the branches of block3, frequency 1, and
        // block5, frequency 4), reloaded at the top of block5
        // (frequency 4); v0i is not live into block6.
        assert_eq!(s.grow(0, &[(7, 8)]).0, 1.0 + 4.0 + 16.0);
        // Growing a hole costs only the difference.
        s.holes[0] = vec![(1, 5)];
        assert_eq!(s.grow(0, &[(6, 6)]).0, 0.0);
        assert_eq!(s.grow(0, &[(2, 3)]).0, 0.0);
        // Apart from the first hole, the second costs what it costs
        // alone.
        let (c, hole) = s.grow(0, &[(7, 8)]);
        assert_eq!(hole, vec![(1, 5), (7, 8)]);
        assert_eq!(c, 21.0);
        // Joined through block3, the reload moves from the top of
        // block3 (4) to the top of block5 (16), and the stores into
        // block4 are needed from block5 only (4).
        let (c, hole) = s.grow(0, &[(6, 8)]);
        assert_eq!(hole, vec![(1, 8)]);
        assert_eq!(c, -4.0 + 16.0 + 4.0);
    });
}

#[test]
fn the_cheaper_side_steps_aside_and_the_split_is_kept() {
    // v0i has no register; v1i holds p0i: v0i steps aside for v1i.
    with_splitter(TWO_LOOPS, |s| {
        let got = s.split_around(0, |z| (z == 1).then_some(0));
        assert_eq!(got, Some(0));
        assert_eq!(s.holes[0], vec![(1, 5)]);
        assert!(s.holes[1].is_empty());
        assert_eq!(s.splits, 1);
        s.reset();
        assert!(s.holes[0].is_empty() && s.splits == 0);
    });
    // v1i has no register; v0i holds p0i and steps aside for it.
    with_splitter(TWO_LOOPS, |s| {
        assert_eq!(s.split_around(1, |z| (z == 0).then_some(0)), Some(0));
        assert_eq!(s.holes[0], vec![(1, 5)]);
        assert!(s.holes[1].is_empty());
    });
    // Both read everywhere the other is: no split.
    let both_read = "coloring_split/both_read_everywhere_the_other_is";
    with_splitter(both_read, |s| {
        assert_eq!(s.split_around(0, |z| (z == 1).then_some(0)), None);
        assert_eq!(s.splits, 0);
    });
}

#[test]
fn a_split_dearer_than_the_spill_or_saving_nothing_is_not_made() {
    // v1i's only reads take the stack: spilling it costs nothing.
    let any_reads = "coloring_split/spilling_costs_nothing_with_any_reads";
    with_splitter(any_reads, |s| {
        assert_eq!(s.split_around(1, |z| (z == 0).then_some(0)), None);
        assert!(s.holes[0].is_empty());
    });
    // v0i is read once, outside any loop (spill: 1 + 4); stepping
    // aside around the loop v1i lives in costs a store and a reload
    // in that loop.
    let loop_reads = "coloring_split/read_once_outside_the_loop_the_other_lives_in";
    with_splitter(loop_reads, |s| {
        assert_eq!(s.points.spill_cost[0], 1.0 + 4.0 + 4.0);
        assert_eq!(s.split_around(0, |z| (z == 1).then_some(0)), None);
        assert!(s.holes[0].is_empty() && s.holes[1].is_empty());
    });
}

#[test]
fn registers_out_of_the_mask_are_held_away_from_the_points_that_rule_them_out() {
    let clobber = "coloring_split/live_across_a_clobber";
    with_splitter(clobber, |s| {
        assert_eq!(s.g.mask[0], 0);
        let x = s.exclusions(0);
        assert_eq!(x.len(), 1);
        assert_eq!(x[0], (0, Rc::new(vec![(2, 2)]), Some(1.0 + 4.0)));
        assert_eq!(s.split_around(0, |_| None), Some(0));
        assert_eq!(s.holes[0], vec![(2, 2)]);
    });
    // Read early at the clobber (and live after it): it steps aside from
    // there, the read taking the register it leaves (a store before
    // inst1, a reload before inst2).
    let read_early = "coloring_split/read_early_at_the_clobber";
    with_splitter(read_early, |s| {
        assert_eq!(s.exclusions(0)[0], (0, Rc::new(vec![(1, 1)]), Some(5.0)));
    });
    // Read in a register at the late point, or at the block's first
    // instruction: it cannot.
    for read_there in [
        "coloring_split/read_late_at_the_clobber",
        "coloring_split/read_at_a_clobber_first_in_its_block",
    ] {
        with_splitter(read_there, |s| {
            assert_eq!(s.exclusions(0)[0].2, None);
            assert_eq!(s.split_around(0, |_| None), None);
        });
    }
}

#[test]
fn a_hole_holding_a_branch_into_a_join_holds_the_join_top() {
    with_splitter(TWO_LOOPS, |s| {
        // inst2 and inst5 jump to the join block1 (top inst3); inst4
        // and inst6 do not jump to joins alone.
        assert_eq!(s.close_over_joins(vec![(2, 2)]), vec![(2, 3)]);
        assert_eq!(s.close_over_joins(vec![(5, 5)]), vec![(3, 3), (5, 5)]);
        assert_eq!(s.close_over_joins(vec![(0, 1)]), vec![(0, 1)]);
        assert_eq!(s.close_over_joins(vec![(4, 4)]), vec![(4, 4)]);
        assert_eq!(s.close_over_joins(vec![(6, 6)]), vec![(6, 7)]);
    });
    // A branch to a block with one predecessor: nothing to close over.
    let straight = "coloring_split/straight_jump";
    with_splitter(straight, |s| {
        assert_eq!(s.close_over_joins(vec![(1, 1)]), vec![(1, 1)]);
    });
}

/// Two registers: the register whose holders can keep out of the way
/// at the lowest cost wins, out of the mask or not.
#[test]
fn the_cheapest_register_wins() {
    // v1i holds p0i and v0i can step aside for it (5); v2i holds p1i
    // and is read with v0i: p1i is ruled out.
    with_splitter("coloring_split/cheapest_register_v2i_read_with_v0i", |s| {
        let colour = |z| match z {
            1 => Some(0),
            2 => Some(1),
            _ => None,
        };
        assert_eq!(s.split_around(0, colour), Some(0));
        assert_eq!(s.holes[0], vec![(1, 6)]);
    });
    // The same with v2i's colours swapped: p1i wins.
    with_splitter("coloring_split/cheapest_register_v2i_read_with_v0i", |s| {
        let colour = |z| match z {
            1 => Some(1),
            2 => Some(0),
            _ => None,
        };
        assert_eq!(s.split_around(0, colour), Some(1));
    });
    // p1i is clobbered in v0i's loop (out of its mask): holding it
    // anyway costs a store and a reload in the loop (20), holding p0i
    // costs 5.
    with_splitter("coloring_split/cheapest_register_p1i_clobbered", |s| {
        assert_eq!(s.g.mask[0], 0b01);
        assert_eq!(s.split_around(0, |z| (z == 1).then_some(0)), Some(0));
        assert_eq!(s.holes[0], vec![(1, 6)]);
    });
    // With p0i's holder read along with v0i, p0i is ruled out; p1i's
    // 20 is below spilling v0i, read twice in the loop (1 + 16 + 16):
    // p1i, in the slot at the clobber only.
    with_splitter(
        "coloring_split/cheapest_register_p1i_clobbered_read_twice_with_v1i",
        |s| {
            assert_eq!(s.split_around(0, |z| (z == 1).then_some(0)), Some(1));
            assert_eq!(s.holes[0], vec![(9, 9)]);
        },
    );
    // Read once there, spilling (17) is cheaper than 20: no split.
    with_splitter(
        "coloring_split/cheapest_register_p1i_clobbered_read_once_with_v1i",
        |s| {
            assert_eq!(s.split_around(0, |z| (z == 1).then_some(0)), None);
            assert!(s.holes[0].is_empty());
        },
    );
}

/// Within one block: the places a window touches, and only those.
#[test]
fn costs_near_a_window_look_at_the_places_it_touches() {
    let clobber = "coloring_split/live_across_a_clobber";
    with_splitter(clobber, |s| {
        // A hole ending inside the window's reach: its reload before
        // inst3 counts; one ending beyond it does not.
        assert_eq!(s.cost_near(0, &[(1, 2)], &[(1, 1)]), 1.0);
        assert_eq!(s.cost_near(0, &[(1, 2)], &[(2, 2)]), 4.0);
        assert_eq!(s.cost_near(0, &[(2, 2)], &[(3, 3)]), 4.0);
        // Growing [2, 2] by inst3 drops that reload (the hole then runs
        // to the end); growing [3, 3] by inst2 moves the store.
        s.holes[0] = vec![(2, 2)];
        assert_eq!(s.grow(0, &[(3, 3)]).0, -4.0);
        s.holes[0] = vec![(3, 3)];
        assert_eq!(s.grow(0, &[(2, 2)]).0, 0.0);
        // A hole from the group's def: only the reload after it.
        assert_eq!(s.cost_near(0, &[(0, 1)], &[(1, 1)]), 4.0);
    });
    with_splitter(TWO_LOOPS, |s| {
        // Away from the window, nothing is counted.
        assert_eq!(s.cost_near(0, &[(1, 5)], &[(7, 8)]), 0.0);
        // v1i is born at inst1: a hole from there stores nothing.
        assert_eq!(s.cost_near(1, &[(1, 2)], &[(1, 1)]), 0.0);
    });
}

#[test]
fn a_two_address_group_is_one_region_from_the_read_values_birth() {
    let two_address = "coloring_split/a_two_address_group_is_one_region_from_the_read_values_birth";
    with_splitter(two_address, |s| {
        let r = s.g.find(2);
        assert_eq!(s.g.find(1), r);
        let mut members: Vec<usize> = s.members.of(r).collect();
        members.sort_unstable();
        assert_eq!(members, vec![1, 2]);
        assert_eq!(s.members.of(0).collect::<Vec<_>>(), vec![0]);
        assert_eq!(s.region(r), vec![(2, 5)]);
        assert_eq!(s.split_around(0, |z| (z == r).then_some(0)), Some(0));
        assert_eq!(s.holes[0], vec![(2, 5)]);
    });
}

#[test]
fn intervals_merge_and_answer_membership() {
    let mut iv = vec![(7, 9), (1, 2), (3, 4), (8, 12), (20, 20)];
    merge(&mut iv);
    assert_eq!(iv, vec![(1, 4), (7, 12), (20, 20)]);
    for (i, want) in [
        (0, false),
        (1, true),
        (4, true),
        (5, false),
        (12, true),
        (13, false),
        (20, true),
        (21, false),
    ] {
        assert_eq!(inside(&iv, i), want, "{i}");
    }
    assert!(!inside(&[], 0));
    assert_eq!(
        union(&[(1, 2), (8, 9)], &[(3, 5), (10, 10), (20, 30)]),
        vec![(1, 5), (8, 10), (20, 30)]
    );
    assert_eq!(union(&[], &[(4, 4)]), vec![(4, 4)]);
    assert_eq!(union(&[(0, 9)], &[(2, 3)]), vec![(0, 9)]);
    assert_eq!(
        intersect(&[(0, 4), (6, 9), (12, 12)], &[(3, 7), (9, 20)]),
        vec![(3, 4), (6, 7), (9, 9), (12, 12)]
    );
    assert_eq!(intersect(&[(0, 4)], &[]), vec![]);
}

#[test]
fn any_inside_agrees_with_a_scan_either_way_round() {
    let iv = [(3, 5), (9, 9), (20, 30)];
    for refs in [
        &[][..],
        &[1, 2, 6, 8, 10, 19, 31][..],
        &[5][..],
        &[0, 9, 40][..],
        &[31, 32, 33, 34, 35][..],
    ] {
        let scan = refs.iter().any(|&i| inside(&iv, i));
        assert_eq!(any_inside(&iv, refs), scan, "{refs:?}");
        assert_eq!(
            any_inside(&iv[..1], refs),
            refs.iter().any(|&i| inside(&iv[..1], i)),
            "{refs:?}"
        );
    }
}
