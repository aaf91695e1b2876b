//! The entry point over regalloc2's types proves reachability, definedness
//! and dominance from the checker's liveness instead of a dominator tree and
//! a walk over the uses (`Checker::uses_dominated`): on functions one vreg
//! name away from valid cases, the proof agrees with the validator every time,
//! whichever liveness the checker takes and with real locations as with
//! none, and the entry point refuses as unjudgeable, with the validator's
//! every reason, exactly the functions the validator refuses. It also reads
//! each machine once and keeps it while the compiler passes the same one: a
//! checker kept across machines judges as a fresh one does.
#![cfg(feature = "regalloc2")]

use allocator::ir::text::{parse, print};
use allocator::ir::validate::{self, validate_as_read};
use allocator::linear_scan::LinearScan;
use allocator::{Allocation, Allocator, Case, Output};
use checker::regalloc2::{self as entry, Rejection};
use fuzz_targets::outside::ra2::adapt;
use rand::{Rng, SeedableRng};
use regalloc2 as ra2;

/// `src` with one vreg name, a use's, a branch argument's or a def's,
/// replaced by another vreg's of the same class.
fn renamed(src: &str, rng: &mut impl Rng) -> Option<String> {
    let bytes = src.as_bytes();
    // Every vreg name: `v`, digits, a class letter, after `:`, `(`, `, `.
    let mut names = Vec::new();
    let mut k = 0;
    while k < bytes.len() {
        let starts = bytes[k] == b'v' && k > 0 && matches!(bytes[k - 1], b':' | b'(' | b' ');
        let digits = bytes[k + 1..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        if starts && digits > 0 && k + 1 + digits < bytes.len() {
            let class = bytes[k + 1 + digits];
            if matches!(class, b'i' | b'f' | b'v') {
                names.push((k, k + 2 + digits, class));
            }
        }
        k += 1;
    }
    let &(s, e, class) = names.get(rng.gen_range(0..names.len().max(1)))?;
    let same: Vec<_> = names.iter().filter(|n| n.2 == class).collect();
    let &&(s2, e2, _) = same.get(rng.gen_range(0..same.len()))?;
    Some(format!("{}{}{}", &src[..s], &src[s2..e2], &src[e..]))
}

/// An output that allocates every operand nowhere: enough for the checker
/// to run over the whole function.
fn nowhere(case: &Case) -> Output {
    Output {
        allocs: vec![Allocation::None; case.func.num_operands()],
        ..Output::default()
    }
}

#[test]
fn liveness_proves_dominance_exactly_where_the_dominator_tree_does() {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let config = ssagen::Config::default();
    let mut plain = checker::Checker::default();
    let mut kept = entry::Ra2Checker::default();
    let (mut dominated, mut not_dominated) = (0, 0);
    for _ in 0..2500 {
        let bytes: Vec<u8> = (0..rng.gen_range(16..600)).map(|_| rng.gen()).collect();
        let original = ssagen::generate_from_bytes(&bytes, &config);
        // The original's allocation, whose operands the renamed function
        // keeps one for one: real locations for a function it no longer fits.
        let real = LinearScan.run(&original.func, &original.machine).ok();
        let text = print(&original);
        let Some(src) = renamed(&text, &mut rng) else {
            continue;
        };
        let Ok((case, _)) = parse(src.as_bytes()) else {
            continue;
        };
        let (f, env) = (&case.func, &case.machine);
        if !validate::validate_machine(env).is_empty()
            || !validate::validate_read_function_but_dominance(f, env).is_empty()
        {
            continue;
        }
        let full: Vec<String> = validate_as_read(f, env)
            .into_iter()
            .map(|e| e.message)
            .collect();
        let out = nowhere(&case);
        plain.check(f, env, &out);
        let by_rows = plain.uses_dominated();
        plain.check_with_sparse_liveness(f, env, &out);
        let by_sets = plain.uses_dominated();
        assert_eq!(by_rows, by_sets, "{src}");
        assert_eq!(by_rows, full.is_empty(), "{src}\n{full:?}");
        if let Some(real) = &real {
            plain.check_both_ways(f, env, real);
            assert_eq!(plain.uses_dominated(), by_rows, "{src}");
        }
        if full.is_empty() {
            dominated += 1;
        } else {
            not_dominated += 1;
            let adapted = adapt::Adapted::new(f, &env.slots);
            let ra2_out = adapt::output(f, &out);
            match kept.check(&adapted, &adapt::machine(env), &ra2_out) {
                Err(Rejection::Unjudgeable(why)) => assert_eq!(why, full, "{src}"),
                other => panic!("{src}\njudged: {other:?}"),
            }
        }
    }
    // Both sides of the proof are met often.
    assert!(
        dominated > 200 && not_dominated > 200,
        "{dominated} dominated, {not_dominated} not"
    );
}

/// A loop whose header reads a value defined further down the loop: the
/// use is reached from the entry without passing its definition.
const NOT_DOMINATED: &str = "machine
  int    preferred p0i-p3i nonpreferred none scratch none
  float  preferred p0f-p1f nonpreferred none scratch none
  vector preferred p0v     nonpreferred none scratch none
end
function
  block0:
    inst0: op def:v0i:reg
    inst1: branch -> block1
  block1:
    inst2: op use:v1i:reg
    inst3: op def:v1i:reg use:v0i:reg
    inst4: branch -> block2, block3
  block2:
    inst5: branch -> block1
  block3:
    inst6: ret
end
";

#[test]
fn a_use_its_definition_does_not_dominate_is_unjudgeable_with_the_validators_reason() {
    let inside = parse(NOT_DOMINATED.as_bytes()).expect("parses").0;
    // Just outside: the definition moved above the use.
    let swapped = NOT_DOMINATED
        .replace("inst2: op use:v1i:reg", "inst2: op def:v1i:reg use:v0i:reg")
        .replace("inst3: op def:v1i:reg use:v0i:reg", "inst3: op use:v1i:reg");
    let outside = parse(swapped.as_bytes()).expect("parses").0;
    assert!(validate::validate(&outside.func, &outside.machine).is_empty());
    let judge = |case: &Case| {
        let adapted = adapt::Adapted::new(&case.func, &case.machine.slots);
        let out = adapt::output(&case.func, &nowhere(case));
        entry::check(&adapted, &adapt::machine(&case.machine), &out)
    };
    match judge(&inside) {
        Err(Rejection::Unjudgeable(why)) => assert_eq!(
            why,
            ["the use of v1i in inst2 is not dominated by its definition (by inst3)"]
        ),
        other => panic!("{other:?}"),
    }
    assert!(matches!(judge(&outside), Err(Rejection::Wrong(_))));
    // A block no path reaches: its use is dominated by nothing either.
    let unreachable = NOT_DOMINATED
        .replace("inst4: branch -> block2, block3", "inst4: branch -> block3")
        .replace("inst2: op use:v1i:reg", "inst2: op def:v1i:reg use:v0i:reg")
        .replace("inst3: op def:v1i:reg use:v0i:reg", "inst3: op use:v1i:reg");
    match judge(&parse(unreachable.as_bytes()).expect("parses").0) {
        Err(Rejection::Unjudgeable(why)) => {
            assert_eq!(why, ["block2 is not reachable from block0"])
        }
        other => panic!("{other:?}"),
    }
}

/// The validator leaves definedness to the checker too: a use nothing
/// defines, and one read by the instruction that defines it, are neither
/// proved nor pass the liveness proof (their vregs are live into the
/// entry), and the entry point refuses them with the validator's reasons;
/// the function they were made from (the dominated one above) is judged.
#[test]
fn an_undefined_use_and_one_where_it_is_defined_are_unjudgeable() {
    let dominated = NOT_DOMINATED
        .replace("inst2: op use:v1i:reg", "inst2: op def:v1i:reg use:v0i:reg")
        .replace("inst3: op def:v1i:reg use:v0i:reg", "inst3: op use:v1i:reg");
    let judge = |src: &str| {
        let case = parse(src.as_bytes()).expect("parses").0;
        let adapted = adapt::Adapted::new(&case.func, &case.machine.slots);
        let out = adapt::output(&case.func, &nowhere(&case));
        let mut plain = checker::Checker::default();
        plain.check(&case.func, &case.machine, &nowhere(&case));
        let proved = plain.uses_dominated();
        (
            proved,
            entry::check(&adapted, &adapt::machine(&case.machine), &out),
        )
    };
    assert!(matches!(
        judge(&dominated),
        (true, Err(Rejection::Wrong(_)))
    ));
    for (src, reason) in [
        (
            dominated.replace("inst3: op use:v1i:reg", "inst3: op use:v2i:reg"),
            "v2i is used but never defined",
        ),
        (
            dominated.replace(
                "inst2: op def:v1i:reg use:v0i:reg",
                "inst2: op def:v1i:reg use:v1i:reg",
            ),
            "v1i is used by inst2, which defines it",
        ),
    ] {
        match judge(&src) {
            (false, Err(Rejection::Unjudgeable(why))) => assert_eq!(why, [reason]),
            other => panic!("{src}\n{other:?}"),
        }
    }
}

#[test]
fn a_checker_kept_across_machines_judges_as_a_fresh_one() {
    let case = allocator::fixtures::read_case(
        &allocator::fixtures::repo_root().join("tests/cases/valid/block_params_every_edge_kind.ra"),
    );
    let adapted = adapt::Adapted::new(&case.func, &case.machine.slots);
    let options = ra2::RegallocOptions::default();
    let wide = adapt::machine(&case.machine);
    let out = ra2::run(&adapted, &wide, &options).expect("ion allocates it");
    // The same machine less the registers ion used: then the allocation
    // names registers the machine does not hand out.
    let mut narrow = wide.clone();
    for a in &out.allocs {
        if let Some(r) = a.as_reg() {
            narrow.preferred_regs_by_class[r.class() as usize].remove(r);
        }
    }
    let mut kept = entry::Ra2Checker::default();
    for env in [&wide, &narrow, &wide, &narrow] {
        let fresh = entry::check(&adapted, env, &out);
        assert_eq!(kept.check(&adapted, env, &out), fresh);
    }
    assert_eq!(entry::check(&adapted, &wide, &out), Ok(()));
    assert!(matches!(
        entry::check(&adapted, &narrow, &out),
        Err(Rejection::Wrong(_))
    ));
}
