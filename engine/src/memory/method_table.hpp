// One table of the training methods: each one's ledger (lines with text), its planner kernel (the peak stage in
// numbers, no text) and why its lines differ from another method's. evaluate(), the planner and the
// side-by-side view look a method up here instead of each switching on it.
#pragma once

#include <string>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

struct MethodEntry {
    Method method;
    MethodOutput (*ledger)(const Config& config, double parameterCount);
    // The ledger's peak stage over the layout's peak-candidate stages (peakCandidateStages), in numbers only.
    PeakBytes (*kernel)(const Config& config, double parameterCount, const std::vector<StageSpan>& stages);
    // One line on the method's convention for a ledger line (parameters, gradients, optimizer, activations).
    std::string (*difference)(LineId line);
};

// The method's entry, or nullptr for a value outside the enum (set from JavaScript with an unknown id).
const MethodEntry* findMethod(Method method);

}  // namespace membudget::detail
