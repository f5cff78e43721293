#!/usr/bin/env bash
# `npm run test:deep`: what `npm test` leaves out because it takes minutes: the Catch2 and CLI suite again under
# AddressSanitizer (leaks included) and UndefinedBehaviorSanitizer, libFuzzer on every target (the regression
# inputs are replayed first), tools/measure's Python tests, and a smoke run of the benchmarks (each runs, none is
# timed against a limit). CI runs it after `npm test`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-deps.sh
bash scripts/build-native.sh
echo "membudget: the generated docs tables are current (ctest -L docs)"
ctest --test-dir build --output-on-failure -L docs
bash scripts/test-sanitizers.sh
bash scripts/fuzz.sh "${MEMBUDGET_FUZZ_SECONDS:-15}"
echo "membudget: Python tests (tools/measure)"
# Debian's torch is in the system python3; another python3 first on PATH (pyenv) may not see it.
python=python3
if ! python3 -c "import torch" 2>/dev/null && [ -x /usr/bin/python3 ]; then python=/usr/bin/python3; fi
MEMBUDGET_BIN="$PWD/build/membudget" "$python" -m unittest discover -s tests/python -v
echo "membudget: the saved-tensor census regenerates tests/fixtures/census exactly (tools/measure/census.py --check)"
"$python" tools/measure/census.py --check
echo "membudget: benchmark smoke run (Google Benchmark, minimal repetitions)"
if [ -x build/bench/membudget_bench ]; then
  build/bench/membudget_bench --benchmark_min_time=0.01 \
    --benchmark_filter='BM_(KernelChapter70B|KernelMembudget405B|EvaluateChapter70B|Plan405B/16384|Plan405BByMethod|EvalManyKeys/1024|MeasuredManyLines/1024|ImportManyKeys/1024|DecodeLongLink/1024)' \
    >/dev/null
  echo "membudget: benchmarks ran"
else
  echo "membudget: no build/bench/membudget_bench (libbenchmark-dev missing?)" >&2
  exit 1
fi
