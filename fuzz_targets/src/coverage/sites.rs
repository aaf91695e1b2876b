//! Where each counter's code comes from: its file, function and line, read
//! from the binary's own debug info with the PC table, and the crate the
//! file belongs to. Source paths are the compiler's, so the code of a
//! crate from cargo's registry is attributed as well as the workspace's.

use std::collections::HashMap;
use std::path::Path;

/// One counter's place in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Site {
    /// Index into [`Sites::files`].
    pub file: u32,
    /// Index into [`Sites::functions`].
    pub function: u32,
    pub line: u32,
}

/// The place of every counter, with the files and functions named once.
#[derive(Default, Debug)]
pub struct Sites {
    pub files: Vec<String>,
    pub functions: Vec<String>,
    /// Per counter, in counter order; `None` where the debug info says
    /// nothing.
    pub of: Vec<Option<Site>>,
}

impl Sites {
    /// The sites of `pcs` (runtime addresses) in the binary at `binary`,
    /// loaded at `base` (position-independent: file addresses start at 0).
    pub fn of_pcs(binary: &Path, base: usize, pcs: &[usize]) -> Result<Sites, String> {
        #[cfg(feature = "coverage")]
        {
            let loader = addr2line::Loader::new(binary)
                .map_err(|e| format!("{}: cannot read debug info: {e}", binary.display()))?;
            let mut b = Builder::default();
            for &pc in pcs {
                let probe = pc.wrapping_sub(base) as u64;
                let mut frames = match loader.find_frames(probe) {
                    Ok(f) => f,
                    Err(_) => {
                        b.sites.of.push(None);
                        continue;
                    }
                };
                // The innermost frame: code inlined elsewhere counts where
                // it was written.
                let frame = frames.next().ok().flatten();
                let site = frame.and_then(|f| {
                    let loc = f.location?;
                    let name = f
                        .function
                        .as_ref()
                        .and_then(|n| n.demangle().ok())
                        .map(|n| n.into_owned())
                        .unwrap_or_else(|| "?".to_string());
                    Some(b.site(loc.file?, &name, loc.line.unwrap_or(0)))
                });
                b.sites.of.push(site);
            }
            Ok(b.sites)
        }
        #[cfg(not(feature = "coverage"))]
        {
            let _ = (binary, base, pcs);
            Err("rafuzz was built without the `coverage` feature".to_string())
        }
    }

    /// The sites of this process's counters.
    pub fn of_process() -> Result<Sites, String> {
        let exe =
            std::fs::read_link("/proc/self/exe").map_err(|e| format!("/proc/self/exe: {e}"))?;
        let maps = std::fs::read_to_string("/proc/self/maps").map_err(|e| e.to_string())?;
        let base = load_base(&maps, &exe.to_string_lossy())
            .ok_or("cannot find where the program is loaded (/proc/self/maps)")?;
        Sites::of_pcs(&exe, base, &super::counters::pcs())
    }
}

/// Names files and functions once as sites come in.
#[derive(Default)]
#[cfg_attr(not(feature = "coverage"), allow(dead_code))]
struct Builder {
    sites: Sites,
    files: HashMap<String, u32>,
    functions: HashMap<String, u32>,
}

#[cfg_attr(not(feature = "coverage"), allow(dead_code))]
impl Builder {
    fn site(&mut self, file: &str, function: &str, line: u32) -> Site {
        let intern = |map: &mut HashMap<String, u32>, list: &mut Vec<String>, s: &str| {
            *map.entry(s.to_string()).or_insert_with(|| {
                list.push(s.to_string());
                list.len() as u32 - 1
            })
        };
        Site {
            file: intern(&mut self.files, &mut self.sites.files, file),
            function: intern(&mut self.functions, &mut self.sites.functions, function),
            line,
        }
    }
}

/// Where the program `exe` is mapped from its first byte, from the text
/// of `/proc/self/maps`.
pub fn load_base(maps: &str, exe: &str) -> Option<usize> {
    maps.lines().find_map(|l| {
        let mut w = l.split_whitespace();
        let (range, _perms, offset) = (w.next()?, w.next()?, w.next()?);
        let path = w.nth(2)?;
        (path == exe && usize::from_str_radix(offset, 16).ok()? == 0)
            .then(|| usize::from_str_radix(range.split('-').next()?, 16).ok())
            .flatten()
    })
}

/// The crate a source file belongs to: the folder holding its `src/`
/// (the last one on the path), without a registry version suffix
/// (`regalloc2-0.15.2` is `regalloc2`).
pub fn crate_of(path: &str) -> Option<&str> {
    let parts: Vec<&str> = path.split('/').collect();
    let src = parts.iter().rposition(|&p| p == "src")?;
    let dir = *parts.get(src.checked_sub(1)?)?;
    Some(match dir.rfind('-') {
        Some(i) if dir[i + 1..].starts_with(|c: char| c.is_ascii_digit()) => &dir[..i],
        _ => dir,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_belongs_to_the_crate_around_its_src() {
        let reg = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/regalloc2-0.15.2/src/ion/process.rs";
        assert_eq!(crate_of(reg), Some("regalloc2"));
        assert_eq!(
            crate_of("/work/main/allocator/src/linear_scan/scan.rs"),
            Some("allocator")
        );
        assert_eq!(
            crate_of("/rustc/abc/library/core/src/iter/mod.rs"),
            Some("core")
        );
        assert_eq!(
            crate_of("/x/rand_chacha-0.3.1/src/lib.rs"),
            Some("rand_chacha")
        );
        assert_eq!(
            crate_of("/x/cranelift-codegen/src/lib.rs"),
            Some("cranelift-codegen")
        );
        assert_eq!(crate_of("lib.rs"), None);
    }

    #[test]
    fn the_base_is_the_mapping_of_the_first_byte() {
        let maps = "\
55d0c0000000-55d0c0100000 r--p 00000000 08:01 123 /usr/bin/rafuzz
55d0c0100000-55d0c0900000 r-xp 00100000 08:01 123 /usr/bin/rafuzz
7f0000000000-7f0000100000 r--p 00000000 08:01 456 /usr/lib/libc.so.6
";
        assert_eq!(load_base(maps, "/usr/bin/rafuzz"), Some(0x55d0c0000000));
        assert_eq!(load_base(maps, "/usr/bin/other"), None);
    }
}
