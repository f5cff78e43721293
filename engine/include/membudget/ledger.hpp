// The ledger: the chapter's per-GPU verification checklist for one configuration.
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "membudget/config.hpp"
#include "membudget/steptime.hpp"

namespace membudget {

struct Line {
    LineId id = LineId::parameters;
    std::string label;
    std::string formula;      // symbolic, as the source writes it
    std::string substituted;  // the same with this configuration's numbers
    double bytes = 0;
    std::string note;
    // The method whose formula gave this value. A source that does not model a line (the ZeRO paper has
    // no activations) gets membudget's estimate there, marked so; buffers and the CUDA context are the
    // user's allowances, the same for every method (none; "allowance" in JSON and on the page).
    std::optional<Method> origin;
};

// One saved tensor of the activation sub-ledger (membudget's method): per copy, and how many copies
// (layers × micro-batches in flight) the stage holds.
struct Tensor {
    std::string name;
    std::string shape;  // e.g. "[b, s/CP, h/TP]"
    std::string dtype;  // bf16, fp32, uint8, int64
    double bytesPerCopy = 0;
    double copies = 0;
    double bytes = 0;
    std::string sharding;
};

// One pipeline stage's ledger (bytes per line, aligned with Result::lines).
struct Stage {
    double index = 0;
    double layers = 0;
    double inFlightMicrobatches = 0;
    double totalBytes = 0;
    std::vector<double> lineBytes;
    // Parameters held by one GPU of this stage (its TP and EP shard, before ZeRO sharding, with the copies of
    // shared weights a stage keeps) and the stage's share of the model (every shard once, no copies): summed
    // over the stages, modelParameters is the model's count (in inference without the MTP layers).
    double parametersPerGpu = 0;
    double modelParameters = 0;
    // Bytes the caching allocator reserves at the stage's peak (segments, rounding, FSDP2's stream pools):
    // what torch.cuda.max_memory_reserved reports; nvidia-smi adds the CUDA context and NCCL's buffers. 0 where
    // the method does not model it (every method but membudget's in training).
    double reservedBytes = 0;
};

// A phase of the training step and its total (membudget: forward/backward vs the optimizer step).
struct Phase {
    StepPhase name;
    double totalBytes = 0;
};

struct Result {
    Method method = Method::chapter;
    std::vector<Line> lines;          // the peak stage's ledger, at its peak phase
    double parameterCount = 0;        // Ψ as used (given or derived)
    double activeParameterCount = 0;  // per token, for MoE (= parameterCount for a dense model)
    double totalBytes = 0;
    double capacityBytes = 0;
    double usableBytes = 0;          // capacity less the headroom fraction
    std::optional<Verdict> verdict;  // none when errors is not empty
    std::vector<Stage> stages;
    double peakStage = 0;
    std::vector<Tensor> tensors;  // the peak stage's activation sub-ledger, where the method has one
    std::vector<Phase> phases;
    std::optional<StepPhase> peakPhase;  // none: one phase (every method but membudget's training ledger)
    double reservedBytes = 0;            // the peak stage's Stage::reservedBytes
    double cpuBytesPerNode = 0;          // host memory the method needs per node (DeepSpeed offload), or 0
    std::vector<Line> cpuLines;          // the same, line by line (ZeRO-Offload: optimizer states, master, gradients)
    // Inference only: the most concurrent sequences of length seq that fit under the headroom line, and the
    // longest context per sequence that fits with mb sequences (0 when none fits).
    double maxSequences = 0;
    double maxContextTokens = 0;
    // Training: the step-time estimate of the configuration (membudget/steptime.hpp); not estimated in inference.
    StepTime stepTime;
    std::vector<Problem> warnings;
    std::vector<Problem> errors;

    bool ok() const { return errors.empty(); }
};

// Every method's ledger for one configuration, for the side-by-side view.
struct MethodColumn {
    Method method;
    Result result;
    double sourceBytes = 0;  // the lines the source itself computes (origin == method)
};
std::vector<MethodColumn> compareMethods(const Config& config) noexcept;

// One line on what a method's convention for a ledger line is, to explain why it differs from another.
std::string differenceReason(Method method, LineId line);

// The peak stage's lines during forward and backward, which is where a measurement (tools/measure) records
// them: Result::lines, except in membudget's training ledger when the optimizer step is the peak, whose
// optimizer line adds the step's FP32 gradient copy and whose activations are freed. Empty on errors.
std::vector<Line> measurableLines(const Config& config) noexcept;

// Layers held by each pipeline stage (first_stage_layers / last_stage_layers, else an even split with
// any remainder on the stages after the first).
std::vector<double> stageLayers(const Config& config);

// An allowance given in GB as whole bytes (a fraction of a byte rounds up).
inline double gigabytesToBytes(double gb) { return std::ceil(gb * kBytesPerGB); }

// Pure: no I/O, nothing thrown. A configuration that fails validate() yields its errors and no lines.
Result evaluate(const Config& config) noexcept;

// Ψ from the architecture in the Hugging Face layout: embeddings, attention with GQA, the (gated) FFN,
// norms, biases and learned positions; the output layer unless tied.
double derivedParameterCount(const Config& config);

// The per-head width: head_dim, or hidden / heads when it is 0.
inline double headDimOf(const Config& config) { return config.headDim != 0 ? config.headDim : config.hidden / config.heads; }

// MoE: the layers that are MoE layers, and the parameters one token passes through (top-k experts).
double moeLayerCount(const Config& config);
bool isMoeLayer(const Config& config, double layer);  // 0-based
// Multi-head latent attention: the attention parameters of one layer (Hugging Face layout, with the two
// latent norms) and the bytes per token per layer of its KV cache (the latent and the RoPE key, one head).
double mlaAttentionParams(const Config& config);
double activeParameterCount(const Config& config);

// Bytes per parameter of the static memory under each of the chapter's conventions (section 1).
struct StaticBytesPerParam {
    double parameters;  // BF16 working copy
    double gradients;   // BF16, plus FP32 where the convention keeps them
    double master;      // FP32 master weights
    double adamM;       // Adam first moment
    double adamV;       // Adam second moment
    double total() const { return parameters + gradients + master + adamM + adamV; }
};
StaticBytesPerParam staticBytesPerParam(double staticBytes);

// The chapter's worked 70B example (section 2) uses (14h + 6·d_ff)·b·s + 3·a·s²·b bytes per layer rather
// than its table's 22bsh + 2bas²; both are offered (`act_formula`). These give one layer without
// parallelism or checkpointing.
double tableActivationBytesPerLayer(double b, double s, double h, double a, double ffn);
double workedActivationBytesPerLayer(double b, double s, double h, double a, double ffn);

}  // namespace membudget
