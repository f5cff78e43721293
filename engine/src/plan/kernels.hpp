// The planner's column of the methods' table (memory/method_table.hpp): each training method's kernel, the peak
// stage of a configuration in numbers only, over the layout's peak-candidate stages. In the planner's own file so
// that the page's wasm module, which evaluates but never plans, does not link the kernels.
#pragma once

#include <span>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

struct MethodKernel {
    Method method;
    PeakBytes (*kernel)(const Config& config, double parameterCount, std::span<const StageSpan> stages);
};

// The method's kernel; membudget's for a value outside the enum (validate() refuses it before a plan runs).
const MethodKernel& findKernel(Method method);

}  // namespace membudget::detail
