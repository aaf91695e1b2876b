#!/usr/bin/env bash
# Byte-identity snapshot for refactors that must not change behaviour:
# `rafuzz gen`, `alloc` (every allocator) and `check` over seeds 0-199 and
# 20 larger cases, `gen` over seeds 0-59 of every profile (with and without
# --swarm), `validate` on the invalid cases, `check` on the regressions, `run`
# on every target's seed corpus and `gen --stats`.
#   scripts/identity.sh RAFUZZ OUT_DIR
# Build rafuzz before and after the change, snapshot both, then
# `diff -r BEFORE AFTER`: only the `ns/inst` timing line of stats.txt may differ.
set -u
rafuzz=$(realpath "$1"); out=$(realpath -m "$2")
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
rm -rf "$out"; mkdir -p "$out/gen" "$out/alloc"
for s in $(seq 0 199); do
    $rafuzz gen --seed "$s" > "$out/gen/$s.ra" 2>&1; echo "rc=$?" >> "$out/gen/$s.ra"
done
for s in $(seq 0 19); do
    $rafuzz gen --seed "$s" --size 4000 > "$out/gen/big$s.ra" 2>&1
done
for a in $($rafuzz list | sed -n '/^allocators:/,/^targets:/p' | sed '1d;$d'); do
    mkdir -p "$out/alloc/$a"
    for f in "$out"/gen/*.ra; do
        b=$(basename "$f" .ra)
        sed '/^rc=/d' "$f" > "$tmp/case.ra"
        (cd "$tmp" && $rafuzz alloc --allocator "$a" case.ra) > "$out/alloc/$a/$b.ra" 2>&1
        echo "rc=$?" >> "$out/alloc/$a/$b.ra"
        sed '/^rc=/d' "$out/alloc/$a/$b.ra" > "$tmp/alloc.ra"
        (cd "$tmp" && $rafuzz check alloc.ra) > "$out/alloc/$a/$b.check" 2>&1
        echo "rc=$?" >> "$out/alloc/$a/$b.check"
    done
done
# Every profile, as `--profile`'s error message lists them.
profiles=$($rafuzz gen --profile ' ' 2>&1 | sed -n 's/.*(profiles: \(.*\)).*/\1/p' | tr -d ',')
[ -n "$profiles" ] || { echo "identity.sh: no profile list from rafuzz" >&2; exit 2; }
for p in $profiles; do
    mkdir -p "$out/profiles/$p"
    for s in $(seq 0 59); do
        $rafuzz gen --profile "$p" --seed "$s" > "$out/profiles/$p/$s.ra" 2>&1
        $rafuzz gen --profile "$p" --swarm --seed "$s" > "$out/profiles/$p/swarm-$s.ra" 2>&1
    done
done
(cd "$root" && $rafuzz validate tests/cases/invalid/*.ra) > "$out/invalid.txt" 2>&1; echo "rc=$?" >> "$out/invalid.txt"
(cd "$root" && $rafuzz check tests/regressions/*.ra) > "$out/regress.txt" 2>&1; echo "rc=$?" >> "$out/regress.txt"
for t in $($rafuzz list | sed -n '/^targets:/,$p' | tail -n +2 | awk '{print $1}'); do
    (cd "$root" && $rafuzz run "$t" "corpus/$t") > "$out/run_$t.txt" 2>&1; echo "rc=$?" >> "$out/run_$t.txt"
done
$rafuzz gen --stats 300 > "$out/stats.txt" 2>&1
rm -rf "$tmp"
