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

use super::target::{case_body, Decode, Target};
use crate::books::context::Context;
use crate::books::quality::Quality;
use crate::harness::narrowing::Narrowing;
use crate::judging::failure::{Failure, Oracle, Signature};
use crate::judging::judge::{
    allocate_and_judge, allocate_and_judge_refusal, Oracles, MAX_STEPS, PATHS,
};
use crate::registry::{Entry, Family, DEFAULT};
use allocator::{Allocator, Case};
use checker::interp;
use std::sync::Arc;

/// Every one of `allocators` on `case` (valid and feasible): each output must pass
/// both oracles, and all must read the same values along the same paths.
pub fn check_case(
    allocators: &[Arc<dyn Allocator>],
    case: &Case,
    ctx: &Context,
) -> Result<(), Failure> {
    let mut first: Option<(&'static str, Vec<u64>)> = None;
    let mut qualities = Vec::new();
    for a in allocators {
        let judged = allocate_and_judge_refusal(&**a, case, Oracles::Both, ctx)?;
        let q = match &judged {
            Ok(out) => Quality::of(case, Some(out)),
            Err(why) => Quality::refused(*why),
        };
        ctx.quality.record(a.name(), &q);
        qualities.push((a.name(), q));
        let Ok(out) = judged else {
            crate::books::features::note("unsupported", 1);
            continue;
        };
        let digests: Vec<u64> = (0..PATHS)
            .map(|s| {
                interp::run(&case.func, &case.machine, &out, s, MAX_STEPS)
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

/// One allocator on `case`, both oracles; notes its spills and reloads as
/// features.
pub fn allocator_check(a: &dyn Allocator, case: &Case, ctx: &Context) -> Result<(), Failure> {
    if let Some(out) = allocate_and_judge(a, case, Oracles::Both, ctx)? {
        let st = out.stats(|r| case.machine.fixed_stack[r.class()].contains(&r));
        crate::books::features::note_bucket("spills", st.spills as u64);
        crate::books::features::note_bucket("reloads", st.reloads as u64);
    }
    Ok(())
}

/// The `<name>_checker` target of a registry entry: generate the cases of
/// its profile, allocate with it (built for the campaign's settings), both
/// oracles.
pub fn checker_target(e: &'static Entry) -> Target {
    Target {
        name: e.target,
        description: if e.family == Family::Outside {
            "generate (what the outside allocator takes), allocate with this allocator, then both oracles"
        } else {
            "generate, allocate with this allocator, then both oracles"
        },
        decode: Decode::Generate(e.profile(), Narrowing::default()),
        body: case_body(true, move |case, ctx| {
            allocator_check(&*e.build(&ctx.settings), case, ctx)
        }),
        stats: None,
    }
}

/// The `<name>_checker` target of an allocator the registry does not list
/// (yours, from outside this repository; an outside program): the default
/// generator's cases, allocate, both oracles; its name is `target`.
pub fn own_checker_target(a: &'static dyn Allocator, target: &'static str) -> Target {
    Target {
        name: target,
        description: "generate, allocate with this allocator, then both oracles",
        decode: Decode::Generate(&DEFAULT, Narrowing::default()),
        body: case_body(true, move |case, ctx| allocator_check(a, case, ctx)),
        stats: None,
    }
}
