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

/// The name of the folder `path` lies in: the target a campaign's
/// `--save-corpus DIR` saved it for (`DIR/<target>/<input>`).
pub fn folder_name(path: &Path) -> Option<&str> {
    path.parent()?.file_name()?.to_str()
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

/// The case an input holds as text (a `.ra` seed in a corpus, or a mutant
/// of one), when it is one: the text of a valid case the generator's
/// feasibility rules accept, its allocation section dropped. Any other
/// input is bytes for the generator; a text that starts like a case but
/// does not parse is bytes too.
pub fn case_text(data: &[u8]) -> Option<allocator::Case> {
    if !(data.starts_with(b"machine") || data.starts_with(b"#")) {
        return None;
    }
    let (mut case, _) = allocator::ir::text::parse_and_validate(data).ok()?;
    case.output = None;
    ssagen::feasibility::check_case(&case).ok()?;
    Some(case)
}
