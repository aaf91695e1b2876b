#!/usr/bin/env bash
# Fetches a pinned set of real WebAssembly programs from the npm registry, checks each
# package and each module against its sha256, and prints the modules' paths:
#   scripts/real-programs.sh [DIR]      (default target/real-programs)
# The programs (chosen for four source languages and a spread of sizes):
#   sqlite   C      sql.js 1.16.0, dist/sql-wasm.wasm           SQLite, 688 KB
#   tiktoken Rust   @dqbd/tiktoken 1.0.22, lite/tiktoken_bg.wasm  a tokenizer, 1.1 MB
#   jxl      C++    @jsquash/jxl 1.3.0, codec/dec/jxl_dec.wasm   libjxl's decoder, 849 KB
#   esbuild  Go     esbuild-wasm 0.28.2, esbuild.wasm            a bundler, 14 MB
# Never committed: the binaries stay under DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-target/real-programs}
mkdir -p "$dir"
# name package version tarball-sha256 path-in-package module-sha256
programs=(
    "sqlite sql.js 1.16.0 bb6f5c7e4ac6de569e4f3eee38122b56d777c387ec74fbb1a7075adf37097df6 dist/sql-wasm.wasm 43bbcdd44287e5a2db3b6b5af34b1a3485a7a441285d247976c1ebe3c61f8dbf"
    "tiktoken @dqbd/tiktoken 1.0.22 67ae64fbbe889ff19b74d4e95a16da403b24aee6a506b74a9b84908a5d6f15a1 lite/tiktoken_bg.wasm 870fa4e0d8fe30a02b4703b2c4e24e7a8d99dcf6a1e8416c14b239f52a2eed55"
    "jxl @jsquash/jxl 1.3.0 737c6e4749213a46aab1a2b39aed5bc527e06f0390d3a4e337ed006c349a876b codec/dec/jxl_dec.wasm 165bde0f48f3bdc39c7806365db5bb3b777df67fefff48050841fb4430062433"
    "esbuild esbuild-wasm 0.28.2 61594de12ce998652be2aa0ab72dda54bfa49407fb37ee3464468a2aac306baa esbuild.wasm b1831a5c0f6cf688034fb94d0419812f165ea316a3380d3fc00a151e562d2eaf"
)
only=${REAL_PROGRAMS:-}
for p in "${programs[@]}"; do
    read -r name package version tar_sum path mod_sum <<<"$p"
    if [ -n "$only" ] && [[ " $only " != *" $name "* ]]; then
        continue
    fi
    out="$dir/$name.wasm"
    if [ -f "$out" ] && echo "$mod_sum  $out" | sha256sum -c --quiet - 2>/dev/null; then
        echo "$out"
        continue
    fi
    work=$(mktemp -d)
    tarball=$(cd "$work" && npm pack --silent "$package@$version" | tail -n 1)
    echo "$tar_sum  $work/$tarball" | sha256sum -c --quiet - ||
        { echo "$package@$version: the package's sha256 does not match" >&2; exit 1; }
    tar xzf "$work/$tarball" -C "$work" "package/$path"
    echo "$mod_sum  $work/package/$path" | sha256sum -c --quiet - ||
        { echo "$package@$version: $path's sha256 does not match" >&2; exit 1; }
    cp "$work/package/$path" "$out"
    rm -rf "$work"
    echo "$out"
done
