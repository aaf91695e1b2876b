//! The subcommands of `rafuzz`, as functions that write to a sink and return
//! the exit status, so tests can run them without a process.

use allocator::text::parse_and_validate;
use std::io::Write;
use std::path::Path;

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

/// `rafuzz validate FILE...`: `FILE: ok` per valid case, `FILE:LINE:COL:
/// message` per error; status 1 if any file has an error.
pub fn validate(files: &[impl AsRef<Path>], out: &mut dyn Write) -> i32 {
    let mut status = 0;
    for path in files {
        let path = path.as_ref();
        let Some(src) = read_file(path, out) else {
            status = 1;
            continue;
        };
        match parse_and_validate(&src) {
            Ok(_) => {
                let _ = writeln!(out, "{}: ok", path.display());
            }
            Err(diags) => {
                status = 1;
                for d in diags {
                    let _ = writeln!(out, "{}:{d}", path.display());
                }
            }
        }
    }
    status
}

/// `rafuzz list`: the allocators and the fuzz targets.
pub fn list(out: &mut dyn Write) -> i32 {
    let _ = writeln!(out, "allocators:");
    for a in allocator::allocators() {
        let _ = writeln!(out, "  {}", a.name());
    }
    let _ = writeln!(out, "targets:");
    for t in crate::targets() {
        let _ = writeln!(out, "  {:<24} {}", t.name, t.description);
    }
    0
}
