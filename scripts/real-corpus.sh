#!/usr/bin/env bash
# Selects the real-code corpus (corpus/real/<target>/) from a capture:
#   scripts/real-corpus.sh CAPTURE_DIR [OUT_DIR]      (default corpus/real)
# CAPTURE_DIR is scripts/capture.sh's output. Per target and program, from ion's valid
# cases: the largest function of at most 600 instructions, and every 300th valid case
# in call order (a spread of sizes and shapes), each file named <program>-<call>.ra.
# cargo test replays the selection (fuzz_targets/tests/real_corpus.rs).
set -euo pipefail
cd "$(dirname "$0")/.."
capture=${1:?usage: scripts/real-corpus.sh CAPTURE_DIR [OUT_DIR]}
out=${2:-corpus/real}
cargo build --release -q -p fuzz_targets --bin rafuzz
rafuzz=$(pwd)/target/release/rafuzz
for dir in "$capture"/*/ion; do
    target=$(basename "$(dirname "$dir")")
    short=${target%%-*}
    mkdir -p "$out/$short"
    rm -f "$out/$short"/*.ra
    for program in $(ls "$dir" | sed -n 's/^\(.*\)-[0-9]*\.ra$/\1/p' | sort -u); do
        valid=$(cd "$dir" && "$rafuzz" validate "$program"-*.ra 2>/dev/null | sed -n 's/: ok$//p' || true)
        [ -n "$valid" ] || continue
        largest=$(for f in $valid; do
            n=$(grep -c '^    inst' "$dir/$f")
            [ "$n" -le 600 ] && echo "$n $f"
        done | sort -n | tail -n 1 | cut -d' ' -f2)
        for f in $largest $(echo "$valid" | awk 'NR % 300 == 1'); do
            cp "$dir/$f" "$out/$short/$f"
        done
    done
    echo "$out/$short: $(ls "$out/$short" | wc -l) cases, $(du -sh "$out/$short" | cut -f1)"
done
