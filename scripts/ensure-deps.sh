#!/usr/bin/env bash
# Installs what the build and the tests need, only where it is missing: Debian packages with apt-get,
# npm packages with `npm ci` from the committed lock file. Quick when everything is there.
set -euo pipefail
cd "$(dirname "$0")/.."

# emscripten: the wasm build; chromium: the browser tests (driven by playwright-core, never downloaded);
# python3-torch: tools/measure's tests (CPU-only; a GPU measurement needs a CUDA build of torch);
# clang and libclang-rt-14-dev: libFuzzer for scripts/fuzz.sh; libbenchmark-dev: build/bench (docs/speed.md);
# clang-format-14: npm run lint.
debian_packages=(cmake make g++ catch2 nlohmann-json3-dev libcli11-dev emscripten chromium python3-torch clang
                 libclang-rt-14-dev libbenchmark-dev clang-format-14 libtomlplusplus-dev libyaml-cpp-dev)

missing=()
for package in "${debian_packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  echo "membudget: installing Debian packages: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# npm ci only when node_modules is missing or older than the lock file.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "membudget: npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  mkdir -p node_modules && touch node_modules/.package-lock.json
fi
