// The inference ledger (mode = inference): weights, the KV cache, activations and vLLM's profile, per stage.
#pragma once

#include <string>

#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

MethodOutput inferenceMethod(const Config& config, double parameterCount);

// Bytes per linear-layer weight in inference, its quantization scales included (inference.cpp says whose layout).
double inferenceWeightBytes(const Config& config);
// Bytes per routed-expert weight: the linear layers' format, or MXFP4's 0.5 B and a 1-byte scale per 32.
double expertWeightBytes(const Config& config);
// One sequence's recurrent state in one linear-attention (Gated DeltaNet) or Mamba-2 layer on one TP rank, bytes;
// 0 for a model without such layers.
double recurrentStateBytes(const Config& config);

}  // namespace membudget::detail
