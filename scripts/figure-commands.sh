#!/usr/bin/env bash
# Runs the command behind every figure, on a small budget: each command in the
# `command` column of a table in README.md's Measurements or in docs/*.md.
# The numbers are not compared (they vary by machine); what is checked is
# that each command still runs: it must end with status 0 or 1, never a usage
# error (2), an internal error (3) or a crash. So a flag renamed, an example
# deleted or an argument order changed fails here until the docs follow.
#
#   scripts/figure-commands.sh            CI's release stage runs it
#   scripts/figure-commands.sh --list     only print what would run
#
# Budgets are cut: --time to 1 s, --runs to 20, --generate to 2, --stats N to 5,
# --repeat to 1, --max-insts to 200, example arguments to at most 20, benches
# under RAFUZZ_BENCH_QUICK=1 in the release profile. Placeholders get a concrete value (T: a target,
# J: 1). Commands that need a capture of real programs (OUT/...), a tool this
# machine may lack (valgrind, cargo mutants) or the fuzz engines are listed as
# skipped, with the reason.
set -uo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
list_only=0
[ "${1:-}" = --list ] && list_only=1

# The command cells of every table of figures (a header with a `figure`
# and a `command` column) in README.md and docs/*.md.
cells() {
    for f in README.md docs/*.md; do
        awk '
            /^\|/ {
                n = split($0, c, "|")
                if (!col) {
                    figure = 0
                    for (i = 2; i < n; i++) {
                        if (c[i] ~ /^ *command *$/) col = i
                        if (c[i] ~ /^ *figure *$/) figure = 1
                    }
                    if (!figure) col = -1
                    next
                }
                if (col > 0 && c[2] !~ /^-+$/) print c[col]
                next
            }
            { col = 0 }
        ' "$f"
    done
}

# The commands in a cell: its backticked spans that start with a program.
commands() {
    cells | grep -o '`[^`]*`' | sed 's/^`//; s/`$//' | sed 's/\\|/|/g' |
        grep -E '^([A-Z_]+=[^ ]+ )*(rafuzz |cargo |scripts/|valgrind )' | sort -u
}

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
if [ $list_only -eq 0 ]; then
    cargo build --release -q -p fuzz_targets --bin rafuzz || exit 3
fi
rafuzz=$root/target/release/rafuzz
ln -s "$root/tests" "$scratch/tests"
ln -s "$root/corpus" "$scratch/corpus"
mkdir -p "$scratch/docs"
if [ $list_only -eq 0 ]; then
    "$rafuzz" gen --seed 2 > "$scratch/case.ra"
    "$rafuzz" alloc --allocator linear_scan "$scratch/case.ra" > "$scratch/allocated.ra"
fi

# Why a command cannot run here, or nothing.
skip_reason() {
    case "$1" in
        *OUT/* | *OUT\ * | *CAPTURE/*) echo "needs a capture of real programs (scripts/capture.sh; .ci/run --extended)" ;;
        valgrind* | *" valgrind "*) echo "needs valgrind" ;;
        "cargo mutants"*) echo "needs cargo-mutants and hours" ;;
        *scripts/capture.sh* | *scripts/real-programs.sh*) echo "builds wasmtime (.ci/run --extended)" ;;
        *scripts/test-engines.sh* | *scripts/fuzz.sh* | *scripts/ci-fuzz.sh*) echo "installs the fuzz engines (CI's nightly stage runs libFuzzer's)" ;;
        *scripts/fork-check.sh*) echo "builds a regalloc2 fork (.ci/run --extended)" ;;
        *scripts/real-code-table.sh*) echo "needs a capture of real programs (scripts/capture.sh; .ci/run --extended)" ;;
        *scripts/reach.sh* | *scripts/known-bug-bench.sh* | *scripts/coverage-build.sh* | *"rafuzz coverage "* | *" --coverage"* | GUIDE=*)
            echo "needs the instrumented build (scripts/coverage-build.sh: CI's coverage stage runs rafuzz coverage and --coverage)" ;;
        *) ;;
    esac
}

# The command cut to a small budget, placeholders filled.
small() {
    local c=" $1 "
    c=${c//" T... "/" linear_scan_checker "}
    c=${c//" T "/" linear_scan_checker "}
    c=${c//" J "/" 1 "}
    c=${c//"[--in-process]"/"--in-process"}
    c=${c//"cmd:rafuzz serve ..."/"cmd:$rafuzz serve --allocator linear_scan"}
    c=${c//"rafuzz fuzz ... "/"rafuzz fuzz --target linear_scan_checker "}
    c=$(sed -E 's/ --time [0-9.]+/ --time 1/; s/ --runs [0-9]+/ --runs 20/; s/ --generate [0-9]+/ --generate 2/;
                s/ --stats [0-9]+/ --stats 5/; s/ --repeat [0-9]+/ --repeat 1/; s/ --max-insts [0-9]+/ --max-insts 200/;
                s/ --reduce-time [0-9.]+/ --reduce-time 1/' <<< "$c")
    case "$c" in
        *" rafuzz fuzz "*)
            [[ $c == *" --time "* || $c == *" --runs "* ]] || c="$c --time 1"
            [[ $c == *" --target "* || $c == *" --all "* ]] || c="$c --target linear_scan_checker"
            ;;
        *" rafuzz scaling "*) [[ $c == *" --max-insts "* ]] || c="$c --max-insts 200" ;;
    esac
    case "$c" in
        *" rafuzz check "* | *" rafuzz explain "*) [[ $c == *.ra* ]] || c="$c allocated.ra" ;;
        *" rafuzz alloc "* | *" rafuzz validate "*) [[ $c == *.ra* ]] || c="$c case.ra" ;;
    esac
    if [[ $c == *" --example "*" -- "* ]]; then
        local head=${c%% -- *} tail=${c#* -- } out="" w
        for w in $tail; do
            [[ $w =~ ^[0-9]+$ ]] && [ "$w" -gt 20 ] && w=20
            out="$out $w"
        done
        c="$head --$out"
    fi
    # The release profile, not the bench one: the sliver checks that the
    # bench runs, and shares the build rafuzz already made.
    [[ $c == *" cargo bench "* ]] && c=" RAFUZZ_BENCH_QUICK=1${c/" cargo bench "/" cargo bench --profile release "}"
    [[ $c == *" cargo test "* && $c != *--release* ]] && c=${c/" cargo test "/" cargo test --release "}
    if [[ $c == *" scripts/fault-bench.sh "* ]]; then
        c=$(sed -E 's#scripts/fault-bench.sh [0-9]+ [0-9]+( \.\.\.)?#scripts/fault-bench.sh 5 1 fault_drop_edge_move#' <<< "$c")
    fi
    c=$(sed -E 's#scripts/rss-campaign.sh [0-9]+ [0-9]+#scripts/rss-campaign.sh 5 1#' <<< "$c")
    c=${c//" rafuzz "/" $rafuzz "}
    echo "${c# }"
}

ran=0 skipped=0 failed=0
while IFS= read -r cmd; do
    reason=$(skip_reason "$cmd")
    if [ -n "$reason" ]; then
        echo "skip: $cmd  ($reason)"
        skipped=$((skipped + 1))
        continue
    fi
    run=$(small "$cmd")
    echo "run:  $cmd"
    echo "      as: ${run//$rafuzz/rafuzz}"
    [ $list_only -eq 1 ] && continue
    case "$run" in
        *cargo* | *scripts/*) dir=$root ;;
        *) dir=$scratch ;;
    esac
    (cd "$dir" && timeout 600 bash -c "$run" > "$scratch/log" 2>&1)
    status=$?
    ran=$((ran + 1))
    if [ $status -gt 1 ]; then
        echo "FAILED with status $status:"
        tail -n 20 "$scratch/log" | sed 's/^/      /'
        failed=$((failed + 1))
    fi
done < <(commands)
echo "figure commands: $ran run, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
