// The inference ledger (mode = inference): weights, the KV cache, activations and vLLM's profile, per stage.
#pragma once

#include <string>

#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

MethodOutput inferenceMethod(const Config& config, double parameterCount);

}  // namespace membudget::detail
