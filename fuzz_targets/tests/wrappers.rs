//! One thin wrapper per engine runs every target: a source file that calls
//! `run_wrapped` (which picks the target from `RAFUZZ_TARGET` or the
//! binary's own name), and the scripts that run an engine or build for
//! OSS-Fuzz name the target that way, so no target needs a file of its own.

use std::path::PathBuf;

fn dir(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(sub)
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path).unwrap_or_else(|_| panic!("no {}", path.display()))
}

#[test]
fn every_engine_has_one_wrapper_for_every_target() {
    for (engine, src) in [
        ("fuzz", "fuzz_targets"),
        ("hfuzz", "src/bin"),
        ("afl", "src/bin"),
    ] {
        let files: Vec<_> = std::fs::read_dir(dir(engine).join(src))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(files, ["rafuzz_target.rs"], "{engine}: one wrapper");
        let body = read(dir(engine).join(src).join("rafuzz_target.rs"));
        for call in [
            "fuzz_targets::targets::wrapped::run_wrapped(data)",
            "fuzz_targets::targets::wrapped::list_if_asked()",
        ] {
            assert!(body.contains(call), "{engine}: the wrapper lacks {call}");
        }
    }
    let manifest = read(dir("fuzz/Cargo.toml"));
    assert_eq!(manifest.matches("[[bin]]").count(), 1);
    assert!(manifest.contains("name = \"rafuzz_target\""));
    // Each engine is told its target by name.
    let fuzz_sh = read(dir("../scripts/fuzz.sh"));
    assert_eq!(
        fuzz_sh.matches("RAFUZZ_TARGET=\"$target\"").count(),
        3,
        "{fuzz_sh}"
    );
    let build = read(dir("../scripts/oss-fuzz/build.sh"));
    assert!(build.contains("cp \"$bin_dir/rafuzz_target\" \"$OUT/$target\""));
    assert!(build.contains("RAFUZZ_LIST_TARGETS=1"));
}

#[test]
fn run_wrapped_runs_the_named_target() {
    std::env::set_var("RAFUZZ_TARGET", "ssagen");
    fuzz_targets::targets::wrapped::run_wrapped(b"some bytes");
    let r = std::panic::catch_unwind(|| {
        fuzz_targets::targets::wrapped::run_wrapped(fuzz_targets::targets::PLANTED_MAGIC)
    });
    assert!(r.is_ok(), "the target is looked up once, by the first name");
}

/// `rafuzz fuzz`'s time and memory limits reach every engine, by the
/// engine's own flags, and the OSS-Fuzz `.options` files.
#[test]
fn every_engine_gets_the_built_in_engines_limits() {
    use fuzz_targets::engine::process::{DEFAULT_RSS_LIMIT_MB, DEFAULT_TIMEOUT_SECS};
    let scripts = dir("../scripts");
    let fuzz_sh = std::fs::read_to_string(scripts.join("fuzz.sh")).unwrap();
    for flag in [
        format!("timeout=${{TIMEOUT:-{DEFAULT_TIMEOUT_SECS}}}"),
        format!("rss_limit_mb=${{RSS_LIMIT_MB:-{DEFAULT_RSS_LIMIT_MB}}}"),
        "--timeout \"$timeout\" --rss-limit-mb \"$rss_limit_mb\"".into(),
        "-timeout=\"$timeout\" -rss_limit_mb=\"$rss_limit_mb\"".into(),
        "--timeout $timeout --tmout_sigvtalrm --rlimit_rss $rss_limit_mb".into(),
        "-t \"$((timeout * 1000))\" -m \"$rss_limit_mb\"".into(),
        "-path '*/hangs/*'".into(),
    ] {
        assert!(fuzz_sh.contains(&flag), "scripts/fuzz.sh lacks {flag}");
    }
    let build = std::fs::read_to_string(scripts.join("oss-fuzz/build.sh")).unwrap();
    for line in [
        format!("timeout = {DEFAULT_TIMEOUT_SECS}\\n"),
        format!("rss_limit_mb = {DEFAULT_RSS_LIMIT_MB}\\n"),
    ] {
        assert!(build.contains(&line), "the .options files lack {line}");
    }
}
