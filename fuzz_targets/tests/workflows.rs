//! The ClusterFuzzLite workflows ask for what docs/engine.md says they do:
//! each builds the Rust fuzzers and runs them in its mode, and a run uses
//! the sanitizer its build was made with (a coverage run needs the coverage
//! build). No YAML parser: the workflows are flat `key: value` lines.

use std::path::Path;

/// The `key: value` pairs of a workflow's lines, in order.
fn pairs(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let l = l.trim_start().trim_start_matches("- ");
            let (k, v) = l.split_once(':')?;
            Some((
                k.trim().to_string(),
                v.trim().trim_matches('\'').to_string(),
            ))
        })
        .collect()
}

/// What a workflow says: its language, the build's sanitizer, the run's
/// mode and sanitizer (`address` where none is given, as ClusterFuzzLite
/// defaults).
fn read(name: &str) -> (String, String, String, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../.github/workflows")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    let p = pairs(&text);
    let after = |step: &str| {
        let at = p
            .iter()
            .position(|(k, v)| k == "uses" && v.contains(step))
            .unwrap_or_else(|| panic!("{name}: no {step} step"));
        let end = p[at + 1..]
            .iter()
            .position(|(k, _)| k == "uses" || k == "name")
            .map_or(p.len(), |e| at + 1 + e);
        p[at + 1..end].to_vec()
    };
    let get = |kv: &[(String, String)], key: &str| {
        kv.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    };
    let build = after("build_fuzzers");
    let run = after("run_fuzzers");
    (
        get(&build, "language").unwrap_or_default(),
        get(&build, "sanitizer").unwrap_or_else(|| "address".into()),
        get(&run, "mode").unwrap_or_default(),
        get(&run, "sanitizer").unwrap_or_else(|| "address".into()),
    )
}

#[test]
fn each_workflow_runs_its_mode_on_a_build_with_its_sanitizer() {
    for (file, mode) in [
        ("cflite_pr.yml", "code-change"),
        ("cflite_batch.yml", "batch"),
        ("cflite_prune.yml", "prune"),
        ("cflite_coverage.yml", "coverage"),
    ] {
        let (language, built, run_mode, ran) = read(file);
        assert_eq!(language, "rust", "{file}");
        assert_eq!(run_mode, mode, "{file}");
        assert_eq!(built, ran, "{file}: built for {built}, run with {ran}");
        assert_eq!(mode == "coverage", ran == "coverage", "{file}");
    }
}

#[test]
fn a_line_is_read_as_its_key_and_value() {
    let p = pairs("  - name: Run\n    # mode: no\n    mode: 'coverage'\n");
    assert_eq!(
        p,
        [
            ("name".into(), "Run".into()),
            ("mode".into(), "coverage".into())
        ]
    );
}
