//! `differential` and the `<allocator>_checker` targets.
//!
//! `differential` runs one generated case through every registered
//! allocator: each result must pass both oracles, and every allocator must
//! read the same values at every use along the same interpreter paths (equal
//! digests). It records each allocator's moves, spills and reloads so their
//! quality can be compared on identical inputs.
//!
//! Every registered allocator also gets a `<name>_checker` target (generate,
//! allocate, both oracles), with no code to write beyond registering it.

use super::{case_body, Decode, Target};
use crate::context::Context;
use crate::failure::{Failure, Oracle, Signature};
use crate::judge::{allocate_and_judge, allocate_and_judge_refusal, Oracles, MAX_STEPS, PATHS};
use crate::quality::Quality;
use allocator::{Allocator, Case};
use checker::interp;
use std::collections::BTreeMap;
use std::sync::{Mutex, OnceLock};

/// Every allocator on `case` (valid and feasible): each output must pass
/// both oracles, and all must read the same values along the same paths.
pub fn check_case(case: &Case, ctx: &Context) -> Result<(), Failure> {
    let mut first: Option<(&'static str, Vec<u64>)> = None;
    let mut qualities = Vec::new();
    for a in crate::allocators() {
        let judged = allocate_and_judge_refusal(a, case, Oracles::Both, ctx)?;
        let q = match &judged {
            Ok(out) => Quality::of(case, Some(out)),
            Err(why) => Quality::refused(*why),
        };
        ctx.quality.record(a.name(), &q);
        qualities.push((a.name(), q));
        let Ok(out) = judged else {
            crate::features::note("unsupported", 1);
            continue;
        };
        let digests: Vec<u64> = (0..PATHS)
            .map(|s| {
                interp::run(&case.func, &out, s, MAX_STEPS)
                    .map(|r| r.digest)
                    .unwrap_or(0)
            })
            .collect();
        match &first {
            None => first = Some((a.name(), digests)),
            Some((other, d)) => {
                if let Some(path) = (0..PATHS as usize).find(|&p| d[p] != digests[p]) {
                    return Err(Failure::new(
                        Signature::new(Some(a.name()), Oracle::Differential, other),
                        format!(
                            "{other} and {} read different values along interpreter path {path}",
                            a.name()
                        ),
                    ));
                }
            }
        }
    }
    ctx.quality.record_common(&qualities);
    Ok(())
}

/// The names of the `<allocator>_checker` targets, made once per process.
fn checker_name(a: &'static dyn Allocator) -> &'static str {
    static NAMES: OnceLock<Mutex<BTreeMap<&'static str, &'static str>>> = OnceLock::new();
    let mut names = NAMES.get_or_init(Default::default).lock().unwrap();
    names
        .entry(a.name())
        .or_insert_with(|| Box::leak(format!("{}_checker", a.name()).into_boxed_str()))
}

/// One allocator on `case`, both oracles; notes its spills and reloads as
/// features.
pub fn allocator_check(a: &dyn Allocator, case: &Case, ctx: &Context) -> Result<(), Failure> {
    if let Some(out) = allocate_and_judge(a, case, Oracles::Both, ctx)? {
        let st = out.stats(|r| case.machine.fixed_stack[r.class().index()].contains(&r));
        crate::features::note_bucket("spills", st.spills as u64);
        crate::features::note_bucket("reloads", st.reloads as u64);
    }
    Ok(())
}

/// The `<name>_checker` target of an allocator: generate, allocate, both
/// oracles. regalloc2's allocators get the cases of
/// [`ssagen::Config::regalloc2`] (fastalloc: `regalloc2_fastalloc`), the
/// others the default generator's.
pub fn checker_target(a: &'static dyn Allocator) -> Target {
    let peer = a.name().starts_with("regalloc");
    let config = match a.name() {
        "regalloc2_fastalloc" => ssagen::Config::regalloc2_fastalloc(),
        "regalloc_rs_bt" => ssagen::Config::regalloc_rs(),
        "regalloc_rs_lsra" => ssagen::Config::regalloc_rs_lsra(),
        _ if peer => ssagen::Config::regalloc2(),
        _ => ssagen::Config::default(),
    };
    Target {
        name: checker_name(a),
        description: if peer {
            "generate (what the outside allocator takes), allocate with this allocator, then both oracles"
        } else {
            "generate, allocate with this allocator, then both oracles"
        },
        decode: Decode::Generate(config),
        body: case_body(true, move |case, ctx| allocator_check(a, case, ctx)),
        stats: None,
        narrowing: Default::default(),
    }
}
