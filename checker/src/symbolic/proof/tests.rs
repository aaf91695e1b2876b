use super::super::Checker;
use allocator::fixtures::hand_written;
use allocator::ir::text::{parse, parse_and_validate};
use allocator::{Allocation, Allocator, PReg};

/// The machine of most cases here, and one whose floats fill two slots.
const MACHINE: &str = "machine
  int    preferred p0i-p1i nonpreferred none scratch none
  float  preferred p0f nonpreferred none scratch none
  vector preferred p0v nonpreferred none scratch none
end
";
const WIDE: &str = "machine
  int    preferred p0i nonpreferred none scratch none
  float  preferred p0f nonpreferred none scratch none slot_size 2
  vector preferred p0v nonpreferred none scratch none
end
";

/// The hand-written allocations the proof leaves to the dataflow though
/// they are correct: a reused input shares its location with another early
/// use.
const LEFT_TO_THE_DATAFLOW: [&str; 1] = ["reuse_input_shares_with_a_copy.ra"];

/// Checks the case in `text` (parsed, not validated) and returns whether
/// the proof settled it, with the errors and the dominance verdict.
fn judge(text: &str) -> (bool, usize, bool) {
    let (case, _) = parse(text.as_bytes()).unwrap();
    let out = case.output.as_ref().unwrap();
    let mut c = Checker::default();
    let errs = c.check(&case.func, &case.machine, out);
    (c.proved(), errs.len(), c.uses_dominated())
}

/// Every correct hand-written allocation is proved, but for the shapes the
/// proof gives up on; no wrong one is.
#[test]
fn proves_the_correct_hand_written_allocations() {
    let mut proved = 0;
    for dir in ["check", "valid"] {
        for path in hand_written(dir) {
            let (case, _) = parse_and_validate(&std::fs::read(&path).unwrap()).unwrap();
            let Some(out) = &case.output else { continue };
            let mut c = Checker::default();
            let errs = c.check_both_ways(&case.func, &case.machine, out);
            let name = path.file_name().unwrap().to_str().unwrap();
            let want = errs.is_empty() && !LEFT_TO_THE_DATAFLOW.contains(&name);
            assert_eq!(c.proved(), want, "{}", path.display());
            proved += usize::from(c.proved());
        }
    }
    assert!(proved >= 20, "{proved} proved");
}

/// Each shape the proof gives up on, with a correct allocation the
/// dataflow accepts (inside), beside the nearest shape it proves (just
/// outside).
#[test]
fn gives_up_only_on_the_shapes_it_leaves_to_the_dataflow() {
    let machine = MACHINE;
    // A block the entry does not reach: the dataflow never runs it, and
    // says the uses are not all dominated.
    let unreachable = |first: &str| {
        format!(
            "{machine}function
  block0:
    inst0: op def:v0i:reg
    inst1: {first}
  block1:
    inst2: ret use:v0i:reg
end
allocation
  spillslots 0
  inst0: p0i
  inst2: p0i
end
"
        )
    };
    assert_eq!(judge(&unreachable("ret")), (false, 0, false));
    assert_eq!(judge(&unreachable("branch -> block1()")), (true, 0, true));

    // A reused input sharing its location with another early use, of a
    // block parameter bound to the input: the dataflow knows the location
    // holds both.
    let reuse = |second: &str| {
        format!(
            "{machine}function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1(v0i)
  block1(v1i):
    inst2: op def:v2i:reuse(1) use:v0i:reg use:v1i:reg
    inst3: ret use:v2i:reg use:v1i:reg
end
allocation
  spillslots 0
  inst0: p0i
  edit before inst2: p0i -> p1i
  inst2: p0i p0i {second}
  inst3: p0i p1i
end
"
        )
    };
    assert_eq!(judge(&reuse("p0i")), (false, 0, true));
    assert_eq!(judge(&reuse("p1i")), (true, 0, true));
}

/// A branch argument that no use asks for, passed to a parameter nothing
/// reads, must still be defined on every path to its branch: proved when
/// its definition dominates the branch through a diamond (just outside),
/// not when one side of the diamond skips it (inside).
#[test]
fn proves_an_unread_argument_dominated_and_no_other() {
    let case = |def_in_block1: &str| {
        format!(
            "{MACHINE}function
  block0:
    inst0: op def:v2i:reg
    inst1: branch use:v2i:reg -> block1()
  block1:
    inst2: op def:v0i:reg
    inst3: branch use:v2i:reg -> {def_in_block1}
  block2:
    inst4: branch -> block4()
  block3:
    inst5: branch -> block4()
  block4:
    inst6: branch -> block5(v0i)
  block5(v1i):
    inst7: ret
end
allocation
  spillslots 0
  inst0: p1i
  inst1: p1i
  inst2: p0i
  inst3: p1i
end
"
        )
    };
    assert_eq!(judge(&case("block2(), block3()")), (true, 0, true));
    // Defined in the block that passes it, not the entry: nothing to search.
    let passed_where_defined = format!(
        "{MACHINE}function
  block0:
    inst0: branch -> block1()
  block1:
    inst1: op def:v0i:reg
    inst2: branch -> block2(v0i)
  block2(v1i):
    inst3: ret
end
allocation
  spillslots 0
  inst1: p0i
end
"
    );
    assert_eq!(judge(&passed_where_defined), (true, 0, true));
    // The passing block's own parameter, defined at its start.
    let passed_on = format!(
        "{MACHINE}function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1(v0i)
  block1(v1i):
    inst2: branch -> block2(v1i)
  block2(v2i):
    inst3: ret
end
allocation
  spillslots 0
  inst0: p0i
end
"
    );
    assert_eq!(judge(&passed_on), (true, 0, true));
    let skipped = case("block2(), block3()").replace(
        "inst1: branch use:v2i:reg -> block1()",
        "inst1: branch use:v2i:reg -> block1(), block3()",
    );
    assert_eq!(judge(&skipped), (false, 0, false));
}

/// Where values fill several slots, a write to a slot cuts the values it
/// overlaps, also one whose class the block does not know (spilled in an
/// earlier block): a float filling stack2 and stack3 leaves the int in
/// stack1 (proved), one filling stack0 and stack1 cuts it (rejected); and
/// the same of a float cut by ints.
#[test]
fn a_wide_write_cuts_exactly_the_values_it_overlaps() {
    let case = |float_slot: &str| {
        format!(
            "{WIDE}function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1()
  block1:
    inst2: op def:v1f:reg
    inst3: op def:v2i:reg
    inst4: ret use:v0i:any use:v1f:any use:v2i:reg
end
allocation
  spillslots 4
  inst0: p0i
  edit after inst0: p0i -> stack1
  inst2: p0f
  edit after inst2: p0f -> {float_slot}
  inst3: p0i
  inst4: stack1 {float_slot} p0i
end
"
        )
    };
    assert_eq!(judge(&case("stack2")), (true, 0, true));
    let (proved, errs, _) = judge(&case("stack0"));
    assert!(!proved && errs == 1);

    // The other way round, read in the next block: a float spilled to
    // stack0 fills stack1 too; ints written to stack1, twice, cut it (a
    // second cut keeps it cut); written to stack2 they leave it.
    let float_cut = |int_slot: &str| {
        format!(
            "{WIDE}function
  block0:
    inst0: op def:v0f:reg
    inst1: branch -> block1()
  block1:
    inst2: op def:v1i:reg
    inst3: op def:v2i:reg use:v1i:reg
    inst4: branch -> block2()
  block2:
    inst5: ret use:v0f:any use:v2i:reg
end
allocation
  spillslots 3
  inst0: p0f
  edit after inst0: p0f -> stack0
  inst2: p0i
  edit after inst2: p0i -> {int_slot}
  inst3: p0i p0i
  edit after inst3: p0i -> {int_slot}
  inst5: stack0 p0i
end
"
        )
    };
    assert_eq!(judge(&float_cut("stack2")), (true, 0, true));
    let (proved, errs, _) = judge(&float_cut("stack1"));
    assert!(!proved && errs == 1);
}

/// On generated cases, small and large, every allocation our allocators
/// make that the dataflow accepts is proved; and each broken four ways (an
/// edit dropped, an operand's allocation moved to the next register of its
/// class or swapped with another operand's) is judged as the dataflow judges
/// it. `check_both_ways` compares the two on each.
#[test]
fn proves_every_generated_allocation_the_dataflow_accepts() {
    let (mut accepted, mut proved, mut broken) = (0, 0, 0);
    let mut c = Checker::default();
    for seed in 0..120u32 {
        let len = [300, 1500, 6000][seed as usize % 3];
        let bytes: Vec<u8> = (0..len)
            .map(|k: u32| (k.wrapping_mul(2 * seed + 1) >> 2) as u8 ^ seed as u8)
            .collect();
        let case = ssagen::generate_from_bytes(&bytes, &ssagen::Config::default());
        let (f, env) = (&case.func, &case.machine);
        let outs = [
            allocator::spill_everywhere::SpillEverywhere.run(f, env),
            allocator::linear_scan::LinearScan.run(f, env),
            allocator::backtracking::Backtracking.run(f, env),
            allocator::coloring::Coloring.run(f, env),
        ];
        for (a, out) in outs.iter().flatten().enumerate() {
            if !c.check_both_ways(f, env, out).is_empty() {
                continue;
            }
            accepted += 1;
            proved += usize::from(c.proved());
            for m in 0..4 {
                let mut bad = out.clone();
                let pick = (seed as usize * 31 + a * 7 + m * 13) % bad.allocs.len().max(1);
                match m {
                    0 | 1 if !bad.edits.is_empty() => {
                        bad.edits.remove(pick % bad.edits.len());
                    }
                    2 => {
                        if let Some(Allocation::Reg(r)) = bad.allocs.get(pick).copied() {
                            let next = PReg::new((r.hw() + 1) % 4, r.class());
                            bad.allocs[pick] = Allocation::Reg(next);
                        }
                    }
                    _ => {
                        let other = (pick * 5 + 3) % bad.allocs.len().max(1);
                        if other < bad.allocs.len() {
                            bad.allocs.swap(pick, other);
                        }
                    }
                }
                broken += usize::from(!c.check_both_ways(f, env, &bad).is_empty());
            }
        }
    }
    assert!(
        accepted >= 400 && proved == accepted && broken >= accepted,
        "{proved} of {accepted} proved; {broken} broken allocations rejected"
    );
}

/// A late use of the vreg an early def of the same instruction writes
/// reads it from that location, but no definition dominates it: not proved,
/// and the dataflow's liveness says the uses are not all dominated.
#[test]
fn a_use_at_its_own_definition_is_not_proved() {
    let case = |used: &str| {
        format!(
            "{MACHINE}function
  block0:
    inst0: op def:v1i:reg
    inst1: op def:v0i:reg:early use:{used}:reg:late
    inst2: ret use:v0i:reg
end
allocation
  spillslots 0
  inst0: p1i
  inst1: p0i p1i
  inst2: p0i
end
"
        )
    };
    assert_eq!(judge(&case("v1i")), (true, 0, true));
    let own = case("v0i").replace("inst1: p0i p1i", "inst1: p0i p0i");
    assert_eq!(judge(&own), (false, 0, false));
}

/// Proves the allocation in `text` with the proof alone (it must pass the
/// structural checks) and returns whether it holds, with how many facts
/// the entry settled.
fn prove(text: &str) -> (bool, u32) {
    let (case, _) = parse_and_validate(text.as_bytes()).unwrap();
    let out = case.output.as_ref().unwrap();
    let mut p = super::Proof::default();
    (p.holds(&case.func, out, None), p.entry_settled)
}

/// A fact about a location only the entry writes, of a vreg that is no
/// parameter, is settled by what the entry leaves there (inside): asked by
/// a use, moved there by a copy, and renamed to it by a branch argument.
/// Just outside, the search settles it: block1 writes the location too, or
/// the vreg is a parameter, of which the entry knows nothing.
#[test]
fn the_entry_settles_exactly_the_facts_of_locations_only_it_writes() {
    let case = |arg: &str, use_: &str, allocs: &str| {
        let param = if arg.is_empty() { "" } else { "v1i" };
        format!(
            "{MACHINE}function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1()
  block1:
    inst2: branch -> block2({arg})
  block2({param}):
    inst3: ret use:{use_}:reg
end
allocation
  spillslots 0
  inst0: p0i
{allocs}end
"
        )
    };
    let plain = |allocs: &str| case("", "v0i", allocs);
    assert_eq!(prove(&plain("  inst3: p0i\n")), (true, 1));
    let copied = "  edit before inst2: p0i -> p1i\n  inst3: p1i\n";
    assert_eq!(prove(&plain(copied)), (true, 1));
    assert_eq!(prove(&case("v0i", "v1i", "  inst3: p0i\n")), (true, 1));
    let rewritten =
        "  edit before inst2: p0i -> p1i\n  edit before inst2: p1i -> p0i\n  inst3: p0i\n";
    assert_eq!(prove(&plain(rewritten)), (true, 0));
    let param = format!(
        "{MACHINE}function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1(v0i)
  block1(v1i):
    inst2: ret use:v1i:reg
end
allocation
  spillslots 0
  inst0: p0i
  inst2: p0i
end
"
    );
    assert_eq!(prove(&param), (true, 0));
    // The entry leaves another vreg in p0i: disproved at once, and the
    // dataflow finds the one error.
    let other = format!(
        "{MACHINE}function
  block0:
    inst0: op def:v0i:reg
    inst1: op def:v1i:reg
    inst2: branch -> block1()
  block1:
    inst3: branch -> block2()
  block2:
    inst4: ret use:v0i:reg
end
allocation
  spillslots 0
  inst0: p0i
  inst1: p0i
  inst4: p0i
end
"
    );
    assert_eq!(prove(&other), (false, 1));
    assert_eq!(judge(&other).1, 1);
    // The entry's own start is no point after it: a use there, before the
    // entry defines its vreg on the way round a loop, is not proved.
    let top = |at_top: &str| {
        format!(
            "{MACHINE}function
  block0:
    inst0: op use:v0i:reg
    inst1: op def:v0i:reg
    inst2: branch -> block1()
  block1:
    inst3: branch -> block0()
end
allocation
  spillslots 0
  inst0: {at_top}
  inst1: p0i
end
"
        )
    };
    assert_eq!(judge(&top("p0i")), (false, 1, false));
    let moved = top("p1i").replace(
        "  inst0: p1i",
        "  edit before inst0: p0i -> p1i\n  inst0: p1i",
    );
    assert_eq!(judge(&moved), (false, 1, false));
    // Nor is a fact taken back to the entry's start through a copy the
    // entry makes before it writes the copy's source.
    let early_copy = format!(
        "{MACHINE}function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1()
  block1:
    inst2: ret use:v0i:reg
end
allocation
  spillslots 0
  edit before inst0: p0i -> p1i
  inst0: p0i
  inst2: p1i
end
"
    );
    assert_eq!(judge(&early_copy), (false, 1, true));
}

/// A walk that fails part-way through a block leaves nothing to the next
/// function a kept checker proves: the registers it wrote are not taken
/// for ones the next function's blocks wrote.
#[test]
fn a_kept_checker_forgets_the_registers_a_failed_walk_wrote() {
    // The walk fails at inst2 (p0i holds v0i, not v1i), having written
    // p0i and p1i.
    let failed = format!(
        "{MACHINE}function
  block0:
    inst0: op def:v0i:reg
    inst1: op def:v1i:reg
    inst2: ret use:v1i:reg
end
allocation
  spillslots 0
  inst0: p0i
  inst1: p1i
  inst2: p0i
end
"
    );
    // v0i is never in p0i, where block1 reads it; a p0i left over from the
    // failed walk, holding vreg 0, would prove the read.
    let wrong = format!(
        "{MACHINE}function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1()
  block1:
    inst2: ret use:v0i:reg
end
allocation
  spillslots 0
  inst0: p1i
  inst2: p0i
end
"
    );
    let mut c = Checker::default();
    for (text, wrong_uses) in [(&failed, 1), (&wrong, 1)] {
        let (case, _) = parse(text.as_bytes()).unwrap();
        let errs = c.check(&case.func, &case.machine, case.output.as_ref().unwrap());
        assert_eq!((c.proved(), errs.len()), (false, wrong_uses), "{text}");
    }
}
