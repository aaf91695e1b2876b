//! Every profile's cases, and every mutant of them, stay inside the
//! profile: its switches, its block numberings, and (for an outside
//! allocator) what its adapter lets through. A mutant outside its profile
//! would report the profile's own gaps (an exclusion, a numbering the
//! allocator was never meant to get) as findings.
//!
//! The sweep takes 150 mutants per profile and of the real corpus, and
//! 10,000 in the deep sweeps CI's release stage runs
//! (`scripts/deep-tests.sh`, [`allocator::fixtures::deep`]).
#![cfg(all(feature = "regalloc2", feature = "regalloc_rs"))]

use allocator::analysis::numbering::{self, Numbering};
use allocator::Case;
use fuzz_targets::edit::mutate::mutate;
use fuzz_targets::harness::inputs::seeded_bytes;
use fuzz_targets::registry::{self, Family};
use rand::{Rng, SeedableRng};
use ssagen::Config;

/// The adapters' checks that keep a case from an outside allocator before
/// it runs, for the entries fuzzed under `profile` (by name): the name of
/// the first exclusion a case hits, if any.
type Excluded = Box<dyn Fn(&Case) -> Option<String>>;

fn exclusions_of(profile: &str) -> Vec<Excluded> {
    use fuzz_targets::outside::{ra2, regalloc_rs};
    registry::entries()
        .iter()
        .filter(|e| e.family == Family::Outside)
        .filter(|e| e.profile.map_or("default", |p| p.name) == profile)
        .map(|e| -> Excluded {
            let name = e.name;
            match name {
                "regalloc2_ion" | "regalloc2_fastalloc" => {
                    let algorithm = if name == "regalloc2_ion" {
                        regalloc2::Algorithm::Ion
                    } else {
                        regalloc2::Algorithm::Fastalloc
                    };
                    Box::new(move |c: &Case| {
                        ra2::exclusions::check(algorithm, &c.func, &c.machine)
                            .map(|x| format!("{name}: {}", x.name()))
                    })
                }
                _ => {
                    let lsra = name.ends_with("lsra");
                    Box::new(move |c: &Case| {
                        regalloc_rs::exclusions::check(&c.func, &c.machine, lsra)
                            .map(|x| format!("{name}: {}", x.name()))
                    })
                }
            }
        })
        .collect()
}

/// Panics unless `case` is inside `config` and no adapter of the profile
/// keeps it from its allocator (`unsupported` or `suppressed`).
fn assert_inside(case: &Case, config: &Config, exclusions: &[Excluded], what: &str) {
    if let Err(e) = ssagen::domain::check(case, config) {
        panic!(
            "{what} leaves its profile ({e}):\n{}",
            allocator::ir::text::print(case)
        );
    }
    for x in exclusions {
        if let Some(hit) = x(case) {
            panic!(
                "{what} hits an exclusion: {hit}\n{}",
                allocator::ir::text::print(case)
            );
        }
    }
}

fn real_corpus() -> Vec<(&'static str, Case)> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../corpus/real");
    let mut cases = Vec::new();
    for (dir, profile) in [
        ("x86_64", "cranelift"),
        ("aarch64", "cranelift-aarch64"),
        ("riscv64gc", "cranelift-riscv64"),
    ] {
        for path in allocator::fixtures::ra_files(format!("{root}/{dir}")) {
            cases.push((profile, allocator::fixtures::read_case(&path)));
        }
    }
    cases
}

/// `count` mutants (one to three edits each) of generated cases of every
/// profile, and of the real corpus under its target's profile.
fn sweep(count: usize) {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(49);
    for profile in registry::profiles() {
        let config = (profile.config)();
        let exclusions = exclusions_of(profile.name);
        let seeds: Vec<Case> = (0..64)
            .map(|s| ssagen::generate_from_bytes(&seeded_bytes(s, 1024), &config))
            .collect();
        for (k, seed) in seeds.iter().enumerate() {
            assert_inside(
                seed,
                &config,
                &exclusions,
                &format!("{} seed {k}", profile.name),
            );
        }
        for n in 0..count {
            let seed = &seeds[rng.gen_range(0..seeds.len())];
            let m = mutate(seed, &config, rng.gen_range(1..=3), &mut rng);
            assert_inside(
                &m,
                &config,
                &exclusions,
                &format!("{} mutant {n}", profile.name),
            );
        }
    }
    let real = real_corpus();
    assert!(!real.is_empty());
    for n in 0..count {
        let (name, seed) = &real[rng.gen_range(0..real.len())];
        let profile = registry::profile(name).expect("the cranelift profiles are registered");
        let config = (profile.config)();
        let m = mutate(seed, &config, rng.gen_range(1..=3), &mut rng);
        // Real functions keep some things the profile leaves out; their
        // mutants never add to them, and keep Cranelift's numbering.
        assert!(
            ssagen::domain::keeps(&m, seed, &config),
            "{name} real mutant {n} breaks more than its seed: {:?} against {:?}\n{}",
            ssagen::domain::broken(&m, &config, false),
            ssagen::domain::broken(seed, &config, false),
            allocator::ir::text::print(&m)
        );
        assert!(config.numberings.admits(&m.func), "{name} real mutant {n}");
    }
}

#[test]
fn mutants_stay_inside_their_profile() {
    sweep(if allocator::fixtures::deep() {
        10_000
    } else {
        150
    });
}

/// Each program style of a profile (`--style`) generates inside that
/// profile, and every style is drawn by the profile's mixture.
#[test]
fn every_program_style_stays_inside_its_profile() {
    use fuzz_targets::harness::narrowing::Narrowing;
    use fuzz_targets::spec::CaseSpec;
    let mut styled = 0;
    for profile in registry::profiles() {
        let config = (profile.config)();
        let exclusions = exclusions_of(profile.name);
        for style in config.styles {
            let spec = CaseSpec {
                profile: Some(profile.name.to_string()),
                style: Some(style.name.to_string()),
                ..CaseSpec::default()
            };
            let narrowed = Narrowing::resolve(&spec).unwrap().config(profile);
            assert!(
                narrowed.styles.is_empty(),
                "{} {}",
                profile.name,
                style.name
            );
            for s in 0..32 {
                let case = ssagen::generate_from_bytes(&seeded_bytes(s, 1024), &narrowed);
                let what = format!("{} --style {} seed {s}", profile.name, style.name);
                assert_inside(&case, &config, &exclusions, &what);
            }
            styled += 1;
        }
    }
    assert_eq!(styled, 12, "four styles in each cranelift profile");
}

/// The real corpus is in Cranelift's numbering: every block after its
/// dominators and after one of its predecessors.
#[test]
fn real_functions_number_every_block_after_its_dominators_and_a_predecessor() {
    for (profile, case) in real_corpus() {
        let f = &case.func;
        let dom = allocator::analysis::domtree::DomTree::new(f);
        assert!(numbering::dominators_first(f, &dom), "{profile}");
        assert_eq!(numbering::block_before_its_preds(f), None, "{profile}");
    }
}

/// The default profile draws all three numberings; an input whose bytes
/// ran out keeps the dominator-tree preorder; `--without free-numbering`
/// keeps every block after its dominators.
#[test]
fn the_default_profile_draws_every_numbering() {
    let config = Config::default();
    let mut seen = [0usize; 3];
    for s in 0..300 {
        let case = ssagen::generate_from_bytes(&seeded_bytes(s, 4096), &config);
        let n = numbering::classify(&case.func);
        seen[n as usize] += 1;
        assert!(ssagen::domain::check(&case, &config).is_ok());
    }
    // Drawn from the bytes left after the function: 4 KiB inputs leave
    // some a third of the time (`gen --stats 1000`: 6.6% reverse
    // postorders that are no preorder, 12.3% free).
    assert!(seen.iter().all(|&k| k >= 10), "{seen:?}");
    let empty = ssagen::generate_from_bytes(&[], &config);
    assert_eq!(numbering::classify(&empty.func), Numbering::DomPreorder);
    let mut without = config.clone();
    ssagen::config::FEATURES
        .iter()
        .find(|f| f.0 == "free-numbering")
        .expect("a feature")
        .1(&mut without);
    for s in 0..200 {
        let case = ssagen::generate_from_bytes(&seeded_bytes(s, 512), &without);
        let f = &case.func;
        let dom = allocator::analysis::domtree::DomTree::new(f);
        assert!(numbering::dominators_first(f, &dom), "seed {s}");
    }
}

/// Renumbering a case carries its allocation along: each operand keeps
/// its location and each edit its instruction, so both oracles judge the
/// renumbered case as they judge the original, and renumbering back gives
/// the original.
#[test]
fn a_renumbered_case_keeps_its_allocation() {
    use allocator::Block;
    let case = allocator::fixtures::case_on(
        ["p0i-p1i", "p0f", "p0v"],
        "function
  block0:
    inst0: op def:v0i:reg def:v1i:any
    inst1: branch -> block1(v0i)
  block1(v2i):
    inst2: op use:v2i:reg use:v1i:any def:v3i:reg
    inst3: branch -> block2(), block3()
  block2:
    inst4: op use:v3i:stack clobbers(p0i, p1i)
    inst5: branch -> block1(v3i)
  block3:
    inst6: ret use:v1i:reg
end
",
    );
    let a = registry::allocator_by_name("linear_scan", &registry::Settings::default()).unwrap();
    let out = a.run(&case.func, &case.machine).unwrap();
    let allocated = Case {
        output: Some(out.clone()),
        ..case
    };
    let order: Vec<Block> = [0, 3, 2, 1].map(Block::new).to_vec();
    let r = numbering::renumbered(&allocated, &order);
    assert_eq!(numbering::classify(&r.func), Numbering::Free);
    let r_out = r.output.clone().unwrap();
    assert_eq!(r_out.num_spillslots, out.num_spillslots);
    assert_eq!(r_out.edits.len(), out.edits.len());
    assert!(r_out.edits_sorted());
    assert!(checker::check(&r.func, &r.machine, &r_out).is_empty());
    for seed in 0..4 {
        checker::interp::run(&r.func, &r.machine, &r_out, seed, 10_000).unwrap();
    }
    let back = numbering::renumbered(&r, &order);
    assert_eq!(back, allocated);
}
