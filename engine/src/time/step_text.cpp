// The step-time estimate's texts: each part's label and formula, and the model's assumptions in one paragraph
// (docs/planner.md has the long form). PAGE_TEXT keeps them out of the page's module (base/page_text.hpp).
#include <array>
#include <span>
#include <string_view>

#include "base/page_text.hpp"
#include "membudget/time/steptime.hpp"

namespace membudget {

std::span<const StepPartText> stepPartTexts() {
    static constexpr std::array<StepPartText, kStepParts> texts{{
        {StepPart::matmuls, "matmuls", "Matmuls",
         PAGE_TEXT("m × (3 × 2·tokens·P_layer/TP per layer + the output layer) ÷ (peak × matmul efficiency × each GEMM's wave "
                   "efficiency); FP8 linears at the FP8 peak")},
        {StepPart::attention, "attention", "Attention core",
         PAGE_TEXT("m × layers × 3.5 × 4·b·(s/CP)·s·(a/TP)·d × ½ (causal) ÷ (BF16 peak × FlashAttention efficiency); eager: all of it, "
                   "and 4 passes of its saved score tensors through HBM")},
        {StepPart::memoryBound, "memory_bound", "Memory-bound operations",
         PAGE_TEXT("m × layers × tokens × pointwise bytes per element (norms, RoPE, activation, residuals; eager or fused) ÷ HBM "
                   "bandwidth, plus the "
                   "loss (36 B per logit eager, 12 B fused), MoE token routing (permute, sort by expert, unpermute) and FSDP's copies")},
        {StepPart::recomputation, "recomputation", "Recomputation", PAGE_TEXT("m × the forward parts activation checkpointing runs again")},
        {StepPart::tensorParallel, "tensor_parallel", "TP communication",
         PAGE_TEXT("m × layers × 4 all-reduces (6 with full recomputation) of b·(s/CP)·h·2 B ÷ link bandwidth + NCCL's ring "
                   "latency; not overlapped")},
        {StepPart::contextParallel, "context_parallel", "CP communication",
         PAGE_TEXT("m × layers × max(0, 3·(CP − 1) K/V chunks, each ÷ link bandwidth + one hop's latency, − the attention it hides behind "
                   "(the whole core "
                   "under Megatron-LM's ring; torchtitan's all-gather: the first of CP sub-attentions))")},
        {StepPart::expertParallel, "expert_parallel", "EP communication",
         PAGE_TEXT(
             "m × MoE layers × 4 all-to-alls (6 with full recomputation) of top-k × b·(s/CP)·h·2 B (÷ TP with SP: a rank routes its "
             "sequence shard) × the busiest rank's share (moe_imbalance), in-node share over NVLink, "
             "the rest over the network (DeepEP: a token once per remote node), each with one hop's latency; overlapped only by "
             "Megatron-LM's overlap_moe_comm; plus Megatron-LM's forward launches after the layer's host sync (30 + 2 a local expert, "
             "12 more under FP8) at a host launch each, past the GPU work they pace")},
        {StepPart::pipelineTransfer, "pipeline_transfer", "PP transfers",
         PAGE_TEXT("m × v × 2 sends of b·(s/CP)·h·2 B (÷ TP with SP), each with one hop's latency")},
        {StepPart::pipelineBubble, "pipeline_bubble", "Pipeline bubble",
         PAGE_TEXT("(PP − 1)/v idle micro-batch slots of the slowest stage: (PP − 1)/(m·v + PP − 1) of the step")},
        {StepPart::dataParallel, "data_parallel", "DP communication",
         PAGE_TEXT("gradient reduce-scatter/all-reduce and parameter all-gather over DP × CP, the routed experts' over their own "
                   "group (TP × CP × DP ÷ (ETP × EP)) (ZeRO-3: every micro-batch) ÷ link bandwidth, less what backward hides")},
        {StepPart::optimizer, "optimizer", "Optimizer step",
         PAGE_TEXT("this GPU's parameter shard × bytes the optimizer moves ÷ HBM bandwidth")},
    }};
    return texts;
}

std::string_view stepTimeAssumptions() {
    return PAGE_TEXT(
        "An estimate, not a measurement: GEMMs at the GPU's maximum achievable matmul rate (Bekman, ML Engineering) "
        "less their wave quantization (MoE's grouped GEMMs at rows ÷ (rows + 180) per expert), "
        "FlashAttention at 50% (Ampere/Ada) or 34% (Hopper and later) of the peak (FlashAttention-2 paper), both slowed "
        "by a power cap below the rated power, "
        "pointwise work at a streaming kernel's share of HBM bandwidth (each eager op a kernel; fused under Megatron-LM and "
        "torch.compile), "
        "collectives at 80% of the link bandwidth, ring algorithms, two network tiers (inside a node, "
        "between nodes), NCCL's latency per message on TP, CP, EP and PP messages (not DP's), at least a measured eager floor on TP and "
        "EP; TP and EP communication not overlapped, CP "
        "overlapped "
        "with attention, DP "
        "overlapped with backward except under Megatron-LM's defaults; no stragglers, kernel launch gaps (but a Megatron-LM MoE layer's "
        "host-paced "
        "launches) or topology beyond two tiers.");
}

}  // namespace membudget
