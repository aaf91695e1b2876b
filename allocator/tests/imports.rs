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
/// empty for `lib.rs`) and its text without comments.
struct Module {
    path: Vec<String>,
    code: String,
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
            out.push(Module {
                path,
                code: strip_comments(&std::fs::read_to_string(&p).unwrap()),
            });
        }
    }
    out
}

/// The paths a module names: `crate::a::b` and `super::a` (made absolute),
/// with `use crate::a::{b, c::d}` groups expanded one level.
fn named_paths(m: &Module) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let code = &m.code;
    let mut out = Vec::new();
    for (at, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        if at > 0 && (ident(code[..at].chars().last().unwrap()) || code[..at].ends_with("::")) {
            continue;
        }
        let mut base: Vec<String> = Vec::new();
        let mut rest = &code[at..];
        if rest.starts_with("crate::") {
            rest = &rest["crate::".len()..];
        } else {
            base = m.path.clone();
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
        }
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
            let mut target: Vec<String> = m.path.clone();
            target.extend(full.split("::").filter(|s| !s.is_empty()).map(String::from));
            let name = target.last().unwrap().clone();
            map.insert(name, target);
        }
    }
    map
}

fn check_crate(src: &Path) -> Vec<String> {
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
        for p in named_paths(m) {
            if let Some(t) = resolve(p) {
                // A parent's own `mod`/re-export lines and a child naming its
                // own ancestors' namespace are not imports of code.
                if t != m.path && !t.is_empty() && !m.path.starts_with(&t) {
                    edges.entry(m.path.clone()).or_default().insert(t);
                }
            }
        }
    }
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
