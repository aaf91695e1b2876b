//! Every registered target (and the test-only `planted`) has a thin wrapper
//! for each engine: a [[bin]] in the engine's Cargo.toml and a source file
//! that is exactly one call to `run_wrapped` with the target's name.

use std::path::PathBuf;

fn dir(sub: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(sub)
}

#[test]
fn every_target_has_a_wrapper_for_every_engine() {
    let mut names: Vec<&str> = fuzz_targets::targets().iter().map(|t| t.name).collect();
    names.push("planted");
    for (engine, src) in [
        ("fuzz", "fuzz_targets"),
        ("hfuzz", "src/bin"),
        ("afl", "src/bin"),
    ] {
        let manifest = std::fs::read_to_string(dir(engine).join("Cargo.toml")).unwrap();
        let mut bins = 0;
        for name in &names {
            let file = dir(engine).join(src).join(format!("{name}.rs"));
            let body = std::fs::read_to_string(&file)
                .unwrap_or_else(|_| panic!("{engine}: no wrapper {}", file.display()));
            assert!(
                body.contains(&format!("fuzz_targets::run_wrapped(\"{name}\", data)")),
                "{}",
                file.display()
            );
            if engine == "fuzz" {
                assert!(
                    manifest.contains(&format!("name = \"{name}\"")),
                    "{engine}/Cargo.toml has no [[bin]] {name}"
                );
            }
            bins += 1;
        }
        // No wrapper for a target that no longer exists.
        let files = std::fs::read_dir(dir(engine).join(src)).unwrap().count();
        assert_eq!(files, bins, "{engine}: stale wrappers");
    }
}

#[test]
fn run_wrapped_runs_the_named_target() {
    fuzz_targets::run_wrapped("ssagen", b"some bytes");
    let r = std::panic::catch_unwind(|| {
        fuzz_targets::run_wrapped("ssagen", fuzz_targets::targets::PLANTED_MAGIC)
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
