//! What a corpus reached of the code under test, per file and function:
//! the share of edges (counters) hit and of lines with a counter hit, as a
//! text summary for CI logs and as HTML pages with the unreached lines
//! marked, one per file, linked from an index.

use super::sites::Sites;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// Reached of total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Share {
    pub reached: usize,
    pub total: usize,
}

impl Share {
    fn add(&mut self, hit: bool) {
        self.total += 1;
        self.reached += usize::from(hit);
    }

    /// The share in percent (100 for nothing to reach).
    pub fn percent(&self) -> f64 {
        if self.total == 0 {
            100.0
        } else {
            100.0 * self.reached as f64 / self.total as f64
        }
    }
}

impl std::fmt::Display for Share {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:5.1}% ({}/{})",
            self.percent(),
            self.reached,
            self.total
        )
    }
}

/// One function's figures.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub edges: Share,
    pub lines: Share,
}

/// One file's figures, its functions, and each of its lines that has a
/// counter, with whether any was hit.
#[derive(Debug, Default)]
pub struct File {
    pub path: String,
    pub edges: Share,
    pub lines: Share,
    pub functions: Vec<Function>,
    pub line_hit: BTreeMap<u32, bool>,
}

/// Per function: its edges, and whether each of its lines was reached.
type FunctionBook<'a> = BTreeMap<&'a str, (Share, BTreeMap<u32, bool>)>;

/// The report of the counters `numbers` (the scope's), hit `hits[n]` times.
pub fn files(sites: &Sites, numbers: &[u32], hits: &[u32]) -> Vec<File> {
    // (file, function) -> edges, and the lines of each.
    let mut by_file: BTreeMap<&str, (Share, FunctionBook)> = BTreeMap::new();
    for &n in numbers {
        let Some(s) = sites.of[n as usize] else {
            continue;
        };
        let hit = hits[n as usize] > 0;
        let (edges, funcs) = by_file.entry(&sites.files[s.file as usize]).or_default();
        edges.add(hit);
        let (fe, lines) = funcs
            .entry(&sites.functions[s.function as usize])
            .or_default();
        fe.add(hit);
        if s.line > 0 {
            *lines.entry(s.line).or_default() |= hit;
        }
    }
    by_file
        .into_iter()
        .map(|(path, (edges, funcs))| {
            let mut line_hit: BTreeMap<u32, bool> = BTreeMap::new();
            let functions = funcs
                .into_iter()
                .map(|(name, (edges, lines))| {
                    let mut ls = Share::default();
                    for (&l, &h) in &lines {
                        ls.add(h);
                        *line_hit.entry(l).or_default() |= h;
                    }
                    Function {
                        name: name.to_string(),
                        edges,
                        lines: ls,
                    }
                })
                .collect();
            let mut lines = Share::default();
            line_hit.values().for_each(|&h| lines.add(h));
            File {
                path: path.to_string(),
                edges,
                lines,
                functions,
                line_hit,
            }
        })
        .collect()
}

/// The sum over `files`: edges and lines.
pub fn total(files: &[File]) -> (Share, Share) {
    files.iter().fold(Default::default(), |(e, l), f| {
        (
            Share {
                reached: e.reached + f.edges.reached,
                total: e.total + f.edges.total,
            },
            Share {
                reached: l.reached + f.lines.reached,
                total: l.total + f.lines.total,
            },
        )
    })
}

/// The text summary: one line per file (path shortened to its crate's
/// folder on), the total last; with `functions`, each file's functions
/// under it.
pub fn text(files: &[File], functions: bool) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{:<24} {:<24} file", "edges", "lines");
    for f in files {
        let (e, l) = (f.edges.to_string(), f.lines.to_string());
        let _ = writeln!(s, "{e:<24} {l:<24} {}", short(&f.path));
        if functions {
            for g in &f.functions {
                let (e, l) = (g.edges.to_string(), g.lines.to_string());
                let _ = writeln!(s, "  {e:<22} {l:<24}   {}", g.name);
            }
        }
    }
    let (e, l) = total(files);
    let (e, l) = (e.to_string(), l.to_string());
    let _ = writeln!(s, "{e:<24} {l:<24} total");
    s
}

/// `path` from its crate's folder on (`regalloc2-0.15.2/src/ion/mod.rs`).
pub fn short(path: &str) -> &str {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.iter().rposition(|&p| p == "src") {
        Some(i) if i > 0 => {
            let skip: usize = parts[..i - 1].iter().map(|p| p.len() + 1).sum();
            &path[skip..]
        }
        _ => path,
    }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

const STYLE: &str = "body{font-family:sans-serif}table{border-collapse:collapse}\
td,th{padding:2px 8px;text-align:left}pre{margin:0}\
.hit{background:#dfd}.miss{background:#fdd}.n{color:#888;text-align:right}";

/// Writes `index.html` and one page per file into `dir`: each source line
/// with a counter green when reached and red when not, the source read
/// from the path the debug info gives (a file that cannot be read is
/// listed without its text).
pub fn html(files: &[File], title: &str, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut index = format!(
        "<!doctype html><meta charset=utf-8><title>{t}</title><style>{STYLE}</style>\
         <h1>{t}</h1><table><tr><th>file</th><th>edges</th><th>lines</th></tr>",
        t = escape(title)
    );
    for (i, f) in files.iter().enumerate() {
        let page = format!("file{i}.html");
        let _ = write!(
            index,
            "<tr><td><a href=\"{page}\">{}</a></td><td>{}</td><td>{}</td></tr>",
            escape(short(&f.path)),
            f.edges,
            f.lines
        );
        std::fs::write(dir.join(&page), file_page(f))?;
    }
    let (e, l) = total(files);
    let _ = write!(
        index,
        "<tr><th>total</th><th>{e}</th><th>{l}</th></tr></table>"
    );
    std::fs::write(dir.join("index.html"), index)
}

fn file_page(f: &File) -> String {
    let mut s = format!(
        "<!doctype html><meta charset=utf-8><title>{p}</title><style>{STYLE}</style>\
         <p><a href=\"index.html\">index</a><h1>{p}</h1><p>edges {} · lines {}</p>\
         <table><tr><th>function</th><th>edges</th><th>lines</th></tr>",
        f.edges,
        f.lines,
        p = escape(short(&f.path))
    );
    for g in &f.functions {
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            escape(&g.name),
            g.edges,
            g.lines
        );
    }
    s.push_str("</table><table>");
    match std::fs::read_to_string(&f.path) {
        Ok(text) => {
            for (i, line) in text.lines().enumerate() {
                let class = match f.line_hit.get(&(i as u32 + 1)) {
                    Some(true) => " class=hit",
                    Some(false) => " class=miss",
                    None => "",
                };
                let _ = write!(
                    s,
                    "<tr{class}><td class=n>{}</td><td><pre>{}</pre></td></tr>",
                    i + 1,
                    escape(line)
                );
            }
        }
        Err(e) => {
            let _ = write!(
                s,
                "<tr><td>source not readable: {}</td></tr>",
                escape(&e.to_string())
            );
        }
    }
    s.push_str("</table>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coverage::sites::Site;

    fn sites() -> Sites {
        let site = |file, function, line| {
            Some(Site {
                file,
                function,
                line,
            })
        };
        Sites {
            files: vec![
                "/r/regalloc2-0.15.2/src/ion/a.rs".into(),
                "/w/allocator/src/b.rs".into(),
            ],
            functions: vec!["f".into(), "g".into(), "h".into()],
            of: vec![
                site(0, 0, 10),
                site(0, 0, 10),
                site(0, 1, 20),
                site(1, 2, 5),
                None,
            ],
        }
    }

    #[test]
    fn shares_count_edges_and_lines_per_file_and_function() {
        let fs = files(&sites(), &[0, 1, 2, 4], &[0, 2, 0, 7, 0]);
        assert_eq!(fs.len(), 1, "only the counters asked for");
        let f = &fs[0];
        assert_eq!(
            f.edges,
            Share {
                reached: 1,
                total: 3
            }
        );
        assert_eq!(
            f.lines,
            Share {
                reached: 1,
                total: 2
            },
            "line 10 reached by one of two"
        );
        assert_eq!(f.functions[0].name, "f");
        assert_eq!(
            f.functions[0].edges,
            Share {
                reached: 1,
                total: 2
            }
        );
        assert_eq!(
            f.functions[1].lines,
            Share {
                reached: 0,
                total: 1
            }
        );
        let t = text(&fs, true);
        assert!(t.contains("regalloc2-0.15.2/src/ion/a.rs"), "{t}");
        assert!(t.lines().last().unwrap().ends_with("total"), "{t}");
    }

    #[test]
    fn pages_mark_reached_and_unreached_lines() {
        let dir = std::env::temp_dir().join(format!("rafuzz-coverage-{}", std::process::id()));
        let src = dir.join("src");
        std::fs::create_dir_all(&src).unwrap();
        let path = src.join("x.rs");
        std::fs::write(&path, "fn f() {\n    a();\n    b();\n}\n").unwrap();
        let site = |line| {
            Some(Site {
                file: 0,
                function: 0,
                line,
            })
        };
        let s = Sites {
            files: vec![path.to_string_lossy().into_owned()],
            functions: vec!["f".into()],
            of: vec![site(2), site(3)],
        };
        let fs = files(&s, &[0, 1], &[1, 0]);
        html(&fs, "coverage", &dir.join("html")).unwrap();
        let index = std::fs::read_to_string(dir.join("html/index.html")).unwrap();
        assert!(
            index.contains("file0.html") && index.contains("50.0% (1/2)"),
            "{index}"
        );
        let page = std::fs::read_to_string(dir.join("html/file0.html")).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(
            page.contains("<tr class=hit><td class=n>2</td><td><pre>    a();"),
            "{page}"
        );
        assert!(
            page.contains("<tr class=miss><td class=n>3</td><td><pre>    b();"),
            "{page}"
        );
    }
}
