#!/usr/bin/env bash
# The engine as WebAssembly (emcmake), then the page with Vite: dist/ (any static server, any sub-path)
# and dist/membudget.html (one self-contained file, the wasm inlined).
set -euo pipefail
cd "$(dirname "$0")/.."
# Debian's Emscripten runs its JS optimizer with the system's Node modules (acorn).
export NODE_PATH=/usr/share/nodejs
if [ ! -f build-wasm/CMakeCache.txt ]; then
  emcmake cmake -S . -B build-wasm -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
cmake --build build-wasm -j"$(nproc)"
npx vite build --logLevel warn
SINGLE_FILE=1 npx vite build --logLevel warn
mv dist/single/index.html dist/membudget.html
rmdir dist/single
echo "membudget: built dist/ and dist/membudget.html"
