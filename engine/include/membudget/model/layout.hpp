// Layout arithmetic that several topics state: the world size a layout occupies and the pipeline bubble of its
// schedule. One definition each, so the warnings, the advice, the planner, the step time and the exporters agree.
#pragma once

#include "membudget/model/config.hpp"

namespace membudget {

// The GPUs a layout occupies, TP × PP × CP × DP: what gpus = 0 stands for.
inline double worldSize(const Config& c) { return c.tp * c.pp * c.cp * c.dp; }

// The share of a 1F1B step the slowest stage waits, (PP − 1) / (m·v + PP − 1) with m micro-batches and v model
// chunks per rank (Narayanan et al. 2021 §2.2: the interleaved schedule divides the bubble by v).
inline double pipelineBubbleFraction(double pp, double microbatches, double vpp) { return (pp - 1) / (microbatches * vpp + pp - 1); }

// Where Megatron-LM runs its EP all-to-all overlap (transformer_config.py, overlap_moe_expert_parallel_comm): expert
// parallelism, no full recomputation, and interleaving under a pipeline. The planner keeps the user's switch on the
// rows that allow it; validate() names what refuses it.
inline bool moeCommOverlapAllowed(const Config& c) {
    return c.experts > 0 && c.ep > 1 && c.ckpt != Checkpointing::full && (c.pp == 1 || c.vpp > 1);
}

}  // namespace membudget
