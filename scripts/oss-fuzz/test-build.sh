#!/usr/bin/env bash
# Builds as OSS-Fuzz and ClusterFuzzLite build, without Docker (no Docker
# engine runs here): each service's Dockerfile is carried out line by line in a
# folder laid out as that service lays it out, then its build.sh runs under
# `bash -eux` with SRC, OUT and WORK set, and every target's binary, seed
# corpus and options must land in $OUT and run.
#
#   scripts/oss-fuzz/test-build.sh [oss-fuzz|clusterfuzzlite]...   (default: both)
#   TEST_BUILD_DIR=DIR scripts/oss-fuzz/test-build.sh oss-fuzz     (one service: keeps
#       DIR/src/rafuzz and DIR/out, so that CI runs its libFuzzer stages in that
#       clone, on the build just made)
#
# OSS-Fuzz builds the image from projects/rafuzz/ of its own repository (the
# three files of scripts/oss-fuzz/), so the source is a `git clone`, emulated
# by a clone of this repository's committed HEAD. ClusterFuzzLite builds from
# the checkout under test (.clusterfuzzlite/Dockerfile copies it), emulated by
# a copy of the tracked files as they are now. FROM is the base image: its
# nightly Rust and cargo-fuzz are installed when missing; `apt-get install`
# installs only what is missing. Any other instruction is an error, so a new
# Dockerfile line is either emulated here or fails this test.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
services=("$@")
[ ${#services[@]} -gt 0 ] || services=(oss-fuzz clusterfuzzlite)
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz --version 0.13.2
# The ordinary release build lists the targets, whatever flags the caller
# gives the fuzz build (CI's RUSTFLAGS would rebuild it).
env -u RUSTFLAGS cargo build --release -q -p fuzz_targets --bin rafuzz
targets=$(./target/release/rafuzz list | sed -n '/^targets:/,$p' | tail -n +2 | awk '{print $1}')
# One target folder for every emulated build: the dependencies build once.
export CARGO_TARGET_DIR=$root/fuzz_targets/fuzz/target

# Carries out DOCKERFILE's lines with CONTEXT as the build context.
emulate() {
    local dockerfile=$1 context=$2 line cmd words
    local cwd=$SRC
    while IFS= read -r line || [ -n "$line" ]; do
        line=${line%%#*}
        [ -n "${line// /}" ] || continue
        line=${line//\$SRC/$SRC}
        read -r -a words <<< "$line"
        echo "+ [${dockerfile#"$root"/}] $line"
        case ${words[0]} in
            FROM) ;;
            RUN)
                cmd=${line#RUN }
                if [[ $cmd == *"apt-get install -y"* ]]; then
                    for pkg in ${cmd##*install -y }; do
                        command -v "$pkg" >/dev/null && continue
                        local sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
                        $sudo apt-get update -qq && $sudo apt-get install -y -qq "$pkg" >/dev/null
                    done
                elif [[ ${words[1]} == git && ${words[2]} == clone ]]; then
                    # The clone of the repository: its committed HEAD.
                    git clone -q --depth 1 "file://$root" "${words[${#words[@]}-1]}"
                else
                    (cd "$cwd" && bash -euxc "$cmd")
                fi
                ;;
            WORKDIR) cwd=${words[1]}; mkdir -p "$cwd" ;;
            COPY)
                if [ "${words[1]}" = . ]; then
                    mkdir -p "${words[2]}"
                    (cd "$context" && git ls-files -z | xargs -0 tar cf -) | (cd "${words[2]}" && tar xf -)
                else
                    cp "$context/${words[1]}" "${words[2]}"
                fi
                ;;
            *) echo "test-build.sh cannot emulate \`${words[0]}\`: teach it, or change the Dockerfile" >&2; exit 2 ;;
        esac
    done < "$dockerfile"
    echo "+ [compile] bash -eux \$SRC/build.sh (in $cwd)"
    (cd "$cwd" && RUSTUP_TOOLCHAIN=nightly bash -eux "$SRC/build.sh")
}

# Checks what a build left in $OUT.
check_out() {
    local fail=0 t f
    for t in $targets; do
        for f in "$OUT/$t" "$OUT/${t}_seed_corpus.zip" "$OUT/$t.options"; do
            [ -s "$f" ] || { echo "missing in \$OUT: $f"; fail=1; }
        done
        grep -q '^timeout = 10$' "$OUT/$t.options" && grep -q '^rss_limit_mb = 2048$' "$OUT/$t.options" ||
            { echo "$t.options lacks the time and memory limits"; fail=1; }
        if [ -x "$OUT/$t" ]; then
            "$OUT/$t" -runs=20 -max_len=4096 >/dev/null 2>&1 || { echo "$t does not run cleanly"; fail=1; }
        fi
    done
    [ ! -e "$OUT/planted" ] || { echo "the test-only planted target reached \$OUT"; fail=1; }
    return $fail
}

status=0
for service in "${services[@]}"; do
    tmp=${TEST_BUILD_DIR:-$(mktemp -d)}
    export SRC=$tmp/src OUT=$tmp/out WORK=$tmp/work
    mkdir -p "$SRC" "$OUT" "$WORK"
    case $service in
        oss-fuzz)
            # projects/rafuzz/ of the OSS-Fuzz repository.
            context=$tmp/oss-fuzz/projects/rafuzz
            mkdir -p "$context"
            cp scripts/oss-fuzz/Dockerfile scripts/oss-fuzz/build.sh scripts/oss-fuzz/project.yaml "$context/"
            dockerfile=$context/Dockerfile
            ;;
        clusterfuzzlite)
            context=$root
            dockerfile=$root/.clusterfuzzlite/Dockerfile
            ;;
        *) echo "unknown service $service (oss-fuzz, clusterfuzzlite)" >&2; exit 2 ;;
    esac
    emulate "$dockerfile" "$context"
    if check_out; then
        echo "$service build: every target in \$OUT"
    else
        status=1
    fi
    [ -n "${TEST_BUILD_DIR:-}" ] || rm -rf "$tmp"
done
exit $status
