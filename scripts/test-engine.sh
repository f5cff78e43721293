#!/usr/bin/env bash
# `npm run test:engine`: the engine's inner loop after a C++ change: the incremental native build (engine, CLI,
# Catch2) and ctest without the generated docs tables (which `npm run test:deep` checks). No wasm, no browser.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-native.sh
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE docs
