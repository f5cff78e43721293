#include "memory/ledger/tensor_names.hpp"

#include <iterator>

#include "membudget/model/config.hpp"
#include "memory/tensors.hpp"

namespace membudget::detail {

namespace {

// One display name per tensor kind, in the enum's order (memory/tensors.hpp): a table, not a switch.
constexpr std::string_view kTensorNames[] = {
    "attention norm input",                                                             // attentionNormInput
    "attention norm statistics",                                                        // attentionNormStatistics
    "QKV projection input",                                                             // qkvInput
    "query",                                                                            // query
    "query (after RoPE)",                                                               // queryAfterRope
    "key and value",                                                                    // keyValue
    "softmax log-sum-exp (FlashAttention)",                                             // softmaxLse
    "attention probabilities (softmax output)",                                         // attentionProbabilities
    "attention dropout mask",                                                           // attentionDropoutMask
    "dropped attention probabilities",                                                  // droppedAttentionProbabilities
    "attention output (output projection input)",                                       // attentionOutput
    "attention output (FlashAttention backward)",                                       // attentionOutputForFlash
    "attention output, FP8 copy (output projection input)",                             // attentionOutputFp8Copy
    "attention residual dropout mask",                                                  // attentionResidualDropoutMask
    "MLP norm input",                                                                   // mlpNormInput
    "MLP norm statistics",                                                              // mlpNormStatistics
    "FC1 input",                                                                        // fc1Input
    "gate and up projections (SwiGLU input)",                                           // gateUp
    "SwiGLU output (FC2 input)",                                                        // swigluOutput
    "FC1 output (activation input)",                                                    // fc1Output
    "activation output (FC2 input)",                                                    // activationOutput
    "router logits and probabilities",                                                  // routerLogits
    "dispatched tokens (expert FC1 input)",                                             // dispatchedTokens
    "expert gate and up projections",                                                   // expertGateUp
    "expert SwiGLU output (FC2 input)",                                                 // expertSwigluOutput
    "expert FC1 output",                                                                // expertFc1Output
    "expert activation output (FC2 input)",                                             // expertActivationOutput
    "routing weights for the combine",                                                  // routingWeights
    "router input, FP32 (the gate under FP32 autocast)",                                // routerInputFp32
    "router scores, FP32 (softmax or sigmoid output)",                                  // routerScores
    "expert SiLU output",                                                               // expertSiluOutput
    "combine: expert outputs in FP32 (saved by the score multiply)",                    // combinedExpertOutputs
    "shared expert FC1 input",                                                          // sharedExpertInput
    "shared expert gate/up and output",                                                 // sharedExpertGateUpOutput
    "shared expert gate (sigmoid output)",                                              // sharedExpertGate
    "router input (the MLP norm's output)",                                             // routerInput
    "MLP residual dropout mask",                                                        // mlpResidualDropoutMask
    "attention norm input, FP32 copy",                                                  // attentionNormInputFp32
    "attention norm: normalised input (before the scale)",                              // attentionNormalised
    "MLP norm input, FP32 copy",                                                        // mlpNormInputFp32
    "MLP norm: normalised input (before the scale)",                                    // mlpNormalised
    "SiLU output",                                                                      // siluOutput
    "FlashAttention RNG state",                                                         // flashRngState
    "query/key norm input",                                                             // queryKeyNormInput
    "query/key norm input, FP32 copy",                                                  // queryKeyNormInputFp32
    "query/key norm statistics",                                                        // queryKeyNormStatistics
    "query/key norm: normalised input (before the scale)",                              // queryKeyNormalised
    "MLA latents (the up-projections' input)",                                          // latentProjectionInput
    "post-attention and post-MLP norm inputs",                                          // postNormInput
    "post-attention and post-MLP norm inputs, FP32 copies",                             // postNormInputFp32
    "post-attention and post-MLP norm statistics",                                      // postNormStatistics
    "post-attention and post-MLP norms: normalised inputs",                             // postNormalised
    "LoRA intermediates (x·Aᵀ, B's input)",                                             // loraIntermediate
    "LoRA dropout masks",                                                               // loraDropoutMask
    "LoRA dropped inputs (A's input)",                                                  // loraDroppedInput
    "block input (checkpoint)",                                                         // blockInput
    "query projection output (saved mm)",                                               // queryProjection
    "value projection output (saved mm)",                                               // valueProjection
    "attention output reduce-scatter (saved)",                                          // attentionReduceScatter
    "gate projection output (saved mm)",                                                // gateProjection
    "down projection output (saved mm)",                                                // downProjection
    "MLP output reduce-scatter (saved)",                                                // mlpReduceScatter
    "router top-k (saved)",                                                             // topkOutputs
    "dispatch output (saved)",                                                          // dispatchReceived
    "combine output (saved)",                                                           // combineOutput
    "shared expert w1 (saved mm)",                                                      // sharedExpertW1
    "shared expert w2 (saved mm)",                                                      // sharedExpertW2
    "shared expert w3 (saved mm)",                                                      // sharedExpertW3
    "attention output projection (saved mm)",                                           // outputProjection
    "up projection output (saved mm)",                                                  // upProjection
    "layer input (checkpoint)",                                                         // layerInputCheckpoint
    "one layer recomputed in backward (transient)",                                     // recomputedLayer
    "attention core recomputed in backward (transient)",                                // recomputedAttentionCore
    "recomputed modules of one layer (transient)",                                      // recomputedModules
    "MoE layer backward: the combine's FP32 gradients (transient)",                     // moeCombineBackward
    "gathered weights autograd saved (ZeRO-3 without zero.Init)",                       // zero3SavedWeights
    "input token ids",                                                                  // tokenIds
    "embedding dropout mask",                                                           // embeddingDropoutMask
    "final norm input",                                                                 // finalNormInput
    "output layer input",                                                               // outputLayerInput
    "logits",                                                                           // logits
    "FP32 logits / softmax for the loss",                                               // lossLogits
    "FP32 log-probabilities (saved by log_softmax)",                                    // logProbabilities
    "logits kept by the compiled loss (log-softmax recomputed in backward)",            // compiledLossLogits
    "the logits' gradient (the compiled loss's fused backward)",                        // compiledLossBackward
    "final norm input, FP32 copy",                                                      // finalNormInputFp32
    "final norm statistics",                                                            // finalNormStatistics
    "final norm: normalised input (before the scale)",                                  // finalNormalised
    "labels",                                                                           // labels
    "loss scalars (total weight, token count)",                                         // lossScalars
    "loss backward: FP32 gradients of the log-probabilities and logits (transient)",    // lossBackward
    "loss backward under loss_parallel: FP32 zeros, exp, sum and product (transient)",  // lossParallelBackward
    "chunked loss: one chunk's logits, log-probabilities and backward (transient)",     // chunkedLoss
    "loss: the hidden states' gradient accumulated in FP32",                            // lossGradAccumulator
    "output layer input, all-gathered over TP (ColwiseParallel)",                       // outputLayerGatheredInput
    "logits kept by the pipeline stage until backward",                                 // pipelineLogits
    "MTP: hidden and embedding norm inputs",                                            // mtpNormInputs
    "MTP: projection input [h; emb]",                                                   // mtpProjectionInput
    "MTP: final norm and output layer inputs",                                          // mtpOutputInputs
    "MTP: logits and their FP32 copy",                                                  // mtpLogits
    "attention output, the output projection's contiguous copy (compiled)",             // attentionOutputCompiledCopy
    "output layer weight, cast to BF16 again by the compiled backward (transient)",     // compiledOutputWeightCast
};
static_assert(std::size(kTensorNames) == static_cast<size_t>(TensorKind::compiledOutputWeightCast) + 1, "a name for every tensor kind");

}  // namespace

std::string_view tensorName(TensorKind kind) {
    const auto i = static_cast<size_t>(kind);
    return i < std::size(kTensorNames) ? kTensorNames[i] : std::string_view{};
}

std::string seqShape(const Config& c, bool spSharded) {
    std::string s = c.cp > 1 ? "s/CP" : "s";
    if (spSharded && c.sp && c.tp > 1) s = c.cp > 1 ? "s/(CP·TP)" : "s/TP";
    return s;
}

std::string spSharding(const Config& c) {
    return c.sp && c.tp > 1 ? "sharded by SP over TP" : c.tp > 1 ? "replicated on every TP rank" : "";
}

}  // namespace membudget::detail
