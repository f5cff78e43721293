// validate()'s rules beyond the layout: each framework's behaviours, LoRA adapters, the attention variants, hybrid
// stacks and serving (validate.cpp runs them in order).
#include <algorithm>
#include <cmath>
#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/validate.hpp"
#include "model/lora.hpp"
#include "model/validate_rules.hpp"

namespace membudget::detail {

// Decides whether each framework behaviour is asked of a framework that has it: FSDP2's sharding, checkpointing
// policies, offloading, FP8 gathers and torch.compile.
// Decides whether recompute_modules names Megatron-LM's modules, where Megatron-LM's selective recomputation reads it.
void checkRecomputeModules(const Config& config, std::vector<Problem>& errors) {
    std::string bad;
    parseRecomputeModules(config.recomputeModules, &bad);
    if (!bad.empty())
        errors.push_back({"recompute_modules",
                          "recompute_modules must list core_attn, moe_act, layernorm, mla_up_proj, mlp, moe or shared_experts, "
                          "comma-separated; got " +
                              quoted(config.recomputeModules)});
    else if (canonicalRecomputeModules(parseRecomputeModules(config.recomputeModules)) != "core_attn" &&
             (config.framework != Framework::megatron || config.ckpt != Checkpointing::selective) && config.mode == Mode::training)
        errors.push_back({"recompute_modules",
                          "recompute_modules is Megatron-LM's --recompute-modules: it needs framework megatron and ckpt = "
                          "selective; got framework " +
                              std::string(toString(config.framework)) + ", ckpt = " + std::string(toString(config.ckpt))});
}

void checkFrameworkBehaviours(const Config& config, std::vector<Problem>& errors) {
    checkRecomputeModules(config, errors);
    const auto n = detail::groupedNumber;
    // Framework behaviours, each where the framework has it (docs/frameworks.md).
    const std::string frameworkName(toString(config.framework));
    const bool fsdpFramework = shardsAllOrNothing(config.framework);
    if (fsdpFramework && config.mode == Mode::training && config.zero != 0 && config.zero != 3)
        errors.push_back(
            {"zero", "zero must be 0 (replicated) or 3 (FSDP2's fully_shard) with framework " + frameworkName + "; got " + n(config.zero)});
    if (config.ckpt == Checkpointing::op) {
        if (config.framework != Framework::torchtitan)
            errors.push_back({"ckpt", "ckpt = op is torchtitan's op-level selective checkpointing: it needs framework torchtitan; got " +
                                          frameworkName});
        else if (config.mtpLayers != 0 || config.bias || config.attentionBias || config.mlpBias || config.attention != Attention::flash)
            errors.push_back({"ckpt",
                              "ckpt = op is modelled for models without biases or MTP layers, with flash "
                              "attention; use full or none here"});
    }
    if (config.ckptEvery > 1 && config.ckpt != Checkpointing::full)
        errors.push_back({"ckpt_every",
                          "ckpt_every (every Nth layer checkpointed) needs ckpt = full; got ckpt = " + std::string(toString(config.ckpt))});
    if (config.recomputeLayers > 0 && config.ckpt != Checkpointing::full)
        errors.push_back({"recompute_layers", "recompute_layers (Megatron-LM's block recomputation) needs ckpt = full; got ckpt = " +
                                                  std::string(toString(config.ckpt))});
    if (config.recomputeLayers > 0 && config.ckptEvery > 1)
        errors.push_back({"recompute_layers",
                          "give recompute_layers (the first N layers of each stage) or ckpt_every (every Nth "
                          "layer), not both"});
    if (config.optimizerInBackward && config.mode == Mode::training && (config.microbatches != 1 || config.pp != 1))
        errors.push_back({"optimizer_in_backward",
                          "optimizer_in_backward applies each gradient as soon as it is computed, so it needs one micro-batch per "
                          "step and no pipeline (microbatches = 1, pp = 1); got microbatches = " +
                              n(config.microbatches) + ", pp = " + n(config.pp)});
    if (config.activationOffload && (config.framework != Framework::torchtune || config.ckpt != Checkpointing::full))
        errors.push_back({"activation_offload",
                          "activation_offload is torchtune's offloading of the checkpointed layers' inputs: it "
                          "needs framework torchtune and ckpt = full"});
    if (config.fp8AllGather && (config.precision != Precision::fp8 || config.fp8Recipe != Fp8Recipe::torchao || config.zero < 3 ||
                                config.framework == Framework::megatron || config.framework == Framework::deepspeed))
        errors.push_back({"fp8_all_gather", "fp8_all_gather needs precision fp8, fp8_recipe torchao, zero 3 and an FSDP2 framework"});
    if (config.compile && config.framework == Framework::megatron)
        errors.push_back({"compile",
                          "compile (torch.compile of each block) applies to the PyTorch frameworks; Megatron-LM runs "
                          "Transformer Engine's fused modules: choose another framework or compile = false"});
}

// Decides whether LoRA and QLoRA adapt a base membudget models: the method, the framework, the precision, the
// targets and the rank.
void checkAdapters(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
    // LoRA and QLoRA (detail/lora.hpp): what the base can be and which matrices it has.
    if (config.finetune != Finetune::full) {
        const std::string mode(toString(config.finetune));
        if (config.method != Method::membudget || config.mode != Mode::training)
            errors.push_back({"finetune", "finetune = " + mode + " is modelled by method membudget in training; got method " +
                                              std::string(toString(config.method)) + ", mode " + std::string(toString(config.mode))});
        if (config.finetune == Finetune::qlora && config.framework == Framework::megatron && config.method == Method::membudget)
            errors.push_back({"framework",
                              "finetune = qlora (bitsandbytes' NF4 base) has no Megatron-LM path: choose framework torchtune or "
                              "hf_accelerate; got megatron"});
        if (config.finetune == Finetune::qlora && config.precision != Precision::bf16 && config.precision != Precision::fp16)
            errors.push_back({"finetune",
                              "finetune = qlora stores the base in NF4 and computes in BF16 or FP16: it needs precision bf16 "
                              "or fp16; got " +
                                  std::string(toString(config.precision))});
        std::string bad;
        const detail::LoraTargets targets = detail::parseLoraTargets(config.loraTargets, &bad);
        const bool any = targets.attention() || targets.mlp() || targets.output;
        if (!bad.empty() || !any)
            errors.push_back({"lora_targets",
                              "lora_targets must list q, k, v, o, gate, up, down, output, attention, mlp or all_linear, "
                              "comma-separated; got " +
                                  quoted(config.loraTargets)});
        else if (targets.gate && !config.gatedFfn && std::string_view(config.loraTargets).find("gate") != std::string_view::npos)
            errors.push_back({"lora_targets", "lora_targets lists gate, but the model's MLP has no gate (gated_ffn = false)"});
        else if (targets.attention() && config.kvLoraRank > 0)
            errors.push_back({"lora_targets", "adapters on MLA's attention (kv_lora_rank > 0) are not modelled; target mlp or output"});
        // The rank cannot exceed the smaller side of a matrix it adapts.
        const double headDim = config.headDim > 0 ? config.headDim : config.hidden / config.heads;
        double smallest = 1e300;
        if (targets.q || targets.o) smallest = std::min({smallest, config.hidden, config.heads * headDim});
        if (targets.k || targets.v) smallest = std::min({smallest, config.hidden, config.kvHeads * headDim});
        if (targets.mlp())
            smallest = std::min({smallest, config.hidden, config.experts > 0 && config.moeFfn > 0 ? config.moeFfn : config.ffn});
        if (targets.output) smallest = std::min({smallest, config.hidden, config.vocab});
        if (any && bad.empty() && config.loraRank > smallest)
            errors.push_back({"lora_rank", "lora_rank must be at most " + n(smallest) +
                                               ", the smaller side of the smallest matrix it adapts; got " + n(config.loraRank)});
    }
}

// Decides whether the attention variants go together: local windows and chunks, MLA, QK norms and the indexer.
void checkAttentionVariants(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
    if (config.experts == 0 && config.firstDenseLayers != 0)
        errors.push_back({"first_dense_layers", "first_dense_layers needs a mixture-of-experts model (experts > 0); got " +
                                                    n(config.firstDenseLayers) + " with experts = 0"});
    // vLLM refuses a max_model_len beyond the model's window (max_position_embeddings) unless told to override it.
    // vLLM's SlidingWindowSpec: "MLA is not supported for sliding window".
    if (config.slidingWindow > 0 && config.kvLoraRank != 0)
        errors.push_back({"sliding_window", "sliding_window must be 0 with multi-head latent attention (kv_lora_rank = " +
                                                n(config.kvLoraRank) + "): vLLM has no sliding window for MLA"});
    // MLA normalises its latents (q_a_layernorm, kv_a_layernorm, counted with it), not the per-head queries and keys.
    if (config.qkNorm != QkNorm::none && config.kvLoraRank != 0)
        errors.push_back({"qk_norm", "qk_norm must be none with multi-head latent attention (kv_lora_rank = " + n(config.kvLoraRank) +
                                         "), whose latent norms are counted with it; got " + std::string(toString(config.qkNorm))});
    // The indexer reads MLA's query latent (vLLM's Indexer.wq_b takes q_lora_rank inputs).
    if (config.indexHeads > 0 && (config.kvLoraRank == 0 || config.qLoraRank == 0))
        errors.push_back({"index_heads",
                          "index_heads needs multi-head latent attention with a query latent (kv_lora_rank > 0 and "
                          "q_lora_rank > 0), which the indexer reads (DeepSeek-V3.2); got " +
                              n(config.indexHeads) + " with kv_lora_rank = " + n(config.kvLoraRank) +
                              ", q_lora_rank = " + n(config.qLoraRank)});
    if (config.attentionChunk > 0 && config.slidingWindow > 0)
        errors.push_back(
            {"attention_chunk", "attention_chunk must be 0 with a sliding window (sliding_window = " + n(config.slidingWindow) +
                                    "): a local layer either slides or attends within its chunk; got " + n(config.attentionChunk)});
    if (config.attentionChunk > 0 && config.kvLoraRank != 0)
        errors.push_back({"attention_chunk", "attention_chunk must be 0 with multi-head latent attention (kv_lora_rank = " +
                                                 n(config.kvLoraRank) + "); got " + n(config.attentionChunk)});
    if (config.slidingWindow == 0 && config.attentionChunk == 0 && config.linearValueHeads == 0 && config.fullAttentionEvery != 0)
        errors.push_back({"full_attention_every",
                          "full_attention_every must be 0 without a sliding window, an attention chunk or linear attention "
                          "(sliding_window = 0, attention_chunk = 0, linear_value_heads = 0); got " +
                              n(config.fullAttentionEvery)});
}

// Decides whether linear attention (Gated DeltaNet) can be split over TP and is modelled in this mode.
void checkLinearAttention(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
    if (config.linearValueHeads > 0) {
        // Gated DeltaNet (Qwen3-Next): the value heads group the key heads, and vLLM splits both over TP.
        if (std::fmod(config.linearValueHeads, config.linearKeyHeads) != 0)
            errors.push_back({"linear_value_heads", "linear_value_heads must be a multiple of linear_key_heads (" +
                                                        n(config.linearKeyHeads) + "); got " + n(config.linearValueHeads)});
        else if (std::fmod(config.linearKeyHeads, config.tp) != 0)
            errors.push_back({"tp", "tp must divide linear_key_heads (" + n(config.linearKeyHeads) +
                                        ") and linear_value_heads: vLLM splits the linear-attention heads over TP; got " + n(config.tp)});
        if (config.slidingWindow > 0 || config.attentionChunk > 0 || config.kvLoraRank > 0)
            errors.push_back({"linear_value_heads",
                              "linear attention (linear_value_heads > 0) is modelled beside full attention only, not with a "
                              "sliding window, an attention chunk or MLA; got linear_value_heads = " +
                                  n(config.linearValueHeads)});
        // What a linear-attention layer saves for backward (the chunked delta rule's states) is not modelled yet.
        // (The gated output's saved tensors neither: attn_output_gate is refused in training below.)
        // At the mode, the user's choice: a config.json with linear attention still imports.
        if (config.mode == Mode::training)
            errors.push_back(
                {"mode", "mode must be inference for linear attention (Gated DeltaNet, linear_value_heads = " + n(config.linearValueHeads) +
                             "): what its layers save in training is not modelled, and "
                             "would not be counted as full attention silently"});
    }
}

// Decides whether a served request fits the model and the serving engine: lengths within seq and the context
// window, a serving framework and method.
void checkServing(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
    if (config.mode == Mode::inference && config.contextWindow > 0 && config.seq > config.contextWindow)
        errors.push_back({"seq", "seq must be at most the model's context window (context_window = " + n(config.contextWindow) +
                                     ") in inference; got " + n(config.seq)});
    if (config.mode == Mode::inference && config.inputTokens + config.outputTokens > config.seq)
        errors.push_back({config.outputTokens > 0 ? "output_tokens" : "input_tokens",
                          "input_tokens + output_tokens must be at most seq (" + n(config.seq) +
                              ", the longest request served, vLLM's max_model_len); got " + n(config.inputTokens) + " + " +
                              n(config.outputTokens)});
    if (config.mode == Mode::inference && config.inputTokens == 0 && config.outputTokens >= config.seq)
        errors.push_back(
            {"output_tokens", "output_tokens must be below seq (" + n(config.seq) + ") to leave a prompt; got " + n(config.outputTokens)});
    if (config.mode == Mode::inference && config.outputTokens == 0 && config.inputTokens >= config.seq)
        errors.push_back({"input_tokens",
                          "input_tokens must be below seq (" + n(config.seq) + ") to leave an output token; got " + n(config.inputTokens)});
    if (config.mode == Mode::inference && config.method == Method::membudget && !servesInference(config.framework))
        errors.push_back({"framework", "framework must be vllm, sglang or trtllm in inference mode (the serving engine); got " +
                                           std::string(toString(config.framework))});
    if (config.mode == Mode::training && servesInference(config.framework))
        errors.push_back({"framework", "framework must be megatron, torchtitan, torchtune, deepspeed or hf_accelerate in training mode (" +
                                           std::string(toString(config.framework)) + " serves: mode inference); got " +
                                           std::string(toString(config.framework))});
    if (config.schedulerRecvInterval > 1 && config.framework != Framework::sglang)
        errors.push_back({"scheduler_recv_interval",
                          "scheduler_recv_interval must be 1 unless framework is sglang (SGLang's "
                          "--scheduler-recv-interval; vLLM reads new requests every step); got " +
                              n(config.schedulerRecvInterval)});
    if (config.attentionDp > 1 && config.framework != Framework::sglang && config.framework != Framework::trtllm)
        errors.push_back({"attention_dp",
                          "attention_dp must be 1 unless framework is sglang or trtllm (SGLang's --enable-dp-attention, "
                          "TensorRT-LLM's enable_attention_dp; vLLM's data-parallel attention is dp replicas with ep = tp × dp); got " +
                              n(config.attentionDp)});
    else if (config.attentionDp > 1 && config.framework == Framework::trtllm && config.attentionDp != config.tp)
        errors.push_back({"attention_dp", "attention_dp must be 1 or tp (" + n(config.tp) +
                                              ") under trtllm (TensorRT-LLM's enable_attention_dp gives every TP rank its own "
                                              "requests, Mapping.enable_attention_dp); got " +
                                              n(config.attentionDp)});
    else if (config.attentionDp > 1 && std::fmod(config.tp, config.attentionDp) != 0)
        errors.push_back({"attention_dp", "attention_dp must divide tp (" + n(config.tp) +
                                              ": SGLang's attention groups of tp / dp_size GPUs); got " + n(config.attentionDp)});
    else if (config.attentionDp > 1 && config.pp > 1)
        errors.push_back({"attention_dp",
                          "attention_dp must be 1 with pp > 1 (data-parallel attention across pipeline stages is not "
                          "modelled); got " +
                              n(config.attentionDp)});
    if (config.cudaGraphPadding && config.framework != Framework::trtllm)
        errors.push_back({"cuda_graph_padding",
                          "cuda_graph_padding must be false unless framework is trtllm (TensorRT-LLM's "
                          "cuda_graph_config.enable_padding; vLLM and SGLang always pad to a captured size); got true"});
    if (config.chunkedPrefill && config.framework != Framework::trtllm)
        errors.push_back({"chunked_prefill",
                          "chunked_prefill must be false unless framework is trtllm (TensorRT-LLM's enable_chunked_prefill; "
                          "vLLM and SGLang always chunk prompts to workspace_tokens); got true"});
    if (config.mode == Mode::inference && config.framework == Framework::trtllm &&
        (config.linearValueHeads > 0 || config.layerPattern.find('M') != std::string::npos))
        errors.push_back({"framework",
                          "framework trtllm serves no linear-attention or Mamba layers here (TensorRT-LLM's "
                          "state caches are not modelled); use vllm or sglang for this model"});
    // TensorRT-LLM without chunked prefill refuses a request whose prompt exceeds max_num_tokens (llm.py
    // _check_arguments: "should not exceed max_num_tokens").
    // The prompt as the serving estimate takes it: input_tokens, or seq less output_tokens, or half of seq.
    const double prompt = config.inputTokens != 0    ? config.inputTokens
                          : config.outputTokens != 0 ? config.seq - config.outputTokens
                                                     : std::ceil(config.seq / 2);
    if (config.mode == Mode::inference && config.framework == Framework::trtllm && !config.chunkedPrefill &&
        prompt > config.workspaceTokens)
        errors.push_back({config.inputTokens != 0 ? "input_tokens" : "workspace_tokens",
                          "the prompt (" + n(prompt) + " tokens) must fit workspace_tokens (" + n(config.workspaceTokens) +
                              ", TensorRT-LLM's max_num_tokens) under trtllm without chunked_prefill: TensorRT-LLM refuses a "
                              "longer prompt (llm.py _check_arguments); raise workspace_tokens or set chunked_prefill"});
    if (config.mode == Mode::inference && config.method != Method::membudget)
        errors.push_back({"method", "method must be membudget in inference mode (the other sources model training); got " +
                                        quoted(toString(config.method))});
}

// A hybrid stack (layer_pattern): one known character a layer, as many as layers, beside nothing else that changes
// what a layer is; the Mamba-2 heads split over TP as vLLM's MambaMixer2 splits them.
void checkLayerPattern(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
    const std::string& pattern = config.layerPattern;
    const size_t bad = pattern.find_first_not_of("M*-");
    if (bad != std::string::npos) {
        errors.push_back({"layer_pattern", "layer_pattern must hold M (Mamba-2), * (attention) and - (MLP) only" +
                                               std::string(pattern[bad] == 'E' ? " (E, a MoE block, is not modelled yet)" : "") + "; got " +
                                               (static_cast<unsigned char>(pattern[bad]) < 0x80 ? quoted(std::string(1, pattern[bad]))
                                                                                                : std::string("a non-ASCII character")) +
                                               " at layer " + n(static_cast<double>(bad))});
        return;
    }
    if (static_cast<double>(pattern.size()) != config.layers)
        errors.push_back({"layer_pattern", "layer_pattern must have one character per layer (layers = " + n(config.layers) + "); got " +
                                               n(static_cast<double>(pattern.size()))});
    if (config.experts != 0 || config.kvLoraRank != 0 || config.slidingWindow != 0 || config.attentionChunk != 0 ||
        config.linearValueHeads != 0 || config.mtpLayers != 0)
        errors.push_back({"layer_pattern",
                          "a layer pattern is modelled with plain attention and MLP blocks only (experts, kv_lora_rank, sliding_window, "
                          "attention_chunk, linear_value_heads and mtp_layers 0)"});
    if (pattern.find('M') != std::string::npos) {
        if (std::fmod(config.mambaHeads, config.tp) != 0)
            errors.push_back({"tp", "tp must divide mamba_heads (" + n(config.mambaHeads) +
                                        "): vLLM splits the Mamba-2 heads over TP; got " + n(config.tp)});
        if (std::fmod(config.mambaGroups, config.tp) != 0 && config.mambaGroups != 1)
            errors.push_back({"tp", "tp must divide mamba_groups (" + n(config.mambaGroups) +
                                        ") unless there is one group, which vLLM replicates; got " + n(config.tp)});
    }
    // What a Mamba or one-mixer block saves for backward is not modelled.
    if (config.mode == Mode::training)
        errors.push_back({"mode", "mode must be inference for a layer pattern (layer_pattern = " + quoted(pattern.substr(0, 16)) +
                                      (pattern.size() > 16 ? "…" : "") +
                                      "): what its blocks save in training is not modelled, and would not be counted as "
                                      "transformer layers silently"});
}

}  // namespace membudget::detail
