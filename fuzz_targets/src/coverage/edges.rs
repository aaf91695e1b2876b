//! The counters of the code under test, and what an input or a corpus
//! reached of them. A crate's counters are those whose site is in one of
//! its files; the others are left alone (they are the harness's, the
//! generator's, the standard library's).

use super::counters;
use super::sites::{crate_of, Sites};

/// AFL's and libFuzzer's hit-count buckets: 1, 2, 3, 4-7, 8-15, 16-31,
/// 32-127, 128 or more (the byte wraps at 256, as theirs does); 0 for
/// none.
#[inline]
pub fn bucket(hits: u8) -> u8 {
    match hits {
        0 => 0,
        1..=3 => hits,
        4..=7 => 4,
        8..=15 => 5,
        16..=31 => 6,
        32..=127 => 7,
        _ => 8,
    }
}

/// The crates under test, as a set of [`Edges`] groups (at most 64).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scope(u64);

/// One crate's counters.
struct Group {
    name: String,
    /// Each counter's address and number.
    counters: Vec<(usize, u32)>,
}

/// The counters of some crates of this process, with every counter's site.
pub struct Edges {
    groups: Vec<Group>,
    pub sites: Sites,
}

impl std::fmt::Debug for Edges {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.crates()).finish()
    }
}

impl Edges {
    /// The counters of `crates` in this process, each counter set back to
    /// zero; an error when the build counts no edges or its debug info
    /// cannot be read.
    pub fn of_process(crates: &[&str]) -> Result<Edges, String> {
        if !counters::instrumented() {
            return Err(NOT_INSTRUMENTED.to_string());
        }
        let sites = Sites::of_process()?;
        let e = Edges::of_sites(sites, &counters::addresses(), crates);
        e.clear();
        Ok(e)
    }

    /// [`Edges::of_process`] without the sites, for guiding a campaign:
    /// read from a cache beside the system's temporary files when this
    /// same binary already attributed its counters for `crates` (worker
    /// processes start in milliseconds, not the half second attribution
    /// takes), written there otherwise.
    pub fn for_guidance(crates: &[&str]) -> Result<Edges, String> {
        if !counters::instrumented() {
            return Err(NOT_INSTRUMENTED.to_string());
        }
        let addresses = counters::addresses();
        let cache = cache_path(crates);
        if let Some(e) = cache
            .as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .and_then(|text| Edges::of_cache(&text, &addresses, crates))
        {
            e.clear();
            return Ok(e);
        }
        let mut e = Edges::of_process(crates)?;
        if let Some(p) = cache {
            let tmp = p.with_extension(format!("tmp{}", std::process::id()));
            if std::fs::write(&tmp, e.to_cache()).is_ok() {
                let _ = std::fs::rename(&tmp, &p);
            }
        }
        e.sites = Sites::default();
        Ok(e)
    }

    /// The kept counters as text: one line per crate, its name then its
    /// counter numbers.
    fn to_cache(&self) -> String {
        let mut s = String::new();
        for g in &self.groups {
            s.push_str(&g.name);
            for &(_, n) in &g.counters {
                s.push(' ');
                s.push_str(&n.to_string());
            }
            s.push('\n');
        }
        s
    }

    /// The edges [`Edges::to_cache`] wrote, if it names `crates` in order
    /// and only counters that exist.
    fn of_cache(text: &str, addresses: &[usize], crates: &[&str]) -> Option<Edges> {
        let lines: Vec<&str> = text.lines().collect();
        if lines.len() != crates.len() {
            return None;
        }
        let mut groups = Vec::new();
        for (line, &name) in lines.iter().zip(crates) {
            let mut words = line.split(' ');
            if words.next() != Some(name) {
                return None;
            }
            let counters = words
                .map(|w| {
                    let n: u32 = w.parse().ok()?;
                    Some((*addresses.get(n as usize)?, n))
                })
                .collect::<Option<Vec<_>>>()?;
            groups.push(Group {
                name: name.to_string(),
                counters,
            });
        }
        Some(Edges {
            groups,
            sites: Sites::default(),
        })
    }

    /// The counters at `addresses` whose sites are in `crates`: each a
    /// crate's name, or a source file's path tail (it has a `/`).
    pub fn of_sites(sites: Sites, addresses: &[usize], crates: &[&str]) -> Edges {
        let mut groups: Vec<Group> = crates
            .iter()
            .map(|c| Group {
                name: c.to_string(),
                counters: Vec::new(),
            })
            .collect();
        // One lookup per file, not per counter.
        let file_group: Vec<Option<usize>> = sites
            .files
            .iter()
            .map(|f| crates.iter().position(|&k| is_in(f, k)))
            .collect();
        for (i, site) in sites.of.iter().enumerate() {
            if let Some(g) = site.and_then(|s| file_group[s.file as usize]) {
                groups[g].counters.push((addresses[i], i as u32));
            }
        }
        Edges { groups, sites }
    }

    /// The crates kept, in the order given.
    pub fn crates(&self) -> impl Iterator<Item = (&str, usize)> {
        self.groups
            .iter()
            .map(|g| (g.name.as_str(), g.counters.len()))
    }

    /// The scope of `crates` (those kept; others are ignored).
    pub fn scope(&self, crates: &[&str]) -> Scope {
        Scope(
            self.groups
                .iter()
                .enumerate()
                .filter(|(_, g)| crates.contains(&g.name.as_str()))
                .fold(0, |m, (i, _)| m | 1 << i),
        )
    }

    /// Sets every kept counter back to zero.
    pub fn clear(&self) {
        for g in &self.groups {
            for &(a, _) in &g.counters {
                counters::take(a);
            }
        }
    }

    /// What one input reached: every kept counter read and set back to
    /// zero, and each nonzero one of `scope` noted as a feature (counter
    /// and bucket).
    pub fn harvest(&self, scope: Scope) {
        self.each(scope, |n, hits| {
            crate::books::features::note_edge(n, bucket(hits));
        });
    }

    /// What a corpus reached: every kept counter read and set back to
    /// zero, and each nonzero one of `scope` counted into `hits` (indexed
    /// by counter number, saturating).
    pub fn gather(&self, scope: Scope, hits: &mut [u32]) {
        self.each(scope, |n, h| {
            let c = &mut hits[n as usize];
            *c = c.saturating_add(u32::from(h));
        });
    }

    fn each(&self, scope: Scope, mut f: impl FnMut(u32, u8)) {
        for (i, g) in self.groups.iter().enumerate() {
            let on = scope.0 & (1 << i) != 0;
            for &(a, n) in &g.counters {
                let hits = counters::take(a);
                if on && hits != 0 {
                    f(n, hits);
                }
            }
        }
    }

    /// The counter numbers of `scope`.
    pub fn numbers(&self, scope: Scope) -> Vec<u32> {
        self.groups
            .iter()
            .enumerate()
            .filter(|(i, _)| scope.0 & (1 << i) != 0)
            .flat_map(|(_, g)| g.counters.iter().map(|&(_, n)| n))
            .collect()
    }
}

/// What `--coverage` and `rafuzz coverage` say on a build without counters.
const NOT_INSTRUMENTED: &str =
    "this rafuzz counts no edges: build it with scripts/coverage-build.sh";

/// Whether source file `path` is code `k`: the crate `k` names, or, when
/// `k` has a `/`, the file whose path ends in `k`.
fn is_in(path: &str, k: &str) -> bool {
    if k.contains('/') {
        path.strip_suffix(k)
            .is_some_and(|head| head.is_empty() || head.ends_with('/'))
    } else {
        crate_of(path) == Some(k)
    }
}

/// Where this binary's attribution for `crates` is cached: a name made of
/// the binary's path, size and modification time, and the crates.
fn cache_path(crates: &[&str]) -> Option<std::path::PathBuf> {
    use std::hash::{Hash, Hasher};
    let exe = std::env::current_exe().ok()?;
    let meta = std::fs::metadata(&exe).ok()?;
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (&exe, meta.len(), meta.modified().ok(), crates).hash(&mut h);
    Some(std::env::temp_dir().join(format!("rafuzz-edges-{:016x}", h.finish())))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::sites::Site;

    #[test]
    fn code_is_a_crate_or_a_file_by_its_path_tail() {
        let faults = "/w/fuzz_targets/src/testing/faults.rs";
        assert!(is_in(faults, "fuzz_targets/src/testing/faults.rs"));
        assert!(is_in(faults, "fuzz_targets"));
        assert!(!is_in(faults, "allocator"));
        assert!(!is_in(
            "/w/my_fuzz_targets/src/testing/faults.rs",
            "fuzz_targets/src/testing/faults.rs"
        ));
        assert!(!is_in(
            "/w/fuzz_targets/src/testing/faults.rs.bak",
            "fuzz_targets/src/testing/faults.rs"
        ));
        assert!(is_in("/r/regalloc2-0.15.2/src/ion/mod.rs", "regalloc2"));
    }

    #[test]
    fn buckets_follow_afl() {
        let b: Vec<u8> = [0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 127, 128, 255]
            .map(bucket)
            .to_vec();
        assert_eq!(b, [0, 1, 2, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8]);
    }

    /// Counters in plain memory stand for the instrumented ones: those of
    /// the scope are counted and every kept one is cleared; a crate not
    /// asked for keeps nothing.
    #[test]
    fn a_scope_gathers_its_own_crates_counters() {
        let mut mem = [3u8, 1, 0, 9, 5];
        let addresses: Vec<usize> = (0..5).map(|i| &mut mem[i] as *mut u8 as usize).collect();
        let site = |file, line| {
            Some(Site {
                file,
                function: 0,
                line,
            })
        };
        let sites = Sites {
            files: vec![
                "/w/allocator/src/a.rs".into(),
                "/r/regalloc2-0.15.2/src/b.rs".into(),
                "/w/ssagen/src/c.rs".into(),
            ],
            functions: vec!["f".into()],
            of: vec![site(0, 1), site(1, 2), site(0, 3), site(2, 4), None],
        };
        let e = Edges::of_sites(sites, &addresses, &["allocator", "regalloc2"]);
        let ours = e.scope(&["allocator"]);
        assert_eq!(e.numbers(ours), [0, 2]);
        let mut hits = vec![0u32; 5];
        e.gather(ours, &mut hits);
        assert_eq!(hits, [3, 0, 0, 0, 0]);
        // SAFETY: the counters live in `mem`, which outlives them.
        let now: Vec<u8> = addresses
            .iter()
            .map(|&a| unsafe { *(a as *const u8) })
            .collect();
        assert_eq!(now, [0, 0, 0, 9, 5], "kept counters cleared, others left");
        // The cache gives the same counters back, and refuses another
        // crate list or a counter the process does not have.
        let text = e.to_cache();
        let back = Edges::of_cache(&text, &addresses, &["allocator", "regalloc2"]).unwrap();
        assert_eq!(
            back.numbers(back.scope(&["allocator", "regalloc2"])),
            [0, 2, 1]
        );
        assert!(Edges::of_cache(&text, &addresses, &["allocator"]).is_none());
        assert!(Edges::of_cache(&text, &addresses[..2], &["allocator", "regalloc2"]).is_none());
    }
}
