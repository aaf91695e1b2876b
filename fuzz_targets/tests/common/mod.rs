//! What the tests that run the `rafuzz` binary share.

use std::path::PathBuf;
use std::process::Command;

/// Runs `rafuzz ARGS` from the repository root: its exit status and its
/// output, stdout then stderr.
pub fn rafuzz(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rafuzz"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap();
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.code().unwrap_or(-1), text)
}

/// The repository root.
pub fn root() -> PathBuf {
    allocator::fixtures::repo_root()
}

/// A scratch folder of its own for one test (`group` names the test file).
pub fn scratch(group: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rafuzz-{group}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
