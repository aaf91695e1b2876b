#!/usr/bin/env bash
# The deep sweeps: the property tests that `cargo test` runs at a fifth of
# their size (or less), here at full size and optimised. CI's release stage
# runs this; extra arguments go to cargo test (a test name, `-- --nocapture`).
set -euo pipefail
cd "$(dirname "$0")/.."
export RAFUZZ_DEEP=1
cargo test --release -p fuzz_targets --test every_allocator --test profile_domain --test regalloc2 "$@"
# Of the failure modes only the SIGKILL test has a deep size (20 campaigns);
# `cargo test` runs the others as they are.
cargo test --release -p fuzz_targets --test failure_modes "$@" -- a_campaign_killed
