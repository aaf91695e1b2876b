#!/usr/bin/env bash
# The deep sweeps: the property tests that `cargo test` runs at a fifth of
# their size (or less), here at full size and optimised. CI's release stage
# runs this; extra arguments go to cargo test (a test name, `-- --nocapture`).
set -euo pipefail
cd "$(dirname "$0")/.."
export RAFUZZ_DEEP=1
exec cargo test --release -p fuzz_targets \
    --test every_allocator --test failure_modes --test profile_domain "$@"
