#include <algorithm>
#include <cmath>

#include "membudget/memory/sources.hpp"

namespace membudget::sources {

// ---- Megatron-LM ----------------------------------------------------------------------------
// The evaluation order follows the Python so that doubles agree to the last bit where possible.

MegatronWeights megatronWeights(const MegatronArgs& x) {
    const double h = x.hiddenSize, a = x.numAttentionHeads, d = x.kvChannels;
    const double g = x.groupQueryAttention ? x.numQueryGroups : a;
    const double gamma = x.swiglu ? 1.5 : 1.0;
    const double nu = x.rmsNorm ? 1.0 : 2.0;
    const double L = x.numLayers;
    // self_attn_term = 2·h·h·((1 + g/a)·(d·a/h)): Q and O plus K and V for g query groups.
    double attention = 2 * h * h * ((1 + (g / a)) * (d * a / h));
    if (x.multiLatentAttention) {
        const double qd = x.qkHeadDim + x.qkPosEmbHeadDim;
        const double query = x.qLoraRank ? *x.qLoraRank * (h + a * qd + nu) : h * a * qd;
        attention = query + x.kvLoraRank * (h + a * (x.qkHeadDim + x.vHeadDim) + nu) + h * x.qkPosEmbHeadDim + a * x.vHeadDim * h;
    }
    const double mlp = 2 * h * x.ffnHiddenSize * gamma;
    double moeLayers = 0;
    if (x.numExperts)
        for (double i = x.firstDenseLayers; i < L; ++i) moeLayers += std::fmod(i - x.firstDenseLayers, x.moeLayerFreq) == 0 ? 1 : 0;
    const double denseLayers = L - moeLayers;
    const double experts = x.numExperts.value_or(1);
    const double router = h * experts + (x.addBiasLinear ? experts : 0);
    const double shared = 2 * h * x.sharedExpertFfn * gamma;
    const double sharedGate = x.sharedExpertFfn > 0 && x.sharedExpertGate ? h : 0;
    const double tensorParallelBlock = (attention + mlp) * denseLayers + (attention + shared) * moeLayers;
    const double replicatedBlock = 2 * h * nu * denseLayers + (2 * h * nu + router + sharedGate) * moeLayers + nu * h;
    const double expertLayer = 2 * h * x.moeFfnHiddenSize * experts * gamma;
    const double expertBlock = expertLayer * moeLayers;
    // The MTP block is layers of the last layer's kind (transformer layers only: the estimator leaves out
    // their input norms and projection) and sits whole on the most loaded shard.
    const bool lastIsMoe = x.numExperts && L - 1 >= x.firstDenseLayers && std::fmod(L - 1 - x.firstDenseLayers, x.moeLayerFreq) == 0;
    const double mtpMoe = lastIsMoe ? x.mtpNumLayers : 0, mtpDense = x.mtpNumLayers - mtpMoe;
    const double tensorParallelMtp = (attention + mlp) * mtpDense + (attention + shared) * mtpMoe;
    const double replicatedMtp = 2 * h * nu * mtpDense + (2 * h * nu + router + sharedGate) * mtpMoe;
    const double embedding = x.paddedVocabSize * h;
    double tensorParallel = tensorParallelBlock / x.pipelineParallel + tensorParallelMtp + embedding;
    if (x.untieEmbeddingsAndOutputWeights && x.pipelineParallel == 1) tensorParallel += embedding;
    tensorParallel /= x.tensorParallel;
    const double replicated = replicatedBlock / x.pipelineParallel + replicatedMtp;
    const double bytesPerParam = x.useDistributedOptimizer ? 6 + 12 / x.dataParallel : 18;
    MegatronWeights w{tensorParallel, replicated, bytesPerParam};
    if (moeLayers > 0) {
        w.expertParams = (expertBlock / x.pipelineParallel + expertLayer * mtpMoe) / (x.expertTensorParallel * x.expertParallel);
        const double expertDataParallel = std::floor(x.worldSize / (x.expertTensorParallel * x.expertParallel * x.pipelineParallel));
        w.expertBytesPerParam = x.useDistributedOptimizer ? 6 + 12 / expertDataParallel : 18;
    }
    return w;
}

namespace {

double megatronPipelineFactor(const MegatronArgs& x) {
    const double p = x.pipelineParallel;
    if (x.virtualPipeline) return 1 + (p - 1) / (p * *x.virtualPipeline);
    if (p > 1 && x.numMicrobatches) return std::min(1.0, *x.numMicrobatches / p);
    return 1;
}

}  // namespace

double megatronActivationBytesWithSp(const MegatronArgs& x) {
    const double s = x.seqLength, b = x.microBatchSize, h = x.hiddenSize, p = x.pipelineParallel;
    double activation = s * b * h * (18 + (4 * (x.ffnHiddenSize / h))) * x.numLayers;
    activation += 8 * s * b * p;  // input to the embedding
    activation += s * b * h * p;  // embedding dropout mask
    activation *= megatronPipelineFactor(x);
    if (p == 1) activation += 4 * s * b * h * (1 + (x.paddedVocabSize / h));  // output layer and loss
    return activation / x.tensorParallel;
}

double megatronActivationBytesWithoutSp(const MegatronArgs& x) {
    const double s = x.seqLength, b = x.microBatchSize, h = x.hiddenSize, p = x.pipelineParallel, t = x.tensorParallel;
    double activation = s * b * h * (10 + (24 / t)) * x.numLayers;
    activation += 8 * s * b * p;
    activation += s * b * h * p;
    activation *= megatronPipelineFactor(x);
    if (p == 1) activation += 2 * (s * b * x.paddedVocabSize / t + s * b * h);
    return activation * 1.05;
}

double megatronActivationBytes(const MegatronArgs& x) {
    return x.sequenceParallel && x.recomputeSelective ? megatronActivationBytesWithSp(x) : megatronActivationBytesWithoutSp(x);
}

// ---- DeepSpeed --------------------------------------------------------------------------------
// Python's int() truncates; all values here are non-negative.

DeepSpeedEstimate deepspeedZero2(double P, double g, double n, bool cpuOffload, double f) {
    const double G = n * g;
    if (cpuOffload) return {2 * P, std::trunc(P * std::max(4 * G, 16.0) * f)};
    return {2 * P + std::trunc(18 * P / G), std::trunc(P * 4 * g * f)};
}

DeepSpeedEstimate deepspeedZero2BeforePr5099(double P, double g, double n, bool cpuOffload, double f) {
    const double G = n * g;
    if (cpuOffload) return {2 * P, std::trunc(P * std::max(4 * G, 16.0) * f)};
    return {4 * P + std::trunc(16 * P / G), std::trunc(P * 4 * g * f)};
}

DeepSpeedEstimate deepspeedZero3(double P, double L, double g, double n, bool cpuOffload, bool cpuOffloadParams, bool zeroInit, double f) {
    const double G = n * g;
    const double gpusFactor = 1 / n;
    const double largestLayerMemory = 4 * L;
    if (cpuOffload) {
        if (cpuOffloadParams) {
            const double cpu = zeroInit ? P * 18 * gpusFactor * f : P * std::max(4 * g, 18 * gpusFactor) * f;
            return {largestLayerMemory, std::trunc(cpu)};
        }
        const double cpu = zeroInit ? P * 16 * gpusFactor * f : P * std::max(4 * g, 16 * gpusFactor) * f;
        return {largestLayerMemory + std::trunc(2 * P / G), std::trunc(cpu)};
    }
    const double cpu = zeroInit ? L * 4 * g * f : P * 4 * g * f;
    return {largestLayerMemory + std::trunc(18 * P / G), std::trunc(cpu)};
}

// ---- ZeRO paper -------------------------------------------------------------------------------

ZeroModelStates zeroPaperModelStates(int stage, double psi, double nd, double k) {
    switch (stage) {
        case 0:
            return {2 * psi, 2 * psi, k * psi};
        case 1:
            return {2 * psi, 2 * psi, k * psi / nd};
        case 2:
            return {2 * psi, 2 * psi / nd, k * psi / nd};
        default:
            return {2 * psi / nd, 2 * psi / nd, k * psi / nd};
    }
}

// ---- Korthikanti et al. -----------------------------------------------------------------------

double korthikantiLayerBytes(double s, double b, double h, double a, double t, bool sp, Recompute r) {
    const double sbh = s * b * h;
    switch (r) {
        case Recompute::full:
            return sbh * 2;
        case Recompute::selective:
            return sp ? sbh * (34 / t) : sbh * (10 + 24 / t);
        case Recompute::none:
            break;
    }
    const double scores = 5 * a * s / (h * t);
    return sp ? sbh * (34 / t + scores) : sbh * (10 + 24 / t + scores);
}

double korthikantiInterleaveFactor(double p, double m) { return 1 + (p - 1) / (p * m); }

double korthikantiEmbeddingBytes(double s, double b, double h, double p, double t) { return s * b * h * p / t; }

double korthikantiOutputBytes(double s, double b, double h, double v, double t) { return 4 * s * b * h / t * (1 + v / h); }

}  // namespace membudget::sources
