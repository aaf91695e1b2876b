#!/usr/bin/env bash
# Reach of regalloc2's code under each way of feeding it, side by side, one
# job each for the same time: campaigns on regalloc2's two allocators (their
# profiles, swarm, regalloc2's checker beside ours) guided by features alone and
# by edge coverage too; regalloc2's own fuzz targets (its generator, allocator
# and checker) in the same engine, guided by edges; then the real corpus. Each
# corpus is replayed for coverage, each input through the target that made it
# as the campaign ran it (swarm, cross-checked; the real corpus through
# `differential`), and the edges and lines of src/ion/, src/fastalloc/,
# src/moves.rs and src/checker.rs summed.
#   scripts/reach.sh SECONDS SEED...     builds both instrumented binaries
# REACH_KEEP=DIR keeps the corpora and reports in DIR (for `rafuzz coverage
# --functions` on them: docs/coverage.md's list of unreached functions).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:?usage: scripts/reach.sh SECONDS SEED...}; shift
[ $# -gt 0 ] || { echo "usage: scripts/reach.sh SECONDS SEED..." >&2; exit 2; }
rafuzz=$("$root/scripts/coverage-build.sh" 2>/dev/null)
own=$("$root/scripts/coverage-build.sh" regalloc2-own 2>/dev/null)
if [ -n "${REACH_KEEP:-}" ]; then
    work=$REACH_KEEP
    mkdir -p "$work"
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
# Edges and lines reached of regalloc2's files of interest, from a report.
share() {
    grep -E 'regalloc2-[0-9.]+/src/(ion/|fastalloc/|moves\.rs|checker\.rs)' "$1" |
        sed -E 's/^ *[0-9.]+% \(([0-9]+)\/([0-9]+)\) +[0-9.]+% \(([0-9]+)\/([0-9]+)\).*/\1 \2 \3 \4/' |
        awk '{r += $1; t += $2; lr += $3; lt += $4}
             END {printf "%.1f%% (%d/%d)   %.1f%% (%d/%d)\n", 100 * r / t, r, t, 100 * lr / lt, lr, lt}'
}
ours() {
    (cd "$work" && "$rafuzz" coverage --cross-check "$@") > "$work/report.txt"
    share "$work/report.txt"
}
printf '%-34s %-24s %s\n' "corpus" "edges" "lines"
for mode in features coverage; do
    for seed in "$@"; do
        dir="$work/$mode-$seed"
        flag=(); [ "$mode" = coverage ] && flag=(--coverage)
        (cd "$work" && "$rafuzz" fuzz --target regalloc2_ion_checker --target regalloc2_fastalloc_checker \
            --swarm --cross-check --time "$secs" --seed "$seed" --jobs 1 --keep-going "${flag[@]}" \
            --corpus "$work/none" --artifacts "$dir/artifacts" --save-corpus "$dir" > /dev/null 2>&1) || true
        printf '%-34s %s\n' "ours, $mode, ${secs} s, seed $seed" "$(ours --swarm "$dir"/regalloc2_*_checker)"
    done
done
for seed in "$@"; do
    dir="$work/own-$seed"
    "$own" fuzz "$secs" "$seed" "$dir" > /dev/null 2>&1 || true
    "$own" coverage "$dir"/regalloc2_own_* > "$work/report.txt"
    printf '%-34s %s\n' "regalloc2's own, ${secs} s, seed $seed" "$(share "$work/report.txt")"
done
printf '%-34s %s\n' "real corpus (3 targets)" "$(ours --target differential "$root"/corpus/real/*)"
