// What the JSON writers share inside the engine: how a number is written, and the serving speed's object.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include <vector>

#include "membudget/base/problem.hpp"
#include "membudget/base/units.hpp"
#include "membudget/model/config.hpp"
#include "membudget/time/serving.hpp"

namespace membudget::detail {

// Integral byte counts print as integers ("17500000000", not "1.75e10"), the rest as shortest doubles.
inline nlohmann::ordered_json number(double value) {
    if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < kExactIntegerLimit)
        return static_cast<std::int64_t>(value);
    return value;
}

// A list of problems as [{field, message}].
inline nlohmann::ordered_json problemsJson(const std::vector<Problem>& list) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& p : list) out.push_back({{"field", p.field}, {"message", p.message}});
    return out;
}

}  // namespace membudget::detail
