//! The real-code corpus (`corpus/real/<target>/`, chosen by
//! `scripts/real-corpus.sh` from `scripts/capture.sh`'s capture of real
//! programs compiled by Cranelift): every case is valid, both oracles
//! accept the allocation regalloc2's ion gave Cranelift, and every
//! allocator the campaigns fuzz takes it (an outside one may refuse it)
//! and gets it right.

use fuzz_targets::books::context::Context;
use fuzz_targets::judging::judge::{allocate_and_judge_refusal, judge, Oracles};
use fuzz_targets::registry::{self, Family};

#[test]
fn every_real_case_is_valid_and_every_allocation_of_it_right() {
    let root = allocator::fixtures::repo_root().join("corpus/real");
    let mut targets = 0;
    let ctx = Context::default();
    for dir in std::fs::read_dir(&root).unwrap() {
        let dir = dir.unwrap().path();
        let files = allocator::fixtures::ra_files(&dir);
        assert!(
            files.len() >= 20,
            "{}: {} cases",
            dir.display(),
            files.len()
        );
        targets += 1;
        for path in files {
            let case = allocator::fixtures::read_case(&path);
            let recorded = case.output.as_ref().expect("ion's allocation, recorded");
            judge(
                "regalloc2_ion (recorded)",
                &case,
                recorded,
                Oracles::Both,
                &ctx,
            )
            .unwrap_or_else(|f| panic!("{}: {f}", path.display()));
            for e in registry::entries().iter().filter(|e| e.fuzzed()) {
                let judged = allocate_and_judge_refusal(
                    &*e.build(&ctx.settings),
                    &case,
                    Oracles::Both,
                    &ctx,
                )
                .unwrap_or_else(|f| panic!("{}: {}: {f}", path.display(), e.name));
                assert!(
                    judged.is_ok() || e.family == Family::Outside,
                    "{}: {} refused it",
                    path.display(),
                    e.name
                );
            }
        }
    }
    assert_eq!(targets, 3, "x86_64, aarch64 and riscv64gc");
}
