#!/usr/bin/env bash
# Runs one target under one engine for a while, with the target's seed corpus.
#   scripts/fuzz.sh ENGINE TARGET SECONDS
# ENGINE: builtin | libfuzzer | honggfuzz | afl
# Installs what the engine needs when it is missing (pinned versions), builds the
# engine's one wrapper (rafuzz_target, told its target by RAFUZZ_TARGET),
# fuzzes, and exits 1 when a crash was found, printing where it is and the
# command that replays it (2 when the engine itself could not run). Environment: SANITIZER=none builds libFuzzer
# targets on stable Rust (default: address, which needs nightly); TIMEOUT (seconds per
# input, default 10) and RSS_LIMIT_MB (default 2048) are the limits past which an input
# is a finding (a hang or a memory blow-up), passed to every engine in its own flags;
# RAFUZZ_PROFILE and RAFUZZ_WITHOUT narrow the generated cases (README, "Cases your
# allocator takes"), RAFUZZ_NO_SUPPRESS=1 runs regalloc2 on its known bugs and
# RAFUZZ_SWARM=1 turns on swarm generation: the wrappers read them, the built-in engine
# and the printed replay command get them as flags. RAFUZZ_SEEDS=DIR adds the .ra cases
# of DIR (corpus/real/x86_64, say) to the seeds: every engine then mutates them as cases
# (libFuzzer through the wrapper's custom mutator, the built-in engine with --seeds).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
engine=${1:?usage: scripts/fuzz.sh ENGINE TARGET SECONDS}
target=${2:?usage: scripts/fuzz.sh ENGINE TARGET SECONDS}
secs=${3:?usage: scripts/fuzz.sh ENGINE TARGET SECONDS}
artifacts=$root/artifacts/$engine/$target
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Engines write to their corpus folder: give them a copy of the seeds.
mkdir -p "$work/corpus"
if [ -d "corpus/$target" ] && [ -n "$(ls -A "corpus/$target")" ]; then
    cp "corpus/$target"/* "$work/corpus/"
else
    printf 'seed' > "$work/corpus/seed"
fi
if [ -n "${RAFUZZ_SEEDS:-}" ]; then
    cp "$RAFUZZ_SEEDS"/*.ra "$work/corpus/"
fi

timeout=${TIMEOUT:-10}
rss_limit_mb=${RSS_LIMIT_MB:-2048}

CARGO_FUZZ_VERSION=0.13.2
HONGGFUZZ_VERSION=0.5.62
AFL_VERSION=0.18.2

have() { command -v "$1" >/dev/null 2>&1; }
apt_install() {
    local missing=()
    for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
    if [ ${#missing[@]} -gt 0 ]; then
        echo "installing Debian packages: ${missing[*]}"
        local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

# The narrowing as rafuzz flags, for the built-in engine and the replay command.
narrow=()
[ -n "${RAFUZZ_PROFILE:-}" ] && narrow+=(--profile "$RAFUZZ_PROFILE")
[ -n "${RAFUZZ_WITHOUT:-}" ] && narrow+=(--without "$RAFUZZ_WITHOUT")
[ -n "${RAFUZZ_NO_SUPPRESS:-}" ] && [ "$RAFUZZ_NO_SUPPRESS" != 0 ] && narrow+=(--no-suppress)
[ -n "${RAFUZZ_SWARM:-}" ] && [ "$RAFUZZ_SWARM" != 0 ] && narrow+=(--swarm)
seeds=()
[ -n "${RAFUZZ_SEEDS:-}" ] && seeds+=(--seeds "$RAFUZZ_SEEDS")

report() { # report FILE
    echo "CRASH found by $engine in $target: $1"
    echo "replay: cargo run --release -p fuzz_targets --bin rafuzz -- run ${narrow[*]+${narrow[*]} }$target $1"
    exit 1
}

case "$engine" in
builtin)
    cargo build --release -q -p fuzz_targets --bin rafuzz
    status=0
    # The built-in engine only reads corpus/<target>; it keeps its finds in memory.
    ./target/release/rafuzz fuzz --target "$target" --time "$secs" --corpus "$root/corpus" \
        --timeout "$timeout" --rss-limit-mb "$rss_limit_mb" ${narrow[@]+"${narrow[@]}"} \
        ${seeds[@]+"${seeds[@]}"} --artifacts "$root/artifacts/builtin" || status=$?
    exit $status
    ;;
libfuzzer)
    sanitizer=${SANITIZER:-address}
    toolchain=+nightly
    if [ "$sanitizer" = none ]; then toolchain=""; fi
    if [ -n "$toolchain" ] && ! rustup toolchain list | grep -q '^nightly'; then
        echo "the address sanitizer needs a nightly toolchain: rustup toolchain install nightly, or SANITIZER=none" >&2
        exit 2
    fi
    have cargo-fuzz || cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
    cd fuzz_targets
    cargo $toolchain fuzz build -O --debug-assertions -s "$sanitizer" rafuzz_target
    status=0
    RAFUZZ_TARGET="$target" cargo $toolchain fuzz run -O --debug-assertions -s "$sanitizer" rafuzz_target "$work/corpus" -- \
        -max_total_time="$secs" -timeout="$timeout" -rss_limit_mb="$rss_limit_mb" \
        -artifact_prefix="$artifacts/" -print_final_stats=1 || status=$?
    if [ $status -ne 0 ]; then
        crash=$(ls -t "$artifacts"/crash-* "$artifacts"/leak-* "$artifacts"/timeout-* "$artifacts"/oom-* 2>/dev/null | head -n 1 || true)
        [ -n "$crash" ] && report "$crash"
        echo "libFuzzer failed with status $status" >&2
        exit 2
    fi
    ;;
honggfuzz)
    apt_install binutils-dev libunwind-dev libblocksruntime-dev liblzma-dev
    have cargo-hfuzz || cargo install --locked honggfuzz --version "$HONGGFUZZ_VERSION"
    cd fuzz_targets/hfuzz
    status=0
    # --tmout_sigvtalrm: an input past the timeout is reported as a crash.
    RAFUZZ_TARGET="$target" HFUZZ_RUN_ARGS="--run_time $secs --timeout $timeout --tmout_sigvtalrm --rlimit_rss $rss_limit_mb --exit_upon_crash --exit_code_upon_crash 77 --input $work/corpus --crashdir $artifacts --quiet" \
        cargo hfuzz run rafuzz_target || status=$?
    crash=$(ls -t "$artifacts"/*.fuzz 2>/dev/null | head -n 1 || true)
    if [ -n "$crash" ] || [ $status -eq 77 ]; then
        report "${crash:-$artifacts}"
    fi
    [ $status -eq 0 ] || { echo "honggfuzz failed with status $status" >&2; exit 2; }
    ;;
afl)
    have cargo-afl || cargo install --locked cargo-afl --version "$AFL_VERSION"
    cargo afl config --build >/dev/null 2>&1 || cargo afl config --build --force
    cd fuzz_targets/afl
    cargo afl build --release --bin rafuzz_target
    out=$work/out
    # AFL++ exits 0 even when it found crashes: the crashes folder decides.
    RAFUZZ_TARGET="$target" AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_BENCH_UNTIL_CRASH=1 \
        cargo afl fuzz -i "$work/corpus" -o "$out" -V "$secs" -t "$((timeout * 1000))" -m "$rss_limit_mb" \
        target/release/rafuzz_target >"$work/afl.log" 2>&1 || {
        tail -n 20 "$work/afl.log" >&2
        echo "AFL++ failed" >&2
        exit 2
    }
    # Inputs past the timeout land in hangs/: findings too.
    crashes=$(find "$out" \( -path '*/crashes/*' -o -path '*/hangs/*' \) -type f ! -name README.txt 2>/dev/null || true)
    if [ -n "$crashes" ]; then
        for c in $crashes; do cp "$c" "$artifacts/"; done
        report "$artifacts/$(basename "$(echo "$crashes" | head -n 1)")"
    fi
    ;;
*)
    echo "unknown engine $engine (builtin, libfuzzer, honggfuzz, afl)" >&2
    exit 2
    ;;
esac
echo "no crash found by $engine in $target in ${secs}s"
