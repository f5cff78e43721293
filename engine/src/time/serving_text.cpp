// The serving speed's parts in words, for the JSON, the CLI and the page (docs/inference.md, "Serving speed").
#include <array>

#include "membudget/time/serving.hpp"

namespace membudget {

namespace {

constexpr std::array<ServingPartText, kDecodeParts> kDecodeTexts{{
    {"weights", "weights read",
     "the rank's weights ÷ (HBM × 0.8); a MoE layer's routed experts: E/EP · (1 − (1 − k/E)^n) read for n tokens"},
    {"kv_cache", "KV cache read",
     "mb × context × layers × K/V bytes per token ÷ (HBM × 0.8); a window in sliding layers, state in linear ones"},
    {"compute", "compute beyond reads",
     "max(0, 2 · active parameters · tokens ÷ matmul rate + attention FLOPs ÷ FlashAttention rate − reads)"},
    {"tensor_parallel", "TP all-reduces", "2 per layer of mb × h × 2 B, NCCL's latency and bandwidth (α + n/β)"},
    {"expert_parallel", "EP all-to-alls", "dispatch and combine per MoE layer of the tokens' top-k copies, α + n/β"},
    {"pipeline", "PP sends", "hidden state and residual per stage boundary, α + n/β"},
    {"launch", "kernel launches",
     "CUDA graphs: a measured gap per kernel node; eager: a host launch per kernel where the launches outlast the work"},
    {"prefill", "other requests' prefill",
     "vLLM: the step with mb × input ÷ output prompt tokens scheduled in, less the step without; "
     "SGLang: its prefill batches between decode steps, per step"},
}};

constexpr std::array<ServingPartText, kPrefillParts> kPrefillTexts{{
    {"matmuls", "prompt matmuls", "2 · parameters · input tokens ÷ (peak × matmul_efficiency), per chunk of max_num_batched_tokens"},
    {"attention", "prompt attention", "causal: input² / 2 pairs × 2 · heads · (d_qk + d_v) ÷ FlashAttention rate"},
    {"weights", "weights read", "the rank's weights once per chunk ÷ (HBM × a decode pass's share), where the chunk is memory-bound"},
    {"tensor_parallel", "TP all-reduces", "2 per layer of input × h × 2 B"},
    {"expert_parallel", "EP all-to-alls", "dispatch and combine per MoE layer of the prompt's copies"},
    {"pipeline", "PP sends and launches", "stage boundaries and kernel launches of the prefill pass"},
    {"decode_batch", "running decode step", "the decode step each chunk is scheduled beside"},
    {"queue", "queued behind other prompts", "under a benchmark: the mean TTFT less the steady state's (the others' prefills first)"},
}};

}  // namespace

std::span<const ServingPartText> decodePartTexts() { return kDecodeTexts; }
std::span<const ServingPartText> prefillPartTexts() { return kPrefillTexts; }

std::string_view servingAssumptions() {
    return "Steady state of a replica serving mb requests at once (a closed loop at that concurrency), each input_tokens in and "
           "output_tokens out. A decode step reads the rank's weights and the requests' KV cache at the share of the rated HBM bandwidth a "
           "decode pass reaches "
           "and runs their arithmetic at the GPU's achievable matmul and FlashAttention rates, the larger setting the pace; a MoE "
           "layer reads the expected distinct experts its tokens route to under balanced top-k routing. TP all-reduces, EP "
           "all-to-alls and PP sends use NCCL's latency and bandwidth model at 80% of the links. CUDA graphs (vLLM up to 512 "
           "sequences, SGLang up to its cuda_graph_max_bs by GPU memory and TP, TensorRT-LLM decode-only batches of the sizes it "
           "captured, up to 128) leave a measured gap per kernel; eager launches cost "
           "a measured host time each (docs/constants.md: each constant per vendor with its published range). vLLM schedules prompt chunks "
           "into decode steps (chunked prefill); SGLang runs prefill batches between them; TensorRT-LLM puts whole prompts beside "
           "the decodes (in-flight batching, no chunking by default). "
           "With num_prompts set, a benchmark instead: the requests sent at request_rate (Poisson) or all at once, at most mb in "
           "flight and no more than the KV cache holds, scheduled pass by pass as each engine's scheduler does, and TTFT, TPOT "
           "and throughput its means over them. Not modelled: speculative decoding, prefix-cache hits, the API server and "
           "tokenizer, DeepSeek-V3.2's sparse attention (its full attention is counted).";
}

}  // namespace membudget
