#!/usr/bin/env bash
# test.sh: installs what is missing, builds the release preset and runs the tests: every test but
# the long soak trials (label 'soak': training stopped at 100 random moments of each kind).
# Usage: scripts/test.sh [--soak] [extra ctest args, e.g. -L fast or -R bpe]
#   --soak   run the soak too (CI does; about 6 minutes more on 2 free cores)
# See docs/testing.md for the labels, CI and the times to expect.
set -euo pipefail
cd "$(dirname "$0")/.."
soak=0
args=()
for a in "$@"; do
  case "$a" in
    --soak) soak=1 ;;
    -h|--help) sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$a") ;;
  esac
done
if ((soak == 0)); then args=(-LE soak "${args[@]}"); fi
scripts/bootstrap.sh
preset=${SCRATCHGPT_PRESET:-release}
start=$SECONDS
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
# SCRATCHGPT_WITH_WEB=1: the lesson book too (build/web/), which book_test loads in Chromium.
if [[ "${SCRATCHGPT_WITH_WEB:-0}" == 1 ]]; then scripts/web.sh; fi
built=$SECONDS
ctest --preset "$preset" -j "$(nproc)" "${args[@]}"
echo "test.sh: build $((built - start)) s, tests $((SECONDS - built)) s"
