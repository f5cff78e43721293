#!/usr/bin/env bash
# `npm test`: the fast, complete functional gate, from a fresh machine or an up-to-date tree: Catch2 and the
# CLI, the wasm module under Node, the TypeScript type check, the page in Chromium. The slower depth
# (sanitizers, fuzzing, tools/measure's Python tests, benchmarks) is `npm run test:deep` (scripts/test-deep.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-native.sh
echo "membudget: native tests (Catch2 and the CLI)"
ctest --test-dir build --output-on-failure -j"$(nproc)" -LE docs
bash scripts/build-web.sh
echo "membudget: TypeScript type check (tsc --noEmit over the page, the tests and the scripts)"
npx tsc --noEmit -p .
echo "membudget: wasm, page and browser tests (Vitest)"
npx vitest run
