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
