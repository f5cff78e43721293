// The achievable rates the training step time and the serving speed share, each stated once with its source
// (docs/planner.md, "Step time"; docs/inference.md, "Serving speed").
#pragma once

#include "membudget/model/presets.hpp"

namespace membudget::detail {

// FlashAttention's share of the BF16 peak, forward and backward together. Ampere/Ada: FlashAttention-2 "reaching
// 50-73% of the theoretical maximum FLOPs/s on A100" (Dao 2023, abstract): the low end, as the backward pass is
// the slower one. Hopper and later: FlashAttention-2 forward and backward on an H100 SXM5, "up to 335 TFLOPs/s"
// (Dao 2023 §4.1; "only 35% utilization", Shah et al. 2024, FlashAttention-3, §1): 335 of 989.4; AMD's CK
// FlashAttention is taken the same.
inline double flashAttentionShare(const GpuPreset* gpu) {
    const double cc = gpu != nullptr ? gpu->computeCapability : 9.0;
    return cc > 0 && cc < 9.0 ? 0.50 : 335 / 989.4;
}

}  // namespace membudget::detail
