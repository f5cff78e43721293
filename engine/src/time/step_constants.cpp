// What the step-time estimate resolves once per plan (the GPU, the attention kernel's efficiency, the model's FLOPs
// per token) and once per layout (the stages whose time it computes): time/step_constants.hpp.
#include "time/step_constants.hpp"

#include <cstddef>
#include <span>

#include "membudget/base/choices.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "memory/ledgers.hpp"
#include "model/rank.hpp"
#include "time/rates.hpp"

namespace membudget::detail {

namespace {

// FlashAttention's share of the peak (time/rates.hpp), or Triton's.
double attentionEfficiency(const Config& c, const GpuPreset* gpu) {
    const double flash = flashAttentionShare(gpu);
    // FlashAttention in Triton: "FlashAttention-2 is around 1.3-1.5× faster than FlashAttention in Triton in the
    // forward pass and around 2× faster in the backward pass" (Dao 2023 §4.1): 1.4× and 2× over one forward and 2.5
    // forwards' worth of backward, (1.4 + 2.5 × 2) / 3.5 ≈ 1.83× the time.
    if (c.attention == Attention::triton) return flash * 3.5 / (1.4 + 2.5 * 2);
    return flash;
}

}  // namespace

StepConstants stepConstants(const Config& c, EstimateEnd end) {
    StepConstants k{};
    // Latencies and the grouped GEMM's half-rate rows slow the step as they grow; shares of a rate speed it.
    auto latency = [&](RuntimeConstant id) { return runtimeConstant(id, c).at(end, false); };
    auto share = [&](RuntimeConstant id) { return runtimeConstant(id, c).at(end, true); };
    k.runtime = {
        latency(RuntimeConstant::eagerLaunchSeconds), share(RuntimeConstant::hbmStreamFraction), share(RuntimeConstant::linkFraction),
        latency(RuntimeConstant::allReduceFloorSeconds), latency(RuntimeConstant::allGatherFloorSeconds),
        latency(RuntimeConstant::allToAllFloorSeconds), latency(RuntimeConstant::allToAllInterNodeFloorSeconds),
        latency(RuntimeConstant::groupedGemmHalfRateRows), share(RuntimeConstant::matmulShapeFraction),
        // PyTorch's SDPA runs FlashAttention-2 itself (its flash backend): torchtitan, torchtune, accelerate and
        // DeepSpeed take no faster kernel; Megatron-LM runs Transformer Engine's cuDNN attention. Triton's and
        // eager attention are their own kernels.
        c.framework == Framework::megatron && c.attention == Attention::flash ? share(RuntimeConstant::attentionKernelSpeedup) : 1.0};
    k.gpu = findGpuPreset(c.gpu);
    k.attentionEfficiency = attentionEfficiency(c, k.gpu);
    // 6·N + 12·L·a·d·s FLOPs per token (torchtitan get_num_flops_per_token): N without the input embedding.
    const double embedding = c.vocab * c.hidden + c.posEmb * c.hidden;
    k.modelFlopsPerToken = 6 * (activeParameterCount(c) - embedding) + 12 * c.layers * c.heads * headDimOf(c) * c.seq;
    return k;
}

StepBandConstants stepBandConstants(const Config& c) {
    return {stepConstants(c), stepConstants(c, EstimateEnd::fast), stepConstants(c, EstimateEnd::slow)};
}

size_t stepTimeStages(const Config& c, std::span<StageSpan> out) {
    size_t count = 0;
    double firstLayer = 0, previousLayers = 0, previousMoeLayers = 0;
    for (double stage = 0; stage < c.pp; ++stage) {
        const double layers = stageLayerCount(c, stage);
        const double from = firstLayer;
        firstLayer += layers;
        const double moeLayers = moeLayersIn(c, from, layers);
        const bool sameAsPrevious = layers == previousLayers && moeLayers == previousMoeLayers;
        previousLayers = layers;
        previousMoeLayers = moeLayers;
        if (stage > 1 && stage < c.pp - 1 && sameAsPrevious) continue;
        if (count < out.size()) out[count] = {stage, from, layers};
        ++count;
    }
    return count;
}

}  // namespace membudget::detail
