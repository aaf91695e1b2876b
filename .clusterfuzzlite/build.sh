#!/bin/bash -eu
# ClusterFuzzLite reuses the OSS-Fuzz build.
bash -eux "$SRC/rafuzz/scripts/oss-fuzz/build.sh"
