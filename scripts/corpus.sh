#!/usr/bin/env bash
# Regenerates the seed corpus of every fuzz target under corpus/<target>/:
# small, diverse inputs (empty, tiny, and ChaCha8 streams of growing sizes).
# Usage: scripts/corpus.sh [TARGET...]   (default: every target)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p fuzz_targets --bin rafuzz
rafuzz=./target/release/rafuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <($rafuzz list | sed -n '/^targets:/,$p' | tail -n +2 | awk '{print $1}')
fi
for t in "${targets[@]}"; do
    dir=corpus/$t
    rm -rf "$dir"
    mkdir -p "$dir"
    : > "$dir/empty"
    printf '\x00' > "$dir/zero"
    printf '\xff\xff\xff\xff\xff\xff\xff\xff' > "$dir/ones"
    n=0
    for size in 8 16 32 64 128 256 512 1024 2048 4096; do
        for k in 0 1 2; do
            $rafuzz gen --raw --seed $((1000 * n + k)) --size $size > "$dir/seed-$size-$k"
        done
        n=$((n + 1))
    done
    $rafuzz run "$t" "$dir" | tail -n 1
done
