//! The move resolver, exhaustively on small sets and on each special case,
//! judged by the abstract interpreter.

use allocator::moves::{MoveContext, MoveResolver, ParallelMove, ResolveStats};
use allocator::{Allocation, MachineEnv, Move, PReg, PRegSet, RegClass, SpillSlot};
use checker::moves::check_resolution;

const I: RegClass = RegClass::Int;

fn r(hw: usize) -> Allocation {
    Allocation::Reg(PReg::new(hw, I))
}

fn s(n: u32) -> Allocation {
    Allocation::Stack(SpillSlot(n))
}

/// A machine whose int class has registers `p0..p(n-1)`, optionally the
/// scratch `p60i` and the fixed stack location `p32i`.
fn machine(n: usize, scratch: bool, fixed_stack: bool) -> MachineEnv {
    let mut env = MachineEnv::simple(1);
    env.preferred[0] = (0..n).map(|hw| PReg::new(hw, I)).collect();
    if scratch {
        env.scratch[0] = Some(PReg::new(60, I));
    }
    if fixed_stack {
        env.fixed_stack[0] = vec![PReg::new(32, I)];
    }
    env
}

fn resolve(
    moves: &[(Allocation, Allocation)],
    env: &MachineEnv,
    free: PRegSet,
) -> (Vec<Move>, ResolveStats) {
    let input: Vec<ParallelMove> = moves
        .iter()
        .map(|&(from, to)| ParallelMove { from, to, class: I })
        .collect();
    let ctx = MoveContext {
        env,
        free,
        extra_slots: [SpillSlot(100), SpillSlot(101)],
    };
    let mut out = Vec::new();
    let stats = MoveResolver::new().resolve(&input, &ctx, &mut out);
    if let Err(e) = check_resolution(&input, &ctx, &out) {
        panic!("{moves:?} with {env:?}, free {free:?}:\n{e}\nemitted {out:?}");
    }
    (out, stats)
}

/// Every parallel move set over four locations (each destination written
/// from one of the four, or not at all: 5^4 sets), for every mix of
/// registers, spill slots and a fixed stack location, with and without a
/// scratch register and a free register.
#[test]
fn exhaustive_over_four_locations() {
    let mut checked = 0;
    for nregs in 0..=4usize {
        for fixed in [false, true] {
            if fixed && nregs == 4 {
                continue;
            }
            // Locations: registers p0.., then the fixed stack location, then slots.
            let mut locs: Vec<Allocation> = (0..nregs).map(r).collect();
            if fixed {
                locs.push(r(32));
            }
            let mut slot = 0;
            while locs.len() < 4 {
                locs.push(s(slot));
                slot += 1;
            }
            for scratch in [false, true] {
                for free in [false, true] {
                    // The machine always has p0..p(nregs-1) plus p7 (outside the
                    // set), so a register can be borrowed even when no location is one.
                    let mut env = machine(nregs, scratch, fixed);
                    env.preferred[0].push(PReg::new(7, I));
                    let mut free_set = PRegSet::empty();
                    if free {
                        free_set.insert(PReg::new(9, I));
                        env.preferred[0].push(PReg::new(9, I));
                    }
                    for code in 0..625u32 {
                        let mut c = code;
                        let mut moves = Vec::new();
                        for &dst in &locs {
                            let pick = c % 5;
                            c /= 5;
                            if pick < 4 {
                                moves.push((locs[pick as usize], dst));
                            }
                        }
                        resolve(&moves, &env, free_set);
                        checked += 1;
                    }
                }
            }
        }
    }
    assert_eq!(checked, 9 * 4 * 625);
}

#[test]
fn independent_moves_take_the_fast_path_in_order() {
    let env = machine(4, false, false);
    let (out, stats) = resolve(&[(r(0), r(1)), (r(2), r(3))], &env, PRegSet::empty());
    assert_eq!(
        out,
        vec![
            Move {
                from: r(0),
                to: r(1)
            },
            Move {
                from: r(2),
                to: r(3)
            }
        ]
    );
    assert_eq!(stats, ResolveStats::default());
}

#[test]
fn self_moves_are_dropped() {
    let env = machine(2, false, false);
    let (out, _) = resolve(&[(r(0), r(0)), (s(1), s(1))], &env, PRegSet::empty());
    assert!(out.is_empty());
}

#[test]
fn a_chain_runs_back_to_front() {
    // r1 := r0, r2 := r1, r3 := r2: r3 must be written first.
    let env = machine(4, false, false);
    let (out, stats) = resolve(
        &[(r(0), r(1)), (r(1), r(2)), (r(2), r(3))],
        &env,
        PRegSet::empty(),
    );
    assert_eq!(
        out,
        vec![
            Move {
                from: r(2),
                to: r(3)
            },
            Move {
                from: r(1),
                to: r(2)
            },
            Move {
                from: r(0),
                to: r(1)
            }
        ]
    );
    assert_eq!(stats.cycles, 0);
}

#[test]
fn fan_out_reads_before_the_source_is_overwritten() {
    let env = machine(4, false, false);
    let (_, stats) = resolve(
        &[(r(0), r(1)), (r(0), r(2)), (r(1), r(0))],
        &env,
        PRegSet::empty(),
    );
    assert_eq!(stats.cycles, 1);
}

#[test]
fn cycle_scratch_preference_order() {
    let swap = [(r(0), r(1)), (r(1), r(0))];
    // Dedicated scratch first.
    let (out, st) = resolve(&swap, &machine(2, true, false), PRegSet::empty());
    assert_eq!((st.scratch_dedicated, out.len()), (1, 3));
    // Then a free register the set does not touch.
    let mut env = machine(3, false, false);
    let mut free = PRegSet::empty();
    free.insert(PReg::new(2, I));
    let (out, st) = resolve(&swap, &env, free);
    assert_eq!((st.scratch_free, out.len()), (1, 3));
    // A free register that the set touches is not used.
    free = PRegSet::empty();
    free.insert(PReg::new(0, I));
    let (_, st) = resolve(&swap, &env, free);
    assert_eq!(st.scratch_free, 0);
    // Register-to-register cycle, nothing free: an extra spill slot.
    let (out, st) = resolve(&swap, &env, PRegSet::empty());
    assert_eq!((st.scratch_stack, out.len()), (1, 3));
    assert!(
        out.contains(&Move {
            from: r(0),
            to: s(100)
        }) || out.contains(&Move {
            from: r(1),
            to: s(100)
        })
    );
    // A cycle through memory borrows an untouched register and restores it.
    env = machine(3, false, false);
    let (out, st) = resolve(&[(r(0), s(5)), (s(5), r(0))], &env, PRegSet::empty());
    assert_eq!(st.scratch_borrowed, 1, "{out:?}");
    assert_eq!(
        out.first(),
        Some(&Move {
            from: r(1),
            to: s(100)
        })
    );
    assert_eq!(
        out.last(),
        Some(&Move {
            from: s(100),
            to: r(1)
        })
    );
}

#[test]
fn one_register_machine_swaps_two_slots() {
    // Only p0 exists and it is not in the set: every stack-to-stack move
    // borrows it, saving and restoring.
    let env = machine(1, false, false);
    let (out, st) = resolve(&[(s(0), s(1)), (s(1), s(0))], &env, PRegSet::empty());
    assert!(st.mem_to_mem_borrowed > 0);
    assert!(out.len() > 4);
    // And with p0 in the cycle too.
    resolve(
        &[(s(0), r(0)), (r(0), s(1)), (s(1), s(0))],
        &env,
        PRegSet::empty(),
    );
}

#[test]
fn stack_to_stack_goes_through_scratch_or_free_or_borrowed() {
    let (out, st) = resolve(&[(s(0), s(1))], &machine(2, true, false), PRegSet::empty());
    assert_eq!(
        out,
        vec![
            Move {
                from: s(0),
                to: r(60)
            },
            Move {
                from: r(60),
                to: s(1)
            }
        ]
    );
    assert_eq!((st.mem_to_mem, st.mem_to_mem_borrowed), (1, 0));
    let mut free = PRegSet::empty();
    free.insert(PReg::new(1, I));
    let (out, _) = resolve(&[(s(0), s(1))], &machine(2, false, false), free);
    assert_eq!(
        out,
        vec![
            Move {
                from: s(0),
                to: r(1)
            },
            Move {
                from: r(1),
                to: s(1)
            }
        ]
    );
    let (out, st) = resolve(&[(s(0), s(1))], &machine(2, false, false), PRegSet::empty());
    assert_eq!(st.mem_to_mem_borrowed, 1);
    assert_eq!(out.len(), 4);
    // A fixed stack location is memory too.
    let (_, st) = resolve(&[(r(32), s(1))], &machine(2, false, true), PRegSet::empty());
    assert_eq!(st.mem_to_mem, 1);
}

/// A register the set writes and never reads holds nothing live until its
/// own move: memory-to-memory moves go through it for free, and moves into
/// such registers run last so that it stays available.
#[test]
fn a_register_the_set_overwrites_carries_memory_moves_before_its_own() {
    let env = machine(1, false, false);
    // The move into p0 comes first in the set: it still runs last.
    let (out, st) = resolve(&[(s(2), r(0)), (s(0), s(1))], &env, PRegSet::empty());
    assert_eq!(
        out,
        vec![
            Move {
                from: s(0),
                to: r(0)
            },
            Move {
                from: r(0),
                to: s(1)
            },
            Move {
                from: s(2),
                to: r(0)
            }
        ]
    );
    assert_eq!(
        (st.mem_to_mem, st.mem_to_mem_doomed, st.mem_to_mem_borrowed),
        (1, 1, 0)
    );
    // With an order to find (p1 is read before it is overwritten), the
    // chain into p0 still runs after the memory move.
    let env = machine(2, false, false);
    let (out, st) = resolve(
        &[(r(1), r(0)), (s(0), r(1)), (s(1), s(2))],
        &env,
        PRegSet::empty(),
    );
    assert_eq!(out.len(), 4, "{out:?}");
    assert_eq!((st.mem_to_mem_doomed, st.mem_to_mem_borrowed), (1, 0));
    // A register the set reads is not free to carry anything: p0 is
    // borrowed (saved and restored) instead.
    let (out, st) = resolve(
        &[(r(0), s(3)), (s(0), s(1))],
        &machine(1, false, false),
        PRegSet::empty(),
    );
    assert_eq!((st.mem_to_mem_doomed, st.mem_to_mem_borrowed), (0, 1));
    assert_eq!(out.len(), 5, "{out:?}");
    // Any register of the class can serve, not only the first.
    let (out, st) = resolve(
        &[(r(0), s(3)), (s(2), r(1)), (s(0), s(1))],
        &machine(2, false, false),
        PRegSet::empty(),
    );
    assert_eq!((st.mem_to_mem_doomed, st.mem_to_mem_borrowed), (1, 0));
    assert_eq!(out.len(), 4, "{out:?}");
}

#[test]
fn long_cycles_need_one_scratch() {
    for len in 2..40usize {
        let moves: Vec<_> = (0..len).map(|i| (r(i), r((i + 1) % len))).collect();
        let (out, st) = resolve(&moves, &machine(len, true, false), PRegSet::empty());
        assert_eq!(st.cycles, 1);
        assert_eq!(out.len(), len + 1);
    }
}

#[test]
fn the_interpreter_rejects_wrong_sequences() {
    let env = machine(2, false, false);
    let ctx = MoveContext {
        env: &env,
        free: PRegSet::empty(),
        extra_slots: [SpillSlot(100), SpillSlot(101)],
    };
    let swap = [
        ParallelMove {
            from: r(0),
            to: r(1),
            class: I,
        },
        ParallelMove {
            from: r(1),
            to: r(0),
            class: I,
        },
    ];
    // The naive sequence loses r1's value.
    let naive = [
        Move {
            from: r(0),
            to: r(1),
        },
        Move {
            from: r(1),
            to: r(0),
        },
    ];
    assert!(check_resolution(&swap, &ctx, &naive)
        .unwrap_err()
        .contains("should hold"));
    // A stack-to-stack move is refused even when the values come out right.
    let copy = [ParallelMove {
        from: s(0),
        to: s(1),
        class: I,
    }];
    assert!(check_resolution(
        &copy,
        &ctx,
        &[Move {
            from: s(0),
            to: s(1)
        }]
    )
    .unwrap_err()
    .contains("memory to memory"));
    // Clobbering an unrelated register is refused.
    let bad = [
        Move {
            from: s(0),
            to: r(1),
        },
        Move {
            from: r(1),
            to: s(1),
        },
    ];
    assert!(check_resolution(&copy, &ctx, &bad)
        .unwrap_err()
        .contains("p1i is not a destination"));
}

/// A machine whose only allocatable int register is `p1i`; `p40i` is in no
/// list (a register only `fixed` operands name).
fn lone_register_machine() -> MachineEnv {
    let mut env = MachineEnv::simple(1);
    env.preferred[0] = vec![PReg::new(1, I)];
    env
}

#[test]
fn scratch_choice_when_the_only_free_register_is_the_only_allocatable_one() {
    let env = lone_register_machine();
    let mut free = PRegSet::empty();
    free.insert(PReg::new(1, I));
    // A cycle through a non-allocatable register and a slot: no move goes
    // memory to memory, so the free register is the scratch.
    let (_, st) = resolve(&[(r(40), s(0)), (s(0), r(40))], &env, free);
    assert_eq!(
        (st.scratch_free, st.scratch_stack, st.scratch_borrowed),
        (1, 0, 0)
    );
    // A swap of two slots: the lone register must stay available for the
    // memory-to-memory moves, so the scratch is the extra slot.
    let (_, st) = resolve(&[(s(0), s(1)), (s(1), s(0))], &env, free);
    assert_eq!(
        (st.scratch_free, st.scratch_stack, st.scratch_borrowed),
        (0, 1, 0)
    );
    // Nothing free: the cycle through memory borrows the lone register.
    let (out, st) = resolve(&[(r(40), s(0)), (s(0), r(40))], &env, PRegSet::empty());
    assert_eq!(
        (st.scratch_free, st.scratch_stack, st.scratch_borrowed),
        (0, 0, 1),
        "{out:?}"
    );
}

#[test]
fn slots_beyond_the_register_index_space() {
    // Slot numbers above 192 (functions with many vregs) must not collide
    // with registers in the resolver's location keys.
    let env = machine(2, false, false);
    resolve(
        &[(s(200), r(0)), (r(0), s(300)), (s(300), s(200))],
        &env,
        PRegSet::empty(),
    );
    let mut vec_env = env.clone();
    vec_env.preferred[2] = vec![PReg::new(63, RegClass::Vector)];
    let v63 = Allocation::Reg(PReg::new(63, RegClass::Vector));
    let input = [
        ParallelMove {
            from: s(1),
            to: v63,
            class: RegClass::Vector,
        },
        ParallelMove {
            from: v63,
            to: s(0),
            class: RegClass::Vector,
        },
    ];
    let ctx = MoveContext {
        env: &vec_env,
        free: PRegSet::empty(),
        extra_slots: [SpillSlot(500), SpillSlot(501)],
    };
    let mut out = Vec::new();
    MoveResolver::new().resolve(&input, &ctx, &mut out);
    check_resolution(&input, &ctx, &out).unwrap();
}
