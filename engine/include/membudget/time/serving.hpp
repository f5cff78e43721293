// How fast a serving configuration answers: time to first token, time per output token and output tokens per
// second, for one replica of TP × PP (× EP) GPUs serving `mb` concurrent requests of input_tokens in and
// output_tokens out, under vLLM's or SGLang's defaults (docs/inference.md, "Serving speed").
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "membudget/base/record.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// The parts of one decode step (what a request waits between two of its tokens), in seconds.
enum class DecodePart : std::uint8_t {
    weights,         // the rank's weights read from HBM (a MoE layer: only the experts the batch routes to)
    kvCache,         // the live KV cache (and linear-attention or Mamba state) read from HBM
    compute,         // the matmuls' and attention's arithmetic beyond the memory reads, where a batch turns compute-bound
    tensorParallel,  // two all-reduces a layer, latency-bound at decode sizes
    expertParallel,  // the MoE dispatch and combine all-to-alls
    pipeline,        // the sends between pipeline stages
    launch,          // kernel launches: CUDA-graph replay, or eager launches where graphs are off or the batch is larger
    prefill,         // the other requests' prefills that the scheduler runs inside this request's decode
};
inline constexpr std::size_t kDecodeParts = 8;

// The parts of the time to first token, in seconds.
enum class PrefillPart : std::uint8_t {
    matmuls,         // the prompt's linear layers at the achievable matmul rate
    attention,       // causal attention over the prompt (FlashAttention / FlashInfer rate)
    weights,         // the weights read once per prefill chunk
    tensorParallel,  // the all-reduces of the prompt's activations
    expertParallel,  // the all-to-alls of the prompt's tokens
    pipeline,        // the sends between stages
    decodeBatch,     // the decode step the chunk is scheduled with (chunked prefill runs beside the running batch)
    queue,           // under a benchmark: waiting behind the other requests' prompts (0 in the steady state)
};
inline constexpr std::size_t kPrefillParts = 8;

struct ServingTime {
    // False: no estimate (training, or a GPU without the rates); the numbers are 0.
    bool estimated = false;
    Framework framework = Framework::vllm;     // the engine it models (vLLM or SGLang)
    double inputTokens = 0, outputTokens = 0;  // per request, as used (the split of seq when neither key is given)
    bool lengthsAssumed = false;               // input_tokens and output_tokens not given: seq split in half
    double concurrency = 0;                    // requests decoded together on one replica (mb)
    double ttftSeconds = 0;                    // time to first token of one request, the batch running
    double tpotSeconds = 0;                    // time per output token after the first (inter-token latency)
    double requestSeconds = 0;                 // ttft + (output − 1) × tpot
    double outputTokensPerSecondPerReplica = 0;
    double outputTokensPerSecondPerGpu = 0;
    double requestsPerSecondPerReplica = 0;
    double gpusPerReplica = 0;         // TP × PP (× CP)
    double replicas = 0;               // DP: replicas of TP × PP GPUs
    double outputTokensPerSecond = 0;  // the whole deployment's: × replicas
    // The band: every runtime constant at the end of its published range that makes serving fastest or slowest
    // (docs/constants.md); the estimate lies between.
    double ttftSecondsLow = 0, ttftSecondsHigh = 0, tpotSecondsLow = 0, tpotSecondsHigh = 0;
    double outputTokensPerSecondPerGpuLow = 0, outputTokensPerSecondPerGpuHigh = 0;
    double expertsReadPerLayer = 0;  // expected distinct routed experts a MoE layer reads on one GPU per step
    bool computeBound = false;       // the decode step's arithmetic outlasts its memory reads
    bool cudaGraphs = false;         // decode steps replay CUDA graphs
    // Under a benchmark (num_prompts set; docs/inference.md, "Under a benchmark"): TTFT, TPOT and the throughput above are
    // the benchmark's means over its requests, as vllm bench serve and bench_serving print them, with these beside them.
    bool benchmarked = false;
    double prompts = 0, requestRate = 0, lengthRangeRatio = 1;  // the load, as given (the rate over the deployment)
    double ttftP99Seconds = 0, tpotP99Seconds = 0, itlMeanSeconds = 0, itlP99Seconds = 0;
    double benchmarkSeconds = 0;                          // the run: the first request sent to the last token
    double meanInputTokens = 0, meanOutputTokens = 0;     // the drawn lengths' means
    double steadyTtftSeconds = 0, steadyTpotSeconds = 0;  // the steady state of mb in flight, for comparison
    double admittedSequences = 0;  // the requests in flight where the KV cache admits fewer than mb (the rest wait); 0: mb
    std::array<double, kDecodeParts> decodeSeconds{};    // indexed by DecodePart; they sum to tpotSeconds
    std::array<double, kPrefillParts> prefillSeconds{};  // indexed by PrefillPart; they sum to ttftSeconds
    // A plain roofline for scale (docs/inference.md): every weight on the GPU and the KV cache at the mean context read
    // at the full HBM bandwidth each step, the prompt's 2·N FLOPs per token at the dense peak; nothing else.
    double rooflineTpotSeconds = 0, rooflineTtftSeconds = 0, rooflineOutputTokensPerSecondPerGpu = 0;
};

// Spliced into the result's JSON (ttft_s, tpot_s, output_tokens_per_second_per_gpu, serving), its own object on the
// page (null where not estimated).
extern const RecordTable kServingTimeRecord;

// Pure and allocation-free, with its band (three estimates). `admittedSequences`: under a benchmark, the most requests the
// KV cache holds at once (the memory ledger's max_sequences; 0: not known), which caps those in flight below mb, as the
// engines queue (TensorRT-LLM, SGLang) or preempt (vLLM) what does not fit.
ServingTime estimateServingTime(const Config& config, double admittedSequences = 0) noexcept;
// The model's figures at the runtime constants' values alone, no band (estimateServingTime reports its band's midpoints).
ServingTime estimateServingTimeValue(const Config& config, double admittedSequences = 0) noexcept;

struct ServingPartText {
    std::string_view id;  // snake_case, the JSON's key
    std::string_view label;
    std::string_view formula;
};
std::span<const ServingPartText> decodePartTexts();   // in DecodePart order
std::span<const ServingPartText> prefillPartTexts();  // in PrefillPart order
// The model's assumptions and sources in one paragraph (docs/inference.md has the long form).
std::string_view servingAssumptions();

}  // namespace membudget
