// The chapter's method (sections 1, 2 and 4) as a ledger and a planner kernel.
#pragma once

#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

MethodOutput chapterMethod(const Config& config, double parameterCount);
PeakBytes chapterTrainingPeak(const Config& config, double parameterCount);
// One line on the chapter's convention for a ledger line, to explain why it differs from another method.
std::string chapterDifference(LineId line);

}  // namespace membudget::detail
