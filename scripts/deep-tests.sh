#!/usr/bin/env bash
# The deep sweeps: the property tests that `cargo test` runs at a fifth of
# their size (or less), here at full size and optimised. CI's release stage
# runs this; extra arguments go to cargo test (a test name, `-- --nocapture`).
# The four test binaries run at once, each output printed when it ends: each
# binary's last test runs alone and the killed campaigns mostly wait, so one
# after the other they left 44% of 2 cores idle (85 s in all, in CI).
set -euo pipefail
cd "$(dirname "$0")/.."
export RAFUZZ_DEEP=1
# Of the failure modes only the SIGKILL test has a deep size (20 campaigns);
# `cargo test` runs the others as they are.
runs=(
    "--test every_allocator"
    "--test profile_domain"
    "--test regalloc2"
    "--test failure_modes -- a_campaign_killed"
)
cargo test --release -q -p fuzz_targets --no-run \
    --test every_allocator --test profile_domain --test regalloc2 --test failure_modes
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
pids=()
for i in "${!runs[@]}"; do
    read -r -a run <<< "${runs[$i]}"
    # A test filter or `--` from the command line goes before the run's own
    # `-- a_campaign_killed`, as it did when the runs were sequential.
    if [[ ${runs[$i]} == *" -- "* ]]; then
        cargo test --release -p fuzz_targets "${run[@]:0:2}" "$@" "${run[@]:2}" > "$out/$i" 2>&1 &
    else
        cargo test --release -p fuzz_targets "${run[@]}" "$@" > "$out/$i" 2>&1 &
    fi
    pids+=($!)
done
status=0
for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || status=1
    grep -v '^ *\(Finished\|Running\|Compiling\|Blocking\)' "$out/$i" || true
done
exit $status
