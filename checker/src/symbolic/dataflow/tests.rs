use super::*;
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
        assert!(c.check(f, &case.machine, &out).is_empty());
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
