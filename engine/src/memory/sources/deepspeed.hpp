// DeepSpeed's estimate_zero2/zero3_model_states_mem_needs, for one model-parallel shard.
#pragma once

#include <span>
#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

MethodOutput deepspeedMethod(const Config& config, double parameterCount);
PeakBytes deepspeedTrainingPeak(const Config& config, double parameterCount, std::span<const StageSpan> stages);
// One line on this source's convention for a ledger line, to explain why it differs from another.
std::string deepspeedDifference(LineId line);

}  // namespace membudget::detail
