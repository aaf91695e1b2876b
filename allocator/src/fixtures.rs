//! Fixtures the tests of every crate share: the hand-written `.ra` files of
//! the repository and small machines written as text. Library code never
//! calls them.

use crate::ir::case::Case;
use crate::ir::function::Function;
use crate::ir::output::Output;
use crate::ir::text::{parse_and_validate, print_allocation};
use std::path::{Path, PathBuf};

/// The repository's root folder (where `tests/` and `corpus/` live), as this
/// crate was built from it.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the allocator crate sits in the repository root")
        .to_path_buf()
}

/// Whether the deep sweeps run: `RAFUZZ_DEEP=1`, as CI's release stage
/// sets it (`scripts/deep-tests.sh`).
pub fn deep() -> bool {
    std::env::var("RAFUZZ_DEEP").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// How many of a property sweep's `full` iterations to run: all of them
/// when [`deep`], a fifth otherwise (at least one), so that `cargo test`
/// stays within three minutes on a fresh clone of a 2-core machine while
/// the same sweep runs in full, optimised, in CI.
pub fn sweep(full: usize) -> usize {
    if deep() {
        full
    } else {
        (full / 5).max(1)
    }
}

/// The `.ra` files directly in `dir` (relative to [`repo_root`], or
/// absolute), sorted by name so that failures come in a stable order.
pub fn ra_files(dir: impl AsRef<Path>) -> Vec<PathBuf> {
    let dir = repo_root().join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ra"))
        .collect();
    files.sort();
    files
}

/// The hand-written cases of `tests/cases/<sub>/`.
pub fn hand_written(sub: &str) -> Vec<PathBuf> {
    ra_files(format!("tests/cases/{sub}"))
}

/// The valid case in the file at `path`; panics with `FILE: LINE:COL:
/// message` when it does not read or validate.
pub fn read_case(path: &Path) -> Case {
    let src = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    match parse_and_validate(&src) {
        Ok((case, _)) => case,
        Err(errs) => panic!("{}: {}", path.display(), errs[0]),
    }
}

/// The case `tests/cases/unit/{name}.ra`, `name` being `<area>/<case>`:
/// unit tests keep their cases there rather than inline, so that each is a
/// file `rafuzz` can validate and replay; panics as [`read_case`] does.
pub fn unit_case(name: &str) -> Case {
    read_case(&repo_root().join(format!("tests/cases/unit/{name}.ra")))
}

/// The valid case made of [`machine`]`(regs)` and the `function` section
/// given; panics with the first error when it does not validate.
pub fn case_on(regs: [&str; 3], function: &str) -> Case {
    let src = format!("{}{function}", machine(regs));
    match parse_and_validate(src.as_bytes()) {
        Ok((case, _)) => case,
        Err(errs) => panic!("{}\n{src}", errs[0]),
    }
}

/// A machine section whose classes (int, float, vector) list `regs` after
/// `preferred`: each entry is the rest of its line, so it may go on with
/// `nonpreferred`, `scratch` and `fixed_stack` lists (a missing one is
/// `none`).
pub fn machine(regs: [&str; 3]) -> String {
    format!(
        "machine\n  int    preferred {}\n  float  preferred {}\n  vector preferred {}\nend\n",
        regs[0], regs[1], regs[2]
    )
}

/// The machine section most unit tests use: int registers `ints` (a list
/// such as `p0i-p1i`, maybe followed by more lists), one float and one
/// vector register.
pub fn int_machine(ints: &str) -> String {
    machine([ints, "p0f", "p0v"])
}

/// `out`'s allocation section as `rafuzz alloc` prints it, each line
/// trimmed, for tests that look for a few lines of it.
pub fn allocation_lines(f: &Function, out: &Output) -> String {
    let mut s = String::new();
    print_allocation(&mut s, f, out);
    s.lines().map(|l| format!("{}\n", l.trim())).collect()
}
