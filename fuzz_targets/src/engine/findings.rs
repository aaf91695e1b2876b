//! Findings on disk: each written under `artifacts/<target>/` through a
//! temporary name and a rename, so a reader never sees half of one.

use crate::judging::failure::Failure;
use crate::targets::Target;
use std::path::{Path, PathBuf};

/// Writes the input (and, when the target's input makes a case, the case
/// as text) under `artifacts/<target>/<kind>-<hash>` (`crash`, `timeout`,
/// `oom` or `slow`), through a temporary name and a rename; the input goes
/// last, so a finding whose input is there is complete.
pub(super) fn save_finding(dir: &Path, t: &Target, input: &[u8], failure: &Failure) -> PathBuf {
    let d = dir.join(t.name);
    let name = format!("{}-{:016x}", failure.signature.oracle.kind(), hash(input));
    write_atomically(&d, &format!("{name}.txt"), failure.to_string().as_bytes());
    if let Some(proof) = &failure.proof {
        write_atomically(&d, &format!("{name}.proof.ra"), proof.as_bytes());
    }
    // The generator is ours and bounded: it runs here even for an input
    // that took a worker down (the allocator or the checker did that).
    if let Some(case) = t.case_of(input) {
        write_atomically(
            &d,
            &format!("{name}.ra"),
            allocator::ir::text::print(&case).as_bytes(),
        );
    }
    write_atomically(&d, &name, input);
    d.join(name)
}

/// FNV-1a of the input, for file names.
pub(super) fn hash(input: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in input {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Writes `dir/name` through a temporary name and a rename, so a reader (or
/// an interrupted campaign) never sees half a file.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) {
    let _ = std::fs::create_dir_all(dir);
    let tmp = dir.join(format!(".{name}.tmp"));
    if std::fs::write(&tmp, bytes).is_ok() {
        let _ = std::fs::rename(&tmp, dir.join(name));
    }
}
