// "Which GPU": the same job planned on every GPU preset, so that a user chooses the hardware, not only a layout.
#include <utility>

#include "membudget/model/presets.hpp"
#include "membudget/plan/plan.hpp"

namespace membudget {

std::vector<GpuPlan> planEachGpu(const PlanRequest& request) noexcept {
    std::vector<GpuPlan> out;
    try {
        for (const GpuPreset& preset : gpuPresets()) {
            PlanRequest each = request;
            applyGpuPreset(each.base, preset);
            // One price for every GPU would make a cost column that compares nothing: prices are per GPU type.
            each.base.gpuHourUsd = 0;
            GpuPlan gpu{std::string(preset.id), std::string(preset.label), preset.capacityBytes, plan(each)};
            // Only the recommended row is kept: the whole plan is one `membudget plan --gpu ID` away.
            PlanResult& result = gpu.plan;
            if (result.recommended.index >= 0) {
                PlanRow best = result.rows[static_cast<std::size_t>(result.recommended.index)];
                result.rows = {std::move(best)};
                result.recommended.index = 0;
            } else {
                result.rows.clear();
            }
            out.push_back(std::move(gpu));
        }
    } catch (...) {
        out.clear();
    }
    return out;
}

}  // namespace membudget
