//! Every target has a seed corpus, and every corpus file passes its target.

use std::path::PathBuf;

#[test]
fn every_target_replays_its_seed_corpus() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    for t in fuzz_targets::targets() {
        let files = fuzz_targets::cli::expand_inputs(&[root.join(t.name)]);
        assert!(
            files.len() >= 20,
            "{}: corpus/{} has {} files",
            t.name,
            t.name,
            files.len()
        );
        for f in files {
            let data = std::fs::read(&f).unwrap();
            if let Err(msg) = fuzz_targets::cli::run_one(&t, &data) {
                panic!("{}: {}: {msg}", t.name, f.display());
            }
        }
    }
}

#[test]
fn run_one_reports_the_panic_message() {
    let t = fuzz_targets::Target {
        name: "boom",
        description: "panics on a leading 0x42",
        run: std::sync::Arc::new(|d: &[u8]| {
            if d.first() == Some(&0x42) {
                panic!("found {}", d.len());
            }
        }),
        stats: None,
        case_of: |_| None,
    };
    assert_eq!(fuzz_targets::cli::run_one(&t, b"x"), Ok(()));
    assert_eq!(
        fuzz_targets::cli::run_one(&t, b"B12"),
        Err("found 3".to_string())
    );
}
