#!/usr/bin/env bash
# `npm start`: build everything, then serve the calculator on loopback with the chapter's 70B example
# (the defaults) loaded, and print its URL.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
port="${PORT:-4173}"
echo "membudget: the chapter's 70B example from the CLI:"
./build/membudget | tail -n +5 | head -n 20 || true
echo
echo "membudget: serving dist/ (Ctrl-C to stop)"
exec npx vite preview --port "$port"
