#!/usr/bin/env bash
# Fuzzes the engine with libFuzzer under AddressSanitizer and UndefinedBehaviorSanitizer: the query codec,
# the JSON configuration reader, the Hugging Face config.json importer and evaluate() (tests/fuzz/).
# Configures build-fuzz with clang, builds the targets, replays the inputs that once failed
# (tests/fuzz/regressions/<target>), runs each target for the given seconds on a copy of its seed corpus
# (tests/fuzz/corpus/<target>), and fails on any crash, leak, timeout or broken invariant. A failing input is
# kept in build-fuzz/artifacts/.
# Usage: bash scripts/fuzz.sh [seconds-per-target] [target...]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-20}"
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then targets=(fuzz_query fuzz_json_config fuzz_hf_config fuzz_evaluate fuzz_plan fuzz_import_sequence fuzz_framework_import); fi

# Configured every time (seconds), so that an existing build-fuzz gets these options too.
cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMEMBUDGET_FUZZ=ON \
  -DMEMBUDGET_BUILD_TESTS=OFF -DMEMBUDGET_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz -j2 --target "${targets[@]}"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p build-fuzz/artifacts
failed=()
for target in "${targets[@]}"; do
  # Replayed apart from the corpus: some are large, and in it they would raise the length of every mutation.
  if [ -d "tests/fuzz/regressions/$target" ] &&
     ! build-fuzz/tests/fuzz/"$target" -timeout=25 tests/fuzz/regressions/"$target"/* >"$work/$target.log" 2>&1; then
    tail -n 60 "$work/$target.log"
    echo "membudget: $target FAILED on a regression input (tests/fuzz/regressions/$target)"
    failed+=("$target")
    continue
  fi
  mkdir -p "$work/$target"
  cp tests/fuzz/corpus/"$target"/* "$work/$target/"
  echo "membudget: fuzzing $target for ${seconds} s"
  if build-fuzz/tests/fuzz/"$target" "$work/$target" -max_total_time="$seconds" -close_fd_mask=3 -timeout=25 \
       -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$target-" \
       >"$work/$target.log" 2>&1; then
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log")"
    rate="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/$target.log")"
    coverage="$(grep -o 'cov: [0-9]*' "$work/$target.log" | tail -1)"
    echo "membudget: $target: ${runs:-?} runs, ${rate:-?} exec/s, $coverage, no failure"
  else
    tail -n 60 "$work/$target.log"
    echo "membudget: $target FAILED; the input is in build-fuzz/artifacts/ (rerun: build-fuzz/tests/fuzz/$target FILE)"
    failed+=("$target")
  fi
done
if ((${#failed[@]})); then
  echo "membudget: fuzzing failed: ${failed[*]}"
  exit 1
fi
