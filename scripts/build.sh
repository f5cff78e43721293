#!/usr/bin/env bash
# `npm run build`: the CLI, the wasm module and the static site.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-native.sh
bash scripts/build-web.sh
