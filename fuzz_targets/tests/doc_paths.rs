//! Every repository path the README and `docs/` cite exists: a path in
//! backquotes or a link target that starts with one of the project's
//! top-level folders, and every relative link between the pages.

use std::path::{Path, PathBuf};

/// The folders a cited path starts with.
const ROOTS: [&str; 11] = [
    "allocator/",
    "checker/",
    "ssagen/",
    "fuzz_targets/",
    "tests/",
    "scripts/",
    "docs/",
    "corpus/",
    ".ci/",
    ".clusterfuzzlite/",
    ".github/",
];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The paths a page cites that do not exist, as `page: path`; `dir` is the
/// page's folder, against which its relative links resolve.
fn missing(page: &str, text: &str, root: &Path, dir: &Path) -> Vec<String> {
    let mut cited: Vec<(String, bool)> = Vec::new();
    for (i, chunk) in text.split('`').enumerate() {
        if i % 2 == 1 {
            cited.push((chunk.to_string(), false));
        }
    }
    for (at, _) in text.match_indices("](") {
        let rest = &text[at + 2..];
        let end = rest.find(')').unwrap_or(rest.len());
        cited.push((rest[..end].to_string(), true));
    }
    let mut out = Vec::new();
    for (c, link) in cited {
        if c.contains("://") {
            continue;
        }
        let c = c.split('#').next().unwrap_or("").trim();
        let c = c.split(':').next().unwrap_or("");
        let c = c.split_whitespace().next().unwrap_or("");
        let c = c.trim_end_matches(['.', ',', ';', ')']);
        if c.is_empty() || c.contains(['*', '<', '{', '$', '…']) {
            continue;
        }
        let path = if ROOTS.iter().any(|r| c.starts_with(r)) {
            root.join(c)
        } else if link && !c.starts_with('/') && !c.starts_with("..") {
            dir.join(c)
        } else {
            continue;
        };
        if !path.exists() {
            out.push(format!("{page}: {c}"));
        }
    }
    out
}

#[test]
fn every_path_the_readme_and_docs_cite_exists() {
    let root = repo();
    let mut pages = vec![root.join("README.md")];
    for e in std::fs::read_dir(root.join("docs")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(p);
        }
    }
    let mut all = Vec::new();
    for p in &pages {
        let text = std::fs::read_to_string(p).unwrap();
        let name = p.strip_prefix(&root).unwrap().display().to_string();
        all.extend(missing(&name, &text, &root, p.parent().unwrap()));
    }
    assert!(pages.len() > 10, "{pages:?}");
    assert!(
        all.is_empty(),
        "cited paths that do not exist:\n{}",
        all.join("\n")
    );
}

#[test]
fn a_stale_path_is_reported() {
    let root = repo();
    let text = "see `allocator/src/moves.rs`, `allocator/src/gone.rs:12`, \
                [the map](architecture.md#layout), [nothing](nothing.md) and `tests/cases/<name>/`";
    assert_eq!(
        missing("page", text, &root, &root.join("docs")),
        ["page: allocator/src/gone.rs", "page: nothing.md"]
    );
}
