#!/usr/bin/env bash
# Time to each known regalloc2 bug (docs/regalloc2.md, "Known bugs"), guided
# by features alone and by regalloc2's edges too, on one instrumented binary
# (scripts/coverage-build.sh). Each of regalloc2's two checker targets runs
# under --no-suppress, so its profile makes the bugs' shapes and the adapter
# hands them over, from an empty corpus, for SECONDS (default 60) on one job,
# on each of SEEDS seeds (default 3), keeping going past findings. Each finding
# is then named: a wrong allocation or panic by the exclusion `rafuzz alloc`
# suppresses it under; a false refusal by the allocator's one known false
# refusal, checked by replaying it with suppression on. A finding no known bug
# explains is printed as new. Prints, per bug (every known bug has a reproducer
# under tests/reproducers/regalloc2/, which names its algorithm), the median
# time to its first finding over the seeds it was found on, on how many, and
# each seed's time (`-`: not found).
#   scripts/known-bug-bench.sh [SECONDS] [SEEDS]
# BENCH_JOBS=N runs N campaigns at once (default 1; keep N at most the cores).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
seeds=${2:-3}
rafuzz=$("$root/scripts/coverage-build.sh" 2>/dev/null)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
run() {
    local target=$1 guide=$2 seed=$3 dir="$work/$1-$2-$3"
    local flag=()
    [ "$guide" = coverage ] && flag=(--coverage)
    mkdir -p "$dir"
    (cd "$dir" && "$rafuzz" fuzz --target "$target" --no-suppress --keep-going --no-reduce \
        --time "$secs" --seed "$seed" --jobs 1 --corpus "$dir/none" --artifacts "$dir/artifacts" \
        "${flag[@]}" > "$dir/out.txt" 2> "$dir/err.txt") || true
    grep -q '^target ' "$dir/out.txt" ||
        { echo "$target, $guide, seed $seed: the campaign did not run:" >&2; cat "$dir/err.txt" >&2; exit 255; }
}
export -f run
export rafuzz work secs
for t in regalloc2_ion_checker regalloc2_fastalloc_checker; do
    for g in features coverage; do
        for s in $(seq 1 "$seeds"); do echo "$t $g $s"; done
    done
done | xargs -P "${BENCH_JOBS:-1}" -L 1 bash -c 'run "$0" "$1" "$2"'
# "seconds name" of each finding of one run, in the order found.
named() {
    local dir=$1 target=$2 alloc=$3 refusal=$4
    # seconds, input, case of each finding
    awk '/^FOUND in / {t = ""; i = ""} /^  after: / {t = $2} /^  input: / {i = $2}
         /^  case: / {print t "\t" i "\t" $2}' "$dir/out.txt" > "$dir/found.tsv"
    [ -s "$dir/found.tsv" ] || return 0
    cut -f 3 "$dir/found.tsv" | xargs "$rafuzz" alloc --allocator "$alloc" 2>&1 |
        sed -n 's/^\(.*\): [a-z0-9_]*: suppressed: known regalloc2 bug \(.*\)$/\1\t\2/p' > "$dir/names.tsv" || true
    while IFS=$'\t' read -r t input case; do
        name=$(awk -F '\t' -v c="$case" '$1 == c {print $2; exit}' "$dir/names.tsv")
        if [ -z "$name" ]; then
            case $(basename "$input") in
                refused-feasible-*)
                    # The case, not the raw input: the bytes decode under
                    # --no-suppress's config, the replay runs without it.
                    if (cd "$dir" && "$rafuzz" run "$target" "$case" > /dev/null 2>&1); then
                        name=$refusal
                    fi
                    ;;
            esac
        fi
        echo "$t ${name:-new:$(basename "$input")}"
    done < "$dir/found.tsv"
}
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
for t in regalloc2_ion_checker regalloc2_fastalloc_checker; do
    case $t in
        regalloc2_ion_checker) alloc=regalloc2_ion refusal=too-many-live-regs ;;
        *) alloc=regalloc2_fastalloc refusal=fastalloc-no-free-register ;;
    esac
    for g in features coverage; do
        for s in $(seq 1 "$seeds"); do
            named "$work/$t-$g-$s" "$t" "$alloc" "$refusal" | awk -v g="$g" -v s="$s" -v t="$t" \
                '!seen[$2]++ {print t, $2, g, s, $1}'
        done
    done
done > "$work/firsts.txt"
printf '%-28s %-26s %-9s %12s %6s  %s\n' bug target guidance "median time" found "per seed"
for f in "$root"/tests/reproducers/regalloc2/*.rs; do
    if grep -q 'Algorithm::Fastalloc' "$f"; then t=regalloc2_fastalloc_checker; else t=regalloc2_ion_checker; fi
    echo "$t $(basename "$f" .rs)"
done > "$work/known.txt"
cut -d ' ' -f 1,2 "$work/firsts.txt" | cat - "$work/known.txt" | sort -u | while read -r t bug; do
    for g in features coverage; do
        each="" found=0
        for s in $(seq 1 "$seeds"); do
            v=$(awk -v t="$t" -v b="$bug" -v g="$g" -v s="$s" '$1 == t && $2 == b && $3 == g && $4 == s {print $5}' "$work/firsts.txt")
            each="$each ${v:--}"
            [ -n "$v" ] && found=$((found + 1))
        done
        m=$(echo "$each" | tr ' ' '\n' | grep -E '^[0-9.]+$' | median || true)
        printf '%-28s %-26s %-9s %10s s %2d/%-3d %s\n' "$bug" "$t" "$g" "$m" "$found" "$seeds" "$each"
    done
done
