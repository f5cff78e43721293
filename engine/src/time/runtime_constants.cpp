// Which row of the runtime constants a configuration's GPU takes (runtime_constants.hpp): the table compiled from
// engine/data/runtime-constants.json, walked once per lookup (a few dozen rows).
#include "time/runtime_constants.hpp"

#include <string_view>

#include "membudget/model/presets.hpp"

namespace membudget::detail {

namespace {

struct RuntimeConstantRow {
    RuntimeConstant id;
    Vendor vendor;
    std::string_view gpus;  // " h100-80gb generic-80gb ": the presets it is for; empty: the vendor's fallback
    double value, low, high;
};

constexpr RuntimeConstantRow kRuntimeConstants[] = {
#include "time/runtime_constants.inc"
};

// Whether the space-separated list names the preset.
bool names(std::string_view gpus, std::string_view gpu) {
    for (std::size_t at = gpus.find(gpu); at != std::string_view::npos; at = gpus.find(gpu, at + 1))
        if (at > 0 && gpus[at - 1] == ' ' && at + gpu.size() < gpus.size() && gpus[at + gpu.size()] == ' ') return true;
    return false;
}

}  // namespace

ConstantRange runtimeConstant(RuntimeConstant id, const Config& c) {
    const GpuPreset* gpu = findGpuPreset(c.gpu);
    const Vendor vendor = gpu != nullptr && gpu->computeCapability == 0 ? Vendor::amd : Vendor::nvidia;
    const RuntimeConstantRow* fallback = nullptr;
    for (const RuntimeConstantRow& row : kRuntimeConstants) {
        if (row.id != id) continue;
        if (gpu != nullptr && names(row.gpus, gpu->id)) return {row.value, row.low, row.high};
        if (row.vendor == vendor && row.gpus.empty()) fallback = &row;
    }
    // scripts/runtime-constants.mjs refuses a table without each vendor's fallback.
    return {fallback->value, fallback->low, fallback->high};
}

}  // namespace membudget::detail
