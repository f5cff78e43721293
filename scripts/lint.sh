#!/usr/bin/env bash
# `npm run lint`: ESLint and Prettier over the TypeScript, test and script code, clang-format over the C++.
# `npm run lint -- --fix` (or `npm run format`) rewrites instead of checking. CI runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
fix=false
if [ "${1:-}" = "--fix" ]; then fix=true; fi
mapfile -t cpp < <(git ls-files '*.cpp' '*.hpp')
clang_format=clang-format-14
command -v "$clang_format" >/dev/null || clang_format=clang-format
if $fix; then
  npx prettier --write --log-level warn .
  npx eslint --fix .
  "$clang_format" -i "${cpp[@]}"
else
  echo "membudget: eslint"
  npx eslint .
  echo "membudget: prettier --check"
  npx prettier --check --log-level warn .
  echo "membudget: clang-format --dry-run (${#cpp[@]} files)"
  "$clang_format" --dry-run --Werror "${cpp[@]}"
fi
