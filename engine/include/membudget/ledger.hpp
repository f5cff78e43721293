// The ledger: the chapter's per-GPU verification checklist for one configuration.
#pragma once

#include <string>
#include <vector>

#include "membudget/config.hpp"

namespace membudget {

struct Line {
    std::string id;           // parameters, gradients, optimizer, activations, buffers, cuda_context
    std::string label;
    std::string formula;      // symbolic, as the chapter writes it
    std::string substituted;  // the same with this configuration's numbers
    double bytes = 0;
    std::string note;
};

struct Result {
    std::string method;
    std::vector<Line> lines;
    double parameterCount = 0;  // Ψ as used (given or derived)
    double totalBytes = 0;
    double capacityBytes = 0;
    double usableBytes = 0;  // capacity less the headroom fraction
    std::string verdict;     // fits, tight, does_not_fit; empty when errors is not
    std::vector<Problem> warnings;
    std::vector<Problem> errors;

    bool ok() const { return errors.empty(); }
};

// Pure: no I/O, nothing thrown. A configuration that fails validate() yields its errors and no lines.
Result evaluate(const Config& config) noexcept;

// Ψ from the architecture in the Hugging Face layout: embeddings, attention with GQA, the (gated) FFN,
// norms, biases and learned positions; the output layer unless tied.
double derivedParameterCount(const Config& config);

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
