#!/usr/bin/env bash
# Allocator traces (hf_peak.py --trace): every request and segment the caching allocator saw over three training
# steps, for checking membudget's allocator simulation against PyTorch's own. Each case in its own process; each
# trace and result written to $OUT as it finishes, so a run cut short still returns what it measured.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
log() { echo "[$(date +%T)] $*" | tee -a "$out/log.txt" >&2; }
case_run() {  # name timeout_s args...
    local name=$1 limit=$2; shift 2
    log "start $name"
    PYTHONUNBUFFERED=1 timeout "$limit" "$py" "$here/hf_peak.py" "$@" --trace "$out/trace-$name.json.gz" \
        --out "/tmp/$name.json" >>"$out/log.txt" 2>&1
    local rc=$?
    if [ -f "/tmp/$name.json" ]; then
        "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["case"]=sys.argv[2]; d.pop("census",None); print(json.dumps(d))' \
            "/tmp/$name.json" "$name" >>"$out/results.jsonl"
    fi
    log "end $name rc=$rc"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >>"$out/log.txt" 2>&1
l1b="--arch llama-3.2-1b"; q06="--arch qwen3-0.6b"
case_run l1b-amp-gc 90 $l1b --mb 4 --seq 2048 --amp bf16 --dtype fp32 --gc
case_run l1b-lora 90 $l1b --mb 4 --seq 2048 --amp bf16 --dtype bf16 --lora 16
case_run q06-amp 90 $q06 --mb 4 --seq 2048 --amp bf16 --dtype fp32
case_run l1b-amp 90 $l1b --mb 4 --seq 2048 --amp bf16 --dtype fp32
case_run l1b-bf16 90 $l1b --mb 4 --seq 2048 --amp none --dtype bf16
# held out: shapes and settings the simulation was not looked at against
case_run q06-amp-gc-s4k 90 $q06 --mb 2 --seq 4096 --amp bf16 --dtype fp32 --gc
case_run l1b-lora-gc-mb8 90 $l1b --mb 8 --seq 2048 --amp bf16 --dtype bf16 --lora 16 --gc
case_run l1b-bf16-gc-mb2 90 $l1b --mb 2 --seq 4096 --amp none --dtype bf16 --gc
log done
