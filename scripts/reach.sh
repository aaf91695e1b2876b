#!/usr/bin/env bash
# Reach of regalloc2's code under each way of feeding it, side by side, for the
# same time on one job each. Campaigns on regalloc2's two allocators (their
# profiles, swarm, regalloc2's checker beside ours):
#   features  guided by features alone, from an empty corpus;
#   coverage  guided by regalloc2's edges too, from an empty corpus;
#   seeds     guided by edges, the real corpus's cases mutated as cases;
#   own       regalloc2's own fuzz targets (its generator, allocator and
#             checker) in the same engine, guided by edges;
# then the real corpus, and a full capture when REACH_CAPTURE names one, replayed.
# Each corpus is replayed for coverage, each input through the target that made
# it as the campaign ran it (swarm, cross-checked; the real cases through both
# regalloc2 targets, cross-checked), and the edges and lines of src/ion/,
# src/fastalloc/, src/moves.rs and src/checker.rs summed. Last, lines per file,
# the seeds' corpora of each kind together.
#   scripts/reach.sh SECONDS SEED...     builds both instrumented binaries
# REACH_MODES="coverage own" runs only those campaigns (default: all four).
# REACH_JOBS=N runs N campaigns at once (default 1; each is one job, so keep N
# at most the number of cores).
# REACH_CAPTURE=OUT replays a capture too (scripts/capture.sh ... OUT: its
# OUT/<target>/ion/*.ra).
# REACH_KEEP=DIR keeps the corpora and reports in DIR (for `rafuzz coverage
# --functions` on them: docs/coverage.md's list of unreached functions).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:?usage: scripts/reach.sh SECONDS SEED...}; shift
[ $# -gt 0 ] || { echo "usage: scripts/reach.sh SECONDS SEED..." >&2; exit 2; }
modes=${REACH_MODES:-features coverage seeds own}
for m in $modes; do
    case $m in features | coverage | seeds | own) ;; *) echo "REACH_MODES: unknown mode $m" >&2; exit 2 ;; esac
done
rafuzz=$("$root/scripts/coverage-build.sh" 2>/dev/null)
own=$("$root/scripts/coverage-build.sh" regalloc2-own 2>/dev/null)
if [ -n "${REACH_KEEP:-}" ]; then
    mkdir -p "$REACH_KEEP"
    work=$(cd "$REACH_KEEP" && pwd)
else
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
fi
files='regalloc2-[0-9.]+/src/(ion/|fastalloc/|moves\.rs|checker\.rs)'
# Edges and lines reached of regalloc2's files of interest, from a report.
share() {
    grep -E "$files" "$1" |
        sed -E 's/^ *[0-9.]+% \(([0-9]+)\/([0-9]+)\) +[0-9.]+% \(([0-9]+)\/([0-9]+)\).*/\1 \2 \3 \4/' |
        awk '{r += $1; t += $2; lr += $3; lt += $4}
             END {printf "%.1f%% (%d/%d)   %.1f%% (%d/%d)\n", 100 * r / t, r, t, 100 * lr / lt, lr, lt}'
}
# "file lines-reached lines-total" per file of interest, from a report.
per_file() {
    grep -E "$files" "$1" |
        sed -E 's/^ *[0-9.]+% \([0-9]+\/[0-9]+\) +[0-9.]+% \(([0-9]+)\/([0-9]+)\) +regalloc2-[0-9.]+\/src\/(.*)$/\3 \1 \2/'
}
ours() {
    local report=$1; shift
    (cd "$work" && "$rafuzz" coverage --cross-check "$@") > "$report"
    share "$report"
}
# A folder of the cases of $2... under both regalloc2 targets' names, for a
# replay through each target as a campaign's corpus is.
cases_dir() {
    local dir=$1; shift
    for t in regalloc2_ion_checker regalloc2_fastalloc_checker; do
        mkdir -p "$dir/$t"
        find "$@" -name '*.ra' | awk -v d="$dir/$t" '{print $0 "\t" d "/" NR ".ra"}' |
            while IFS=$'\t' read -r from to; do ln -sf "$from" "$to"; done
    done
}
campaign() {
    local mode=$1 seed=$2 dir="$work/$1-$2"
    local flag=()
    case $mode in
        own)
            "$own" fuzz "$secs" "$seed" "$dir" > /dev/null 2>&1 || true
            return
            ;;
        coverage) flag=(--coverage) ;;
        seeds) flag=(--coverage --seeds "$root/corpus/real/x86_64" --seeds "$root/corpus/real/aarch64"
            --seeds "$root/corpus/real/riscv64gc") ;;
    esac
    (cd "$work" && "$rafuzz" fuzz --target regalloc2_ion_checker --target regalloc2_fastalloc_checker \
        --swarm --cross-check --time "$secs" --seed "$seed" --jobs 1 --keep-going --no-reduce "${flag[@]}" \
        --corpus "$work/none" --artifacts "$dir/artifacts" --save-corpus "$dir" > /dev/null 2>&1) || true
}
export -f campaign
export work secs own rafuzz root
for m in $modes; do for s in "$@"; do echo "$m $s"; done; done |
    xargs -P "${REACH_JOBS:-1}" -L 1 bash -c 'campaign "$0" "$1"'
label() {
    case $1 in
        features) echo "ours, features alone" ;;
        coverage) echo "ours, guided by edges" ;;
        seeds) echo "real seeds mutated, by edges" ;;
        own) echo "regalloc2's own, by edges" ;;
    esac
}
replay() {
    local mode=$1 report=$2; shift 2
    local dirs=()
    for s in "$@"; do dirs+=("$work/$mode-$s"); done
    if [ "$mode" = own ]; then
        local inputs=()
        for d in "${dirs[@]}"; do inputs+=("$d"/regalloc2_own_*); done
        "$own" coverage "${inputs[@]}" > "$report"
        share "$report"
    else
        local inputs=()
        for d in "${dirs[@]}"; do inputs+=("$d"/regalloc2_*_checker); done
        ours "$report" --swarm "${inputs[@]}"
    fi
}
printf '%-44s %-26s %s\n' "corpus" "edges" "lines"
for m in $modes; do
    for s in "$@"; do
        printf '%-44s %s\n' "$(label "$m"), ${secs} s, seed $s" "$(replay "$m" "$work/report-$m-$s.txt" "$s")"
    done
done
columns=()
for m in $modes; do
    if [ $# -gt 1 ]; then replay "$m" "$work/report-$m.txt" "$@" > /dev/null; else cp "$work/report-$m-$1.txt" "$work/report-$m.txt"; fi
    columns+=("$m")
done
cases_dir "$work/real" "$root"/corpus/real
n=$(find "$root"/corpus/real -name '*.ra' | wc -l)
printf '%-44s %s\n' "real corpus ($n functions)" "$(ours "$work/report-real.txt" "$work"/real/regalloc2_*_checker)"
columns+=(real)
if [ -n "${REACH_CAPTURE:-}" ]; then
    # ion's cases only: the fastalloc folder holds the same functions.
    capture=$(cd "$REACH_CAPTURE" && pwd)
    cases_dir "$work/capture" "$capture"/*/ion
    n=$(find "$capture"/*/ion -name '*.ra' | wc -l)
    printf '%-44s %s\n' "full capture ($n functions)" "$(ours "$work/report-capture.txt" "$work"/capture/regalloc2_*_checker)"
    columns+=(capture)
fi
# Lines per file, each column the seeds' corpora of one kind together.
echo
printf '%-28s' file; printf ' %12s' "${columns[@]}"; echo
for c in "${columns[@]}"; do per_file "$work/report-$c.txt" | sed "s/^/$c /"; done |
    awk -v cols="${columns[*]}" '
        {cell[$1, $2] = $3 " of " $4; seen[$2] = 1}
        END {
            n = split(cols, c, " ")
            for (f in seen) {
                printf "%-28s", f
                for (j = 1; j <= n; j++) printf " %12s", ((c[j], f) in cell) ? cell[c[j], f] : "-"
                printf "\n"
            }
        }' | sort
