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
    groupedGemmHalfRateRows,
    matmulShapeFraction,
    attentionKernelSpeedup,
    kvReadHbmFraction
};
enum class Vendor : std::uint8_t { nvidia, amd };

// Which figure of each constant an estimate takes: the value, or the end of its published range that makes the
// estimate fastest or slowest (the band's two ends, docs/constants.md).
enum class EstimateEnd : std::uint8_t { value, fast, slow };

// A constant's value and the published range it stays within.
struct ConstantRange {
    double value, low, high;
    // The figure for `end`, for a constant that speeds the estimate as it grows (a bandwidth share) or as it shrinks
    // (a latency).
    double at(EstimateEnd end, bool fasterWhenHigher) const {
        if (end == EstimateEnd::value) return value;
        return (end == EstimateEnd::fast) == fasterWhenHigher ? high : low;
    }
};

// The configuration's GPU: its preset's row, else its vendor's (a preset without a CUDA compute capability is AMD's;
// a GPU that is no preset is taken as NVIDIA's).
ConstantRange runtimeConstant(RuntimeConstant id, const Config& config);

}  // namespace membudget::detail
