#!/usr/bin/env bash
# bootstrap.sh: installs the Debian packages scratchgpt needs, only those that are missing.
# Idempotent and fast when everything is present. Set SCRATCHGPT_WITH_TORCH=1 to also install
# python3-torch (only needed to regenerate fixtures or run the PyTorch comparison benchmarks), and
# SCRATCHGPT_WITH_FUZZ=1 to install clang and its libFuzzer runtime (scripts/fuzz.sh) and lld (the
# ci-sanitize preset links with it; CI sets it),
# SCRATCHGPT_WITH_BROWSER=1 to install chromium (the browser test of the attention page; CI sets it),
# SCRATCHGPT_WITH_WEB=1 to install emscripten, node-acorn and chromium (scripts/web.sh builds the
# lesson book, tests/e2e/book_test.cpp checks it in Chromium; CI sets it),
# SCRATCHGPT_WITH_NINJA=1 to install Ninja (CI builds with it: CMAKE_GENERATOR=Ninja).
set -euo pipefail
packages=(g++ cmake make git libgtest-dev libgmock-dev libbenchmark-dev libcli11-dev nlohmann-json3-dev
  libdnnl-dev libopenmpi-dev openmpi-bin)
if [[ "${SCRATCHGPT_WITH_TORCH:-0}" == 1 ]]; then packages+=(python3-torch python3-numpy); fi
if [[ "${SCRATCHGPT_WITH_NINJA:-0}" == 1 ]]; then packages+=(ninja-build); fi
if [[ "${SCRATCHGPT_WITH_FUZZ:-0}" == 1 ]]; then packages+=(clang libclang-rt-14-dev lld); fi
# Chromium renders the attention page in tests/e2e/attention_page_test.cpp (skipped without it).
if [[ "${SCRATCHGPT_WITH_BROWSER:-0}" == 1 ]]; then packages+=(chromium); fi
# The lesson book: Debian's emscripten (its JavaScript optimiser needs node-acorn) and Chromium.
if [[ "${SCRATCHGPT_WITH_WEB:-0}" == 1 ]]; then packages+=(emscripten node-acorn chromium); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) != 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
