//! Every target has a seed corpus, and every corpus file passes its target.

use std::path::PathBuf;

#[test]
fn every_target_replays_its_seed_corpus() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    for t in fuzz_targets::targets::targets() {
        let files = fuzz_targets::harness::inputs::expand_inputs(&[root.join(t.name)]);
        assert!(
            files.len() >= 20,
            "{}: corpus/{} has {} files",
            t.name,
            t.name,
            files.len()
        );
        for f in files {
            let data = std::fs::read(&f).unwrap();
            if let Err(msg) = fuzz_targets::cli::run_one(&t, &data, &Default::default()) {
                panic!("{}: {}: {msg}", t.name, f.display());
            }
        }
    }
}

#[test]
fn run_one_reports_failures_and_panics() {
    use fuzz_targets::books::context::Context;
    use fuzz_targets::judging::failure::{Failure, Oracle, Signature};
    use fuzz_targets::targets::Input;
    let t = fuzz_targets::targets::Target {
        name: "boom",
        description: "fails on a leading 0x42, panics on a leading 0x43",
        decode: fuzz_targets::targets::Decode::Bytes,
        body: std::sync::Arc::new(|input: &Input, _: &Context| {
            let Input::Bytes(d) = input else {
                return Ok(());
            };
            match d.first() {
                Some(0x42) => Err(Failure::new(
                    Signature::new(None, Oracle::Interp, ""),
                    format!("found {}", d.len()),
                )),
                Some(0x43) => panic!("exploded at {}", d.len()),
                _ => Ok(()),
            }
        }),
        stats: None,
    };
    assert_eq!(
        fuzz_targets::cli::run_one(&t, b"x", &Context::default()),
        Ok(())
    );
    let f = fuzz_targets::cli::run_one(&t, b"B12", &Context::default()).unwrap_err();
    assert_eq!(f.to_string(), "interpreter: found 3");
    let f = fuzz_targets::cli::run_one(&t, b"C1", &Context::default()).unwrap_err();
    assert_eq!(f.signature.oracle, Oracle::Panic);
    assert!(f.message.starts_with("exploded at 2 (at "), "{}", f.message);
    assert!(f.signature.detail.starts_with("exploded at # (at "));
    assert!(t
        .case_failure(&allocator::Case::default(), &Context::default())
        .is_none());
}
