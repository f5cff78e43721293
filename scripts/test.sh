#!/usr/bin/env bash
# `npm test`: every test, from a fresh machine or an up-to-date tree.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-native.sh
echo "membudget: native tests (Catch2 and the CLI)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
