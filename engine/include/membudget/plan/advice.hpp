// What to change to fit: single changes and the best combination, ranked by their step-time cost.
#pragma once

#include <string>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/record.hpp"
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
    // False for a change of what is trained (LoRA or QLoRA instead of every weight): offered after every change that
    // keeps the user's task.
    bool keepsTask = true;
};
extern const RecordTable kAdviceRecord;

// The changes that bring the configuration under its headroom line, best first. The user's task comes first: the
// single changes that keep it and fit, or, when none does, the smallest combinations of them (two, then three
// knobs) that fit; then the changes of task (LoRA, QLoRA) that fit; then the single changes that help but do not
// fit. Within each, by the estimated step time they cost. A change that saves under 1% of the peak is not offered.
std::vector<Advice> advise(const Config& config) noexcept;

}  // namespace membudget
