#!/usr/bin/env bash
# Builds rafuzz with edge counters in the allocators' code: SanitizerCoverage's
# inline 8-bit counters and PC table (stable rustc flags), line tables, and the
# `coverage` feature that reads them. For `rafuzz coverage` and `--coverage`.
#   scripts/coverage-build.sh                 prints the binary's path last
#   scripts/coverage-build.sh regalloc2-own   the same for regalloc2's own fuzz
#                                             targets (fuzz_targets/regalloc2_own)
# The build has its own target folder (target/coverage) and an explicit
# --target, so the flags reach neither the ordinary build nor build scripts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target/coverage}
# Keep the line tables the counters are attributed with.
export CARGO_PROFILE_RELEASE_STRIP=false
host=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-C passes=sancov-module -C llvm-args=-sanitizer-coverage-level=3 \
-C llvm-args=-sanitizer-coverage-inline-8bit-counters \
-C llvm-args=-sanitizer-coverage-pc-table -C debuginfo=line-tables-only"
case "${1:-}" in
    "")
        cd "$root"
        cargo build --release --target "$host" -p fuzz_targets --bin rafuzz --features coverage >&2
        echo "$CARGO_TARGET_DIR/$host/release/rafuzz"
        ;;
    regalloc2-own)
        cd "$root/fuzz_targets/regalloc2_own"
        cargo build --release --target "$host" >&2
        echo "$CARGO_TARGET_DIR/$host/release/rafuzz-regalloc2-own"
        ;;
    *) echo "usage: scripts/coverage-build.sh [regalloc2-own]" >&2; exit 2 ;;
esac
