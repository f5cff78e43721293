// The hardware and runtime constants of the speed estimates (docs/constants.md), each from published measurements
// with its range: described once in engine/data/runtime-constants.json, compiled in by scripts/runtime-constants.mjs as
// runtime_constants.inc. A row applies to the GPU presets it names, else to its vendor.
#pragma once

#include <cstdint>

#include "membudget/model/config.hpp"

namespace membudget::detail {

enum class RuntimeConstant : std::uint8_t {
    eagerLaunchSeconds,
    graphNodeSeconds,
    smallKernelSeconds,
    hbmStreamFraction,
    decodeHbmFraction,
    linkFraction,
    allReduceFloorSeconds,
    allGatherFloorSeconds,
    allToAllFloorSeconds,
    allToAllInterNodeFloorSeconds,
    groupedGemmHalfRateRows
};
enum class Vendor : std::uint8_t { nvidia, amd };

// A constant's value and the published range it stays within.
struct ConstantRange {
    double value, low, high;
};

// The configuration's GPU: its preset's row, else its vendor's (a preset without a CUDA compute capability is AMD's;
// a GPU that is no preset is taken as NVIDIA's).
ConstantRange runtimeConstant(RuntimeConstant id, const Config& config);

}  // namespace membudget::detail
