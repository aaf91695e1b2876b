use super::*;
use crate::backtracking::points::{e, l, m};
use crate::ir::index::Inst;

fn int(hw: usize) -> PReg {
    PReg::new(hw, RegClass::Int)
}

/// A machine whose int line is `ints` (one float and one vector
/// register besides).
fn machine(ints: &str) -> MachineEnv {
    crate::fixtures::case_on(
        [ints, "p0f", "p0v"],
        "function\n  block0:\n    inst0: ret\nend\n",
    )
    .machine
}

/// A loop over one int spill set whose bundles hold the ranges given
/// (each `(from, to)` a range of value 0 with the uses in `uses` that
/// fall inside it), on int registers `ints`, with `reserved` made.
fn with_loop(
    ints: &str,
    bundles: &[&[(Point, Point)]],
    uses: &[Use],
    reserved: &[(PReg, Point, Point)],
    check: impl FnOnce(&mut Loop),
) {
    let (ranges, b) = parts(bundles, uses);
    let mut l = Loop::new(
        ranges,
        uses,
        b,
        &machine(ints),
        reserved,
        &mut Spare::default(),
    );
    check(&mut l);
}

/// The ranges and bundles [`with_loop`] describes.
fn parts(bundles: &[&[(Point, Point)]], uses: &[Use]) -> (Vec<LiveRange>, Bundles) {
    let mut ranges = Vec::new();
    let mut bs = Vec::new();
    let mut range_bundle = Vec::new();
    for (k, rs) in bundles.iter().enumerate() {
        let mut own = Vec::new();
        for &(from, to) in rs.iter() {
            let a = uses.partition_point(|u| u.point < from) as u32;
            let b = uses.partition_point(|u| u.point < to) as u32;
            own.push((from, to, ranges.len() as u32));
            ranges.push(LiveRange {
                from,
                to,
                value: 0,
                uses: (a, b),
            });
            range_bundle.push(k as u32);
        }
        let mut bundle = Bundle::new(own.into(), 0, None);
        bundle.join_runs();
        bs.push(bundle);
    }
    let b = Bundles {
        bundles: bs,
        spillsets: vec![SpillSet {
            class: RegClass::Int,
            values: smallvec::smallvec![0],
            hint: None,
            spill_bundle: NONE,
            needed: false,
        }],
        range_bundle,
    };
    (ranges, b)
}

fn at(point: Point, req: Req, weight: u32) -> Use {
    Use {
        point,
        slot: 0,
        req,
        weight,
    }
}

#[test]
fn minimal_bundles_have_no_split_point_inside() {
    let i = Inst::new(1);
    let shapes: [&[(Point, Point)]; 8] = [
        &[(m(i), e(i) + 1)],
        &[(e(i), l(i) + 1)],
        &[(l(i), e(i) + 3)],
        &[(l(i), e(i) + 4)],
        &[(e(i), e(i) + 1), (l(i), l(i) + 1)],
        &[(e(i), l(i))],
        &[(m(i), e(i))],
        &[(e(i), e(i) + 3)],
    ];
    with_loop("p0i-p1i", &shapes, &[], &[], |lp| {
        let got: Vec<bool> = (0..8).map(|k| lp.minimal(k)).collect();
        assert_eq!(got, [false, true, true, false, false, true, true, true]);
    });
}

#[test]
fn choices_count_registers_no_reservation_blocks() {
    let bundles: [&[(Point, Point)]; 2] = [&[(2, 5)], &[(10, 12)]];
    with_loop("p0i-p2i", &bundles, &[], &[(int(1), 0, 10)], |lp| {
        assert_eq!(lp.choices(0, Req::Regs(0b111)), 2);
        assert_eq!(lp.choices(0, Req::Regs(0b011)), 1);
        assert_eq!(lp.choices(0, Req::Regs(0b110)), 1);
        assert_eq!(lp.choices(0, Req::Any), 2);
        assert_eq!(lp.choices(0, Req::Fixed(int(2))), 1);
        assert_eq!(lp.choices(1, Req::Regs(0b111)), 3);
    });
    // A reservation found behind a bundle's range still counts.
    let bundles: [&[(Point, Point)]; 2] = [&[(2, 12)], &[(6, 8)]];
    with_loop("p0i-p1i", &bundles, &[], &[(int(1), 0, 4)], |lp| {
        lp.assign(1, int(1));
        assert_eq!(lp.choices(0, Req::Any), 1);
    });
}

#[test]
fn queued_bundles_carry_requirement_weight_and_length() {
    let uses = [
        at(4, Req::Regs(0b11), 1000),
        at(7, Req::Any, 1500),
        at(10, Req::Fixed(int(0)), 2000),
        at(13, Req::Stack, 0),
    ];
    let bundles: [&[(Point, Point)]; 3] = [&[(2, 8)], &[(8, 14)], &[(4, 6)]];
    with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
        for k in 0..3 {
            lp.enqueue(k);
        }
        let b = &lp.bundles;
        // 2500 * 3 / (6 + 3)
        assert_eq!((b[0].req, b[0].weight), ((Req::Regs(0b11), 0), 833));
        // Fixed meets Stack as a conflict, at the stack use.
        assert_eq!((b[1].req, b[1].weight), ((Req::Conflict, 13), 666));
        // Minimal, needs a register: above every other weight.
        assert_eq!(b[2].weight, MINIMAL + 64 - 2);
        assert_eq!(lp.queue.pop(), Some((6, 1)));
        assert_eq!(lp.queue.pop(), Some((6, 0)));
        assert_eq!(lp.queue.pop(), Some((2, 2)));
    });
}

#[test]
fn split_points_at_or_before_the_conflict() {
    let uses = [at(10, Req::Regs(0b1), 1000), at(16, Req::Regs(0b1), 1000)];
    let bundles: [&[(Point, Point)]; 2] = [&[(1, 20)], &[(1, 5), (7, 20)]];
    with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
        // The `E` point at or before the conflict, inside the range.
        assert_eq!(lp.split_point(0, 11), 10);
        assert_eq!(lp.split_point(0, 13), 13);
        // At the start of a range that is not the first.
        assert_eq!(lp.split_point(1, 7), 7);
        assert_eq!(lp.split_point(1, 6), 7);
        // At the first range's start: before the first constrained use.
        assert_eq!(lp.split_point(0, 1), 10);
        assert_eq!(lp.split_point(1, 3), 10);
        // Past the end: the last `E` point inside.
        assert_eq!(lp.split_point(0, 20), 19);
    });
    let bundles: [&[(Point, Point)]; 2] = [&[(1, 10)], &[(1, 5), (7, 20)]];
    with_loop(
        "p0i-p1i",
        &bundles,
        &[at(7, Req::Regs(0b1), 1000)],
        &[],
        |lp| {
            // Never at a range's end; a use starting a later range splits
            // at that range's start.
            assert_eq!(lp.split_point(0, 10), 7);
            assert_eq!(lp.split_point(1, 3), 7);
        },
    );
}

/// Sets bundle `k`'s weight and requirement and, given a register,
/// places it there.
fn held(lp: &mut Loop, k: u32, weight: u32, req: Req, r: Option<PReg>) {
    lp.bundles[k as usize].weight = weight;
    lp.bundles[k as usize].req = (req, 0);
    if let Some(r) = r {
        lp.assign(k, r);
    }
}

#[test]
fn probes_find_the_heaviest_holder_and_the_first_conflict() {
    let bundles: [&[(Point, Point)]; 5] = [
        &[(4, 10)],
        &[(6, 8)],
        &[(9, 12)],
        &[(20, 22)],
        &[(5, 7), (7, 9)],
    ];
    with_loop("p0i-p1i", &bundles, &[], &[(int(1), 5, 7)], |lp| {
        held(lp, 1, 300, Req::Any, Some(int(0)));
        held(lp, 2, 100, Req::Any, Some(int(0)));
        let busy = |p: Probe| match p {
            Probe::Busy { cost, first } => Some((cost, first)),
            Probe::Free => None,
        };
        assert_eq!(busy(lp.probe(0, int(0), u32::MAX)), Some((300, 6)));
        assert_eq!(lp.conflicts, [2, 1]);
        // Once the cost reaches the cutoff, later holders are not weighed.
        assert_eq!(busy(lp.probe(0, int(0), 100)), Some((100, 6)));
        // A holder met by two ranges is one conflict.
        assert_eq!(busy(lp.probe(4, int(0), u32::MAX)), Some((300, 6)));
        assert_eq!(lp.conflicts, [1]);
        // A reservation cannot be evicted.
        assert_eq!(busy(lp.probe(0, int(1), u32::MAX)), Some((u32::MAX, 5)));
        assert_eq!(busy(lp.probe(3, int(0), u32::MAX)), None);
        assert_eq!(busy(lp.probe(3, int(1), u32::MAX)), None);
        assert!(!lp.is_free(0, int(0)) && !lp.is_free(0, int(1)));
        assert!(lp.is_free(3, int(0)) && !lp.is_free(4, int(1)));
    });
}

#[test]
fn candidates_start_at_the_hint_then_spread_over_each_list() {
    let bundles: [&[(Point, Point)]; 3] = [&[(4, 6)], &[(5, 7)], &[(9, 10)]];
    let regs = |lp: &Loop, k: u32, req: Req| {
        let mut out = Vec::new();
        lp.candidates(k, req, &mut out);
        out.iter().map(|r| r.hw()).collect::<Vec<_>>()
    };
    with_loop("p0i-p2i nonpreferred p3i-p4i", &bundles, &[], &[], |lp| {
        // From bundle + start: preferred from that mod 3, others mod 2.
        assert_eq!(regs(lp, 0, Req::Any), [1, 2, 0, 3, 4]);
        assert_eq!(regs(lp, 1, Req::Any), [0, 1, 2, 3, 4]);
        assert_eq!(regs(lp, 2, Req::Any), [2, 0, 1, 4, 3]);
        assert_eq!(regs(lp, 0, Req::Fixed(int(4))), [4]);
        lp.spillsets[0].hint = Some(int(3));
        assert_eq!(regs(lp, 0, Req::Any), [3, 1, 2, 0, 4]);
        lp.bundles[0].hint = Some(int(2));
        assert_eq!(regs(lp, 0, Req::Any), [2, 1, 0, 3, 4]);
        // A hint outside the mask or the class is not probed.
        assert_eq!(regs(lp, 0, Req::Regs(0b11010)), [1, 3, 4]);
        lp.bundles[0].hint = Some(PReg::new(0, RegClass::Float));
        assert_eq!(regs(lp, 0, Req::Any), [1, 2, 0, 3, 4]);
    });
}

/// Bundle 0 (`Any`, weight `w0`) against holders of `p0` and `p1`
/// weighing `w1` and `w2`: its home, the spilled list, the evictions.
fn stack_ok_place(w0: u32, w1: u32, w2: u32) -> (Home, Home, Home, Vec<u32>, u64) {
    let bundles: [&[(Point, Point)]; 3] = [&[(4, 10)], &[(6, 8)], &[(7, 9)]];
    let mut got = None;
    with_loop("p0i-p1i", &bundles, &[], &[], |lp| {
        held(lp, 0, w0, Req::Any, None);
        held(lp, 1, w1, Req::Any, Some(int(0)));
        held(lp, 2, w2, Req::Any, Some(int(1)));
        lp.process(0).unwrap();
        let h = |k: usize| lp.bundles[k].home;
        got = Some((h(0), h(1), h(2), lp.spilled.clone(), lp.stats.evictions));
    });
    got.unwrap()
}

#[test]
fn a_bundle_a_slot_will_do_evicts_only_lighter_holders() {
    let (p0, p1) = (Home::Reg(int(0)), Home::Reg(int(1)));
    // The cheapest register to clear, if lighter than the bundle.
    assert_eq!(stack_ok_place(50, 100, 30), (p1, p0, Home::None, vec![], 1));
    // Of equally cheap ones, the first probed (the spill set's hint,
    // p1, where its last piece went).
    assert_eq!(stack_ok_place(50, 30, 30), (p1, p0, Home::None, vec![], 1));
    // As heavy as the cheapest holder: no eviction; on the stack for now.
    assert_eq!(
        stack_ok_place(30, 100, 30),
        (Home::None, p0, p1, vec![0], 0)
    );
}

#[test]
fn a_bundle_needing_a_register_evicts_lighter_holders_else_splits() {
    let uses = [at(7, Req::Regs(0b11), 1000), at(13, Req::Regs(0b11), 1000)];
    let bundles: [&[(Point, Point)]; 3] = [&[(4, 16)], &[(6, 8)], &[(12, 14)]];
    let setup = |lp: &mut Loop, w2: u32| {
        held(lp, 0, 500, Req::Regs(0b11), None);
        held(lp, 1, 1000, Req::Any, Some(int(0)));
        held(lp, 2, w2, Req::Any, Some(int(1)));
        lp.process(0).unwrap();
    };
    with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
        setup(lp, 400);
        assert_eq!(lp.bundles[0].home, Home::Reg(int(1)));
        assert_eq!(lp.bundles[2].home, Home::None);
        assert_eq!((lp.stats.evictions, lp.stats.splits), (1, 0));
    });
    // Conflicts on both at 6: the first probed is the hint.
    let tie: [&[(Point, Point)]; 3] = [&[(4, 16)], &[(6, 8)], &[(6, 8)]];
    with_loop("p0i-p1i", &tie, &uses, &[], |lp| {
        setup(lp, 1000);
        // Split before the first use: all of the first half goes to
        // the spill bundle.
        assert!(lp.bundles[0].ranges.is_empty());
        assert_eq!(lp.bundles[3].ranges[..], [(4, 7, 0)]);
        assert_eq!(lp.bundles[4].ranges[..], [(7, 16, 3)]);
        assert_eq!(lp.bundles[4].hint, Some(int(1)));
    });
    with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
        setup(lp, 500);
        assert_eq!((lp.stats.evictions, lp.stats.splits), (0, 1));
        // Split at the `E` point before the later first conflict (on
        // p1, at 12), both halves hinted to p1; the stretch up to the
        // second half's first use needs no register.
        let b = &lp.bundles;
        assert_eq!(b.len(), 5);
        assert_eq!(
            (b[0].ranges.as_slice(), b[0].hint),
            (&[(4, 10, 0)][..], Some(int(1)))
        );
        assert_eq!(b[3].ranges[..], [(10, 13, 3)]);
        assert_eq!(
            (b[4].ranges.as_slice(), b[4].hint),
            (&[(13, 16, 4)][..], Some(int(1)))
        );
        assert_eq!(
            (lp.spillsets[0].spill_bundle, lp.spilled.as_slice()),
            (3, &[3][..])
        );
        assert_eq!(lp.range_bundle, [0, 1, 2, 3, 4]);
        let r = |x: usize| (lp.ranges[x].from, lp.ranges[x].to, lp.ranges[x].uses);
        assert_eq!(
            [r(0), r(3), r(4)],
            [(4, 10, (0, 1)), (10, 13, (1, 1)), (13, 16, (1, 2))]
        );
        assert!(lp.queue.iter().any(|&q| q == (6, 0)));
        assert!(lp.queue.iter().any(|&q| q == (3, 4)));
    });
}

#[test]
fn split_halves_send_their_unconstrained_ends_to_the_spill_bundle() {
    let uses = [at(5, Req::Regs(0b1), 1000), at(20, Req::Regs(0b1), 1000)];
    let bundles: [&[(Point, Point)]; 1] = [&[(4, 8), (10, 14), (16, 22)]];
    with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
        lp.split(0, 10, None).unwrap();
        let b = &lp.bundles;
        // After the last use of the first half, the next E point on.
        assert_eq!(b[0].ranges[..], [(4, 7, 0)]);
        // The whole middle range, and the second half up to its use.
        assert_eq!(b[1].ranges[..], [(7, 8, 3), (10, 14, 1), (16, 19, 2)]);
        assert_eq!(b[2].ranges[..], [(19, 22, 4)]);
        assert_eq!(lp.range_bundle, [0, 1, 1, 1, 2]);
    });
    let bundles: [&[(Point, Point)]; 1] = [&[(4, 22)]];
    let uses = [at(7, Req::Regs(0b1), 1000), at(19, Req::Regs(0b1), 1000)];
    with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
        lp.split(0, 13, Some(int(1))).unwrap();
        let b = &lp.bundles;
        assert_eq!(b[0].ranges[..], [(4, 10, 0)]);
        assert_eq!(b[1].ranges[..], [(10, 13, 2), (13, 19, 1)]);
        assert_eq!(b[2].ranges[..], [(19, 22, 3)]);
        assert_eq!(
            (b[0].hint, b[1].hint, b[2].hint),
            (Some(int(1)), None, Some(int(1)))
        );
    });
    // No use after the split: the whole second half needs no register.
    let uses = [at(7, Req::Regs(0b1), 1000)];
    with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
        lp.split(0, 13, None).unwrap();
        let b = &lp.bundles;
        assert_eq!(b[0].ranges[..], [(4, 10, 0)]);
        assert_eq!(b[1].ranges[..], [(10, 13, 2), (13, 22, 1)]);
        assert!(b[2].ranges.is_empty());
    });
}

/// Minimal bundle 0 (may take p0 or p1, probed in that order: p1
/// first) against a holder of p1 fixed there weighing `w1` and a holder
/// of p0 weighing `w2` that may also take `alts`: the register it got,
/// and where the holder it put out went (`Home::None`: requeued).
fn minimal_place(w1: u32, w2: u32, alts: u64) -> (PReg, Home) {
    let bundles: [&[(Point, Point)]; 3] = [&[(4, 6)], &[(3, 8)], &[(3, 8)]];
    let mut got = None;
    with_loop("p0i-p2i", &bundles, &[], &[], |lp| {
        held(lp, 0, MINIMAL + 62, Req::Regs(0b11), None);
        held(lp, 1, w1, Req::Fixed(int(1)), Some(int(1)));
        held(lp, 2, w2, Req::Regs(alts), Some(int(0)));
        lp.spillsets[0].hint = None;
        assert!(lp.minimal(0));
        lp.process(0).unwrap();
        assert!(lp.stats.evictions >= 1 && lp.stats.splits == 0);
        let Home::Reg(r) = lp.bundles[0].home else {
            panic!("no register");
        };
        let other = if r == int(0) { 2 } else { 1 };
        got = Some((r, lp.bundles[other].home));
    });
    got.unwrap()
}

#[test]
fn a_minimal_bundle_evicts_lighter_holders_else_forces_movable_ones_out() {
    let requeued = |r: usize| (int(r), Home::None);
    // A lighter holder goes, even one that cannot move.
    assert_eq!(minimal_place(5, MINIMAL + 64, 0b111), requeued(1));
    // Holders as heavy or heavier: first a register whose holders may
    // move to a free one (p0's to p2, at once) ...
    let moved = (int(0), Home::Reg(int(2)));
    assert_eq!(minimal_place(MINIMAL + 62, MINIMAL + 64, 0b111), moved);
    assert_eq!(minimal_place(MINIMAL + 63, MINIMAL + 64, 0b111), moved);
    // ... else the cheapest (p0's may only take p1, held by a heavier
    // bundle).
    assert_eq!(
        minimal_place(MINIMAL + 64, MINIMAL + 63, 0b011),
        requeued(0)
    );
    // Or, drawn among those, a register whose holder moves on by
    // evicting a lighter bundle (p0's takes p1 from a lighter holder).
    let mut seen = [false; 2];
    for (w1, w2) in [(MINIMAL + 63, MINIMAL + 64), (MINIMAL + 62, MINIMAL + 64)] {
        let (r, home) = minimal_place(w1, w2, 0b011);
        if r == int(0) {
            assert_eq!(home, Home::Reg(int(1)));
            seen[0] = true;
        } else {
            assert_eq!(home, Home::None);
            seen[1] = true;
        }
    }
    assert!(seen[0], "no holder moved on");
}

#[test]
fn a_minimal_bundle_with_every_register_reserved_is_impossible() {
    let reserved = [(int(0), 3, 7), (int(1), 3, 7)];
    with_loop("p0i-p1i", &[&[(4, 6)]], &[], &reserved, |lp| {
        held(lp, 0, MINIMAL + 62, Req::Regs(0b11), None);
        let Err(AllocError::Impossible(m)) = lp.process(0) else {
            panic!("placed");
        };
        assert_eq!(
                m,
                "value 0 (v0) needs Regs(3) at points 4..6 (inst1), where every such register is reserved"
            );
    });
}

#[test]
fn forced_choices_rotate() {
    with_loop("p0i-p1i", &[&[(4, 6)]], &[], &[], |lp| {
        // Marsaglia's xorshift64 (13, 7, 17), from the loop's seed.
        lp.draw(1);
        assert_eq!(lp.forced, 0xdc1b_77ae_0bf3_4dad);
        lp.draw(1);
        assert_eq!(lp.forced, 0x64f0_eeb9_026e_6076);
        for n in [2, 3, 5] {
            let mut seen = vec![false; n];
            for _ in 0..64 {
                seen[lp.draw(n)] = true;
            }
            assert!(seen.iter().all(|&s| s), "{n}: {seen:?}");
        }
    });
}

#[test]
fn each_requirement_takes_its_own_path() {
    let uses = [at(28, Req::Fixed(int(0)), 1000), at(31, Req::Stack, 0)];
    let bundles: [&[(Point, Point)]; 4] =
        [&[(4, 6)], &[(10, 12)], &[(13, 16), (19, 22)], &[(25, 34)]];
    with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
        held(lp, 0, 10, Req::Stack, None);
        lp.process(0).unwrap();
        assert_eq!(lp.bundles[0].home, Home::Spilled);
        assert!(lp.spillsets[0].needed);

        held(lp, 1, 10, Req::Regs(0), None);
        let Err(AllocError::Impossible(m)) = lp.process(1) else {
            panic!("placed");
        };
        assert!(m.contains("that `limit` excludes"), "{m}");

        let sb = lp.spill_bundle(0);
        assert_eq!((sb, lp.spill_bundle(0)), (4, 4));
        held(lp, 2, 10, Req::Any, None);
        lp.process(2).unwrap();
        assert!(lp.bundles[2].ranges.is_empty());
        assert_eq!(lp.bundles[4].ranges[..], [(13, 16, 2), (19, 22, 3)]);
        assert_eq!(lp.range_bundle[2..4], [4, 4]);

        lp.bundles[3].req = (Req::Conflict, 31);
        lp.process(3).unwrap();
        assert_eq!(lp.bundles[3].ranges[..], [(25, 31, 4)]);
        assert_eq!(lp.bundles[5].ranges[..], [(31, 34, 5)]);
        assert_eq!(lp.stats.splits, 1);
    });
}

#[test]
fn second_chance_takes_a_register_free_for_the_whole_bundle() {
    let bundles: [&[(Point, Point)]; 4] = [&[(10, 12), (4, 6)], &[(4, 8)], &[(4, 8)], &[]];
    with_loop("p0i-p1i", &bundles, &[], &[], |lp| {
        held(lp, 1, 10, Req::Any, Some(int(0)));
        lp.spilled = vec![0, 1, 2, 3];
        lp.second_chance();
        let b = &lp.bundles;
        assert_eq!(b[0].ranges[..], [(4, 6, 1), (10, 12, 0)]);
        assert_eq!(b[0].home, Home::Reg(int(1)));
        assert_eq!(b[1].home, Home::Reg(int(0)));
        assert_eq!(b[2].home, Home::Spilled);
        assert_eq!(b[3].home, Home::None);
        assert_eq!(lp.stats.second_chance, 1);
        assert!(lp.spillsets[0].needed);
    });
}

#[test]
fn bundle_weights_are_capped_below_minimal_ones() {
    let uses = [at(2, Req::Any, u32::MAX), at(4, Req::Any, 900)];
    let bundles: [&[(Point, Point)]; 2] = [&[(1, 4)], &[(4, 6)]];
    with_loop("p0i-p1i", &bundles, &uses, &[], |lp| {
        lp.enqueue(0);
        lp.enqueue(1);
        assert_eq!(lp.bundles[0].weight, (1 << 29) - 1);
        // Minimal, but a slot will do: weighed by its uses.
        assert!(lp.minimal(1));
        assert_eq!(lp.bundles[1].weight, 900 * 3 / (2 + 3));
    });
}

#[test]
fn minimal_bundles_that_cannot_all_be_placed_run_out_the_work_bound() {
    let uses = [at(4, Req::Fixed(int(0)), 1000)];
    let (ranges, b) = parts(&[&[(4, 6)], &[(4, 6)]], &uses);
    let Err(AllocError::Impossible(m)) = run(
        ranges,
        &uses,
        b,
        &machine("p0i-p1i"),
        &[],
        &mut Spare::default(),
    ) else {
        panic!("allocated");
    };
    assert!(m.contains("work bound (200128 bundle steps)"), "{m}");
}
