// The ZeRO paper's model states per device (§5), with Ψ per model-parallel shard.
#pragma once

#include <span>
#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

MethodOutput zeroMethod(const Config& config, double parameterCount);
PeakBytes zeroTrainingPeak(const Config& config, double parameterCount, std::span<const StageSpan> stages);
// One line on this source's convention for a ledger line, to explain why it differs from another.
std::string zeroDifference(LineId line);

}  // namespace membudget::detail
