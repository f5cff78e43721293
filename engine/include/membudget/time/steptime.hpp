// How long a training step takes: an estimate of the step time, the tokens per second per GPU and the model FLOPs
// utilisation of one training configuration, built from the GPU's peak throughput and link bandwidths and the
// framework's overlap of communication with compute (docs/planner.md, "Step time").
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "membudget/base/record.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// The parts of a step, each in seconds on the slowest pipeline stage (what the step waits for).
enum class StepPart : std::uint8_t {
    matmuls,           // the linear layers' GEMMs, forward and backward (and the output layer's)
    attention,         // the attention core (FlashAttention: causal, half the QKᵀ and AV FLOPs)
    memoryBound,       // norms, activations, rotary, residual adds, the loss: bytes through HBM
    recomputation,     // what activation checkpointing runs again in backward
    tensorParallel,    // TP all-reduces (or SP all-gathers and reduce-scatters), not overlapped
    contextParallel,   // CP's K/V ring exchange, beyond what the attention core hides
    expertParallel,    // EP's token all-to-alls, not overlapped
    pipelineTransfer,  // PP's activation sends between stages
    pipelineBubble,    // (PP − 1) / v idle micro-batch slots of the 1F1B schedule
    dataParallel,      // DP/ZeRO/FSDP gradient reduction and parameter gathers, beyond what backward hides
    optimizer,         // the optimizer step over this GPU's shard, bytes through HBM
};
inline constexpr std::size_t kStepParts = 11;

struct StepTime {
    // False: no estimate (inference, or a GPU with no peak throughput given); the numbers are 0.
    bool estimated = false;
    double stepSeconds = 0;
    double tokensPerSecondPerGpu = 0;
    // Model FLOPs utilisation: (6·N + 12·L·a·d·s) FLOPs per token, N the active parameters without the input
    // embedding (torchtitan's get_num_flops_per_token; PaLM, Chowdhery et al. 2022, appendix B), over the GPU's
    // dense BF16 peak. Recomputation does not count.
    double mfu = 0;
    double modelFlopsPerToken = 0;
    double tokensPerStep = 0;                      // the global batch: DP × mb × microbatches × seq
    double tokensPerSecond = 0;                    // the whole job's: tokensPerStep / stepSeconds
    double bubbleFraction = 0;                     // (PP − 1) / (m·v + PP − 1)
    std::array<double, kStepParts> partSeconds{};  // indexed by StepPart
    // The band: the step with every runtime constant at the end of its published range that makes it fastest (low) or
    // slowest (high) (docs/constants.md), and the rates that follow; the estimate above lies between them.
    double stepSecondsLow = 0, stepSecondsHigh = 0;
    double tokensPerSecondPerGpuLow = 0, tokensPerSecondPerGpuHigh = 0, mfuLow = 0, mfuHigh = 0;
    // The run (train_tokens > 0): whole optimizer steps until train_tokens are seen, at this step time on the
    // configuration's TP × PP × CP × DP GPUs; the cost where gpu_hour_usd is set. 0 where not set.
    double runTokens = 0, runSteps = 0, runSeconds = 0, runGpuHours = 0, runCostUsd = 0;
    double runSecondsLow = 0, runSecondsHigh = 0, runGpuHoursLow = 0, runGpuHoursHigh = 0, runCostUsdLow = 0, runCostUsdHigh = 0;
};
// Spliced into the result's JSON (step_time_s, tokens_per_second_per_gpu, mfu, step_time, run), its own object on the
// page (null where not estimated).
extern const RecordTable kStepTimeRecord;

// Pure and fast (no allocation): the planner calls it for every layout that fits.
StepTime estimateStepTime(const Config& config) noexcept;

// Each part's label and how it is computed, for the CLI and the page; the assumptions, once.
struct StepPartText {
    StepPart part;
    std::string_view id;  // snake_case, the JSON's key
    std::string_view label;
    std::string_view formula;  // what the part's seconds are, in words and symbols
};
std::span<const StepPartText> stepPartTexts();
// The model's assumptions and its sources in one paragraph (docs/planner.md has the long form).
std::string_view stepTimeAssumptions();

}  // namespace membudget
