//! Structure-aware mutation: every mutant of real and generated seeds is a
//! valid, feasible case, each kind of edit happens, and the allocators get
//! the mutants right.

use allocator::Allocator;
use fuzz_targets::books::context::Context;
use fuzz_targets::edit::mutate::{apply, mutate, Edit};
use fuzz_targets::judging::judge::{judge, Oracles};
use rand::{Rng, SeedableRng};

fn seeds() -> Vec<allocator::Case> {
    let mut v: Vec<allocator::Case> = allocator::fixtures::ra_files("corpus/real/x86_64")
        .iter()
        .map(|p| allocator::fixtures::read_case(p))
        .filter(|c| c.func.num_insts() <= 400)
        .collect();
    for seed in 0..20 {
        let bytes = fuzz_targets::harness::inputs::seeded_bytes(seed, 1024);
        v.push(ssagen::generate_from_bytes(
            &bytes,
            &ssagen::Config::default(),
        ));
    }
    v
}

#[test]
fn every_mutant_of_a_thousand_is_valid_and_feasible() {
    let seeds = seeds();
    let config = (fuzz_targets::outside::cranelift::X86_64.config)();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let mut changed = 0;
    for n in 0..1000 {
        let seed = &seeds[n % seeds.len()];
        let steps = rng.gen_range(1..=3);
        let m = mutate(seed, &config, steps, &mut rng);
        ssagen::feasibility::check_case(&m).unwrap_or_else(|e| panic!("mutant {n}: {e:?}"));
        // The text round-trips: a mutant is a case seed too.
        let text = allocator::ir::text::print(&m);
        let back = fuzz_targets::harness::inputs::case_text(text.as_bytes()).expect("a case text");
        assert_eq!(back.func, m.func, "mutant {n}");
        changed += usize::from(m.func != seed.func);
    }
    assert!(
        changed > 900,
        "only {changed} of 1000 mutants differ from their seed"
    );
}

#[test]
fn each_kind_of_edit_happens_on_real_seeds() {
    let seeds = seeds();
    let config = ssagen::Config::default();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2);
    for edit in Edit::ALL {
        let hit =
            (0..200).any(|n| apply(&seeds[n % seeds.len()], &config, edit, &mut rng).is_some());
        assert!(hit, "{edit:?} never applied");
    }
}

#[test]
fn our_allocators_and_regalloc2_get_mutants_right() {
    let seeds = seeds();
    let config = (fuzz_targets::outside::cranelift::X86_64.config)();
    let allocators: Vec<&dyn Allocator> = vec![
        &allocator::linear_scan::LinearScan,
        &allocator::backtracking::Backtracking,
        &allocator::coloring::Coloring,
        &fuzz_targets::outside::ra2::ION,
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let ctx = Context::default();
    for n in 0..150 {
        let m = mutate(&seeds[n % seeds.len()], &config, 3, &mut rng);
        for a in &allocators {
            match a.run(&m.func, &m.machine) {
                Ok(out) => judge(a.name(), &m, &out, Oracles::Both, &ctx)
                    .unwrap_or_else(|f| panic!("mutant {n}: {f}")),
                // regalloc2's limitations and known false refusals.
                Err(e) if a.name().starts_with("regalloc2") => {
                    let _ = e;
                }
                Err(e) => panic!("mutant {n}: {}: {e}", a.name()),
            }
        }
    }
}
