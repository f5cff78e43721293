// The per-method ledgers behind evaluate(). Each takes a configuration that passed validate() and
// returns, for every pipeline stage it models, the lines parameters, gradients, optimizer and
// activations; evaluate() adds the buffers and CUDA-context allowances and picks the peak stage.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/memory/result.hpp"

namespace membudget::detail {

struct StageOutput {
    double index = 0;
    double layers = 0;
    double inFlightMicrobatches = 0;
    std::vector<Line> lines;
    std::vector<Tensor> tensors;
    std::vector<Phase> phases;  // empty: one phase, the plain sum
    std::optional<StepPhase> peakPhase;
    // What the caching allocator reserves at the stage's peak, the method's lines only (no workspace or
    // allowances); 0 where the method does not model it.
    double reservedBytes = 0;
};

struct MethodOutput {
    std::vector<StageOutput> stages;
    std::vector<Problem> warnings;
    double cpuBytesPerNode = 0;
    std::vector<Line> cpuLines;  // host memory per node, line by line (sums to cpuBytesPerNode)
};

// One membudget training stage in numbers (memory/training.cpp): the ledger's lines and the planner's
// kernel both read these, so the two cannot drift apart. membudgetStage() sets every field without a default, so
// the struct is not zeroed first (zeroing its 400 bytes, a `rep stos`, was a tenth of the kernel).
struct MembudgetStage {
    double layers, moeLayers, mtpLayers, mtpEmbedding;
    double stageParams, expertParams, paramShard, gradShard, optimizerShard, fp8Copies;
    double expertParamShard, expertGradShard, expertOptimizerShard, gatheredLayer;  // gatheredLayer: ZeRO-3's largest module
    double largestModule;     // DeepSpeed ZeRO-3: the stage's largest single module (it gathers module by module)
    double gatheredLayerFp8;  // of gatheredLayer, the linear weights FSDP2 gathers in FP8 (fp8_all_gather)
    double stageLinearFp8;    // the stage's layer matrices, likewise, when FSDP2 keeps the whole stage gathered
    double persistentParams;  // DeepSpeed ZeRO-3: tensors under stage3_param_persistence_threshold, kept gathered
    double gatheredParams;    // the parameters line's gathered (unsharded) weights: their own allocator blocks
    double parameters, gradients, states, optimizer, optimizerAtPeak;
    double copies, microbatches, checkpointed, activationsDuringBackward, activations;
    double stepTemporary, forwardBackward, step;
    bool stepPeaks;
    // Gradients allocated during backward (MembudgetTraining::gradientsInBackward): the shards of them, and where
    // the forward/backward phase peaks: at the backward's start (no shard yet, every saved tensor) or at its end
    // (every shard, the first layer's tensors). gradientsAtPeak is the gradients line at the stage's peak.
    double storedGradients = 0, gradientsAtPeak = 0, backwardEndActivations = 0;
    bool backwardEndPeaks = false, gradientsPending = false;
    // LoRA / QLoRA (finetune != full): the frozen base, the adapters, and what each byte line holds of them.
    double adapterParams = 0, frozenBytesPerParam = 0, quantizedParams = 0, adapterBytesPerParam = 0, adapterStatesPerParam = 0;
    double dequantized = 0;  // QLoRA's BF16 buffer for the matrix being dequantised
};

// The peak stage of a validated training configuration without any text: what the planner evaluates
// millions of times. Equal, line for line, to evaluate()'s peak stage (tests/cpp/test_plan.cpp).
struct PeakBytes {
    double parameters, gradients, optimizer, activations, allowances, totalBytes, stage;
    double workspace = 0;
    // The largest stage's memory without activations (parameters, gradients, optimizer states and the
    // allowances): a lower bound for every micro-batch, checkpointing mode and SP setting of the layout.
    double staticBytes;
};

// A pipeline stage the peak can be on: its index, first layer and layer count.
struct StageSpan {
    double index, firstLayer, layers;
};
// The first and last stages and the first middle stage of each (layers, MoE layers) kind: a later middle stage of
// the same kind holds the same static memory and no more activations (its in-flight micro-batches fall with the
// index), so it is never the first peak. Depends only on the layers, PP and the first/last-stage split, so the
// planner computes it once per layout and evaluates each of its configurations over these few stages, not PP.

// A line taken from membudget's method where a source does not model it.
Line filledIn(Line line, std::string_view source);

// Formula text: numbers with thousands separators, for the `substituted` column.
std::string n(double value);

}  // namespace membudget::detail
