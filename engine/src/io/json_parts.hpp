// What the JSON writers share inside the engine: how a number is written.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "membudget/base/units.hpp"

namespace membudget::detail {

// Integral byte counts print as integers ("17500000000", not "1.75e10"), the rest as shortest doubles.
inline nlohmann::ordered_json number(double value) {
    if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < kExactIntegerLimit)
        return static_cast<std::int64_t>(value);
    return value;
}

}  // namespace membudget::detail
