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

use super::Target;
use crate::failure::{Failure, Oracle, Signature};
use crate::judge::{allocate_and_judge, Oracles, MAX_STEPS, PATHS};
use allocator::{Allocator, Case, Output};
use checker::interp;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Per allocator: cases allocated, unsupported, moves, spills, reloads,
/// register moves, and moves weighted by loop depth.
#[derive(Clone, Copy, Default)]
struct Quality {
    cases: u64,
    unsupported: u64,
    moves: u64,
    spills: u64,
    reloads: u64,
    reg_moves: u64,
    weighted: u64,
}

static QUALITY: Mutex<BTreeMap<&'static str, Quality>> = Mutex::new(BTreeMap::new());
/// The same, over only the cases every allocator allocated: the fair
/// comparison when some allocators refuse some cases.
static COMMON: Mutex<BTreeMap<&'static str, Quality>> = Mutex::new(BTreeMap::new());

/// The comparison tables: per allocator, mean counts per case, over the
/// cases each allocator took, then over the cases all of them took.
pub fn stats() -> String {
    let all = table(&QUALITY.lock().unwrap());
    let common = COMMON.lock().unwrap();
    let n = common.values().next().map_or(0, |q| q.cases);
    format!(
        "{all}
over the {n} cases every allocator took:
{}",
        table(&common)
    )
}

fn table(q: &BTreeMap<&'static str, Quality>) -> String {
    let mut s = format!(
        "{:<20} {:>7} {:>11} {:>8} {:>8} {:>8} {:>9} {:>13}",
        "allocator",
        "cases",
        "unsupported",
        "moves",
        "spills",
        "reloads",
        "reg-moves",
        "loop-weighted"
    );
    for (name, x) in q.iter() {
        let n = x.cases.max(1) as f64;
        s.push_str(&format!(
            "\n{name:<20} {:>7} {:>11} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>13.1}",
            x.cases,
            x.unsupported,
            x.moves as f64 / n,
            x.spills as f64 / n,
            x.reloads as f64 / n,
            x.reg_moves as f64 / n,
            x.weighted as f64 / n
        ));
    }
    s
}

fn record(name: &'static str, case: &Case, out: Option<&Output>) -> Quality {
    let mut one = Quality::default();
    match out {
        None => one.unsupported = 1,
        Some(out) => {
            let st = out.stats(|r| case.machine.fixed_stack[r.class().index()].contains(&r));
            one.cases = 1;
            one.moves = st.moves as u64;
            one.spills = st.spills as u64;
            one.reloads = st.reloads as u64;
            one.reg_moves = st.reg_moves as u64;
            one.weighted = out.weighted_moves(
                &case.func,
                &allocator::analysis::loops::loop_depths(&case.func),
            );
        }
    }
    QUALITY.lock().unwrap().entry(name).or_default().add(&one);
    one
}

impl Quality {
    fn add(&mut self, o: &Quality) {
        self.cases += o.cases;
        self.unsupported += o.unsupported;
        self.moves += o.moves;
        self.spills += o.spills;
        self.reloads += o.reloads;
        self.reg_moves += o.reg_moves;
        self.weighted += o.weighted;
    }
}

/// Every allocator on `case` (valid and feasible): each output must pass
/// both oracles, and all must read the same values along the same paths.
pub fn check_case(case: &Case) -> Result<(), Failure> {
    let mut first: Option<(&'static str, Vec<u64>)> = None;
    let mut qualities = Vec::new();
    for a in crate::allocators() {
        let out = allocate_and_judge(a, case, Oracles::Both)?;
        qualities.push((a.name(), record(a.name(), case, out.as_ref())));
        let Some(out) = out else {
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
    if qualities.iter().all(|(_, q)| q.cases == 1) {
        let mut common = COMMON.lock().unwrap();
        for (name, q) in &qualities {
            common.entry(name).or_default().add(q);
        }
    }
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
pub fn allocator_check(a: &dyn Allocator, case: &Case) -> Result<(), Failure> {
    if let Some(out) = allocate_and_judge(a, case, Oracles::Both)? {
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
    let name = checker_name(a);
    let peer = a.name().starts_with("regalloc2_");
    let (config, case_of): (ssagen::Config, super::CaseOf) = match a.name() {
        "regalloc2_fastalloc" => (
            ssagen::Config::regalloc2_fastalloc(),
            super::regalloc2_fastalloc_case,
        ),
        _ if peer => (ssagen::Config::regalloc2(), super::regalloc2_case),
        _ => (ssagen::Config::default(), super::generated_case),
    };
    Target {
        name,
        description: if peer {
            "generate (what regalloc2 takes), allocate with this allocator, then both oracles"
        } else {
            "generate, allocate with this allocator, then both oracles"
        },
        check: Arc::new(move |data: &[u8]| {
            super::check_generated_with(data, &config, |case| allocator_check(a, case))
        }),
        check_case: Some(Arc::new(move |case: &Case| allocator_check(a, case))),
        stats: None,
        case_of,
    }
}
