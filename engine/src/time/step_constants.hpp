// What the step-time estimate takes of a configuration that the planner's knobs change seldom or never: the
// constants of the model, the sequence and the GPU, resolved once per plan, and the stages whose time it computes,
// once per layout; not once per row. Internal: the planner's and the estimate's.
#pragma once

#include <cstddef>
#include <span>

#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/time/steptime.hpp"
#include "memory/ledgers.hpp"
#include "time/runtime_constants.hpp"

namespace membudget::detail {

// The runtime constants the training estimate reads (docs/constants.md), resolved once for the GPU.
struct StepRuntime {
    double eagerLaunchSeconds, hbmStreamFraction, linkFraction;
    double allReduceFloorSeconds, allGatherFloorSeconds, allToAllFloorSeconds, allToAllInterNodeFloorSeconds;
    double groupedGemmHalfRateRows, matmulShapeFraction, attentionKernelSpeedup;
};

struct StepConstants {
    const GpuPreset* gpu;        // the GPU preset (the attention kernel's generation, the SM count); null for none
    double attentionEfficiency;  // the attention core's share of the BF16 peak (FlashAttention's, or Triton's)
    double modelFlopsPerToken;   // 6·N + 12·L·a·d·s, N the active parameters without the input embedding
    StepRuntime runtime;
};

// Of the model, the sequence, the attention kernel and the GPU: the same for every layout, ZeRO stage,
// checkpointing mode and micro-batch of a plan.
// `end`: the constants' values, or the ends of their published ranges that make the step fastest or slowest (the band).
StepConstants stepConstants(const Config& config, EstimateEnd end = EstimateEnd::value);

// The stages whose time the estimate computes, in order: the first two, the last, and each other stage whose layer or
// MoE-layer count differs from the stage before it (a stage like the one before it takes its time; a pipeline of 128
// stages has a few kinds). Written into `out`, their count returned (above out.size(): they did not all fit). They
// depend on the layers, PP, the stage split and the MoE layers only, so the planner finds them once per layout.
size_t stepTimeStages(const Config& config, std::span<StageSpan> out);

// estimateStepTime(config) at one set of constants, with the stages resolved (from a configuration that differs from
// `config` in no field they read): the step as the model computes it, no band.
StepTime estimateStepTime(const Config& config, const StepConstants& constants, std::span<const StageSpan> stages) noexcept;

// The constants at their values and at the two ends of their published ranges, resolved once per plan.
struct StepBandConstants {
    StepConstants value, fast, slow;
};
StepBandConstants stepBandConstants(const Config& config);

// The estimate as it is reported: the middle of its band. The step at the constants' fast and slow ends bounds the band
// (the step at their values inside it); the reported step is the band's midpoint, its parts the model's in proportion,
// and the rates and the run follow from it.
StepTime estimateStepBand(const Config& config, const StepBandConstants& constants, std::span<const StageSpan> stages) noexcept;

}  // namespace membudget::detail
