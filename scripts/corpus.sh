#!/usr/bin/env bash
# Regenerates the seed corpus of every fuzz target under corpus/<target>/:
# a few fixed inputs (empty, zero, ones), short ChaCha8 streams, then what the
# built-in engine keeps in SECONDS of fuzzing (every input that reached a new
# feature), minimized with `cargo fuzz cmin` when cargo-fuzz and nightly are
# there. Usage: scripts/corpus.sh [TARGET...]   (SECONDS=20 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${SECONDS_PER_TARGET:-20}
cargo build --release -q -p fuzz_targets --bin rafuzz
rafuzz=./target/release/rafuzz
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <($rafuzz list | sed -n '/^targets:/,$p' | tail -n +2 | awk '{print $1}')
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for t in "${targets[@]}"; do
    dir=corpus/$t
    rm -rf "$dir" "$tmp/$t"
    mkdir -p "$dir"
    : > "$dir/empty"
    printf '\x00' > "$dir/zero"
    printf '\xff\xff\xff\xff\xff\xff\xff\xff' > "$dir/ones"
    n=0
    for size in 8 32 128 512 2048; do
        for k in 0 1; do
            $rafuzz gen --raw --seed $((1000 * n + k)) --size $size > "$dir/seed-$size-$k"
        done
        n=$((n + 1))
    done
    $rafuzz fuzz --target "$t" --time "$secs" --max-len 4096 --corpus corpus --save-corpus "$tmp" \
        --artifacts "$tmp/artifacts" > /dev/null
    if command -v cargo-fuzz >/dev/null && rustup toolchain list | grep -q '^nightly'; then
        mkdir -p "$tmp/min-$t"
        (cd fuzz_targets && cargo +nightly fuzz cmin -O "$t" "$tmp/$t" -- -max_len=4096 >/dev/null 2>&1) || true
    fi
    for f in "$tmp/$t"/*; do [ -f "$f" ] && cp "$f" "$dir/$(basename "$f")"; done
    $rafuzz run "$t" "$dir" | tail -n 1
done
