//! The inputs named on a command line (files, and folders standing for the
//! files in them) and the seeded inputs `--seed` names.

use std::io::Write;
use std::path::{Path, PathBuf};

/// Files named on the command line, with directories expanded to the files
/// in them (sorted, not recursive).
pub fn expand_inputs(paths: &[impl AsRef<Path>]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        let p = p.as_ref();
        match std::fs::read_dir(p) {
            Ok(rd) => {
                let mut files: Vec<_> = rd
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.is_file())
                    .collect();
                files.sort();
                out.extend(files);
            }
            Err(_) => out.push(p.to_path_buf()),
        }
    }
    out
}

/// Reads a case file, or reports `FILE: cannot read: ...`.
pub fn read_file(path: &Path, out: &mut dyn Write) -> Option<Vec<u8>> {
    match std::fs::read(path) {
        Ok(b) => Some(b),
        Err(e) => {
            let _ = writeln!(out, "{}: cannot read: {e}", path.display());
            None
        }
    }
}

/// The fuzz input `rafuzz gen --seed N --size BYTES` works from: `size`
/// bytes from ChaCha8 seeded with `seed`.
pub fn seeded_bytes(seed: u64, size: usize) -> Vec<u8> {
    use rand::{RngCore, SeedableRng};
    let mut bytes = vec![0u8; size];
    rand_chacha::ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut bytes);
    bytes
}
