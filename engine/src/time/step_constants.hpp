// What the step-time estimate takes of a configuration that no planner's knob changes (the model, the sequence, the
// GPU): resolved once per plan, not once per row. Internal: the planner's and the estimate's.
#pragma once

#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/time/steptime.hpp"

namespace membudget::detail {

struct StepConstants {
    const GpuPreset* gpu;        // the GPU preset (the attention kernel's generation, the SM count); null for none
    double attentionEfficiency;  // the attention core's share of the BF16 peak (FlashAttention's, or Triton's)
    double modelFlopsPerToken;   // 6·N + 12·L·a·d·s, N the active parameters without the input embedding
};

// Of the model, the sequence, the attention kernel and the GPU: the same for every layout, ZeRO stage,
// checkpointing mode and micro-batch of a plan.
StepConstants stepConstants(const Config& config);

// estimateStepTime(config) with the constants already resolved (`constants` from stepConstants of a configuration
// that differs from `config` in no field they read).
StepTime estimateStepTime(const Config& config, const StepConstants& constants) noexcept;

}  // namespace membudget::detail
