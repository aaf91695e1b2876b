//! Fuzz target bodies as plain functions over `&[u8]`, their registry, and
//! the pieces of the `rafuzz` command line that are worth testing.
//!
//! A target reports a [`failure::Failure`] only on a real finding, with a
//! signature and a message that names what went wrong; every other input,
//! however odd, passes. Engine wrappers turn a failure into a panic.

pub mod cli;
pub mod compare;
pub mod context;
pub mod engine;
pub mod explain;
pub mod external;
pub mod failure;
pub mod faults;
pub mod features;
pub mod heap;
pub mod inputs;
pub mod judge;
pub mod panics;
pub mod profile;
pub mod quality;
#[cfg(feature = "regalloc2")]
pub mod ra2;
pub mod reduce;
pub mod refusals;
#[cfg(feature = "regalloc_rs")]
pub mod regalloc_rs;
pub mod scaling;
pub mod slow;
pub mod targets;
pub mod watchdog;

pub use targets::{target_by_name, targets, Target};

/// Every allocator the harness knows: this repository's, in a fixed order,
/// then regalloc2's two ([`ra2`], with the default feature `regalloc2`),
/// then the `regalloc` crate's two ([`regalloc_rs`], feature
/// `regalloc_rs`), then the outside program when one is registered ([`external`]).
pub fn allocators() -> Vec<&'static dyn allocator::Allocator> {
    let mut v = allocator::allocators();
    #[cfg(feature = "regalloc2")]
    v.extend(ra2::allocators());
    #[cfg(feature = "regalloc_rs")]
    v.extend(regalloc_rs::allocators());
    if let Some(e) = external::registered() {
        v.push(e);
    }
    v
}

/// The allocator called `name`, including the variants of
/// [`allocator::variants`] and the test-only faulty ones of [`faults`]; `cmd:PROGRAM ARGS` registers (once) and returns an outside
/// program with the default timeout.
pub fn allocator_by_name(name: &str) -> Option<&'static dyn allocator::Allocator> {
    if let Some(cmd) = external::command_of(name) {
        return external::register(cmd, external::DEFAULT_TIMEOUT)
            .ok()
            .map(|e| e as &dyn allocator::Allocator);
    }
    allocators()
        .into_iter()
        .chain(allocator::variants())
        .chain(
            faults::FAULTY
                .iter()
                .map(|a| a as &dyn allocator::Allocator),
        )
        .find(|a| a.name() == name)
}

/// The `&'static` name of an allocator named in text (a worker's reply,
/// its counters): the registered allocator's, or (a name this process does
/// not know) the text, kept for good.
pub fn allocator_name(name: &str) -> &'static str {
    allocator_by_name(name)
        .map(|a| a.name())
        .filter(|n| *n == name)
        .unwrap_or_else(|| Box::leak(name.to_string().into_boxed_str()))
}

/// The body behind an engine wrapper binary: runs `data` through the target
/// called `name` (looked up once per process). Every wrapper (libFuzzer,
/// honggfuzz, AFL++) is this one call; a wrong name is a build mistake and
/// panics at the first input. `RAFUZZ_PROFILE`, `RAFUZZ_WITHOUT` and
/// `RAFUZZ_NO_SUPPRESS` do what `--profile`, `--without` and `--no-suppress`
/// do.
pub fn run_wrapped(name: &str, data: &[u8]) {
    // One wrapper process is one campaign: its target and context live as
    // long as the process.
    static CAMPAIGN: std::sync::OnceLock<(Target, context::Context)> = std::sync::OnceLock::new();
    let (t, ctx) = CAMPAIGN.get_or_init(|| {
        let t = target_by_name(name).unwrap_or_else(|| panic!("no fuzz target named `{name}`"));
        let n = profile::Narrowing::from_env().unwrap_or_else(|e| panic!("{e}"));
        n.apply_suppression();
        (t.narrowed(&n), context::Context::default())
    });
    t.run(data, ctx)
}
