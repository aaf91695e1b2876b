#!/usr/bin/env bash
# Captures every allocation problem Cranelift poses on real programs, as rafuzz cases:
#   scripts/capture.sh [--target TRIPLE]... [--algorithm ion|fastalloc]... [--regalloc2-checker] INPUT... OUTDIR
# INPUT: .wasm or .wat modules (scripts/real-programs.sh fetches a pinned set). Writes
# OUTDIR/<target>/<algorithm>/<module>-<call>.ra and prints a summary per module, target
# and algorithm (functions, instructions, refused, unrepresentable, what our oracles reject
# of the recorded cases, what our checker rejects in-process and its overhead, seconds);
# exit 1 when Cranelift itself failed on a module (its message is saved beside the cases)
# or an oracle rejected an allocation, in-process or recorded.
#
# The tap: a copy of the regalloc2 release rafuzz pins, from cargo's registry cache, with
# capture/tap/tap.rs inserted and `run` / `run_with_ctx` wrapped to call it (it also
# hands each allocation to our checker's in-process entry point), patched into
# the capture tool (capture/Cargo.toml). Nothing of regalloc2 is kept in the repository;
# with RAFUZZ_TAP_DIR unset the copy behaves as the release does.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
version=$(sed -n 's/^regalloc2 = { version = "=\([0-9.]*\)".*/\1/p' fuzz_targets/Cargo.toml)
manifest=$(cargo metadata --format-version 1 | grep -o "\"[^\"]*/regalloc2-$version/Cargo.toml\"" | head -n 1 | tr -d '"')
[ -f "$manifest" ] || { echo "regalloc2 $version not found in cargo's registry cache" >&2; exit 2; }
tap=capture/target/regalloc2-tap
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
cp -r "$(dirname "$manifest")" "$fresh/regalloc2"
chmod -R u+w "$fresh/regalloc2"
cp capture/tap/tap.rs "$fresh/regalloc2/src/tap.rs"
python3 - "$fresh/regalloc2/src/lib.rs" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
for old, new in [
    ("pub fn run<F: Function>(", "fn run_untapped<F: Function>("),
    ("pub fn run_with_ctx<'a, F: Function>(", "fn run_with_ctx_untapped<'a, F: Function>("),
    ("run_with_ctx(func, env, options, &mut ctx)", "run_with_ctx_untapped(func, env, options, &mut ctx)"),
]:
    if s.count(old) != 1:
        sys.exit(f"the tap does not fit this regalloc2: `{old}` found {s.count(old)} times")
    s = s.replace(old, new)
s += '''
pub mod tap;

/// regalloc2's `run`, recorded by the tap when `RAFUZZ_TAP_DIR` is set.
pub fn run<F: Function>(
    func: &F,
    env: &MachineEnv,
    options: &RegallocOptions,
) -> Result<Output, RegAllocError> {
    let r = run_untapped(func, env, options);
    tap::record(func, env, options, r.as_ref());
    r
}

/// regalloc2's `run_with_ctx`, recorded by the tap when `RAFUZZ_TAP_DIR` is set.
pub fn run_with_ctx<'a, F: Function>(
    func: &F,
    env: &MachineEnv,
    options: &RegallocOptions,
    ctx: &'a mut Ctx,
) -> Result<&'a Output, RegAllocError> {
    let r = run_with_ctx_untapped(func, env, options, ctx);
    match &r {
        Ok(out) => tap::record(func, env, options, Ok(out)),
        Err(e) => tap::record(func, env, options, Err(e)),
    }
    r
}
'''
open(path, "w").write(s)
PY
# Replace the copy only when it changed, so that cargo does not rebuild Cranelift.
if ! diff -rq "$fresh/regalloc2" "$tap" >/dev/null 2>&1; then
    rm -rf "$tap"
    mkdir -p "$(dirname "$tap")"
    cp -r "$fresh/regalloc2" "$tap"
fi
(cd capture && cargo build --release -q)
exec capture/target/release/rafuzz-capture "$@"
