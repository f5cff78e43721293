// Megatron-LM's theoretical_memory_usage.py: the most loaded shard (the first stage) only.
#pragma once

#include <string>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

MethodOutput megatronMethod(const Config& config, double parameterCount);
PeakBytes megatronTrainingPeak(const Config& config);
// One line on this source's convention for a ledger line, to explain why it differs from another.
std::string megatronDifference(LineId line);

}  // namespace membudget::detail
