#!/usr/bin/env bash
# The fault benchmark: each planted fault (fuzz_targets/src/faults.rs) through
# its checker target with the built-in engine, from an empty corpus, for at most
# SECONDS (default 60) on each of SEEDS seeds (default 3); prints a table: fault,
# median time to detection (of the seeds it was found on), on how many seeds it
# was found, median size of the reduced case, and each seed's time (`-`: missed). `extra_spill` is left out (a correct allocation: only `rafuzz
# compare` finds it), and so is `rare_branch`, which compares kinds of
# guidance (scripts/guidance-bench.sh).
#   scripts/fault-bench.sh [SECONDS] [SEEDS] [FAULT...]   # FAULT: fault_<name>
# GEN=swarm generates with swarm generation (--swarm) instead of the target's
# config as it is (GEN=single, the default), to compare the two. PROFILE=P
# generates the cases of profile P (--profile); SEEDS=DIR starts from the .ra
# cases of DIR, mutated as cases (--seeds), instead of an empty corpus.
# GUIDE=features or GUIDE=coverage runs the instrumented build of
# scripts/coverage-build.sh, guided by features alone or by the allocator's
# edges too (--coverage), to compare the two on one binary.
# Exit status 1 when a fault was missed on some seed.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-60}
seeds=${2:-3}
shift $(($# < 2 ? $# : 2))
gen=()
case "${GUIDE:-}" in
    "") cargo build --release -q -p fuzz_targets --bin rafuzz; rafuzz=./target/release/rafuzz ;;
    features) rafuzz=$(scripts/coverage-build.sh 2>/dev/null) ;;
    coverage) rafuzz=$(scripts/coverage-build.sh 2>/dev/null); gen+=(--coverage) ;;
    *) echo "GUIDE must be features or coverage" >&2; exit 2 ;;
esac
case "${GEN:-single}" in
    single) ;;
    swarm) gen+=(--swarm) ;;
    *) echo "GEN must be swarm or single" >&2; exit 2 ;;
esac
[ -n "${PROFILE:-}" ] && gen+=(--profile "$PROFILE")
[ -n "${SEEDS:-}" ] && gen+=(--seeds "$SEEDS")
if [ $# -gt 0 ]; then faults=("$@"); else mapfile -t faults < <($rafuzz list --faults | grep -v -e '^fault_extra_spill$' -e '^fault_rare_branch$'); fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
median() { sort -g | awk '{v[NR] = $1} END {if (NR == 0) print "-"; else if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
printf '%-22s %12s %7s %14s  %s\n' fault "median time" found "reduced insts" "per seed"
missed=0
for f in "${faults[@]}"; do
    times=() sizes=() found=0 each=""
    for s in $(seq 1 "$seeds"); do
        out=$($rafuzz fuzz --target "$f" --time "$secs" --seed "$s" --jobs 2 --corpus "$work/none" \
            --artifacts "$work/artifacts-$s" --reduce-time 30 --timeout 2 --rss-limit-mb 512 "${gen[@]+"${gen[@]}"}" 2>/dev/null || true)
        t=$(echo "$out" | awk '/^  after: / {print $2; exit}')
        each="$each ${t:--}"
        if [ -n "$t" ]; then
            found=$((found + 1))
            times+=("$t")
            n=$(echo "$out" | sed -n 's/^  reduced: .* (\([0-9]*\) insts.*/\1/p' | head -n 1)
            [ -n "$n" ] && sizes+=("$n")
        fi
    done
    [ "$found" -eq "$seeds" ] || missed=1
    mt=$(printf '%s\n' "${times[@]+"${times[@]}"}" | { grep . || true; } | median)
    ms=$(printf '%s\n' "${sizes[@]+"${sizes[@]}"}" | { grep . || true; } | median)
    printf '%-22s %10s s %3d/%-3d %14s %s\n' "$f" "$mt" "$found" "$seeds" "$ms" "$each"
done
exit $missed
