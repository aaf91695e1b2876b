#!/usr/bin/env bash
# Reach of regalloc2's code under each way of feeding it, side by side:
# campaigns on regalloc2's two allocators (their profiles, swarm, regalloc2's
# checker beside ours) guided by features alone and by edge coverage too, one
# per seed; then the real corpus. Each corpus is replayed by `rafuzz coverage`
# through `differential` (every allocator on each case, cross-checked), and the
# edges of src/ion/, src/fastalloc/, src/moves.rs and src/checker.rs summed.
#   scripts/reach.sh SECONDS SEED...     needs scripts/coverage-build.sh's build
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:?usage: scripts/reach.sh SECONDS SEED...}; shift
[ $# -gt 0 ] || { echo "usage: scripts/reach.sh SECONDS SEED..." >&2; exit 2; }
rafuzz=$("$root/scripts/coverage-build.sh" 2>/dev/null)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Edges reached and in all of regalloc2's files of interest, from a report.
share() {
    grep -E 'regalloc2-[0-9.]+/src/(ion/|fastalloc/|moves\.rs|checker\.rs)' "$1" |
        sed -E 's/^ *[0-9.]+% \(([0-9]+)\/([0-9]+)\).*/\1 \2/' |
        awk '{r += $1; t += $2} END {printf "%.1f%% (%d/%d)\n", 100 * r / t, r, t}'
}
reach() {
    (cd "$work" && "$rafuzz" coverage --target differential --cross-check "$@") > "$work/report.txt"
    share "$work/report.txt"
}
printf '%-34s %s\n' "corpus" "edges of ion/, fastalloc/, moves.rs, checker.rs"
for mode in features coverage; do
    for seed in "$@"; do
        dir="$work/$mode-$seed"
        flag=(); [ "$mode" = coverage ] && flag=(--coverage)
        (cd "$work" && "$rafuzz" fuzz --target regalloc2_ion_checker --target regalloc2_fastalloc_checker \
            --swarm --cross-check --time "$secs" --seed "$seed" --jobs 2 "${flag[@]}" \
            --corpus "$work/none" --artifacts "$dir/artifacts" --save-corpus "$dir" > /dev/null 2>&1) || true
        printf '%-34s %s\n' "$mode, ${secs} s, seed $seed" "$(reach "$dir"/regalloc2_*_checker)"
    done
done
printf '%-34s %s\n' "real corpus (3 targets)" "$(reach "$root"/corpus/real/*)"
