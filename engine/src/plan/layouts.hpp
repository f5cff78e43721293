// The layouts a plan searches (plan/layouts.cpp): plan()'s enumeration of TP, CP, PP and EP over the GPUs.
#pragma once

#include <cstddef>
#include <vector>

#include "membudget/model/config.hpp"
#include "membudget/plan/plan.hpp"

namespace membudget::detail {

struct Layout {
    double tp, cp, pp, dp, ep, firstStageLayers, lastStageLayers;
};

// The divisors of a whole number, ascending.
std::vector<double> divisorsOf(double value);

// The configuration a layout stands for before the planner's own knobs (ZeRO, SP, checkpointing, micro-batch).
Config layoutConfig(const PlanRequest& r, const Layout& L);

// Every layout of TP, CP, PP (and EP) over the GPUs that validate() accepts; `limit`: stop past this many (the
// caller refuses a search that large).
std::vector<Layout> layoutsOf(const PlanRequest& r, size_t limit);

}  // namespace membudget::detail
