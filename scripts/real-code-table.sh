#!/usr/bin/env bash
# docs/real-code.md's yardstick, regenerated: per program and target of a
# capture, every allocator and our symbolic checker (beside regalloc2's own, the
# peer a Cranelift user has) against regalloc2's ion,
# timed in one run per target (the release profile `cargo bench` uses), ion as
# Cranelift runs it: multiples of ion's time and loop-weighted cost, each one's
# worst single function against ion's time, and the largest heap each holds at
# once on one function as a multiple of ion's. Figures off a goal of
# docs/real-code.md are bold.
#   scripts/real-code-table.sh CAPTURE [TARGET...]
# CAPTURE is the OUT of `scripts/capture.sh $(scripts/real-programs.sh) OUT`
# (its OUT/<target>/ion/*.ra); TARGET limits it to those targets
# (x86_64-unknown-linux-gnu, ...). The bench's own lines go to
# CAPTURE/bench-<target>.txt.
set -euo pipefail
shopt -s nullglob
root=$(cd "$(dirname "$0")/.." && pwd)
capture=${1:?usage: scripts/real-code-table.sh CAPTURE [TARGET...]}
capture=$(cd "$capture" && pwd)
shift
if [ $# -gt 0 ]; then
    targets=("$@")
else
    targets=()
    for d in "$capture"/*/ion; do targets+=("$(basename "$(dirname "$d")")"); done
fi
[ ${#targets[@]} -gt 0 ] || { echo "no <target>/ion folder in $capture" >&2; exit 2; }
rows=$(mktemp)
trap 'rm -f "$rows"' EXIT
for t in "${targets[@]}"; do
    [ -d "$capture/$t/ion" ] || { echo "no $capture/$t/ion" >&2; exit 2; }
    (cd "$root" && RAFUZZ_BENCH_REAL="$capture/$t/ion" cargo bench -q -p fuzz_targets --bench allocate) \
        > "$capture/bench-$t.txt"
    sed -n "s/^table /${t%%-*} /p" "$capture/bench-$t.txt" >> "$rows"
done
# Rows: TARGET PROGRAM NAME TIME COST PEAK ION_PEAK WORST WORST_INSTS
awk '
function label(t, p) {
    sub(/^x86_64$/, "x86-64", t); sub(/^riscv64gc$/, "riscv64", t)
    if (p == "sqlite") p = "SQLite"; else if (p == "jxl") p = "libjxl"
    return t " " p
}
# A multiple, bold when off its goal (limit 0: no goal).
function x(v, limit) {
    if (v == "" || v == "-" || v == "NaN") return "-"
    s = sprintf("%.2f×", v)
    return (limit > 0 && v + 0 > limit) ? "**" s "**" : s
}
# The time of the checker, to three places (its goal is 0.1).
function x3(v, limit) {
    if (v == "" || v == "-" || v == "NaN") return "-"
    s = sprintf("%.3f×", v)
    return (limit > 0 && v + 0 > limit) ? "**" s "**" : s
}
# The peak heap of name as a multiple of the peak of ion on the same functions.
function peakx(k, name, limit) {
    if (!((k, name) in peak) || ionpeak[k, name] + 0 == 0) return "-"
    return x(peak[k, name] / ionpeak[k, name], limit)
}
# The worst single function of name: its multiple and its size.
function worstx(k, name, limit) {
    if (!((k, name) in worst) || worst[k, name] == "-") return "-"
    return x(worst[k, name], limit) " (" at[k, name] " insts)"
}
function mb(b) { return sprintf("%.1f", b / 1e6) }
{
    key = label($1, $2)
    if (!(key in seen)) { seen[key] = 1; order[++n] = key }
    time[key, $3] = $4; cost[key, $3] = $5; peak[key, $3] = $6; ionpeak[key, $3] = $7
    if ($7 + 0 > ionmax[key] + 0) ionmax[key] = $7
    worst[key, $3] = $8; at[key, $3] = $9
}
END {
    print "| target, program | `linear_scan` | `backtracking` | `coloring` | `fastalloc` | `regalloc_rs_bt` | checker (regalloc2's) |"
    print "|---|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) {
        k = order[i]
        printf "| %s | %s, %s | %s, %s | %s, %s | %s, %s | %s, %s | %s |\n", k,
            x(time[k, "linear_scan"], 0), x(cost[k, "linear_scan"], 1.0),
            x(time[k, "backtracking"], 1.0), x(cost[k, "backtracking"], 0),
            x(time[k, "coloring"], 1.5), x(cost[k, "coloring"], 0.7),
            x(time[k, "regalloc2_fastalloc"], 0), x(cost[k, "regalloc2_fastalloc"], 0),
            x(time[k, "regalloc_rs_bt"], 0), x(cost[k, "regalloc_rs_bt"], 0),
            x3(time[k, "checker"], 0.1) " (" x(time[k, "regalloc2_checker"], 0) ")"
    }
    print ""
    print "| target, program | worst function, `linear_scan` | `backtracking` | `coloring` | peak heap, ion (MB) | `linear_scan` | `backtracking` | `coloring` | checker |"
    print "|---|---|---|---|---|---|---|---|---|"
    for (i = 1; i <= n; i++) {
        k = order[i]
        printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k,
            worstx(k, "linear_scan", 3), worstx(k, "backtracking", 0), worstx(k, "coloring", 3),
            mb(ionmax[k]),
            peakx(k, "linear_scan", 0), peakx(k, "backtracking", 0),
            peakx(k, "coloring", 4), peakx(k, "checker", 0)
    }
}' "$rows"
