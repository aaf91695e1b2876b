#!/usr/bin/env bash
# Runs every target under every engine that can be installed here, each for
# SECONDS (default 30): the built-in engine always; libFuzzer when a nightly
# toolchain is present; honggfuzz and AFL++ when their installs succeed.
# Exits non-zero if any engine found a crash in any target.
set -uo pipefail
cd "$(dirname "$0")/.."
secs=${1:-30}
cargo build --release -q -p fuzz_targets --bin rafuzz || exit 2
targets=$(./target/release/rafuzz list | sed -n '/^targets:/,$p' | tail -n +2 | awk '{print $1}')
engines="builtin"
rustup toolchain list 2>/dev/null | grep -q '^nightly' && engines="$engines libfuzzer"
engines="$engines ${EXTRA_ENGINES:-honggfuzz afl}"
failed=0
for e in $engines; do
    for t in $targets; do
        echo "== $e $t (${secs}s)"
        scripts/fuzz.sh "$e" "$t" "$secs"
        case $? in
            0) ;;
            1) failed=1 ;;
            *) echo "$e could not run $t here; skipping $e"; continue 2 ;;
        esac
    done
done
exit $failed
