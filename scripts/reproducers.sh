#!/usr/bin/env bash
# Writes the standalone reproducer of every known regalloc2 bug
# (tests/reproducers/regalloc2/<bug>.rs) from its case under
# tests/regressions/regalloc2/, then runs them all against the release
# (`cargo run --example reproducers`): each must fail.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p fuzz_targets --bin rafuzz
rafuzz=./target/debug/rafuzz
out=tests/reproducers/regalloc2
mkdir -p "$out"
export_one() { # BUG ALLOCATOR
    $rafuzz export --allocator "$2" "tests/regressions/regalloc2/$1.ra" -o "$out/$1.rs" >/dev/null
}
for bug in repeated-limit-use repeated-late-fixed-use early-def-after-live-out too-many-live-regs; do
    export_one "$bug" regalloc2_ion
done
for bug in stack-def-in-fastalloc branch-def-arg-elsewhere live-in-before-def fastalloc-no-free-register; do
    export_one "$bug" regalloc2_fastalloc
done
cargo run -q -p fuzz_targets --example reproducers
