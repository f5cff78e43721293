// What to change to fit: single changes and the best combination, ranked by their step-time cost.
#pragma once

#include <string>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// One change to a configuration that does not fit, what it saves and what it costs.
struct Advice {
    std::string change;  // e.g. "zero = 3"
    std::string query;   // the keys it sets, as a link query (zero=3&…)
    double savedBytes = 0;
    double totalBytes = 0;
    std::optional<Verdict> verdict;  // none: the change gives an invalid configuration (never returned)
    std::string cost;
    // The estimated step time after the change over the one before, less 1 (+0.12: 12% slower); 0 when either
    // configuration has no estimate.
    double stepTimeChange = 0;
};

// The smallest changes (one knob, or two when no single one fits) that bring the configuration under its
// headroom line, best first: those that fit, then the ones that keep the task (fine-tuning instead of training
// comes last), then by the estimated step time they cost.
std::vector<Advice> advise(const Config& config) noexcept;

}  // namespace membudget
