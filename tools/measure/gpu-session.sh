#!/usr/bin/env bash
# One device session (issues 26, 28, 30): serving_bench.py (HBM share, launch and graph-node costs, a decode step's
# kernels) and trace-run.sh (the caching allocator's event traces), each bounded, each result in $OUT as it ends.
# The device tool brings back 8 files at most: the traces travel as one tar (split if over 15 MiB).
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
log() { echo "[$(date +%T)] $*" | tee -a "$out/session-log.txt" >&2; }
nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm,clocks.max.mem --format=csv >>"$out/session-log.txt" 2>&1
lscpu | grep -E 'Model name|^CPU\(s\)|MHz' >>"$out/session-log.txt" 2>&1
log "serving_bench start"
PYTHONUNBUFFERED=1 timeout "${SERVING_LIMIT:-180}" "$py" "$here/serving_bench.py" --out "$out/serving-bench.json" \
    2>>"$out/session-log.txt"
log "serving_bench end rc=$?"
tr=/tmp/alloc-traces; mkdir -p "$tr"
OUT=$tr timeout "${TRACE_LIMIT:-240}" bash "$here/trace-run.sh"
log "trace-run end rc=$?"
cp "$tr/log.txt" "$out/trace-log.txt" 2>/dev/null
cp "$tr/results.jsonl" "$out/trace-results.jsonl" 2>/dev/null
(cd "$tr" && ls trace-*.json.gz >/dev/null 2>&1 && tar -cf /tmp/alloc-traces.tar trace-*.json.gz)
if [ -f /tmp/alloc-traces.tar ]; then
    if [ "$(stat -c %s /tmp/alloc-traces.tar)" -gt 15728640 ]; then
        split -b 15M -d -a 1 /tmp/alloc-traces.tar "$out/alloc-traces.tar.part"
    else
        cp /tmp/alloc-traces.tar "$out/alloc-traces.tar"
    fi
fi
ls -la "$out" >>"$out/session-log.txt"
log done
