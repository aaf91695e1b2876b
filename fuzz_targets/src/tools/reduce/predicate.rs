//! What a reduction keeps candidates for, besides a fuzz target's failure
//! ([`super::reduce_input`]): an allocator judged by the oracles, or an
//! outside command that says yes or no.

use super::{reduce_case, Input, Options, Outcome};
use crate::books::context::Context;
use crate::judging::failure::{Oracle, Signature};
use allocator::{Allocator, Case};
use std::path::Path;

/// What `rafuzz reduce` keeps candidates for.
pub enum ReduceBy {
    /// The failure signature of a fuzz target.
    Target(String),
    /// An allocator judged by one or both oracles.
    Allocator(String, crate::judging::judge::Oracles),
    /// An outside command that gets the candidate's path and exits 0 to
    /// keep it.
    Predicate(String),
    /// An allocator staying slow (a `slow` finding).
    Slow(String),
}

/// Runs `sh -c 'CMD "$1"'` on the case written to a fresh file: whether
/// it exits 0.
fn outside_predicate(cmd: &str, dir: &Path, case: &Case) -> bool {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let path = dir.join(format!("candidate-{n}.ra"));
    if std::fs::write(&path, allocator::ir::text::print(case)).is_err() {
        return false;
    }
    let ok = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("{cmd} \"$1\""))
        .arg("sh")
        .arg(&path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let _ = std::fs::remove_file(&path);
    ok
}

/// Reduces `case`, on which `a`'s allocation fails the `oracles` (judged
/// in a campaign under `settings`, so that a suppressed false refusal is a
/// finding under `--no-suppress`), keeping that failure's signature.
pub fn reduce_for_allocator(
    a: &dyn Allocator,
    oracles: crate::judging::judge::Oracles,
    case: Box<Case>,
    settings: crate::registry::Settings,
    opts: &Options,
) -> Result<Outcome, String> {
    let ctx = Context::with_settings(settings);
    let judge = |c: &Case| crate::judging::judge::allocate_and_judge(a, c, oracles, &ctx).err();
    let Some(f) = judge(&case) else {
        return Err(format!("{}'s allocation of the case passes", a.name()));
    };
    let sig = f.signature;
    let keep = |c: &Case| judge(c).is_some_and(|f| f.signature == sig);
    let (reduced, stats) = reduce_case(&case, &keep, opts);
    Ok(Outcome {
        signature: sig,
        original: Input::Case(case),
        reduced: Input::Case(Box::new(reduced)),
        stats,
    })
}

/// The target that replays a failure of the allocator called `name`: its
/// `<name>_checker` target (`fault_<fault>` for a planted fault, `cmd_checker`
/// for an outside program).
pub fn checker_target_of(name: &str) -> String {
    crate::testing::faults::FAULTY
        .iter()
        .find(|f| f.name == name)
        .map_or_else(
            || match crate::outside::external::command_of(name) {
                Some(_) => format!("{}_checker", crate::outside::external::NAME),
                None => format!("{name}_checker"),
            },
            |f| f.target_name().to_string(),
        )
}

/// Reduces `case` (read from `file`), keeping the outside command `cmd`
/// true of it.
pub fn reduce_for_command(
    cmd: &str,
    case: Box<Case>,
    file: &Path,
    opts: &Options,
) -> Result<Outcome, String> {
    let dir = std::env::temp_dir().join(format!("rafuzz-reduce-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let keep = |c: &Case| outside_predicate(cmd, &dir, c);
    let outcome = if keep(&case) {
        let (reduced, stats) = reduce_case(&case, &keep, opts);
        Ok(Outcome {
            signature: Signature::new(None, Oracle::Predicate, cmd),
            original: Input::Case(case),
            reduced: Input::Case(Box::new(reduced)),
            stats,
        })
    } else {
        Err(format!(
            "the predicate does not hold for {}",
            file.display()
        ))
    };
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

/// The allocator's best time per instruction on `case` over three runs,
/// in nanoseconds, with the best total time.
fn best_time(a: &dyn Allocator, case: &Case) -> (f64, std::time::Duration) {
    let best = (0..3)
        .map(|_| {
            let t = std::time::Instant::now();
            let _ = crate::judging::panics::catch(|| a.run(&case.func, &case.machine));
            t.elapsed()
        })
        .min()
        .unwrap_or_default();
    (
        best.as_nanos() as f64 / case.func.num_insts().max(1) as f64,
        best,
    )
}

/// Reduces `case`, on which `a` is slow (a `slow` finding), keeping
/// candidates on which its best time per instruction stays at least half
/// what it is on `case`, over at least a millisecond. Candidates run one
/// at a time, so that they do not slow each other down.
pub fn reduce_slow(a: &dyn Allocator, case: Box<Case>, opts: &Options) -> Result<Outcome, String> {
    let (per_inst, _) = best_time(a, &case);
    let floor = std::time::Duration::from_millis(1);
    let keep = |c: &Case| {
        let (p, total) = best_time(a, c);
        p >= per_inst / 2.0 && total >= floor
    };
    if !keep(&case) {
        return Err(format!("{} is not slow on the case", a.name()));
    }
    let opts = Options {
        jobs: 1,
        ..opts.clone()
    };
    let (reduced, stats) = reduce_case(&case, &keep, &opts);
    Ok(Outcome {
        signature: Signature::new(Some(a.name()), Oracle::Slow, ""),
        original: Input::Case(case),
        reduced: Input::Case(Box::new(reduced)),
        stats,
    })
}
