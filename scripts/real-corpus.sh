#!/usr/bin/env bash
# Selects the real-code corpus (corpus/real/<target>/) from a capture:
#   scripts/real-corpus.sh CAPTURE_DIR [OUT_DIR]      (default corpus/real)
# CAPTURE_DIR is scripts/capture.sh's output. Per target and program, from ion's valid
# cases: the largest function of at most 600 instructions, the largest of at most 600
# whose branch passes its own defs on (a try_call), and every 500th valid case of at
# most 2,000 instructions in call order (a spread of sizes and shapes), each file named
# <program>-<call>.ra: under 5 MB in all.
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
        sizes=$(for f in $valid; do echo "$(grep -c '^    inst' "$dir/$f") $f"; done)
        largest=$(echo "$sizes" | awk '$1 <= 600' | sort -n | tail -n 1 | cut -d' ' -f2)
        try_call=$(echo "$sizes" | awk '$1 <= 600' | sort -n | while read -r n f; do
            if grep -q '^    inst[0-9]*: branch .*def:' "$dir/$f"; then echo "$f"; fi
        done | tail -n 1)
        spread=$(echo "$sizes" | awk '$1 <= 2000' | awk 'NR % 500 == 1 {print $2}')
        for f in $largest $try_call $spread; do
            cp "$dir/$f" "$out/$short/$f"
        done
    done
    echo "$out/$short: $(ls "$out/$short" | wc -l) cases, $(du -sh "$out/$short" | cut -f1)"
done
