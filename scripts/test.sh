#!/usr/bin/env bash
# `npm test`: every test (Catch2 and the CLI, the wasm module under Node, TypeScript, the page in
# Chromium), from a fresh machine or an up-to-date tree.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-native.sh
echo "membudget: native tests (Catch2 and the CLI)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
bash scripts/test-sanitizers.sh
bash scripts/fuzz.sh 15
echo "membudget: Python tests (tools/measure)"
# Debian's torch is in the system python3; another python3 first on PATH (pyenv) may not see it.
python=python3
if ! python3 -c "import torch" 2>/dev/null && [ -x /usr/bin/python3 ]; then python=/usr/bin/python3; fi
MEMBUDGET_BIN="$PWD/build/membudget" "$python" -m unittest discover -s tests/python -v
bash scripts/build-web.sh
echo "membudget: TypeScript, wasm and browser tests (Vitest)"
npx vitest run
