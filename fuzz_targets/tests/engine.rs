//! The built-in engine finds a planted crash, saves it, and stops; a clean
//! campaign reports no finding.

use fuzz_targets::engine::{fuzz, Options};
use std::time::Duration;

fn options(targets: Vec<fuzz_targets::targets::Target>, dir: &std::path::Path) -> Options {
    Options {
        time: Some(Duration::from_secs(60)),
        jobs: 2,
        seed: 1,
        corpus: dir.join("no-corpus"),
        artifacts: dir.join("artifacts"),
        max_len: 64,
        progress: Duration::from_secs(3600),
        ..Options::new(targets)
    }
}

#[test]
fn finds_saves_and_reports_a_planted_crash() {
    let dir = std::env::temp_dir().join(format!("rafuzz-engine-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let planted = fuzz_targets::targets::target_by_name("planted").unwrap();
    let report = fuzz(&options(vec![planted.clone()], &dir), &mut std::io::sink());
    // The campaign stops at its first finding; the other job may finish
    // the input it holds, and find the crash too.
    assert!(
        (1..=2).contains(&report.findings.len()),
        "the planted crash was not found in 60 s ({} findings)",
        report.findings.len()
    );
    let f = &report.findings[0];
    assert!(
        f.failure.message.contains("the magic input was found"),
        "{}",
        f.failure
    );
    let saved = std::fs::read(&f.path).unwrap();
    assert!(saved.starts_with(fuzz_targets::targets::PLANTED_MAGIC));
    let txt = std::path::PathBuf::from(format!("{}.txt", f.path.display()));
    assert!(std::fs::read_to_string(&txt)
        .unwrap()
        .contains("magic input"));
    // No half-written files are left behind.
    let leftovers = std::fs::read_dir(f.path.parent().unwrap())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "tmp")
        })
        .count();
    assert_eq!(leftovers, 0);
    // Replaying the saved input through the target fails the same way.
    let err = fuzz_targets::cli::run_one(&planted, &saved, &Default::default()).unwrap_err();
    assert!(err.message.contains("magic input"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_clean_campaign_runs_every_target_and_finds_nothing() {
    let dir = std::env::temp_dir().join(format!("rafuzz-engine-clean-{}", std::process::id()));
    let mut opts = options(fuzz_targets::targets::targets(), &dir);
    opts.time = None;
    opts.runs = Some(400);
    opts.corpus = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../corpus");
    let report = fuzz(&opts, &mut std::io::sink());
    assert!(report.findings.is_empty(), "{:?}", report.findings);
    assert_eq!(report.rows.len(), fuzz_targets::targets::targets().len());
    for (name, execs, corpus, features, found) in &report.rows {
        assert!(*execs > 0, "{name} never ran");
        assert!(*corpus >= 20, "{name}: the seed corpus was not loaded");
        assert!(*features > 0, "{name} reported no features");
        assert_eq!(*found, 0);
    }
    assert!(!fuzz_targets::targets::targets()
        .iter()
        .any(|t| t.name == "planted"));
}

#[test]
fn mutations_keep_inputs_within_reach() {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut v = b"seed".to_vec();
    for _ in 0..10_000 {
        fuzz_targets::engine::mutate(&mut rng, &mut v, b"other entry");
        v.truncate(256);
    }
    fuzz_targets::engine::mutate(&mut rng, &mut Vec::new(), &[]);
}
