#!/usr/bin/env bash
# The Catch2 suite and the CLI tests under AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer,
# built with g++ in Debug into build-asan. Any report stops the test that made it, which then fails.
set -euo pipefail
cd "$(dirname "$0")/.."
# Configured every time (seconds), so that an existing build-asan gets these options too.
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DMEMBUDGET_SANITIZE=ON -DMEMBUDGET_BUILD_BENCH=OFF >/dev/null
cmake --build build-asan -j"$(nproc)"
echo "membudget: native tests under ASan + UBSan"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -LE docs
