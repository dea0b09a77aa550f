#!/usr/bin/env bash
# test.sh: installs what is missing, builds the release preset and runs every test.
# Usage: scripts/test.sh [extra ctest args, e.g. -L fast]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
preset=${SCRATCHGPT_PRESET:-release}
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
ctest --preset "$preset" -j "$(nproc)" "$@"
