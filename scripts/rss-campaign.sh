#!/usr/bin/env bash
# Memory of a long campaign: runs `rafuzz fuzz --all` for SECONDS (default
# 1800) and samples, every INTERVAL seconds (default 30), the resident size of
# the engine and of its worker processes, as CSV on stdout; then prints the
# peak of each and the total at the first and the last sample, so that growth
# shows. Linux only (reads /proc).
#   scripts/rss-campaign.sh [SECONDS] [INTERVAL]
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-1800}
interval=${2:-30}
cargo build --release -q -p fuzz_targets --bin rafuzz
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
./target/release/rafuzz fuzz --all --time "$secs" --keep-going --no-reduce \
    --artifacts "$work/artifacts" >"$work/out" 2>"$work/err" &
engine=$!
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$1/status" 2>/dev/null || echo 0; }
echo "elapsed_s,engine_kb,workers_kb,total_kb"
start=$(date +%s)
peak_engine=0 peak_workers=0 peak_total=0 first="" last=""
while kill -0 "$engine" 2>/dev/null; do
    sleep "$interval"
    kill -0 "$engine" 2>/dev/null || break
    e=$(rss "$engine")
    w=0
    for child in $(cat /proc/"$engine"/task/*/children 2>/dev/null); do
        w=$((w + $(rss "$child")))
    done
    t=$((e + w))
    now=$(($(date +%s) - start))
    echo "$now,$e,$w,$t"
    [ "$e" -gt "$peak_engine" ] && peak_engine=$e
    [ "$w" -gt "$peak_workers" ] && peak_workers=$w
    [ "$t" -gt "$peak_total" ] && peak_total=$t
    [ -z "$first" ] && first=$t
    last=$t
done
wait "$engine" || true
echo "peak resident size: engine ${peak_engine} kB, workers ${peak_workers} kB (together), total ${peak_total} kB"
echo "total at the first sample ${first:-0} kB, at the last ${last:-0} kB"
grep -E '^[a-z_0-9]+ +[0-9]+' "$work/out" | awk '{s += $2} END {print s " executions"}'
