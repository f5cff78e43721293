// The per-method ledgers behind evaluate(). Each takes a configuration that passed validate().
#pragma once

#include <vector>

#include "membudget/ledger.hpp"

namespace membudget::detail {

struct MethodOutput {
    std::vector<Line> lines;
    std::vector<Problem> warnings;
};

// The chapter's checklist (sections 1-4) with its pitfalls (section 5) as warnings.
MethodOutput chapterMethod(const Config& config, double parameterCount);

// Formula text: numbers with thousands separators, for the `substituted` column.
std::string n(double value);

}  // namespace membudget::detail
