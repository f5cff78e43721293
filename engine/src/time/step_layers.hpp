// One layer of each kind in the step-time estimate (docs/planner.md, "Step time"): the rates the work runs at, one
// layer's seconds of compute, recomputation and memory-bound work, and the communication of a layer, derived once per
// configuration and read by every stage of the step (steptime.cpp). Internal: the estimate's.
#pragma once

#include <algorithm>
#include <cmath>

#include "membudget/model/config.hpp"
#include "memory/training.hpp"
#include "model/rank.hpp"
#include "time/collectives.hpp"
#include "time/step_constants.hpp"

namespace membudget::detail {

// Tile and wave quantization (NVIDIA, Deep Learning Performance Documentation, "Matrix Multiplication Background
// User's Guide": an m × n output is computed in 256 × 128 tiles, one per SM at a time, so a GEMM takes whole waves
// of tiles over the SMs, the last one partly idle). The maximum achievable matmul rate is its best shape's, which
// fills its waves; a GEMM of another shape reaches that rate times the share of its waves' tile area it uses.
// The SMs are the GPU preset's (GpuPreset::sms; 0 where no count is published: no quantization applied).
inline double waveEfficiency(double m, double n, double sms) {
    if (sms <= 0 || m <= 0 || n <= 0) return 1;
    constexpr double kTileM = 256, kTileN = 128;
    const double tiles = std::ceil(m / kTileM) * std::ceil(n / kTileN);
    const double waves = std::ceil(tiles / sms);
    return std::min(1.0, m * n / (waves * sms * kTileM * kTileN));
}

// Recomputed forward work of one stage, as a fraction of each forward part. full: every checkpointed layer runs
// its forward again; selective: the attention core (Korthikanti et al. 2022 §5) and the matmuls of Megatron-LM's
// recompute_modules (step_layers.cpp selectiveRecompute); op (torchtitan's op-level SAC): every other matmul and the
// pointwise operations between them (torchtitan _save_list keeps the rest).
struct Recompute {
    double matmul = 0, attention = 0, memory = 0;
};

// One layer's seconds per micro-batch: forward and backward together, and the forward alone (what recomputation
// runs again).
struct LayerTime {
    double matmul, attention, memory, fwdMatmul, fwdAttention, fwdMemory;
};

// What every part of the step reads, derived once per configuration: the dimensions, the rank's weights, the rates
// and links, one layer of each kind, the communication per layer and what is recomputed.
struct StepModel {
    Dims x;
    RankParams rank;
    Gathering gathering;
    double bf16Rate, linearRate, attentionRate, hbm, perNode, sms;
    StepRuntime runtime;  // the runtime constants (docs/constants.md)
    Bandwidths links;
    double tokens, routedTokens, backwardMatmul, moeLinear;
    bool frozenBase;
    LayerTime dense, moe;
    double tpAllReduce, cpExchange, epAllToAll, epPerMoeLayer;
    double moeHostPaced;  // a MoE layer's forward waiting on the host's launches after its sync, per micro-batch
    Recompute rc, rcMoe;  // a dense layer's, a MoE layer's
};

// Decides what a step of this configuration is made of, once: the rates, one layer of each kind, the communication
// per layer and the recomputation. Every field of `m` is set.
void stepModel(const Config& c, const StepConstants& constants, StepModel& m);

}  // namespace membudget::detail
