#!/usr/bin/env bash
# Builds rafuzz with edge counters in the allocators' code: SanitizerCoverage's
# inline 8-bit counters and PC table (stable rustc flags), line tables, and the
# `coverage` feature that reads them. For `rafuzz coverage` and `--coverage`.
#   scripts/coverage-build.sh        prints the binary's path last
# The build has its own target folder (target/coverage) and an explicit
# --target, so the flags reach neither the ordinary build nor build scripts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target/coverage}
host=$(rustc -vV | sed -n 's/^host: //p')
export RUSTFLAGS="-C passes=sancov-module -C llvm-args=-sanitizer-coverage-level=3 \
-C llvm-args=-sanitizer-coverage-inline-8bit-counters \
-C llvm-args=-sanitizer-coverage-pc-table -C debuginfo=line-tables-only"
cd "$root"
cargo build --release --target "$host" -p fuzz_targets --bin rafuzz --features coverage >&2
echo "$CARGO_TARGET_DIR/$host/release/rafuzz"
