#!/bin/bash -eu
# OSS-Fuzz / ClusterFuzzLite build: the libFuzzer wrapper to $OUT once per target,
# with its seed corpus zipped beside it and an .options file. OSS-Fuzz runs
# this under `bash -eux`; the base image provides nightly Rust, cargo-fuzz and
# the sanitizer flags. The test-only `planted` target is left out.
cd "$SRC/rafuzz/fuzz_targets"
cargo fuzz build -O --debug-assertions rafuzz_target
bin_dir=${CARGO_TARGET_DIR:-fuzz/target}/x86_64-unknown-linux-gnu/release
# One wrapper runs every target, chosen by its file name: a copy per target.
for target in $(RAFUZZ_LIST_TARGETS=1 "$bin_dir/rafuzz_target"); do
    cp "$bin_dir/rafuzz_target" "$OUT/$target"
    if [ -d "../corpus/$target" ]; then
        (cd "../corpus/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
    fi
    # The limits of rafuzz fuzz (--timeout 10, --rss-limit-mb 2048): an input
    # past them is a timeout or an oom finding under every engine.
    printf '[libfuzzer]\nmax_len = 8192\ntimeout = 10\nrss_limit_mb = 2048\n[honggfuzz]\ntimeout = 10\n[afl]\ntimeout = 10\n' \
        > "$OUT/$target.options"
done
