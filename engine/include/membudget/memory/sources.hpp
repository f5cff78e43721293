// The published estimators, each transcribed formula for formula from its source so that it can be
// checked against numbers produced by the source itself (tests/fixtures/*.json). The methods in the
// ledger map a Config onto these; keeping them separate keeps "what the source says" apart from "how
// membudget applies it".
#pragma once

#include <optional>

namespace membudget::sources {

// ---------------------------------------------------------------------------------------------
// Megatron-LM, megatron/training/theoretical_memory_usage.py (the EP/ETP-aware version that
// tests/unit_tests/training/test_weight_and_optimizer_memory.py @1ab9496 exercises). Dense models.
struct MegatronArgs {
    double hiddenSize = 0, numAttentionHeads = 0, kvChannels = 0, ffnHiddenSize = 0, numLayers = 0;
    double paddedVocabSize = 0, seqLength = 0, microBatchSize = 0;
    bool groupQueryAttention = false;
    double numQueryGroups = 0;
    bool swiglu = false;
    bool rmsNorm = true;  // normalization == "RMSNorm"; otherwise LayerNorm (weight + bias)
    bool untieEmbeddingsAndOutputWeights = false;
    double tensorParallel = 1, pipelineParallel = 1;
    std::optional<double> virtualPipeline;  // None when not interleaved
    double dataParallel = 1;
    bool useDistributedOptimizer = false;
    bool sequenceParallel = false;
    bool recomputeSelective = false;  // recompute_granularity == "selective"
    std::optional<double> numMicrobatches;
    // Mixture of experts (num_experts None: dense). Layer i is MoE iff i % moeLayerFreq == 0.
    std::optional<double> numExperts;
    double moeFfnHiddenSize = 0, moeLayerFreq = 1, sharedExpertFfn = 0;
    double expertParallel = 1, expertTensorParallel = 1, worldSize = 1;
    double firstDenseLayers = 0;    // a list-valued moe_layer_freq of k zeros then ones is k here with freq 1
    bool addBiasLinear = false;     // add_bias_linear: of all biases, the estimator counts only the router's
    bool sharedExpertGate = false;  // moe_shared_expert_gate
    double mtpNumLayers = 0;        // mtp_num_layers (None: 0)
    // Multi-head latent attention (multi_latent_attention).
    bool multiLatentAttention = false;
    std::optional<double> qLoraRank;
    double kvLoraRank = 0, qkHeadDim = 0, qkPosEmbHeadDim = 0, vHeadDim = 0;
};

// Bytes of weights and optimizer states on the most loaded shard (the first pipeline stage).
struct MegatronWeights {
    double tensorParallelParams;      // divided by TP: attention, MLP, embedding (and output layer when PP = 1)
    double replicatedParams;          // norms (and MoE routers), kept whole on every TP rank
    double bytesPerParam;             // 18, or 6 + 12 / DP with the distributed optimizer
    double expertParams = 0;          // routed experts, divided by ETP × EP
    double expertBytesPerParam = 18;  // 18, or 6 + 12 / EDP with EDP = world // (ETP × EP × PP)
    double bytes() const { return (tensorParallelParams + replicatedParams) * bytesPerParam + expertParams * expertBytesPerParam; }
};
MegatronWeights megatronWeights(const MegatronArgs& args);

// compute_activation_memory (sequence parallel and selective recompute) or
// compute_activation_memory_without_sp (every other case), as report_theoretical_memory chooses.
double megatronActivationBytes(const MegatronArgs& args);
double megatronActivationBytesWithSp(const MegatronArgs& args);
double megatronActivationBytesWithoutSp(const MegatronArgs& args);

// ---------------------------------------------------------------------------------------------
// DeepSpeed, deepspeed/runtime/zero/stage_1_and_2.py and stage3.py (see tests/fixtures/deepspeed.json
// for the commits). Bytes; what DeepSpeed prints as "GB" is these divided by 2^30.
struct DeepSpeedEstimate {
    double gpuBytesPerGpu;
    double cpuBytesPerNode;
};
DeepSpeedEstimate deepspeedZero2(double totalParams, double gpusPerNode, double nodes, bool cpuOffload,
                                 double additionalBufferFactor = 1.5);
// The formula before DeepSpeed PR #5099 (2024), which its docs (memory.rst) still print.
DeepSpeedEstimate deepspeedZero2BeforePr5099(double totalParams, double gpusPerNode, double nodes, bool cpuOffload,
                                             double additionalBufferFactor = 1.5);
DeepSpeedEstimate deepspeedZero3(double totalParams, double largestLayerParams, double gpusPerNode, double nodes, bool cpuOffload,
                                 bool cpuOffloadParams, bool zeroInit, double additionalBufferFactor = 1.5);

// ---------------------------------------------------------------------------------------------
// ZeRO, Rajbhandari et al. 2020 (arXiv 1910.02054), §3.1 and §5.1-5.3: model-state bytes per device
// with K = 12 (mixed-precision Adam). Stage 0 is the baseline (2 + 2 + K)Ψ.
struct ZeroModelStates {
    double parameters, gradients, optimizer;
    double total() const { return parameters + gradients + optimizer; }
};
ZeroModelStates zeroPaperModelStates(int stage, double psi, double dataParallel, double k = 12);

// ---------------------------------------------------------------------------------------------
// Korthikanti et al. 2022 (arXiv 2205.05198), Table 2: activation bytes of one transformer layer,
// 2-byte activations and 1-byte dropout masks.
enum class Recompute { none, selective, full };
double korthikantiLayerBytes(double s, double b, double h, double a, double t, bool sequenceParallel, Recompute recompute);
// §4.2: the first stage holds p micro-batches of L/p layers; interleaving multiplies by 1 + (p-1)/(p·m).
double korthikantiInterleaveFactor(double p, double virtualStages);
// §4.3: embedding dropout (sbhp/t) and, when p = 1, final LayerNorm, output-layer input and fp32 logits
// (4sbh/t · (1 + v/h)).
double korthikantiEmbeddingBytes(double s, double b, double h, double p, double t);
double korthikantiOutputBytes(double s, double b, double h, double v, double t);

}  // namespace membudget::sources
