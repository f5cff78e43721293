// What a mixture-of-experts layer adds to the step time (docs/planner.md, "Step time"): the token routing's traffic
// through HBM and the expert-parallel all-to-all. steptime.cpp adds them to the layer's parts.
#pragma once

#include "membudget/model/config.hpp"

namespace membudget::detail {

// Bytes one MoE layer's token routing moves through HBM per micro-batch of `tokens` tokens on one GPU, forward and
// backward: the permutation into expert order, the sort by local expert and back, the unpermutation, the router's
// scores.
double routingBytes(const Config& c, double tokens, double hidden);

// The least time of an eager all-to-all inside a node among 8 GPUs and across nodes (docs/constants.md); zero where
// NCCL runs in a graph (a decode step).
struct AllToAllFloors {
    double intraNodeEightGpus = 0, interNode = 0;
};

// Seconds of one dispatch (or combine) all-to-all of the top-k copies of `tokens` tokens, at the stated NVLink and
// network bandwidths (bytes per second per GPU), at least its floors; 0 without expert parallelism.
double expertAllToAllSeconds(const Config& c, double tokens, double intraNodeBytesPerSecond, double interNodeBytesPerSecond,
                             AllToAllFloors floors = {});

}  // namespace membudget::detail
