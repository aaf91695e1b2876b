//! The README's tour runs as shown: every ```console block's `$ COMMAND`
//! lines run in order, in one scratch folder (with `tests/` and `corpus/`
//! of the repository in reach), through `sh` with this build's `rafuzz`
//! first on the PATH; what each prints, stdout and stderr together as a
//! terminal shows them, must match the lines below it. In the expected
//! text, a line `...` stands for any number of lines and `[..]` for any
//! text within a line (timings, counts that vary, hashes).

#[allow(dead_code)]
mod common;

use std::process::Command;

/// One command of a block and the lines it must print.
struct Step {
    line: usize,
    command: String,
    expected: Vec<String>,
}

/// The steps of every ```console block of `text`, in order.
fn steps(text: &str) -> Vec<Step> {
    let mut steps: Vec<Step> = Vec::new();
    let mut inside = false;
    for (i, l) in text.lines().enumerate() {
        if !inside {
            inside = l.trim_end() == "```console";
            continue;
        }
        if l.starts_with("```") {
            inside = false;
        } else if let Some(c) = l.strip_prefix("$ ") {
            steps.push(Step {
                line: i + 1,
                command: c.to_string(),
                expected: Vec::new(),
            });
        } else if let Some(s) = steps.last_mut() {
            s.expected.push(l.to_string());
        }
    }
    steps
}

/// Whether one line matches its pattern (`[..]` is any text).
fn line_matches(pattern: &str, line: &str) -> bool {
    let parts: Vec<&str> = pattern.split("[..]").collect();
    if parts.len() == 1 {
        return pattern == line;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !line.starts_with(first) || line.len() < first.len() + last.len() || !line.ends_with(last) {
        return false;
    }
    let mut rest = &line[first.len()..line.len() - last.len()];
    for p in &parts[1..parts.len() - 1] {
        match rest.find(p) {
            Some(k) => rest = &rest[k + p.len()..],
            None => return false,
        }
    }
    true
}

/// Whether `lines` match `patterns` (`...` is any number of lines).
fn matches(patterns: &[String], lines: &[&str]) -> bool {
    match patterns.split_first() {
        None => lines.is_empty(),
        Some((p, rest)) if p.trim() == "..." => {
            (0..=lines.len()).any(|k| matches(rest, &lines[k..]))
        }
        Some((p, rest)) => {
            !lines.is_empty() && line_matches(p, lines[0]) && matches(rest, &lines[1..])
        }
    }
}

#[test]
fn patterns_match_what_they_say() {
    let p = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(line_matches("a [..] c", "a b b c"));
    assert!(!line_matches("a [..] c", "a b b d"));
    assert!(line_matches("x[..]", "xyz") && !line_matches("x", "xy"));
    assert!(matches(&p(&["a", "...", "d"]), &["a", "b", "c", "d"]));
    assert!(matches(&p(&["a", "...", "d"]), &["a", "d"]));
    assert!(!matches(&p(&["a", "d"]), &["a", "b", "d"]));
    assert!(!matches(&p(&["a"]), &["a", "extra"]));
}

#[test]
fn the_readme_tour_prints_what_it_shows() {
    let root = common::root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let steps = steps(&readme);
    assert!(steps.len() >= 7, "the tour's commands: {}", steps.len());
    let dir = common::scratch("readme", "tour");
    for sub in ["tests", "corpus"] {
        std::os::unix::fs::symlink(root.join(sub), dir.join(sub)).unwrap();
    }
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_rafuzz"))
        .parent()
        .unwrap()
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut wrong = Vec::new();
    for s in &steps {
        let out = Command::new("sh")
            .arg("-c")
            .arg(format!("exec 2>&1; {}", s.command))
            .current_dir(&dir)
            .env("PATH", &path)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        let lines: Vec<&str> = text.lines().collect();
        if !matches(&s.expected, &lines) {
            wrong.push(format!(
                "README.md:{}: `{}` printed:\n{text}--- but the README shows:\n{}\n",
                s.line,
                s.command,
                s.expected.join("\n")
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
