//! What a reduction leaves for the person holding the reproducer: the
//! reduced file (a case with a header naming its failure and the command
//! that replays it, or the reduced bytes), where it goes by default, and
//! the replay command itself.

use super::predicate::ReduceBy;
use super::{Input, Outcome};
use crate::harness::narrowing::Narrowing;
use std::path::{Path, PathBuf};

/// Where the reduced form of `input` goes by default: `X.ra` becomes
/// `X.reduced.ra`, anything else `X.reduced.ra` (a case) or `X.reduced`
/// (bytes; the extension is fixed by [`write_reduced`]).
pub fn reduced_path(input: &Path) -> PathBuf {
    let stem = match input.extension() {
        Some(e) if e == "ra" => input.with_extension(""),
        _ => input.to_path_buf(),
    };
    let mut s = stem.into_os_string();
    s.push(".reduced.ra");
    PathBuf::from(s)
}

/// Size of an input, in words.
pub fn describe(i: &Input) -> String {
    match i {
        Input::Case(c) => format!(
            "{} insts, {} blocks",
            c.func.num_insts(),
            c.func.num_blocks()
        ),
        Input::Bytes(b) => format!("{} bytes", b.len()),
    }
}

/// The command that shows the failure of a reduced input again (`n`: how
/// the target's cases were narrowed).
pub fn replay_command(by: &ReduceBy, target: &str, n: &Narrowing, path: &Path) -> String {
    match by {
        ReduceBy::Predicate(cmd) => format!("sh -c '{cmd} \"$1\"' sh {}", path.display()),
        ReduceBy::Slow(a) => format!("rafuzz alloc --allocator {a} --repeat 3 {}", path.display()),
        _ => format!("{} {target} {}", rafuzz_run(n), path.display()),
    }
}

/// Writes the reduced input to `path` (a case with a header naming the
/// failure and the replay command; bytes under `path` without its `.ra`)
/// and returns where it went.
pub fn write_reduced(
    o: &Outcome,
    path: &Path,
    from: &Path,
    by: &ReduceBy,
    target: &str,
    n: &Narrowing,
) -> PathBuf {
    match &o.reduced {
        Input::Case(c) => {
            let what = match by {
                ReduceBy::Predicate(cmd) => format!("Keeps `{cmd}` true"),
                ReduceBy::Slow(a) => format!("Keeps {a} slow: {}", o.signature),
                _ => format!("Fails {target} with: {}", o.signature),
            };
            let text = format!(
                "{}# Reduced by `rafuzz reduce` from {} ({} -> {}).\n# {what}\n# Replay: {}\n{}",
                regression_header(o, by, target),
                from.display(),
                describe(&o.original),
                describe(&o.reduced),
                replay_command(by, target, n, path),
                allocator::ir::text::print(c)
            );
            let _ = std::fs::write(path, text);
            if o.signature.oracle == crate::judging::failure::Oracle::RefusedFeasible {
                write_proof(o, c, path);
            }
            path.to_path_buf()
        }
        Input::Bytes(b) => {
            let p = path.with_extension("");
            let _ = std::fs::write(&p, b);
            p
        }
    }
}

/// The two lines that make a reduced failure of an allocator a regression
/// case as it stands (`tests/regressions/`, docs/regressions.md): `# Bug:`
/// with the failure, to be completed with what was wrong and how it was
/// fixed, and `# Fails without the fix:` naming the allocator and the
/// oracle. Empty when no allocator failed (a predicate, a slow run, a
/// target of the generator or the oracles).
pub fn regression_header(o: &Outcome, by: &ReduceBy, target: &str) -> String {
    let sig = &o.signature;
    match (by, sig.allocator) {
        (ReduceBy::Target(_) | ReduceBy::Allocator(..), Some(a)) => format!(
            "# Bug: {sig} (found by {}). Say what was wrong and how it was fixed.\n\
             # Fails without the fix: allocator {a}, oracle {}\n",
            if target.is_empty() {
                "rafuzz reduce"
            } else {
                target
            },
            sig.oracle.name()
        ),
        _ => String::new(),
    }
}

/// Beside a reduced `refused-feasible` case at `path`, its proof: the
/// reduced case with the allocation of ours that both oracles accept, as
/// `<path less .ra>.proof.ra`.
fn write_proof(o: &Outcome, c: &allocator::Case, path: &Path) {
    let refuser = o.signature.allocator.unwrap_or("");
    if let Some((by, out)) = crate::judging::judge::proof_of_feasibility(refuser, c) {
        let mut proof = c.clone();
        proof.output = Some(out);
        let text = format!(
            "# The allocation {by} gives the reduced case: {refuser} refused it as having none.\n{}",
            allocator::ir::text::print(&proof)
        );
        let _ = std::fs::write(path.with_extension("proof.ra"), text);
    }
}

/// `rafuzz run`, with `--allocator 'cmd:...'` when an outside program is
/// registered and the narrowing `n` of the cases: the start of every
/// replay command printed.
pub fn rafuzz_run(n: &Narrowing) -> String {
    let mut s = match crate::outside::external::registered() {
        Some(e) => format!("rafuzz run --allocator 'cmd:{}'", e.command()),
        None => "rafuzz run".to_string(),
    };
    for word in n.args() {
        s.push(' ');
        s.push_str(&word);
    }
    s
}
