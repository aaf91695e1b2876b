//! No module of the workspace imports, directly or through others, a module
//! that imports it back. Cargo already forbids cycles between crates; this
//! test forbids them between the files of each crate, test modules
//! included, so that `docs/architecture.md` can draw the data path as a
//! graph that only goes one way.
//!
//! A file's imports are the `crate::…` and `super::…` paths it names outside
//! comments, resolved to the deepest file module they reach; a path through
//! a re-export (`pub use` in a `lib.rs` or `mod.rs`) counts as naming the
//! module re-exported from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The crates of the workspace, as folders beside this one.
const CRATES: [&str; 4] = ["allocator", "checker", "ssagen", "fuzz_targets"];

/// One source file as a module: its path from the crate root (`analysis::cfg`,
/// empty for `lib.rs`), its text without comments, and the byte ranges of
/// the inline modules it holds (`mod tests { ... }`), in which `super::`
/// first leaves the inline module, not the file.
struct Module {
    path: Vec<String>,
    code: String,
    inline: Vec<(usize, usize)>,
}

/// The byte ranges of the inline `mod NAME { ... }` blocks of `code`
/// (comments already stripped), skipping braces inside string and
/// character literals.
fn inline_modules(code: &str) -> Vec<(usize, usize)> {
    let b = code.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let (mut out, mut open, mut depth) = (Vec::new(), Vec::new(), 0usize);
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                // A raw string's hashes must match at its end.
                let hashes = code[..i].bytes().rev().take_while(|&c| c == b'#').count();
                let raw = i > hashes && b[i - hashes - 1] == b'r';
                i += 1;
                while i < b.len() {
                    if !raw && b[i] == b'\\' {
                        i += 2;
                        continue;
                    }
                    if b[i] == b'"'
                        && b[i + 1..]
                            .iter()
                            .take(hashes)
                            .filter(|&&c| c == b'#')
                            .count()
                            == hashes
                    {
                        break;
                    }
                    i += 1;
                }
            }
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                i += 2;
                while i < b.len() && b[i] != b'\'' {
                    i += 1;
                }
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => i += 2,
            b'{' => {
                depth += 1;
                let head = code[..i].trim_end();
                let name_len = head.bytes().rev().take_while(|&c| ident(c)).count();
                let before = head[..head.len() - name_len].trim_end();
                if name_len > 0
                    && before.ends_with("mod")
                    && !before[..before.len() - 3].bytes().last().is_some_and(ident)
                {
                    open.push((i, depth));
                }
            }
            b'}' => {
                if open.last().is_some_and(|&(_, d)| d == depth) {
                    let (start, _) = open.pop().unwrap();
                    out.push((start, i));
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
        i += 1;
    }
    out
}

fn strip_comments(src: &str) -> String {
    src.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn modules(src: &Path) -> Vec<Module> {
    let mut out = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                if p.file_name().unwrap() != "bin" {
                    stack.push(p);
                }
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap();
            let mut path: Vec<String> = rel
                .iter()
                .map(|c| c.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            if matches!(path.last().map(String::as_str), Some("lib" | "mod")) {
                path.pop();
            }
            let code = strip_comments(&std::fs::read_to_string(&p).unwrap());
            out.push(Module {
                path,
                inline: inline_modules(&code),
                code,
            });
        }
    }
    out
}

/// The paths a module names: `crate::a::b`, `super::a` and `self::a` (made
/// absolute; `super::` in an inline module first leaves that module), and
/// `child::a` for a file module of its own, with `use crate::a::{b, c::d}`
/// groups expanded one level.
fn named_paths(m: &Module, files: &BTreeSet<Vec<String>>) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let code = &m.code;
    let mut out = Vec::new();
    for (at, _) in code.match_indices("::") {
        let head = &code[..at];
        let n = head.len() - head.trim_end_matches(ident).len();
        let at = at - n;
        if n == 0
            || (at > 0 && (ident(code[..at].chars().last().unwrap()) || code[..at].ends_with("::")))
        {
            continue;
        }
        let mut rest = &code[at..];
        let base = if let Some(r) = rest.strip_prefix("crate::") {
            rest = r;
            Vec::new()
        } else if rest.starts_with("super::") {
            let mut base = m.path.clone();
            let mut inline = m.inline.iter().filter(|&&(s, e)| s < at && at < e).count();
            while let Some(r) = rest.strip_prefix("super::") {
                if inline > 0 {
                    inline -= 1;
                } else {
                    base.pop();
                }
                rest = r;
            }
            base
        } else if let Some(r) = rest.strip_prefix("self::") {
            rest = r;
            m.path.clone()
        } else {
            let mut child = m.path.clone();
            child.push(rest[..n].to_string());
            if !files.contains(&child) {
                continue;
            }
            m.path.clone()
        };
        let mut path = base;
        loop {
            let n = rest.find(|c: char| !ident(c)).unwrap_or(rest.len());
            if n == 0 {
                break;
            }
            path.push(rest[..n].to_string());
            rest = &rest[n..];
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => break,
            }
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let mut p = path.clone();
                p.extend(
                    item.trim()
                        .split("::")
                        .map(|s| s.trim().to_string())
                        .filter(|s| !s.is_empty() && s.chars().all(ident)),
                );
                out.push(p);
            }
        } else {
            out.push(path);
        }
    }
    out
}

/// `pub use` re-exports of one module: exported name -> the path it names.
fn reexports(m: &Module) -> BTreeMap<String, Vec<String>> {
    let mut map = BTreeMap::new();
    for stmt in m.code.split(';') {
        let Some(i) = stmt.find("pub use ") else {
            continue;
        };
        let body: String = stmt[i + "pub use ".len()..]
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        let from_root = body.starts_with("crate::");
        let body = body
            .trim_start_matches("crate::")
            .trim_start_matches("self::");
        let (prefix, items) = match body.find('{') {
            Some(b) => (&body[..b], body[b + 1..].trim_end_matches('}')),
            None => match body.rfind("::") {
                Some(c) => (&body[..c + 2], &body[c + 2..]),
                None => ("", body),
            },
        };
        for item in items.split(',').filter(|s| !s.is_empty()) {
            let full = format!("{prefix}{item}");
            let mut target: Vec<String> = if from_root {
                Vec::new()
            } else {
                m.path.clone()
            };
            target.extend(full.split("::").filter(|s| !s.is_empty()).map(String::from));
            let name = target.last().unwrap().clone();
            map.insert(name, target);
        }
    }
    map
}

/// Every file module of the crate under `src`, and the modules each one
/// imports.
type Graph = (
    BTreeSet<Vec<String>>,
    BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
);

fn import_graph(src: &Path) -> Graph {
    let mods = modules(src);
    let files: BTreeSet<Vec<String>> = mods.iter().map(|m| m.path.clone()).collect();
    let exports: BTreeMap<Vec<String>, BTreeMap<String, Vec<String>>> = mods
        .iter()
        .map(|m| (m.path.clone(), reexports(m)))
        .collect();
    // The deepest file module a path reaches, following re-exports.
    let resolve = |mut p: Vec<String>| -> Option<Vec<String>> {
        for _ in 0..8 {
            let mut k = p.len();
            while k > 0 && !files.contains(&p[..k]) {
                k -= 1;
            }
            let module = p[..k].to_vec();
            match p.get(k).and_then(|name| exports.get(&module)?.get(name)) {
                Some(target) => {
                    let mut q = target.clone();
                    q.extend_from_slice(&p[k + 1..]);
                    p = q;
                }
                None => return Some(module),
            }
        }
        None
    };
    let mut edges: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
    for m in &mods {
        for p in named_paths(m, &files) {
            if let Some(t) = resolve(p) {
                // Naming itself is no import; naming the crate root or a
                // parent module is one, as much as naming a sibling.
                if t != m.path {
                    edges.entry(m.path.clone()).or_default().insert(t);
                }
            }
        }
    }
    (files, edges)
}

fn check_crate(src: &Path) -> Vec<String> {
    let (files, edges) = import_graph(src);
    // Every cycle shows as a back edge of a depth-first search.
    let mut cycles = Vec::new();
    let mut state: BTreeMap<Vec<String>, u8> = BTreeMap::new();
    fn dfs(
        n: &Vec<String>,
        edges: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
        state: &mut BTreeMap<Vec<String>, u8>,
        stack: &mut Vec<Vec<String>>,
        cycles: &mut Vec<String>,
    ) {
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for t in edges.get(n).into_iter().flatten() {
            match state.get(t) {
                Some(1) => {
                    let i = stack.iter().position(|s| s == t).unwrap();
                    let names: Vec<String> =
                        stack[i..].iter().chain([t]).map(|s| s.join("::")).collect();
                    cycles.push(names.join(" -> "));
                }
                Some(_) => {}
                None => dfs(t, edges, state, stack, cycles),
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
    }
    for n in &files {
        if !state.contains_key(n) {
            dfs(n, &edges, &mut state, &mut Vec::new(), &mut cycles);
        }
    }
    cycles
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

#[test]
fn no_module_imports_itself_back() {
    let mut all = Vec::new();
    for c in CRATES {
        for cycle in check_crate(&workspace().join(c).join("src")) {
            all.push(format!("{c}: {cycle}"));
        }
    }
    assert!(all.is_empty(), "circular imports:\n{}", all.join("\n"));
}

/// The floors of `fuzz_targets`, lowest first, each a list of module
/// paths (a path covers the modules under it; the longest that matches
/// decides). A module imports only from its own floor or lower ones: the
/// vocabulary, a campaign's books, the allocators (ours are a crate
/// below; the adapters and the planted faults here), the registry that
/// composes them, judging with the registry's knowledge, the spec resolved
/// over the registry's profiles, the targets, the tools and engine over
/// them, and the command line on top.
const FUZZ_TARGETS_FLOORS: [&[&str]; 9] = [
    &[
        "spec",
        "registry::entry",
        "judging",
        "harness",
        "books",
        "edit",
        "coverage",
    ],
    &["books::context"],
    &["outside", "testing"],
    &["registry"],
    &["judging::judge"],
    &["harness::narrowing"],
    &["targets"],
    &["tools", "engine"],
    &["cli", ""],
];

/// The floor of `module` among `floors`: the index of the longest
/// matching path.
fn floor_of(module: &[String], floors: &[&[&str]]) -> Option<usize> {
    let covers = |path: &str| {
        let p: Vec<&str> = path.split("::").filter(|s| !s.is_empty()).collect();
        module.len() >= p.len() && module.iter().zip(&p).all(|(a, b)| a == b)
    };
    floors
        .iter()
        .enumerate()
        .flat_map(|(i, f)| f.iter().map(move |p| (i, p)))
        .filter(|(_, p)| covers(p))
        .max_by_key(|(_, p)| p.split("::").filter(|s| !s.is_empty()).count())
        .map(|(i, _)| i)
}

/// Each import of the crate under `src` that runs from a floor up to a
/// higher one, and each module no floor covers.
fn upward_imports(src: &Path, floors: &[&[&str]]) -> Vec<String> {
    let (files, edges) = import_graph(src);
    let mut bad = Vec::new();
    for f in &files {
        let Some(from) = floor_of(f, floors) else {
            bad.push(format!("{} is on no floor", f.join("::")));
            continue;
        };
        for t in edges.get(f).into_iter().flatten() {
            if floor_of(t, floors).is_some_and(|to| to > from) {
                bad.push(format!("{} -> {}", f.join("::"), t.join("::")));
            }
        }
    }
    bad
}

#[test]
fn fuzz_targets_imports_only_downward() {
    let bad = upward_imports(
        &workspace().join("fuzz_targets").join("src"),
        &FUZZ_TARGETS_FLOORS,
    );
    assert!(bad.is_empty(), "imports that run up:\n{}", bad.join("\n"));
}

/// An import to the floor below passes, one to the floor above is found,
/// and the longest path decides a module's floor.
#[test]
fn an_upward_import_is_found() {
    let dir = std::env::temp_dir().join(format!("imports-floors-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("low")).unwrap();
    let write = |f: &str, s: &str| std::fs::write(dir.join(f), s).unwrap();
    let floors: [&[&str]; 3] = [&["low", ""], &["low::raised"], &["high"]];
    write("lib.rs", "pub mod high;\npub mod low;\n");
    write("low/mod.rs", "pub mod base;\npub mod raised;\n");
    write("low/base.rs", "pub struct B;\n");
    write("low/raised.rs", "use crate::low::base::B;\n");
    write("high.rs", "use crate::low::raised;\n");
    assert_eq!(upward_imports(&dir, &floors), Vec::<String>::new());
    write("low/base.rs", "use super::raised;\npub struct B;\n");
    let bad = upward_imports(&dir, &floors);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(bad, ["low::base -> low::raised"]);
}

#[test]
fn a_planted_cycle_is_found() {
    let dir = std::env::temp_dir().join(format!("imports-test-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("a")).unwrap();
    std::fs::write(
        dir.join("lib.rs"),
        "pub mod a;\npub mod b;\npub use a::x::X;\n",
    )
    .unwrap();
    std::fs::write(dir.join("a/mod.rs"), "pub mod x;\n").unwrap();
    std::fs::write(
        dir.join("a/x.rs"),
        "// crate::b is only a comment\npub struct X;\n",
    )
    .unwrap();
    std::fs::write(dir.join("b.rs"), "use crate::X;\n").unwrap();
    assert!(check_crate(&dir).is_empty());
    std::fs::write(dir.join("a/x.rs"), "use crate::{b::Y};\npub struct X;\n").unwrap();
    std::fs::write(dir.join("b.rs"), "use crate::X;\npub struct Y;\n").unwrap();
    let cycles = check_crate(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(cycles, ["a::x -> b -> a::x"]);
}

/// A module that defines what its children use and calls them back, a
/// crate root that children call into, and a test module's `super::` (the
/// file it sits in, not its parent) are told apart.
#[test]
fn loops_through_a_root_or_a_parent_are_found() {
    let dir = std::env::temp_dir().join(format!("imports-parent-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("p")).unwrap();
    let write = |f: &str, s: &str| std::fs::write(dir.join(f), s).unwrap();
    write("lib.rs", "pub mod p;\npub mod q;\n");
    write("p/mod.rs", "mod c;\npub use c::run;\n");
    write("p/c.rs", "pub fn run() {}\n#[cfg(test)]\nmod tests {\n    use super::*;\n    const B: char = '{';\n}\n");
    write("q.rs", "pub fn all() { crate::p::run() }\n");
    assert_eq!(check_crate(&dir), Vec::<String>::new());
    write(
        "p/mod.rs",
        "mod c;\npub struct Shared;\npub fn go() { c::run() }\n",
    );
    write("p/c.rs", "use super::Shared;\npub fn run() {}\n");
    assert_eq!(check_crate(&dir), ["p -> p::c -> p"]);
    write("p/mod.rs", "mod c;\n");
    write(
        "lib.rs",
        "pub mod p;\npub mod q;\npub fn all() { q::each() }\n",
    );
    write("q.rs", "pub fn each() { crate::all() }\n");
    let cycles = check_crate(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(cycles, [" -> q -> "]);
}
