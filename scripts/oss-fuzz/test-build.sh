#!/usr/bin/env bash
# Runs the OSS-Fuzz build.sh outside Docker (no Docker engine runs here),
# under `bash -eux` as OSS-Fuzz does, with SRC, OUT and WORK in temporary
# folders, then checks that every target's binary, seed corpus and options
# landed in $OUT and that each binary runs. Needs nightly Rust (the address
# sanitizer); installs cargo-fuzz and zip when missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
command -v cargo-fuzz >/dev/null || cargo install --locked cargo-fuzz --version 0.13.2
if ! command -v zip >/dev/null; then
    sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
    $sudo apt-get update -qq && $sudo apt-get install -y -qq zip >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export SRC=$tmp/src OUT=$tmp/out WORK=$tmp/work
mkdir -p "$SRC" "$OUT" "$WORK"
ln -s "$root" "$SRC/rafuzz"
RUSTUP_TOOLCHAIN=nightly bash -eux scripts/oss-fuzz/build.sh
cargo build --release -q -p fuzz_targets --bin rafuzz
fail=0
for t in $(./target/release/rafuzz list | sed -n '/^targets:/,$p' | tail -n +2 | awk '{print $1}'); do
    for f in "$OUT/$t" "$OUT/${t}_seed_corpus.zip" "$OUT/$t.options"; do
        [ -s "$f" ] || { echo "missing in \$OUT: $f"; fail=1; }
    done
    grep -q '^timeout = 10$' "$OUT/$t.options" && grep -q '^rss_limit_mb = 2048$' "$OUT/$t.options" ||
        { echo "$t.options lacks the time and memory limits"; fail=1; }
    if [ -x "$OUT/$t" ]; then
        "$OUT/$t" -runs=200 -max_len=4096 >/dev/null 2>&1 || { echo "$t does not run cleanly"; fail=1; }
    fi
done
[ ! -e "$OUT/planted" ] || { echo "the test-only planted target reached \$OUT"; fail=1; }
ls "$OUT"
[ $fail -eq 0 ] && echo "OSS-Fuzz build: every target in \$OUT"
exit $fail
