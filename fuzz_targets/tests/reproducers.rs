//! The standalone reproducers of `tests/reproducers/regalloc2/` are what
//! `rafuzz export` writes today from the cases under
//! `tests/regressions/regalloc2/`, one per known bug of regalloc2
//! (docs/regalloc2.md): a change to the exporter or to a case fails here
//! until `scripts/reproducers.sh` writes them again. That each still fails
//! against the release is checked by `cargo run --example reproducers` (CI).
#![cfg(feature = "regalloc2")]

use fuzz_targets::outside::ra2::exclusions::{
    Exclusion, Kind, FASTALLOC_NO_FREE_REGISTER, TOO_MANY_LIVE_REGS,
};
use fuzz_targets::tools::export::{about_of, algorithm_of, rust_test, About};

#[test]
fn every_known_bug_has_its_reproducer_as_exported() {
    let root = allocator::fixtures::repo_root();
    let dir = root.join("tests/reproducers/regalloc2");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut known: Vec<String> = Exclusion::ALL
        .iter()
        .filter(|x| x.kind() == Kind::KnownBug)
        .map(|x| x.name().to_string())
        .chain([TOO_MANY_LIVE_REGS, FASTALLOC_NO_FREE_REGISTER].map(|r| r.name.to_string()))
        .collect();
    known.sort();
    assert_eq!(names, known, "one reproducer per known bug");
    for name in names {
        let path = dir.join(format!("{name}.rs"));
        let written = std::fs::read_to_string(&path).unwrap();
        let allocator = if written.starts_with("//! regalloc2 0.15.2, Ion:") {
            "regalloc2_ion"
        } else {
            "regalloc2_fastalloc"
        };
        let case_path = format!("tests/regressions/regalloc2/{name}.ra");
        let src = std::fs::read_to_string(root.join(&case_path)).unwrap();
        let (case, _) = allocator::ir::text::parse_and_validate(src.as_bytes()).unwrap();
        let about = About {
            name: &name,
            what: &about_of(&src),
            source: &case_path,
            algorithm: algorithm_of(allocator).unwrap(),
        };
        assert_eq!(
            rust_test(&case, &about),
            written,
            "{}: not what `rafuzz export` writes (scripts/reproducers.sh)",
            path.display()
        );
    }
}
