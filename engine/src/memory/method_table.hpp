// One table of the training methods: each one's ledger (lines with text) and why its lines differ from another
// method's. evaluate() and the side-by-side view look a method up here instead of each switching on it. The
// planner's kernels (the peak stage in numbers, no text) are the same methods' other column, kept in the
// planner's own table (plan/kernels.cpp): in this one every kernel would be linked into the page's wasm module,
// which never plans (2.1 KB gzipped, over its budget).
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
    // One line on the method's convention for a ledger line (parameters, gradients, optimizer, activations).
    std::string (*difference)(LineId line);
};

// The method's entry, or nullptr for a value outside the enum (set from JavaScript with an unknown id).
const MethodEntry* findMethod(Method method);

}  // namespace membudget::detail
