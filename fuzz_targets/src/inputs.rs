//! The inputs named on a command line: files, and folders standing for the
//! files in them.

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
