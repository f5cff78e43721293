// Architecture counts: parameters, head widths, MoE layers and the layers of each pipeline stage.
#pragma once

#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

// Layers held by each pipeline stage (first_stage_layers / last_stage_layers, else an even split with
// any remainder on the stages after the first).
std::vector<double> stageLayers(const Config& config);

// Ψ from the architecture in the Hugging Face layout: embeddings, attention with GQA, the (gated) FFN,
// norms, biases and learned positions; the output layer unless tied.
double derivedParameterCount(const Config& config);

// The per-head width: head_dim, or hidden / heads when it is 0.
inline double headDimOf(const Config& config) { return config.headDim != 0 ? config.headDim : config.hidden / config.heads; }

// The loss computed in chunks of the sequence: loss_chunks, or the framework's (torchtune's recipes 8, as
// CEWithChunkedOutputLoss num_output_chunks; the others one) when it is 0.
inline double lossChunksOf(const Config& config) {
    return config.lossChunks != 0 ? config.lossChunks : config.framework == Framework::torchtune ? 8 : 1;
}

// torchtitan computes the loss on the vocabulary-sharded logits with DTensor's loss ops when TP > 1
// (parallelism.disable_loss_parallel is off by default; train.py loss_parallel context).
inline bool lossParallel(const Config& config) { return config.framework == Framework::torchtitan && config.tp > 1; }

// The loss compiled with the blocks (compile with compile_loss): torchtune's compile (training.compile_loss),
// torchtitan's compile.components "loss" (components/loss.py), except under loss_parallel, whose DTensor loss ops
// are modelled as they run eagerly, and transformers' loss, which the model's own forward computes
// (LlamaForCausalLM.forward: self.loss_function), so torch.compile(model) compiles it.
inline bool compiledLossOf(const Config& config) {
    return config.compile && config.compileLoss &&
           (config.framework == Framework::torchtune || config.framework == Framework::hfAccelerate ||
            (config.framework == Framework::torchtitan && !lossParallel(config)));
}

// MoE: the layers that are MoE layers, and the parameters one token passes through (top-k experts).
double moeLayerCount(const Config& config);
bool isMoeLayer(const Config& config, double layer);  // 0-based
// Multi-head latent attention: the attention parameters of one layer (Hugging Face layout, with the two
// latent norms) and the bytes per token per layer of its KV cache (the latent and the RoPE key, one head).
double mlaAttentionParams(const Config& config);
double activeParameterCount(const Config& config);

}  // namespace membudget
