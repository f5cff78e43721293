// Korthikanti et al. 2022: Table 2 per layer, §4.2 pipeline, §4.3 embedding and output terms.
#pragma once

#include <span>
#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

MethodOutput korthikantiMethod(const Config& config, double parameterCount);
PeakBytes korthikantiTrainingPeak(const Config& config, std::span<const StageSpan> stages);
// One line on this source's convention for a ledger line, to explain why it differs from another.
std::string korthikantiDifference(LineId line);

}  // namespace membudget::detail
