// What plan() shares with the rows' own file (plan/rows.cpp).
#pragma once

#include <cstddef>
#include <vector>

#include "membudget/plan/plan.hpp"

namespace membudget::detail {

// Cuts the rows to n, the fastest row kept (in the last place kept when it was beyond the cut).
void cutKeepingFastest(std::vector<PlanRow>& rows, size_t n);

}  // namespace membudget::detail
