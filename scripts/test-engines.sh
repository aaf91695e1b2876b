#!/usr/bin/env bash
# Checks that every engine wrapper really reports a crash: runs the test-only
# `planted` target under each engine (default: all four) and requires
# scripts/fuzz.sh to exit 1 with an artifact. Usage: scripts/test-engines.sh [ENGINE...]
set -uo pipefail
cd "$(dirname "$0")/.."
engines=("$@")
[ ${#engines[@]} -gt 0 ] || engines=(builtin libfuzzer honggfuzz afl)
fail=0
for e in "${engines[@]}"; do
    rm -rf "artifacts/$e/planted"
    scripts/fuzz.sh "$e" planted 300 > "${TMPDIR:-/tmp}/planted-$e.log" 2>&1
    status=$?
    found=$(ls "artifacts/$e/planted" 2>/dev/null | head -n 1)
    if [ $status -eq 1 ] && [ -n "$found" ]; then
        echo "$e: planted crash caught ($found)"
    else
        echo "$e: planted crash NOT caught (status $status); log: ${TMPDIR:-/tmp}/planted-$e.log"
        fail=1
    fi
done
exit $fail
