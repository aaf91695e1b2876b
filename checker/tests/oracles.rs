//! Both oracles on the hand-written cases and on spill_everywhere's
//! allocations of generated cases; the checker's error cases with their exact
//! messages; the interpreter against deliberate faults.

use allocator::ir::text::parse_and_validate;
use allocator::{Allocation, Allocator, Inst, Move, PReg, ProgPoint, RegClass};
use checker::interp;
use rand::{Rng, SeedableRng};

use allocator::fixtures::hand_written as files;
use checker::check_both_ways as check;

#[test]
fn hand_written_allocations_pass_both_oracles() {
    let mut with_alloc = 0;
    for path in files("valid") {
        let (case, _) = parse_and_validate(&std::fs::read(&path).unwrap()).unwrap();
        let Some(out) = &case.output else { continue };
        with_alloc += 1;
        let errs = check(&case.func, &case.machine, out);
        assert!(errs.is_empty(), "{}: {}", path.display(), errs[0]);
        for seed in 0..8 {
            if let Err(d) = interp::run(&case.func, &case.machine, out, seed, 10_000) {
                panic!("{}: path {seed}: {d}", path.display());
            }
        }
    }
    assert!(with_alloc >= 15);
}

/// A `wrong-value` error says whether the location read holds nothing at
/// all: on the hand-written cases, exactly those whose message says so
/// (both kinds of read are among them).
#[test]
fn a_read_of_nothing_is_flagged_as_such() {
    let (mut nothing, mut other) = (0, 0);
    for path in files("check") {
        let (case, _) = parse_and_validate(&std::fs::read(&path).unwrap()).unwrap();
        let out = case.output.as_ref().expect("an allocation section");
        for e in check(&case.func, &case.machine, out) {
            let says = e.message.ends_with("holds no live value");
            assert_eq!(e.read_nothing, says, "{}: {}", path.display(), e.message);
            if e.kind == checker::ErrorKind::WrongValue {
                *if says { &mut nothing } else { &mut other } += 1;
            }
        }
    }
    assert!(
        nothing > 0 && other > 0,
        "{nothing} reads of nothing, {other} of another value"
    );
}

/// `tests/cases/check/*.ra`: each names its exact errors in
/// `# error: LINE:COL: message [kind]` lines (none: the allocation is correct).
#[test]
fn checker_error_cases_report_exactly_their_errors() {
    let cases = files("check");
    assert!(
        cases.len() >= 25,
        "expected the checker's hand-written cases"
    );
    let mut kinds = std::collections::BTreeSet::new();
    for path in cases {
        let src = std::fs::read_to_string(&path).unwrap();
        let expected: Vec<&str> = src
            .lines()
            .filter_map(|l| l.strip_prefix("# error: "))
            .collect();
        let (case, map) = parse_and_validate(src.as_bytes())
            .unwrap_or_else(|e| panic!("{}: {}", path.display(), e[0]));
        let out = case.output.as_ref().expect("an allocation section");
        let errs = check(&case.func, &case.machine, out);
        let got: Vec<String> = errs
            .iter()
            .map(|e| format!("{}: {} [{}]", map.locate(e.site), e.message, e.kind.name()))
            .collect();
        assert_eq!(got, expected, "{}", path.display());
        kinds.extend(errs.iter().map(|e| e.kind));
    }
    // Every kind the text format can express has a case.
    for k in checker::ErrorKind::ALL {
        if !matches!(
            k,
            checker::ErrorKind::AllocCount | checker::ErrorKind::EditOrder
        ) {
            assert!(kinds.contains(&k), "no case for {}", k.name());
        }
    }
}

#[test]
fn the_interpreter_catches_a_dropped_reload_and_a_clobber() {
    let src = format!(
        "{}function
  block0:
    inst0: op def:v0i:reg
    inst1: op clobbers(p0i, p1i)
    inst2: ret use:v0i:reg
end
allocation
  spillslots 1
  inst0: p0i
  edit after inst0: p0i -> stack0
  edit before inst2: stack0 -> p1i
  inst2: p1i
end
",
        allocator::fixtures::machine(["p0i-p1i", "p0f", "p0v"])
    );
    let (case, _) = parse_and_validate(src.as_bytes()).unwrap();
    let out = case.output.clone().unwrap();
    assert!(check(&case.func, &case.machine, &out).is_empty());
    let ok = interp::run(&case.func, &case.machine, &out, 0, 100).unwrap();
    assert!(ok.returned);
    assert_eq!(ok.uses_checked, 1);
    // Without the reload the use reads the clobber's poison.
    let mut bad = out.clone();
    bad.edits.pop();
    let d = interp::run(&case.func, &case.machine, &bad, 0, 100).unwrap_err();
    assert_eq!((d.inst, d.operand), (Inst(2), 0));
    assert!(d.found.contains("clobber at step 2"), "{d}");
    assert!(!check(&case.func, &case.machine, &bad).is_empty());
    // Reading the register the value was never in: initial poison.
    let mut bad = out.clone();
    bad.edits.clear();
    bad.allocs[1] = Allocation::Reg(PReg::new(1, RegClass::Int));
    let d = interp::run(&case.func, &case.machine, &bad, 0, 100).unwrap_err();
    assert!(d.found.contains("clobber"), "{d}");
    // Reloading from the wrong slot.
    let mut bad = out;
    bad.edits[1] = (
        ProgPoint::before(Inst(2)),
        Move {
            from: Allocation::Reg(PReg::new(0, RegClass::Int)),
            to: Allocation::Reg(PReg::new(1, RegClass::Int)),
        },
    );
    assert!(interp::run(&case.func, &case.machine, &bad, 0, 100).is_err());
}

/// The interpreter bounds every slot a value fills, not only the one that
/// names it: a float filling two slots, named by its first (stack1) under
/// `spillslots 2`, runs past the count, and its value is lost; with three
/// slots declared the same allocation runs.
#[test]
fn the_interpreter_bounds_the_tail_of_a_wide_value() {
    let path =
        allocator::fixtures::repo_root().join("tests/cases/check/spill_slot_range_wide_value.ra");
    let case = allocator::fixtures::read_case(&path);
    let out = case.output.clone().unwrap();
    let d = interp::run(&case.func, &case.machine, &out, 0, 100).unwrap_err();
    assert_eq!(d.inst.index(), 1, "{d}");
    let mut wider = out.clone();
    wider.num_spillslots = 3;
    interp::run(&case.func, &case.machine, &wider, 0, 100).unwrap();
}

#[test]
fn interpreter_paths_depend_on_the_seed_and_stop_at_the_bound() {
    let path = files("valid")
        .into_iter()
        .find(|p| p.ends_with("natural_loop.ra"))
        .unwrap();
    let (case, _) = parse_and_validate(&std::fs::read(path).unwrap()).unwrap();
    let out = allocator::spill_everywhere::SpillEverywhere
        .run(&case.func, &case.machine)
        .unwrap();
    let lens: std::collections::BTreeSet<usize> = (0..20)
        .map(|s| {
            interp::run(&case.func, &case.machine, &out, s, 1000)
                .unwrap()
                .steps
        })
        .collect();
    assert!(lens.len() > 1, "every seed took the same path");
    let capped = interp::run(&case.func, &case.machine, &out, 0, 3).unwrap();
    assert_eq!(capped.steps, 3);
}

#[test]
fn errors_display_as_their_message_and_edits_past_the_end_are_reported() {
    let path = files("valid")
        .into_iter()
        .find(|p| p.ends_with("spec_example.ra"))
        .unwrap();
    let (case, _) = parse_and_validate(&std::fs::read(path).unwrap()).unwrap();
    let mut out = case.output.clone().unwrap();
    // An edit at an instruction that does not exist (only an allocator, not
    // the parser, can produce one): reported, never a panic.
    let n = case.func.num_insts();
    out.edits.push((
        ProgPoint::before(Inst::new(n)),
        Move {
            from: Allocation::Reg(PReg::new(0, RegClass::Int)),
            to: Allocation::Reg(PReg::new(1, RegClass::Int)),
        },
    ));
    let errs = check(&case.func, &case.machine, &out);
    assert_eq!(errs.len(), 1, "{errs:?}");
    assert_eq!(errs[0].kind, checker::ErrorKind::EditPlacement);
    assert_eq!(errs[0].to_string(), errs[0].message);
    assert!(errs[0]
        .to_string()
        .contains("names an instruction that does not exist"));
}

/// On large functions (hundreds of blocks, several words of worklist),
/// every mutant the interpreter shows wrong must be rejected, and the
/// reference allocation must pass.
#[test]
fn checker_is_sound_on_large_functions() {
    let a = allocator::spill_everywhere::SpillEverywhere;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(99);
    let mut large = 0;
    for n in 0..12 {
        let bytes: Vec<u8> = (0..24_000).map(|_| rng.gen()).collect();
        let case = ssagen::generate_from_bytes(&bytes, &ssagen::Config::default());
        large += usize::from(case.func.num_blocks() > 130);
        let out = a.run(&case.func, &case.machine).unwrap();
        assert!(
            check(&case.func, &case.machine, &out).is_empty(),
            "case {n}"
        );
        for _ in 0..6 {
            if out.edits.is_empty() {
                break;
            }
            let mut m = out.clone();
            m.edits.remove(rng.gen_range(0..m.edits.len()));
            let diverges =
                (0..4).any(|s| interp::run(&case.func, &case.machine, &m, s, 20_000).is_err());
            if diverges {
                assert!(
                    !check(&case.func, &case.machine, &m).is_empty(),
                    "case {n}: a dropped edit the interpreter catches was accepted"
                );
            }
        }
    }
    assert!(
        large >= 6,
        "only {large} functions with more than 130 blocks"
    );
}
