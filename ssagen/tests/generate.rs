//! The generator's promises, over many inputs: every byte string gives a
//! valid, feasible case; the CFG has no critical edge and every block is
//! reachable; structured mode is reducible; printing round-trips.

use allocator::analysis::{
    cfg,
    domtree::{self, DomTree},
};
use rand::{Rng, SeedableRng};
use ssagen::feasibility::{self, Unfit};
use ssagen::{generate_from_bytes, Config};

fn inputs(count: usize, max_len: usize, seed: u64) -> impl Iterator<Item = Vec<u8>> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    (0..count).map(move |_| {
        let len = rng.gen_range(0..=max_len);
        (0..len).map(|_| rng.gen()).collect()
    })
}

fn assert_valid(bytes: &[u8], config: &Config) -> allocator::Case {
    let case = generate_from_bytes(bytes, config);
    match feasibility::check_case(&case) {
        Ok(()) => case,
        Err(Unfit::Invalid(errs)) => panic!(
            "invalid case ({} errors, first: {})\n{}",
            errs.len(),
            errs[0].message,
            allocator::ir::text::print(&case)
        ),
        Err(Unfit::Infeasible(e)) => panic!(
            "infeasible case: {e}\n{}",
            allocator::ir::text::print(&case)
        ),
    }
}

#[test]
fn ten_thousand_random_inputs_give_valid_feasible_cases() {
    let config = Config::default();
    for bytes in inputs(10_000, 1024, 1) {
        assert_valid(&bytes, &config);
    }
}

#[test]
fn large_inputs_and_edge_inputs_give_valid_cases() {
    let config = Config::default();
    for bytes in inputs(40, 64 * 1024, 2) {
        assert_valid(&bytes, &config);
    }
    for bytes in [
        vec![],
        vec![0],
        vec![0xff; 4096],
        vec![0; 4096],
        (0..=255).collect(),
    ] {
        assert_valid(&bytes, &config);
    }
}

#[test]
fn empty_input_gives_the_smallest_case() {
    let case = assert_valid(&[], &Config::default());
    assert_eq!(case.func.num_blocks(), 1);
    assert_eq!(case.func.num_insts(), 1);
    assert!(case.func.is_ret(allocator::Inst(0)));
}

#[test]
fn no_critical_edges_and_all_blocks_reachable() {
    for bytes in inputs(2000, 2048, 3) {
        let case = generate_from_bytes(&bytes, &Config::cfg_only());
        let f = &case.func;
        assert!(cfg::critical_edges(f).is_empty());
        assert!(cfg::reachable(f).iter().all(|&r| r));
    }
}

#[test]
fn blocks_come_in_the_numbering_drawn() {
    use allocator::analysis::numbering::{self, Numbering, Numberings};
    // With dominator-tree preorder alone, the blocks come in the tree's
    // preorder (children in the generator's order).
    let preorder = Config {
        numberings: Numberings::only(Numbering::DomPreorder),
        ..Config::default()
    };
    let rpo = Config {
        numberings: Numberings::only(Numbering::ReversePostorder),
        ..Config::default()
    };
    let mut free = 0;
    for bytes in inputs(500, 4096, 7) {
        let f = generate_from_bytes(&bytes, &preorder).func;
        let tree = DomTree::new(&f);
        let in_order: Vec<_> = f.blocks().collect();
        assert_eq!(tree.preorder(), &in_order[..]);
        // The same input in reverse postorder: the same function renumbered.
        let g = generate_from_bytes(&bytes, &rpo).func;
        assert_eq!(g.num_insts(), f.num_insts());
        assert_eq!(numbering::block_before_its_preds(&g), None);
        assert!(numbering::dominators_first(&g, &DomTree::new(&g)));
        // The default draws all three; free ones break dominators-first.
        let d = generate_from_bytes(&bytes, &Config::default()).func;
        assert_eq!(d.num_insts(), f.num_insts());
        free += usize::from(!numbering::dominators_first(&d, &DomTree::new(&d)));
    }
    assert!(free > 20, "{free} free numberings in 500");
}

#[test]
fn structured_mode_is_reducible_and_irreducible_mode_is_not_always() {
    let structured = Config {
        irreducible: false,
        ..Config::cfg_only()
    };
    let mut irreducible_seen = 0;
    for bytes in inputs(2000, 4096, 4) {
        let s = generate_from_bytes(&bytes, &structured);
        assert!(
            domtree::is_reducible(&s.func, &DomTree::new(&s.func)),
            "{}",
            allocator::ir::text::print(&s)
        );
        let i = generate_from_bytes(&bytes, &Config::cfg_only());
        if !domtree::is_reducible(&i.func, &DomTree::new(&i.func)) {
            irreducible_seen += 1;
        }
    }
    assert!(
        irreducible_seen > 100,
        "only {irreducible_seen} irreducible CFGs in 2000"
    );
}

#[test]
fn printing_round_trips() {
    for bytes in inputs(500, 4096, 5) {
        let case = generate_from_bytes(&bytes, &Config::default());
        let text = allocator::ir::text::print(&case);
        let (again, _) = allocator::ir::text::parse(text.as_bytes()).unwrap();
        assert_eq!(again, case);
    }
}

#[test]
fn narrowed_configs_hold() {
    let config = Config {
        multiple_classes: false,
        calls: false,
        clobbers: false,
        late_uses: false,
        early_defs: false,
        max_block_params: 0,
        branch_operands: false,
        nonalloc: false,
        constraints: ssagen::ConstraintSet {
            reg: true,
            stack: false,
            fixed: false,
            reuse: false,
            limit: false,
        },
        ..Config::default()
    };
    for bytes in inputs(500, 2048, 6) {
        let case = assert_valid(&bytes, &config);
        let f = &case.func;
        assert!(f.blocks().all(|b| f.block_params(b).is_empty()));
        for i in f.insts() {
            assert!(f.inst_clobbers(i).is_empty());
            for op in f.inst_operands(i) {
                assert!(!op.is_nonalloc());
                assert_eq!(op.class(), allocator::RegClass::Int);
                assert!(matches!(
                    op.constraint(),
                    allocator::OperandConstraint::Any | allocator::OperandConstraint::Reg
                ));
                assert!(op.has_default_pos());
            }
        }
    }
}

/// A config narrowed the way outside allocators' profiles narrow it:
/// reuse that holds its uses, no branch operands into joins, repeated uses
/// only of plain kinds, and (`more`) no `limit`, branch defs or `stack` defs.
fn narrowed(more: bool) -> Config {
    let mut c = Config {
        branch_operands_into_joins: false,
        ..Config::default()
    };
    c.repeated_uses.stack = more;
    c.repeated_uses.limit = false;
    c.repeated_uses.late_fixed = false;
    c.reuse_holds_uses = true;
    c.machine.fixed_unlisted = false;
    if more {
        c.constraints.limit = false;
        c.branch_defs_in_registers = false;
        c.stack_defs = false;
    }
    c
}

/// Without `branch_defs_in_registers`, branches still define values, but
/// never in a register of their own choosing: `fixed`, `stack` or `any`.
#[test]
fn branch_defs_outside_registers_are_fixed_stack_or_any() {
    use allocator::OperandConstraint as C;
    let config = Config {
        branch_defs_in_registers: false,
        ..Config::default()
    };
    let mut defs = 0;
    for bytes in inputs(400, 4096, 13) {
        let case = assert_valid(&bytes, &config);
        let f = &case.func;
        for i in f.insts().filter(|&i| f.is_branch(i)) {
            for o in f.inst_operands(i).iter().filter(|o| o.is_def()) {
                defs += 1;
                assert!(
                    matches!(o.constraint(), C::FixedReg(_) | C::Stack | C::Any),
                    "{o:?}"
                );
            }
        }
    }
    assert!(defs > 20, "only {defs} branch defs");
}

/// Swarm generation keeps every promise, for every kind of narrowed config,
/// and each case draws a narrower config now and then: some swarmed cases
/// lack a feature that every single-config case of the same size has.
#[test]
fn swarm_cases_are_valid_and_vary_in_features() {
    for base in [Config::default(), narrowed(false), narrowed(true)] {
        let config = Config {
            swarm: true,
            ..base
        };
        let mut without_calls = 0;
        for bytes in inputs(600, 3000, 11) {
            let case = assert_valid(&bytes, &config);
            let f = &case.func;
            let calls = f.insts().any(|i| f.inst_clobbers(i).len() > 2);
            without_calls += usize::from(bytes.len() > 2000 && !calls);
        }
        assert!(without_calls > 10, "{without_calls}");
    }
}

/// The share of 400 cases of `config` that have feature `name`.
fn share_with(config: &Config, name: &str) -> f64 {
    let with = inputs(400, 600, 7)
        .filter(|bytes| {
            let case = assert_valid(bytes, config);
            let features = ssagen::stats::CaseFeatures::of(&case).named();
            features.iter().any(|&(n, on)| n == name && on)
        })
        .count();
    with as f64 / 400.0
}

#[test]
fn per_case_features_appear_in_their_share_of_cases() {
    type Knob = fn(&mut Config, u8);
    let knobs: [(&str, Knob); 4] = [
        ("reuse", |c, k| c.reuse_case_sixteenths = k),
        ("repeated-uses", |c, k| c.repeated_use_case_sixteenths = k),
        ("late-uses", |c, k| c.late_use_case_sixteenths = k),
        ("early-defs", |c, k| c.early_def_case_sixteenths = k),
    ];
    for (name, set) in knobs {
        let at = |k: u8| {
            let mut c = Config::default();
            set(&mut c, k);
            share_with(&c, name)
        };
        let (none, half, all) = (at(0), at(8), at(16));
        assert_eq!(none, 0.0, "{name} in no case");
        assert!(all > 0.4, "{name}: {all} of cases with every case allowed");
        assert!(
            (0.3 * all..=0.7 * all).contains(&half),
            "{name}: {half} against {all}"
        );
    }
}
