//! The unit tests' cases, `tests/cases/unit/<area>/<name>.ra`: each must be
//! a valid case that says what it is for and that some test loads by name,
//! so that none is left behind when its test goes.

use allocator::fixtures::{ra_files, read_case, repo_root};
use std::path::{Path, PathBuf};

/// The folders of `tests/cases/unit`, one per area.
fn areas() -> Vec<PathBuf> {
    let unit = repo_root().join("tests/cases/unit");
    let mut dirs = Vec::new();
    for e in std::fs::read_dir(&unit).unwrap() {
        let p = e.unwrap().path();
        // Other tests replay the `.ra` files of each folder of tests/cases:
        // none may sit in unit/ itself.
        assert!(p.is_dir(), "{}: not an area folder", p.display());
        dirs.push(p);
    }
    dirs.sort();
    dirs
}

/// The text of every `.rs` file under `dir`, `target` folders left out.
fn rust_sources(dir: &Path, out: &mut String) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n != "target") {
                rust_sources(&p, out);
            }
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push_str(&std::fs::read_to_string(&p).unwrap());
        }
    }
}

#[test]
fn every_unit_case_is_valid_commented_and_used() {
    let mut sources = String::new();
    for krate in ["allocator", "checker", "fuzz_targets", "ssagen"] {
        rust_sources(&repo_root().join(krate), &mut sources);
    }
    let mut n = 0;
    for area in areas() {
        let files = ra_files(&area);
        assert!(!files.is_empty(), "{}: no cases", area.display());
        for path in files {
            read_case(&path);
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                text.starts_with("# "),
                "{}: the first line says what the case is for",
                path.display()
            );
            let name = format!(
                "{}/{}",
                area.file_name().unwrap().to_string_lossy(),
                path.file_stem().unwrap().to_string_lossy()
            );
            assert!(
                sources.contains(&format!("\"{name}\"")),
                "{}: no test loads \"{name}\"",
                path.display()
            );
            n += 1;
        }
    }
    assert!(n > 0, "no unit cases");
}
