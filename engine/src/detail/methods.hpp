// The per-method ledgers behind evaluate(). Each takes a configuration that passed validate() and
// returns, for every pipeline stage it models, the lines parameters, gradients, optimizer and
// activations; evaluate() adds the buffers and CUDA-context allowances and picks the peak stage.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "membudget/ledger.hpp"

namespace membudget::detail {

struct StageOutput {
    double index = 0;
    double layers = 0;
    double inFlightMicrobatches = 0;
    std::vector<Line> lines;
    std::vector<Tensor> tensors;
    std::vector<Phase> phases;  // empty: one phase, the plain sum
    std::string peakPhase;
};

struct MethodOutput {
    std::vector<StageOutput> stages;
    std::vector<Problem> warnings;
    double cpuBytesPerNode = 0;
    std::vector<Line> cpuLines;  // host memory per node, line by line (sums to cpuBytesPerNode)
};

MethodOutput chapterMethod(const Config& config, double parameterCount);
MethodOutput membudgetMethod(const Config& config, double parameterCount);
// atPeakPhase = false: the forward/backward composition, which the sources that lack a line borrow.
MethodOutput membudgetMethod(const Config& config, double parameterCount, bool atPeakPhase);
MethodOutput inferenceMethod(const Config& config, double parameterCount);
MethodOutput korthikantiMethod(const Config& config, double parameterCount);
MethodOutput megatronMethod(const Config& config, double parameterCount);
MethodOutput zeroMethod(const Config& config, double parameterCount);
MethodOutput deepspeedMethod(const Config& config, double parameterCount);

// Micro-batches a 1F1B schedule keeps in flight on a stage (min(PP − i, m)), and the layer-copies of
// activations that makes: with interleaving, Megatron-LM's warm-up of 2(PP − i − 1) + (v − 1)·PP + 1
// model chunks of layers/v layers (on stage 0 this is Korthikanti et al.'s L·(1 + (p − 1)/(p·v))).
double inFlightMicrobatches(const Config& config, double stage);
double inFlightLayerCopies(const Config& config, double stageLayerCount, double stage);

// A line taken from membudget's method where a source does not model it.
Line filledIn(Line line, std::string_view source);

// Formula text: numbers with thousands separators, for the `substituted` column.
std::string n(double value);

}  // namespace membudget::detail
