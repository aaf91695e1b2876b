#!/usr/bin/env bash
# Installs headless Chromium (Debian's `chromium` package) for the test that
# renders `rafuzz explain --html` in a real browser
# (fuzz_targets/tests/explain_compare.rs). Does nothing when one is there.
set -euo pipefail
for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null 2>&1; then
        echo "$b is installed: $("$b" --version 2>/dev/null || true)"
        exit 0
    fi
done
sudo=""
if [ "$(id -u)" != 0 ]; then
    sudo="sudo"
fi
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
chromium --version
