#!/usr/bin/env bash
# One device session's measurements (hf_peak.py, moe_alloc.py), each case in its own process, each result
# appended to $OUT/results.jsonl as it finishes, so a run cut short still returns what it measured.
set -u
out=${OUT:-/tmp/out}; mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-python3}
log() { echo "[$(date +%T)] $*" | tee -a "$out/log.txt" >&2; }
case_run() {  # name timeout_s env command...
    local name=$1 limit=$2 envs=$3; shift 3
    log "start $name"
    env $envs PYTHONUNBUFFERED=1 timeout "$limit" "$py" "$@" --out "/tmp/$name.json" >>"$out/log.txt" 2>&1
    local rc=$?
    if [ -f "/tmp/$name.json" ]; then
        "$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["case"]=sys.argv[2]; print(json.dumps(d))' \
            "/tmp/$name.json" "$name" >>"$out/results.jsonl"
    fi
    log "end $name rc=$rc"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv >>"$out/log.txt" 2>&1
"$py" -c 'import torch,transformers,accelerate,peft; print(torch.__version__, transformers.__version__, accelerate.__version__, peft.__version__)' >>"$out/log.txt" 2>&1
hf="$here/hf_peak.py"; moe="$here/moe_alloc.py"
case_run l1b-amp 90 "" "$hf" --arch llama-3.2-1b --mb 4 --seq 2048 --amp bf16 --dtype fp32
case_run l1b-amp-gc 90 "" "$hf" --arch llama-3.2-1b --mb 4 --seq 2048 --amp bf16 --dtype fp32 --gc
case_run l1b-bf16 90 "" "$hf" --arch llama-3.2-1b --mb 4 --seq 2048 --amp none --dtype bf16
case_run l1b-lora 90 "" "$hf" --arch llama-3.2-1b --mb 4 --seq 2048 --amp bf16 --dtype bf16 --lora 16
case_run q06-amp 90 "" "$hf" --arch qwen3-0.6b --mb 4 --seq 2048 --amp bf16 --dtype fp32
exp=PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
fork=PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128,garbage_collection_threshold:0.8
case_run moe-default 60 "" "$moe" --imbalance 0.3
case_run moe-expandable 60 "$exp" "$moe" --imbalance 0.3
case_run moe-fork 60 "$fork" "$moe" --imbalance 0.3
case_run moe-split128 60 "PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128" "$moe" --imbalance 0.3
case_run moe-fork-balanced 60 "$fork" "$moe" --imbalance 0.0
case_run l1b-amp-compile 150 "" "$hf" --arch llama-3.2-1b --mb 4 --seq 2048 --amp bf16 --dtype fp32 --compile
log done
