#!/usr/bin/env bash
# Fuzzing a regalloc2 fork, tested end to end: a copy of the regalloc2 release rafuzz
# pins (from cargo's registry cache), with one planted bug, replaces the pinned crate
# through cargo's `--config 'patch.crates-io.regalloc2.path="..."'`, the command the
# README documents, without editing any file of this repository; regalloc2_ion_checker
# must find the bug within SECONDS (default 60). The planted bug: ion's redundant-move
# elimination forgets that an instruction's clobbers overwrite registers, so a move
# after a call-like instruction is dropped as if the register still held its value.
#   scripts/fork-check.sh [SECONDS]
# Exit status 1 when the planted bug is not found.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
version=$(sed -n 's/^regalloc2 = { version = "=\([0-9.]*\)".*/\1/p' fuzz_targets/Cargo.toml)
manifest=$(cargo metadata --format-version 1 | grep -o "\"[^\"]*/regalloc2-$version/Cargo.toml\"" | head -n 1 | tr -d '"')
[ -f "$manifest" ] || { echo "regalloc2 $version not found in cargo's registry cache" >&2; exit 2; }
work=$(mktemp -d)
cp Cargo.lock "$work/Cargo.lock.orig"
trap 'cp "$work/Cargo.lock.orig" Cargo.lock; rm -rf "$work"' EXIT
fork="$work/regalloc2"
cp -r "$(dirname "$manifest")" "$fork"
chmod -R u+w "$fork"
moves="$fork/src/ion/moves.rs"
sed -i '/for reg in this.func.inst_clobbers(inst) {/{n;s/redundant_moves.clear_alloc(Allocation::reg(reg));/let _ = reg;/}' "$moves"
grep -q 'let _ = reg;' "$moves" || { echo "could not plant the bug in $moves" >&2; exit 2; }
echo "== the fork: regalloc2 $version with redundant-move elimination blind to clobbers ($fork)"
# The documented command, with its own target directory so that the patched build
# never replaces target/release/rafuzz.
export CARGO_TARGET_DIR="$work/target"
cargo build --release -q -p fuzz_targets --bin rafuzz \
    --config "patch.crates-io.regalloc2.path=\"$fork\""
out=$("$CARGO_TARGET_DIR/release/rafuzz" fuzz --target regalloc2_ion_checker --time "$secs" \
    --corpus "$work/corpus" --artifacts "$work/artifacts" --reduce-time 20 2>/dev/null || true)
echo "$out" | sed -n '/^FOUND/,/^  reduced/p'
if ! echo "$out" | grep -q '^FOUND in regalloc2_ion_checker'; then
    echo "the planted bug in the regalloc2 fork was not found within $secs s" >&2
    exit 1
fi
echo "fork check passed"
