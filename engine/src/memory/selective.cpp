// What selective recomputation keeps of a layer (model/recompute_modules.hpp; memory/tensors.hpp
// droppedBySelective), and the sums of one walk of a layer's tensors.
#include "memory/tensors.hpp"

#include <iterator>

namespace membudget::detail {

LayerBytes layerBytesOf(const LayerBytesByKind& walked, const RecomputeModules& modules, bool moe, bool mla) {
    // Summed by kind, not in the walk's order: a layer's byte counts are whole numbers far below 2^53, so each sum is
    // exact in any order and equals what the ledger's walk of the same tensors adds.
    LayerBytes sum;
    for (size_t k = 0; k < std::size(walked.bytes); ++k) {
        const auto kind = static_cast<TensorKind>(k);
        const double bytes = walked.bytes[k];
        sum.withCore += bytes;
        if (!isAttentionCore(kind)) sum.withoutCore += bytes;
        if (!droppedBySelective(kind, modules, moe, mla)) sum.selective += bytes;
    }
    return sum;
}

bool droppedBySelective(TensorKind kind, const RecomputeModules& m, bool moeLayer, bool mla) {
    if (m.coreAttn && isAttentionCore(kind)) return true;
    switch (kind) {
        case TensorKind::routerInput:
            return m.layernorm;
        case TensorKind::qkvInput:
            return m.layernorm && mla;
        case TensorKind::query:
        case TensorKind::queryAfterRope:
        case TensorKind::keyValue:
        // MLA: the latents' norms run inside the up-projection's checkpoint, whose inputs (the latents) stay.
        case TensorKind::queryKeyNormInputFp32:
        case TensorKind::queryKeyNormStatistics:
        case TensorKind::queryKeyNormalised:
        case TensorKind::latentProjectionInput:
            return m.mlaUpProj && mla;
        case TensorKind::expertSwigluOutput:
        case TensorKind::expertActivationOutput:
            return m.moeAct || m.moe;
        case TensorKind::routerLogits:
        case TensorKind::dispatchedTokens:
        case TensorKind::expertGateUp:
        case TensorKind::expertSiluOutput:
        case TensorKind::expertFc1Output:
        case TensorKind::routingWeights:
            return m.moe;
        case TensorKind::sharedExpertInput:
        case TensorKind::sharedExpertGateUpOutput:
        case TensorKind::sharedExpertGate:
            return m.moe || m.sharedExperts;
        case TensorKind::mlpNormStatistics:
        case TensorKind::fc1Input:
        case TensorKind::gateUp:
        case TensorKind::swigluOutput:
        case TensorKind::siluOutput:
        case TensorKind::fc1Output:
        case TensorKind::activationOutput:
            return m.mlp && !moeLayer;
        default:
            return false;
    }
}

}  // namespace membudget::detail
