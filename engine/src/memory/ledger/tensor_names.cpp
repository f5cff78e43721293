#include "memory/ledger/tensor_names.hpp"

#include "membudget/model/config.hpp"
#include "memory/tensors.hpp"

namespace membudget::detail {

std::string_view tensorName(TensorKind kind) {
    switch (kind) {
        case TensorKind::attentionNormInput:
            return "attention norm input";
        case TensorKind::attentionNormStatistics:
            return "attention norm statistics";
        case TensorKind::qkvInput:
            return "QKV projection input";
        case TensorKind::query:
            return "query";
        case TensorKind::queryAfterRope:
            return "query (after RoPE)";
        case TensorKind::keyValue:
            return "key and value";
        case TensorKind::softmaxLse:
            return "softmax log-sum-exp (FlashAttention)";
        case TensorKind::attentionProbabilities:
            return "attention probabilities (softmax output)";
        case TensorKind::attentionDropoutMask:
            return "attention dropout mask";
        case TensorKind::droppedAttentionProbabilities:
            return "dropped attention probabilities";
        case TensorKind::attentionOutput:
            return "attention output (output projection input)";
        case TensorKind::attentionOutputForFlash:
            return "attention output (FlashAttention backward)";
        case TensorKind::attentionOutputFp8Copy:
            return "attention output, FP8 copy (output projection input)";
        case TensorKind::attentionResidualDropoutMask:
            return "attention residual dropout mask";
        case TensorKind::mlpNormInput:
            return "MLP norm input";
        case TensorKind::mlpNormStatistics:
            return "MLP norm statistics";
        case TensorKind::fc1Input:
            return "FC1 input";
        case TensorKind::gateUp:
            return "gate and up projections (SwiGLU input)";
        case TensorKind::swigluOutput:
            return "SwiGLU output (FC2 input)";
        case TensorKind::fc1Output:
            return "FC1 output (activation input)";
        case TensorKind::activationOutput:
            return "activation output (FC2 input)";
        case TensorKind::routerLogits:
            return "router logits and probabilities";
        case TensorKind::dispatchedTokens:
            return "dispatched tokens (expert FC1 input)";
        case TensorKind::expertGateUp:
            return "expert gate and up projections";
        case TensorKind::expertSwigluOutput:
            return "expert SwiGLU output (FC2 input)";
        case TensorKind::expertFc1Output:
            return "expert FC1 output";
        case TensorKind::expertActivationOutput:
            return "expert activation output (FC2 input)";
        case TensorKind::routingWeights:
            return "routing weights for the combine";
        case TensorKind::sharedExpertInput:
            return "shared expert FC1 input";
        case TensorKind::sharedExpertGateUpOutput:
            return "shared expert gate/up and output";
        case TensorKind::sharedExpertGate:
            return "shared expert gate (sigmoid output)";
        case TensorKind::mlpResidualDropoutMask:
            return "MLP residual dropout mask";
        case TensorKind::attentionNormInputFp32:
            return "attention norm input, FP32 copy";
        case TensorKind::attentionNormalised:
            return "attention norm: normalised input (before the scale)";
        case TensorKind::mlpNormInputFp32:
            return "MLP norm input, FP32 copy";
        case TensorKind::mlpNormalised:
            return "MLP norm: normalised input (before the scale)";
        case TensorKind::siluOutput:
            return "SiLU output";
        case TensorKind::flashRngState:
            return "FlashAttention RNG state";
        case TensorKind::loraIntermediate:
            return "LoRA intermediates (x·Aᵀ, B's input)";
        case TensorKind::loraDropoutMask:
            return "LoRA dropout masks";
        case TensorKind::loraDroppedInput:
            return "LoRA dropped inputs (A's input)";
        case TensorKind::blockInput:
            return "block input (checkpoint)";
        case TensorKind::queryProjection:
            return "query projection output (saved mm)";
        case TensorKind::valueProjection:
            return "value projection output (saved mm)";
        case TensorKind::attentionReduceScatter:
            return "attention output reduce-scatter (saved)";
        case TensorKind::gateProjection:
            return "gate projection output (saved mm)";
        case TensorKind::downProjection:
            return "down projection output (saved mm)";
        case TensorKind::mlpReduceScatter:
            return "MLP output reduce-scatter (saved)";
        case TensorKind::layerInputCheckpoint:
            return "layer input (checkpoint)";
        case TensorKind::recomputedLayer:
            return "one layer recomputed in backward (transient)";
        case TensorKind::recomputedAttentionCore:
            return "attention core recomputed in backward (transient)";
        case TensorKind::tokenIds:
            return "input token ids";
        case TensorKind::embeddingDropoutMask:
            return "embedding dropout mask";
        case TensorKind::finalNormInput:
            return "final norm input";
        case TensorKind::outputLayerInput:
            return "output layer input";
        case TensorKind::logits:
            return "logits";
        case TensorKind::lossLogits:
            return "FP32 logits / softmax for the loss";
        case TensorKind::finalNormInputFp32:
            return "final norm input, FP32 copy";
        case TensorKind::finalNormStatistics:
            return "final norm statistics";
        case TensorKind::finalNormalised:
            return "final norm: normalised input (before the scale)";
        case TensorKind::labels:
            return "labels";
        case TensorKind::lossScalars:
            return "loss scalars (total weight, token count)";
        case TensorKind::logProbabilities:
            return "FP32 log-probabilities (saved by log_softmax)";
        case TensorKind::lossBackward:
            return "loss backward: FP32 gradients of the log-probabilities and logits (transient)";
        case TensorKind::pipelineLogits:
            return "logits kept by the pipeline stage until backward";
        case TensorKind::mtpNormInputs:
            return "MTP: hidden and embedding norm inputs";
        case TensorKind::mtpProjectionInput:
            return "MTP: projection input [h; emb]";
        case TensorKind::mtpOutputInputs:
            return "MTP: final norm and output layer inputs";
        case TensorKind::mtpLogits:
            return "MTP: logits and their FP32 copy";
    }
    return "";
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
