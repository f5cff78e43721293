// What a mixture-of-experts layer adds to the step time: each figure from the framework's code path, cited where it
// is computed; docs/planner.md repeats them.
#include "time/moe_time.hpp"

#include <algorithm>
#include <cmath>

#include "membudget/base/choices.hpp"
#include "model/rank.hpp"
#include "time/collectives.hpp"

namespace membudget::detail {

// The token routing of one MoE layer per micro-batch, through HBM, forward and backward (its gradient moves the same
// bytes back), per element of the k·T top-k copies of the T tokens' hidden states, BF16:
// - the permutation gathers each copy into expert order, a read and a write (Megatron-LM moe_utils.py permute,
//   index_select; torchtitan moe.py TokenReorderer and _permute);
// - where a rank holds more than one expert of an EP group, the received chunks are sorted by expert before the
//   experts and back after them, two reads and two writes (token_dispatcher.py MoEAlltoAllTokenDispatcher,
//   sort_chunks_by_idxs; torchtitan expert_parallel.py, generate_permute_indices and its inverse);
// - the unpermutation reads the copies and their routing weights and sums them into T rows (moe_utils.py unpermute,
//   scatter_add; torchtitan's combine), a read of the copies and a write of T·h;
// - the router's FP32 scores over T × experts, written by the gate and read by its softmax or sigmoid and top-k.
double routingBytes(const Config& c, double tokens, double hidden) {
    const double copies = tokens * c.expertsPerToken * hidden;
    const bool sorted = c.ep > 1 && c.experts / c.ep > 1;
    const double passes = 2 + (sorted ? 4 : 0) + 1;
    const double routerScores = tokens * c.experts * 4 * 2;
    return 2 * (passes * copies * 2 + tokens * hidden * 2 + routerScores);
}

// One all-to-all sends a 1/EP share of the k·T·h BF16 copies to each rank of the EP group. The EP ranks inside this
// GPU's node take theirs over NVLink while the others' go over the network at the same time (NCCL's all-to-all posts
// every peer's send at once, nccl alltoall in device_communicator / all_to_all_single), so the slower of the two sets
// the time. EP ranks sit every ETP GPUs (Megatron-LM's expert rank order, ETP innermost), so a node holds
// gpus_per_node / ETP of them. Each side pays one hop's latency (collectives.hpp: the posted sends run together).
//
// DeepEP (moe_dispatcher = deepep) sends a token to each remote node it is routed to once, over RDMA to the GPU of
// the same local index there, which forwards its copies to the node's other GPUs over NVLink (DeepSeek-V3 technical
// report §3.2.2, "transmitted via IB to the GPUs with the same in-node index on their target nodes … instantaneously
// forwarded via NVLink"; DeepEP's internode normal kernels). With the k experts drawn evenly over the EP group's
// N nodes (the balanced routing the benchmarks force), a remote node receives a token with probability
// 1 − C(E − E/N, k) / C(E, k); NVLink carries the node's own copies and the forwarded ones.
double expertAllToAllSeconds(const Config& c, double tokens, double intraNodeBytesPerSecond, double interNodeBytesPerSecond,
                             AllToAllFloors floors) {
    const double ep = c.experts != 0 ? c.ep : 1;
    if (ep <= 1) return 0;
    const double epPerNode = std::clamp(std::floor(c.gpusPerNode / expertTensorParallel(c)), 1.0, ep);
    const double tokenBytes = tokens * c.hidden * 2, sendBytes = tokenBytes * c.expertsPerToken;
    double nvlinkBytes = (epPerNode - 1) / ep * sendBytes, networkBytes = (ep - epPerNode) / ep * sendBytes;
    if (c.moeDispatcher == MoeDispatcher::deepep && ep > epPerNode) {
        const double nodes = std::ceil(ep / epPerNode), perNode = c.experts / nodes;
        const double none = missesExperts(c.experts, perNode, c.expertsPerToken);  // a given node holds none of them
        networkBytes = (nodes - 1) * (1 - none) * tokenBytes;
        nvlinkBytes += (ep - epPerNode) / ep * sendBytes * (epPerNode - 1) / epPerNode;
    }
    // An eager all-to-all takes at least its measured floor: 50 µs among 8 GPUs of a node at 0 bytes (scaled by the
    // peers below 8), 37 µs across 2 nodes (more across more nodes, not followed yet).
    const double intraFloor = floorForRanks(floors.intraNodeEightGpus, epPerNode), interFloor = floors.interNode;
    const double intra = epPerNode > 1 ? ncclHopSeconds(nvlinkBytes, intraNodeBytesPerSecond, false, intraFloor) : 0;
    const double inter = ep > epPerNode ? ncclHopSeconds(networkBytes, interNodeBytesPerSecond, true, interFloor) : 0;
    return std::max(intra, inter);
}

}  // namespace membudget::detail
