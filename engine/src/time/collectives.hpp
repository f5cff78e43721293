// The collectives' arithmetic the step time shares: the bandwidth of a group's link, a ring's bytes on the wire, and
// NCCL's own latency for a ring (docs/planner.md, "Step time").
#pragma once

#include <algorithm>

namespace membudget::detail {

struct Bandwidths {
    double intraNode, interNode;  // bytes per second, per GPU and direction, at NCCL's efficiency
    double of(double groupSpanGpus, double gpusPerNode) const { return groupSpanGpus <= gpusPerNode ? intraNode : interNode; }
};

// A ring collective's bytes on the wire per GPU: all-reduce 2(n − 1)/n of the buffer, all-gather and
// reduce-scatter (n − 1)/n of the whole buffer.
inline double ringAllReduce(double bytes, double n) { return n > 1 ? 2 * (n - 1) / n * bytes : 0; }
inline double ringGather(double bytes, double n) { return n > 1 ? (n - 1) / n * bytes : 0; }

// The time NCCL's own tuning model gives a ring collective of `steps` hops, `interSteps` of them between nodes,
// moving `busBytes` on the wire (NCCL src/graph/tuning.cc ncclTopoTuneModel and ncclTopoGetAlgoTime: baseLat and
// hwLat, in µs), with the protocol NCCL would pick: Simple (8.4 + 3.4 a hop over NVLink, 9.6 over the network) at the
// full bus bandwidth, or LL (3.6 + 0.47, 2.7; 0.47 × 1.8 inside a node when the ring spans nodes) at a quarter of
// it, whichever is faster for the message. `floorSeconds`: the least latency a measured eager collective of its kind
// takes (docs/constants.md), above the model's where NCCL runs eagerly; 0 for none.
inline double ncclRingSeconds(double busBytes, double bandwidth, double steps, double interSteps, double floorSeconds = 0) {
    const double intra = steps - interSteps;
    const double simple = std::max((8.4 + intra * 3.4 + interSteps * 9.6) * 1e-6, floorSeconds) + busBytes / bandwidth;
    const double ll =
        std::max((3.6 + intra * 0.47 * (interSteps > 0 ? 1.8 : 1) + interSteps * 2.7) * 1e-6, floorSeconds) + busBytes / (bandwidth / 4);
    return std::min(simple, ll);
}

// One point-to-point message (a pipeline send, a ring-attention K/V pass, one peer's share of an all-to-all, whose
// sends NCCL posts together): a single hop of the model above, over NVLink or the network.
inline double ncclHopSeconds(double bytes, double bandwidth, bool crossesNodes, double floorSeconds = 0) {
    return ncclRingSeconds(bytes, bandwidth, 1, crossesNodes ? 1 : 0, floorSeconds);
}

// A measured 8-GPU floor scaled to a group of `ranks` inside a node by its ring steps or peers (ranks − 1 of 7), and
// held at the 8-GPU figure beyond (docs/constants.md: 2 and 4 GPUs measured at or above the scaling).
inline double floorForRanks(double eightGpuSeconds, double ranks) { return ranks > 1 ? eightGpuSeconds * std::min(ranks - 1, 7.0) / 7 : 0; }

}  // namespace membudget::detail
