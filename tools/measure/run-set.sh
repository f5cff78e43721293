#!/usr/bin/env bash
# Measures every configuration of tools/measure/configs (or those given) on this machine's GPU, one process
# each (a fresh allocator per run), and writes into OUTDIR, per configuration NAME:
#   NAME.json          the measured file (membudget-measured/1)
#   NAME.log           measure.py's standard error
#   NAME.compare.txt   `membudget compare-measured --gib` of it, and NAME.compare.json its --json form
# and summary.txt, one line per configuration. Exit status 1 if any run failed (the others still run).
#
#   tools/measure/run-set.sh OUTDIR [CONFIG.json ...]
# Environment: PYTHON (a python3 whose torch sees CUDA; default python3), MEMBUDGET (the membudget binary;
# default build/membudget, then build-measure/membudget; without one the comparisons are skipped),
# MEASURE_TIMEOUT (seconds per configuration, default 600), MEASURE_ARGS (extra measure.py flags).
set -uo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 OUTDIR [CONFIG.json ...]" >&2
  exit 2
fi
out=$1
shift
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${PYTHON:-python3}
timeout_s=${MEASURE_TIMEOUT:-600}
read -r -a extra <<< "${MEASURE_ARGS:-}"
membudget=${MEMBUDGET:-}
if [ -z "$membudget" ]; then
  for candidate in "$root/build/membudget" "$root/build-measure/membudget"; do
    if [ -x "$candidate" ]; then membudget=$candidate; break; fi
  done
fi

if [ $# -gt 0 ]; then configs=("$@"); else configs=("$here"/configs/*.json); fi
mkdir -p "$out"
"$python" -c 'import torch; print("measure: torch", torch.__version__, "CUDA", torch.version.cuda, "device",
              torch.cuda.get_device_name(0) if torch.cuda.is_available() else "none")' | tee "$out/summary.txt"

failed=0
for config in "${configs[@]}"; do
  name=$(basename "$config" .json)
  start=$(date +%s)
  if timeout "$timeout_s" "$python" "$here/measure.py" "$config" --out "$out/$name.json" "${extra[@]}" 2> "$out/$name.log"; then
    status="ok"
    if [ -n "$membudget" ]; then
      "$membudget" compare-measured "$out/$name.json" --gib > "$out/$name.compare.txt" 2>> "$out/$name.log" || status="compare failed"
      "$membudget" compare-measured "$out/$name.json" --json > "$out/$name.compare.json" 2>> "$out/$name.log" || status="compare failed"
    fi
  else
    status="failed (exit $?; see $name.log)"
    failed=1
  fi
  echo "measure: $name: $status in $(( $(date +%s) - start )) s" | tee -a "$out/summary.txt"
done
exit $failed
