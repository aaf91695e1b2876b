use super::*;
use allocator::analysis::cfg::postorder;
use allocator::Allocator;

/// The documented invariant that keeps states small: a block's
/// out-state holds only vregs live out of it or passed as its branch
/// arguments, and dropping the dead ones changes no verdict.
#[test]
fn boundary_states_hold_only_live_values() {
    let mut pruned_some = false;
    for seed in 0..40u8 {
        let bytes: Vec<u8> = (0..2000u32)
            .map(|k| (k as u8).wrapping_mul(seed | 1) ^ seed)
            .collect();
        let case = ssagen::generate_from_bytes(&bytes, &ssagen::Config::default());
        let f = &case.func;
        let out = allocator::spill_everywhere::SpillEverywhere
            .run(f, &case.machine)
            .unwrap();
        let mut c = Checker::default();
        assert!(c
            .check_pruned(f, &case.machine, &out, Pruning::Cheaper)
            .is_empty());
        let live = liveness::compute(f, &postorder(f));
        for b in f.blocks() {
            let mut keep = live.live_out[b.index()].clone();
            for t in 0..f.block_succs(b).len() {
                for a in f.branch_args(b, t) {
                    keep.insert(a.index());
                }
            }
            for &x in &c.outs[b.index()] {
                assert!(
                    keep.contains(pair_vreg(x) as usize),
                    "seed {seed}: {b} keeps dead v{}",
                    pair_vreg(x)
                );
            }
            // Some location wrote a value that dies in the block.
            pruned_some |= f.block_insts(b).iter().any(|i| {
                f.inst_operands(i)
                    .iter()
                    .any(|o| o.is_def() && !keep.contains(o.vreg().index()))
            });
        }
    }
    assert!(pruned_some);
}

/// Touched locations sort as the library sorts them, short lists (by
/// insertion) and long ones, in order, reversed or shuffled.
#[test]
fn locations_sort_as_the_library_sorts() {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
    for len in [0, 1, 2, 3, 24, 64, 65, 200] {
        for _ in 0..20 {
            let mut ls: Vec<u32> = (0..len).map(|_| rng.gen_range(0..300)).collect();
            match rng.gen_range(0..3) {
                0 => ls.sort_unstable(),
                1 => ls.sort_unstable_by(|a, b| b.cmp(a)),
                _ => {}
            }
            let mut want = ls.clone();
            want.sort_unstable();
            sort_small(&mut ls);
            assert_eq!(ls, want);
        }
    }
}

/// A checker kept from function to function, bigger and smaller ones on
/// their own machines, gives each the verdict a fresh one gives: states,
/// liveness and roles kept from the last function change nothing.
#[test]
fn a_kept_checker_judges_as_a_fresh_one() {
    let mut kept = Checker::default();
    let mut wrong = 0;
    for seed in 0..60u32 {
        let len = [40, 3000, 300, 8000][seed as usize % 4];
        let bytes: Vec<u8> = (0..len)
            .map(|k: u32| (k.wrapping_mul(seed * 2 + 1) >> 3) as u8 ^ seed as u8)
            .collect();
        let case = ssagen::generate_from_bytes(&bytes, &ssagen::Config::default());
        let (f, env) = (&case.func, &case.machine);
        let Ok(mut out) = allocator::linear_scan::LinearScan.run(f, env) else {
            continue;
        };
        // Every third allocation with one operand moved to another
        // register of its class: a wrong one, most of the time.
        if seed % 3 == 0 {
            if let Some(a) = out.allocs.iter_mut().find(|a| a.as_reg().is_some()) {
                let r = a.as_reg().unwrap();
                if let Some(&s) = env.allocatable(r.class()).find(|&s| s != r).as_ref() {
                    *a = Allocation::Reg(s);
                }
            }
        }
        let fresh = Checker::default().check(f, env, &out);
        wrong += usize::from(!fresh.is_empty());
        assert_eq!(kept.check_both_ways(f, env, &out), fresh, "seed {seed}");
    }
    assert!(wrong > 5, "{wrong} wrong allocations");
}

/// Slot writes cut overlapped values only when some value filling several
/// slots is written to a slot: a wide register moved there or a wide def
/// allocated there (inside), not a narrow value in a slot beside wide ones
/// in registers, nor a wide value read back from a slot (just outside).
#[test]
fn only_wide_values_written_to_slots_need_cuts() {
    let text = std::fs::read_to_string(
        allocator::fixtures::repo_root()
            .join("tests/cases/check/wrong_value_write_overlaps_wide_slot.ra"),
    )
    .unwrap();
    let wide = |src: &str| {
        let (case, _) = allocator::ir::text::parse(src.as_bytes()).expect("parses");
        let out = case.output.expect("has an allocation");
        let roles = Roles::new(&case.machine);
        structural(&case.func, &case.machine, &roles, &out, &mut Vec::new())
    };
    assert!(wide(&text), "a wide register moved to a slot");
    let narrow_only = text
        .replace("  edit after inst0: p0f -> stack0\n", "")
        .replace("  edit before inst3: stack0 -> p0f\n", "");
    assert!(!wide(&narrow_only), "only a narrow value in a slot");
    let read_back = text.replace("  edit after inst0: p0f -> stack0\n", "");
    assert!(!wide(&read_back), "a wide value only read from a slot");
    let def_in_slot = narrow_only.replace("  inst1: p0f p0i", "  inst1: stack0 p0i");
    assert!(wide(&def_in_slot), "a wide def allocated to a slot");
    let unit = text.replace(" slot_size 2", "");
    assert!(!wide(&unit), "every value fills one slot");
}
