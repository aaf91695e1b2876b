#!/usr/bin/env bash
# Minimizes a crash that libFuzzer (cargo fuzz) found: `cargo fuzz tmin`
# shrinks its bytes, then `rafuzz reduce` shrinks the case those bytes make,
# keeping the failure signature. Prints the reduced case's path and the
# command that replays it.
#   scripts/minimize.sh TARGET CRASH [SECONDS]
# SECONDS bounds `rafuzz reduce` (default 120). Writes CRASH.min (the bytes
# tmin kept) and CRASH.min.reduced.ra beside CRASH (or CRASH.min.reduced
# when the failure does not show in a case). Environment: SANITIZER as for
# scripts/fuzz.sh (default address, which needs nightly; none works on
# stable); SKIP_TMIN=1 skips tmin (no toolchain or cargo-fuzz needed).
# Exit status: 0 reduced, 1 the input does not fail, 2 a tool failed.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
target=${1:?usage: scripts/minimize.sh TARGET CRASH [SECONDS]}
crash=${2:?usage: scripts/minimize.sh TARGET CRASH [SECONDS]}
secs=${3:-120}
crash=$(cd "$(dirname "$crash")" && pwd)/$(basename "$crash")
[ -f "$crash" ] || { echo "no such file: $crash" >&2; exit 2; }

CARGO_FUZZ_VERSION=0.13.2
min=$crash.min
if [ "${SKIP_TMIN:-0}" = 1 ]; then
    cp "$crash" "$min"
else
    sanitizer=${SANITIZER:-address}
    toolchain=+nightly
    [ "$sanitizer" = none ] && toolchain=""
    command -v cargo-fuzz >/dev/null 2>&1 ||
        cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
    tmin_dir=$root/fuzz_targets/fuzz/artifacts/rafuzz_target
    mkdir -p "$tmin_dir"
    stamp=$(mktemp)
    # tmin exits non-zero when the input does not crash; keep going to say so.
    (cd fuzz_targets && RAFUZZ_TARGET="$target" cargo $toolchain fuzz tmin -O --debug-assertions \
        -s "$sanitizer" -r 2000 rafuzz_target "$crash") >"$stamp.log" 2>&1 || true
    found=$(find "$tmin_dir" -name 'minimized-from-*' -newer "$stamp" -type f 2>/dev/null | head -n 1)
    rm -f "$stamp"
    if [ -n "$found" ]; then
        mv "$found" "$min"
    elif grep -q '^CRASH_MIN:' "$stamp.log"; then
        # tmin ran but kept nothing smaller (e.g. "failed to minimize
        # beyond"): the crash is already minimal in bytes. Whether it fails
        # at all is for rafuzz reduce to say (exit 1).
        cp "$crash" "$min"
    else
        tail -n 20 "$stamp.log" >&2
        echo "cargo fuzz tmin did not run (log: $stamp.log)" >&2
        exit 2
    fi
    rm -f "$stamp.log"
    echo "tmin: $(wc -c <"$crash") -> $(wc -c <"$min") bytes: $min"
fi
# RAFUZZ: a rafuzz binary to reduce with (CI passes its own); otherwise
# the release build, made here.
rafuzz=${RAFUZZ:-}
if [ -z "$rafuzz" ]; then
    cargo build --release -q -p fuzz_targets --bin rafuzz
    rafuzz=${CARGO_TARGET_DIR:-$root/target}/release/rafuzz
fi
status=0
"$rafuzz" reduce --target "$target" --time "$secs" "$min" || status=$?
exit $status
