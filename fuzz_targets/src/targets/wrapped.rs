//! The body behind every engine wrapper binary (libFuzzer, honggfuzz,
//! AFL++): one wrapper per engine, which runs the target that
//! `RAFUZZ_TARGET` names or, when that is unset, the one its own file is
//! named for (OSS-Fuzz copies the one binary under each target's name).

use super::target::Target;
use crate::books::context::Context;
use crate::harness::narrowing::Narrowing;
use std::sync::OnceLock;

/// The target an engine wrapper process runs: `RAFUZZ_TARGET`, else the
/// file name of the running binary (less any extension).
pub fn target_name() -> String {
    name_from(
        std::env::var("RAFUZZ_TARGET").ok(),
        std::env::args_os().next().map(std::path::PathBuf::from),
    )
}

/// The target named by the variable's value `var` when set and not empty,
/// else by the binary's path `argv0`.
fn name_from(var: Option<String>, argv0: Option<std::path::PathBuf>) -> String {
    match var {
        Some(t) if !t.is_empty() => t,
        _ => argv0
            .and_then(|p| p.file_stem().map(|s| s.to_string_lossy().into_owned()))
            .unwrap_or_default(),
    }
}

/// Runs `data` through the target [`target_name`] names, looked up once per
/// process, the way an engine wants it: a panic on a finding. A name that
/// is no target panics at the first input with the list of targets.
/// `RAFUZZ_PROFILE`, `RAFUZZ_WITHOUT`, `RAFUZZ_NO_SUPPRESS` and
/// `RAFUZZ_SWARM` do what `--profile`, `--without`, `--no-suppress` and
/// `--swarm` do.
pub fn run_wrapped(data: &[u8]) {
    // One wrapper process is one campaign: its target and context live as
    // long as the process.
    static CAMPAIGN: OnceLock<(Target, Context)> = OnceLock::new();
    let (t, ctx) = CAMPAIGN.get_or_init(|| {
        let name = target_name();
        let t = super::target_by_name(&name).unwrap_or_else(|| {
            let names: Vec<&str> = super::targets().iter().map(|t| t.name).collect();
            panic!(
                "no fuzz target named `{name}`: set RAFUZZ_TARGET to one of {} or planted",
                names.join(", ")
            )
        });
        let n = Narrowing::from_env().unwrap_or_else(|e| panic!("{e}"));
        (t.narrowed(&n), Context::with_settings(n.settings()))
    });
    t.run(data, ctx)
}

/// A structure-aware mutant of `data` for an engine's custom mutator
/// (libFuzzer's `fuzz_mutator!`): when `data` is the text of a case (a
/// `.ra` seed) and the wrapper's target takes cases, three times in four
/// the text of the case mutated by 1 to 3 edits
/// ([`crate::edit::mutate`]), drawn from `seed` alone; `None` when the
/// engine's own byte mutation should run instead (or the mutant is longer
/// than `max_size`).
pub fn mutate_wrapped(data: &[u8], max_size: usize, seed: u32) -> Option<Vec<u8>> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed as u64);
    if !rng.gen_ratio(3, 4) {
        return None;
    }
    let case = crate::harness::inputs::case_text(data)?;
    let name = target_name();
    let config = super::target_by_name(&name)?
        .narrowed(&Narrowing::from_env().ok()?)
        .config()?;
    let steps = rng.gen_range(1..=3);
    let mutant = crate::edit::mutate::mutate(&case, &config, steps, &mut rng);
    let text = allocator::ir::text::print(&mutant).into_bytes();
    (text.len() <= max_size).then_some(text)
}

/// For an engine's build script: when `RAFUZZ_LIST_TARGETS` is set, prints
/// the name of every target a wrapper can run, one a line, and exits; the
/// wrappers call it before their first input.
pub fn list_if_asked() {
    if std::env::var_os("RAFUZZ_LIST_TARGETS").is_some() {
        for t in super::targets() {
            println!("{}", t.name);
        }
        std::process::exit(0);
    }
}

#[cfg(test)]
mod tests {
    use super::name_from;

    #[test]
    fn the_variable_names_the_target_before_the_binary_does() {
        let bin = || Some("/out/differential".into());
        assert_eq!(name_from(Some("ssagen".into()), bin()), "ssagen");
        assert_eq!(name_from(Some(String::new()), bin()), "differential");
        assert_eq!(name_from(None, bin()), "differential");
        assert_eq!(name_from(None, None), "");
    }
}
