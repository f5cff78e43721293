#!/usr/bin/env bash
# `npm test`: every test (Catch2 and the CLI, the wasm module under Node, TypeScript, the page in
# Chromium), from a fresh machine or an up-to-date tree.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-native.sh
echo "membudget: native tests (Catch2 and the CLI)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
bash scripts/build-web.sh
echo "membudget: TypeScript, wasm and browser tests (Vitest)"
npx vitest run
