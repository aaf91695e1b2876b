//! The reducer, measured on planted bugs: every fault of
//! `fuzz_targets::testing::faults` is found by the built-in engine, and its finding
//! reduces to a valid case of at most 10 instructions that fails the same
//! way; a generated case of about 300 instructions reduces within 10
//! seconds; reduction never drifts to another failure; and the result does
//! not depend on the number of threads.

use allocator::Case;
use fuzz_targets::engine::{fuzz, Options as FuzzOptions};
use fuzz_targets::judging::failure::{Failure, Oracle, Signature};
use fuzz_targets::judging::judge::{judge, Oracles};
use fuzz_targets::targets::Decode;
use fuzz_targets::targets::Target;
use fuzz_targets::tools::reduce::{is_candidate, reduce_case, reduce_input, Input, Options};
use std::time::Duration;

const FAULTS: [&str; 16] = [
    "fault_give_up",
    "fault_drop_edge_move",
    "fault_swap_reuse",
    "fault_forget_clobber",
    "fault_late_spill",
    "fault_reload_after",
    "fault_param_swap",
    "fault_slot_share",
    "fault_early_def_late",
    "fault_late_use_early",
    "fault_cycle_unsaved",
    "fault_drop_reload",
    "fault_drop_store",
    "fault_wrong_slot",
    "fault_fixed_neighbour",
    "fault_stack_in_reg",
];

fn reduced_case(o: &fuzz_targets::tools::reduce::Outcome) -> &Case {
    match &o.reduced {
        Input::Case(c) => c,
        Input::Bytes(_) => panic!("reduced as bytes, expected a case"),
    }
}

/// Requires `c` to be a small valid case failing `t` with `sig`.
fn assert_small_same_failure(t: &Target, c: &Case, sig: &Signature) {
    assert!(
        is_candidate(c),
        "{}: reduced case is not valid and feasible",
        t.name
    );
    assert!(
        c.func.num_insts() <= 10,
        "{}: reduced to {} instructions:\n{}",
        t.name,
        c.func.num_insts(),
        allocator::ir::text::print(c)
    );
    let again = t
        .case_failure(c, &Default::default())
        .unwrap()
        .expect("the reduced case passes");
    assert_eq!(&again.signature, sig, "{}: the failure changed", t.name);
    // It survives the text format, as a reproducer must.
    let (parsed, _) =
        allocator::ir::text::parse_and_validate(allocator::ir::text::print(c).as_bytes())
            .expect("the reduced case parses");
    assert_eq!(
        t.case_failure(&parsed, &Default::default())
            .unwrap()
            .map(|f| f.signature),
        Some(sig.clone())
    );
}

#[test]
fn every_planted_fault_is_found_and_reduces_to_at_most_10_insts() {
    let dir = std::env::temp_dir().join(format!("rafuzz-reduce-{}", std::process::id()));
    for name in FAULTS {
        let t = fuzz_targets::targets::target_by_name(name).unwrap();
        let opts = FuzzOptions {
            time: Some(Duration::from_secs(120)),
            seed: 7,
            corpus: dir.join("no-corpus"),
            artifacts: dir.join("artifacts"),
            max_len: 4096,
            progress: Duration::from_secs(3600),
            ..FuzzOptions::new(vec![t.clone()])
        };
        let report = fuzz(&opts, &mut std::io::sink());
        let f = report
            .findings
            .first()
            .unwrap_or_else(|| panic!("{name}: not found"));
        if f.failure.signature.oracle == Oracle::RefusedFeasible {
            // The proof is saved beside the finding, and both oracles
            // accept it.
            let proof = allocator::fixtures::read_case(&f.path.with_extension("proof.ra"));
            let out = proof.output.clone().expect("the allocation that exists");
            judge("proof", &proof, &out, Oracles::Both, &Default::default()).unwrap();
        }
        let input = std::fs::read(&f.path).unwrap();
        let o = reduce_input(&t, &Input::Bytes(input), &Options::default()).unwrap();
        assert_eq!(o.signature, f.failure.signature);
        let c = reduced_case(&o);
        assert_small_same_failure(&t, c, &o.signature);
        let before = match &o.original {
            Input::Case(c) => c.func.num_insts(),
            Input::Bytes(_) => unreachable!(),
        };
        eprintln!(
            "{name}: {before} -> {} insts ({})",
            c.func.num_insts(),
            o.signature
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_300_instruction_case_reduces_within_10_seconds() {
    for name in FAULTS {
        let t = fuzz_targets::targets::target_by_name(name).unwrap();
        let case = (0..200)
            .map(|seed| {
                let bytes = fuzz_targets::harness::inputs::seeded_bytes(seed, 4096);
                ssagen::generate_from_bytes(&bytes, &ssagen::Config::default())
            })
            .find(|c| {
                c.func.num_insts() >= 250
                    && t.case_failure(c, &Default::default()).unwrap().is_some()
            })
            .unwrap_or_else(|| panic!("{name}: no large failing case in 200 seeds"));
        let o = reduce_input(
            &t,
            &Input::Case(Box::new(case.clone())),
            &Options::default(),
        )
        .unwrap();
        assert_small_same_failure(&t, reduced_case(&o), &o.signature);
        assert!(
            o.stats.elapsed < Duration::from_secs(10),
            "{name}: {} insts took {:?}",
            case.func.num_insts(),
            o.stats.elapsed
        );
    }
}

/// A target whose failure changes kind as the case shrinks: "big" from
/// five instructions up, "small" below. Reducing a "big" failure must stop
/// at five instructions instead of drifting to the easier "small" one.
fn two_failures() -> Target {
    let check = |c: &Case| -> Result<(), Failure> {
        let n = c.func.num_insts();
        let kind = match n {
            5.. => "big",
            _ => "small",
        };
        Err(Failure::new(
            Signature::new(None, Oracle::Panic, kind),
            format!("{n} instructions"),
        ))
    };
    Target {
        name: "two_failures",
        description: "test only",
        decode: Decode::Generate(&fuzz_targets::registry::DEFAULT, Default::default()),
        body: fuzz_targets::targets::case_body(false, move |c, _| check(c)),
        stats: None,
    }
}

#[test]
fn reduction_keeps_the_failure_signature() {
    let t = two_failures();
    let bytes = fuzz_targets::harness::inputs::seeded_bytes(3, 4096);
    let o = reduce_input(&t, &Input::Bytes(bytes), &Options::default()).unwrap();
    assert_eq!(o.signature.detail, "big");
    assert_eq!(reduced_case(&o).func.num_insts(), 5);
}

#[test]
fn the_result_does_not_depend_on_the_number_of_threads() {
    let t = fuzz_targets::targets::target_by_name("fault_drop_edge_move").unwrap();
    let case = (0..200)
        .map(|seed| {
            let bytes = fuzz_targets::harness::inputs::seeded_bytes(seed, 2048);
            ssagen::generate_from_bytes(&bytes, &ssagen::Config::default())
        })
        .find(|c| t.case_failure(c, &Default::default()).unwrap().is_some())
        .unwrap();
    let run = |jobs| {
        let opts = Options {
            jobs,
            time_limit: None,
        };
        reduced_case(&reduce_input(&t, &Input::Case(Box::new(case.clone())), &opts).unwrap())
            .clone()
    };
    assert_eq!(run(1), run(2));
}

#[test]
fn inputs_without_a_case_reduce_as_bytes() {
    let t = fuzz_targets::targets::target_by_name("planted").unwrap();
    let mut input = fuzz_targets::targets::PLANTED_MAGIC.to_vec();
    input.extend_from_slice(&[7; 300]);
    let o = reduce_input(&t, &Input::Bytes(input), &Options::default()).unwrap();
    assert_eq!(
        o.reduced,
        Input::Bytes(fuzz_targets::targets::PLANTED_MAGIC.to_vec())
    );
    assert_eq!(o.signature.oracle, Oracle::Panic);
}

#[test]
fn a_passing_input_is_an_error_not_a_reduction() {
    let t = fuzz_targets::targets::target_by_name("linear_scan_checker").unwrap();
    let e = reduce_input(&t, &Input::Bytes(vec![1, 2, 3]), &Options::default()).unwrap_err();
    assert!(e.contains("does not fail"), "{e}");
    let moves = fuzz_targets::targets::target_by_name("moves").unwrap();
    let e = reduce_input(&moves, &Input::Case(Box::default()), &Options::default()).unwrap_err();
    assert!(e.contains("does not run on cases"), "{e}");
}

#[test]
fn any_predicate_reduces_a_case() {
    // A predicate of our own: "has a reuse operand and a block parameter".
    let case = (0..100)
        .map(|s| {
            ssagen::generate_from_bytes(
                &fuzz_targets::harness::inputs::seeded_bytes(s, 4096),
                &ssagen::Config::default(),
            )
        })
        .find(|c| c.func.num_insts() > 100)
        .unwrap();
    let keep = |c: &Case| {
        let text = allocator::ir::text::print(c);
        text.contains("reuse(") && c.func.blocks().any(|b| !c.func.block_params(b).is_empty())
    };
    assert!(keep(&case));
    let (r, stats) = reduce_case(&case, &keep, &Options::default());
    assert!(keep(&r) && is_candidate(&r));
    assert!(
        r.func.num_insts() <= 6,
        "{}",
        allocator::ir::text::print(&r)
    );
    assert!(stats.kept > 0 && stats.tried >= stats.kept);
}
