//! `allocator::slot_cache` applied to the outputs of allocators that do not
//! run it themselves: every output stays valid under both oracles. The
//! pass works on locations alone, so any allocator's output is fair input,
//! and `spill_everywhere`'s, with a reload before every register read,
//! gives it the most slots to keep.

use allocator::Allocator;
use checker::interp;
use rand::{Rng, SeedableRng};

#[test]
fn kept_slots_leave_every_allocation_valid() {
    let config = ssagen::Config::default();
    let allocators: [&dyn Allocator; 3] = [
        &allocator::spill_everywhere::SpillEverywhere,
        &allocator::linear_scan::LinearScan,
        &allocator::backtracking::Backtracking,
    ];
    for a in allocators {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let mut kept = 0;
        for n in 0..allocator::fixtures::sweep(2_000) {
            let len = rng.gen_range(0..=2_000);
            let bytes: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
            let case = ssagen::generate_from_bytes(&bytes, &config);
            let mut out = a.run(&case.func, &case.machine).unwrap();
            kept += allocator::slot_cache::cache_in_loops(&case.func, &case.machine, &mut out);
            let errs = checker::check(&case.func, &case.machine, &out);
            if let Some(e) = errs.first() {
                let mut c = case.clone();
                c.output = Some(out);
                panic!(
                    "{} on input {n}, slots kept: {e}\n{}",
                    a.name(),
                    allocator::ir::text::print(&c)
                );
            }
            interp::run(&case.func, &case.machine, &out, n as u64, 2_000)
                .unwrap_or_else(|d| panic!("{} on input {n}, slots kept: {d}", a.name()));
        }
        assert!(kept > 100, "{}: only {kept} slots kept", a.name());
    }
}
