#include "membudget/config.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>

#include "membudget/detail/text.hpp"
#include "membudget/ledger.hpp"
#include "membudget/presets.hpp"

namespace membudget {

namespace {

// The field-table accessor of an enum member, and its ids: both from membudget/choices.hpp.
template <auto Member>
ChoiceField choiceMember() {
    using E = std::remove_reference_t<decltype(std::declval<Config&>().*Member)>;
    return {[](const Config& c) { return toString(c.*Member); },
            [](Config& c, std::string_view id) {
                const auto value = parseChoice<E>(id);
                c.*Member = value.value_or(invalidChoice<E>());
                return value.has_value();
            }};
}

template <class E>
std::vector<std::string> choiceIds() {
    return {ChoiceNames<E>::names.begin(), ChoiceNames<E>::names.end()};
}

std::vector<std::string> modelChoices() {
    std::vector<std::string> ids;
    for (const auto& preset : modelPresets()) ids.emplace_back(preset.id);
    ids.emplace_back("custom");  // no preset: the architecture fields as given (an imported config.json)
    return ids;
}

std::vector<std::string> gpuChoices() {
    std::vector<std::string> ids;
    for (const auto& preset : gpuPresets()) ids.emplace_back(preset.id);
    return ids;
}

// Ranges are wide enough for any real job (up to 100T parameters, 16M-token sequences, 10M GPUs) and
// narrow enough that every byte count stays a finite double.
std::vector<FieldSpec> buildFields() {
    using K = FieldKind;
    const std::string_view s1 = "Chapter §1 (static memory)";
    const std::string_view s2 = "Chapter §2 (activations)";
    const std::string_view s3 = "Chapter §3 (budget formula)";
    const std::string_view s4 = "Chapter §4 (verification checklist)";
    const std::string_view s5 = "Chapter §5 (pitfalls: fragmentation)";
    const std::string_view arch = "Model config.json (Hugging Face layout)";
    std::vector<FieldSpec> f;
    auto add = [&f](FieldSpec spec) { f.push_back(std::move(spec)); };

    add({.key = "model",
         .label = "Model preset",
         .group = "model",
         .kind = K::choice,
         .member = &Config::model,
         .choices = modelChoices(),
         .unit = "",
         .help = "Fills the architecture fields; keys given after it override; custom fills nothing",
         .section = arch});
    add({.key = "name",
         .label = "Model name",
         .group = "model",
         .kind = K::text,
         .member = &Config::name,
         .max = kMaxTextLength,
         .unit = "",
         .help = "A custom or imported model's name (config.json's _name_or_path or architectures); empty for a preset",
         .section = arch});
    add({.key = "params",
         .label = "Parameters Ψ",
         .group = "model",
         .kind = K::number,
         .member = &Config::params,
         .min = 1e6,
         .max = 1e14,
         .zeroMeansAuto = true,
         .autoMeaning = "derive from the architecture",
         .unit = "parameters",
         .help = "Total parameter count; overrides the count derived from the architecture",
         .section = s1});
    add({.key = "hidden",
         .label = "Hidden size h",
         .group = "model",
         .kind = K::integer,
         .member = &Config::hidden,
         .min = 1,
         .max = 1048576,
         .unit = "",
         .help = "Model width (hidden_size)",
         .section = s2});
    add({.key = "layers",
         .label = "Layers L",
         .group = "model",
         .kind = K::integer,
         .member = &Config::layers,
         .min = 1,
         .max = 10000,
         .unit = "",
         .help = "Transformer layers (num_hidden_layers)",
         .section = s2});
    add({.key = "heads",
         .label = "Attention heads a",
         .group = "model",
         .kind = K::integer,
         .member = &Config::heads,
         .min = 1,
         .max = 65536,
         .unit = "",
         .help = "Query heads (num_attention_heads)",
         .section = s2});
    add({.key = "kv_heads",
         .label = "KV heads",
         .group = "model",
         .kind = K::integer,
         .member = &Config::kvHeads,
         .min = 1,
         .max = 65536,
         .unit = "",
         .help = "Key/value heads for GQA (num_key_value_heads); must divide heads",
         .section = arch});
    add({.key = "head_dim",
         .label = "Head dimension",
         .group = "model",
         .kind = K::integer,
         .member = &Config::headDim,
         .min = 1,
         .max = 65536,
         .zeroMeansAuto = true,
         .autoMeaning = "hidden / heads",
         .unit = "",
         .help = "Per-head width where it is not hidden / heads",
         .section = arch});
    add({.key = "ffn",
         .label = "FFN size d_ff",
         .group = "model",
         .kind = K::integer,
         .member = &Config::ffn,
         .min = 1,
         .max = 4194304,
         .unit = "",
         .help = "FFN intermediate size (intermediate_size; 4h in GPT)",
         .section = s2});
    add({.key = "vocab",
         .label = "Vocabulary V",
         .group = "model",
         .kind = K::integer,
         .member = &Config::vocab,
         .min = 1,
         .max = 10000000,
         .unit = "tokens",
         .help = "Vocabulary size (vocab_size)",
         .section = arch});
    add({.key = "gated_ffn",
         .label = "Gated FFN (SwiGLU)",
         .group = "model",
         .kind = K::boolean,
         .member = &Config::gatedFfn,
         .unit = "",
         .help = "Three FFN matrices (gate, up, down) instead of two",
         .section = arch});
    add({.key = "tied_embeddings",
         .label = "Tied embeddings",
         .group = "model",
         .kind = K::boolean,
         .member = &Config::tiedEmbeddings,
         .unit = "",
         .help = "The output layer shares the input embedding",
         .section = arch});
    add({.key = "norm",
         .label = "Normalisation",
         .group = "model",
         .kind = K::choice,
         .member = choiceMember<&Config::norm>(),
         .choices = choiceIds<Norm>(),
         .unit = "",
         .help = "RMSNorm has a weight; LayerNorm a weight and a bias",
         .section = arch});
    add({.key = "bias",
         .label = "Linear biases",
         .group = "model",
         .kind = K::boolean,
         .member = &Config::bias,
         .unit = "",
         .help = "Attention and FFN projections have biases (GPT-2/3 style)",
         .section = arch});
    add({.key = "qkv_bias",
         .label = "Q/K/V biases",
         .group = "model",
         .kind = K::boolean,
         .member = &Config::qkvBias,
         .unit = "",
         .help = "Only the Q, K and V projections have biases (Qwen2)",
         .section = arch});
    add({.key = "pos_emb",
         .label = "Learned positions",
         .group = "model",
         .kind = K::integer,
         .member = &Config::posEmb,
         .min = 0,
         .max = 16777216,
         .unit = "positions",
         .help = "Rows of a learned position embedding; 0 for rotary",
         .section = arch});

    const std::string_view moe = "Mixture of experts (Megatron-LM --num-experts, --moe-*; Mixtral, Qwen MoE config.json)";
    add({.key = "experts",
         .label = "Routed experts",
         .group = "model",
         .kind = K::integer,
         .member = &Config::experts,
         .min = 2,
         .max = 4096,
         .zeroMeansAuto = true,
         .autoMeaning = "a dense model",
         .unit = "experts",
         .help = "Experts per MoE layer",
         .section = moe});
    add({.key = "experts_per_token",
         .label = "Experts per token",
         .group = "model",
         .kind = K::integer,
         .member = &Config::expertsPerToken,
         .min = 1,
         .max = 64,
         .unit = "experts",
         .help = "Top-k routing",
         .section = moe});
    add({.key = "moe_ffn",
         .label = "Expert FFN size",
         .group = "model",
         .kind = K::integer,
         .member = &Config::moeFfn,
         .min = 1,
         .max = 4194304,
         .zeroMeansAuto = true,
         .autoMeaning = "ffn",
         .unit = "",
         .help = "Intermediate size of each expert",
         .section = moe});
    add({.key = "shared_expert_ffn",
         .label = "Shared expert FFN",
         .group = "model",
         .kind = K::integer,
         .member = &Config::sharedExpertFfn,
         .min = 0,
         .max = 4194304,
         .unit = "",
         .help = "Intermediate size of the always-active shared expert; 0 for none",
         .section = moe});
    add({.key = "moe_layer_freq",
         .label = "MoE layer frequency",
         .group = "model",
         .kind = K::integer,
         .member = &Config::moeLayerFreq,
         .min = 1,
         .max = 10000,
         .unit = "layers",
         .help = "Every n-th layer (from the first) is a MoE layer; the others are dense",
         .section = moe});
    add({.key = "first_dense_layers",
         .label = "Leading dense layers",
         .group = "model",
         .kind = K::integer,
         .member = &Config::firstDenseLayers,
         .min = 0,
         .max = 10000,
         .unit = "layers",
         .help = "Layers before the first MoE layer (DeepSeek's first_k_dense_replace)",
         .section = moe});
    add({.key = "router_bias",
         .label = "Router bias",
         .group = "model",
         .kind = K::boolean,
         .member = &Config::routerBias,
         .unit = "",
         .help = "A bias per expert in the router (DeepSeek-V3)",
         .section = moe});
    add({.key = "shared_expert_gate",
         .label = "Shared expert gate",
         .group = "model",
         .kind = K::boolean,
         .member = &Config::sharedExpertGate,
         .unit = "",
         .help = "A sigmoid gate (h -> 1) on the shared expert's output (Qwen2-MoE; Megatron-LM --moe-shared-expert-gate)",
         .section = moe});
    add({.key = "mtp_layers",
         .label = "Multi-token prediction layers",
         .group = "model",
         .kind = K::integer,
         .member = &Config::mtpLayers,
         .min = 0,
         .max = 16,
         .unit = "layers",
         .help = "Extra layers predicting further tokens in training (DeepSeek-V3: 1; num_nextn_predict_layers), on the last "
                 "pipeline stage; not loaded in inference",
         .section = "Multi-token prediction (DeepSeek-V3 §2.2; Megatron-LM --mtp-num-layers)"});
    const std::string_view mla = "Multi-head latent attention (DeepSeek-V2 §2.1; Megatron-LM --multi-latent-attention)";
    add({.key = "kv_lora_rank",
         .label = "KV latent rank (MLA)",
         .group = "model",
         .kind = K::integer,
         .member = &Config::kvLoraRank,
         .min = 1,
         .max = 65536,
         .zeroMeansAuto = true,
         .autoMeaning = "standard attention",
         .unit = "",
         .help = "Compressed KV dimension of multi-head latent attention",
         .section = mla});
    add({.key = "q_lora_rank",
         .label = "Query latent rank (MLA)",
         .group = "model",
         .kind = K::integer,
         .member = &Config::qLoraRank,
         .min = 1,
         .max = 65536,
         .zeroMeansAuto = true,
         .autoMeaning = "full-rank queries",
         .unit = "",
         .help = "Compressed query dimension",
         .section = mla});
    add({.key = "qk_rope_dim",
         .label = "RoPE head dimension (MLA)",
         .group = "model",
         .kind = K::integer,
         .member = &Config::qkRopeDim,
         .min = 0,
         .max = 65536,
         .unit = "",
         .help = "Decoupled rotary part of each Q/K head",
         .section = mla});
    add({.key = "qk_nope_dim",
         .label = "Q/K head dimension (MLA)",
         .group = "model",
         .kind = K::integer,
         .member = &Config::qkNopeDim,
         .min = 1,
         .max = 65536,
         .zeroMeansAuto = true,
         .autoMeaning = "head_dim",
         .unit = "",
         .help = "Non-rotary part of each Q/K head",
         .section = mla});
    add({.key = "v_head_dim",
         .label = "V head dimension (MLA)",
         .group = "model",
         .kind = K::integer,
         .member = &Config::vHeadDim,
         .min = 1,
         .max = 65536,
         .zeroMeansAuto = true,
         .autoMeaning = "head_dim",
         .unit = "",
         .help = "Width of each value head",
         .section = mla});
    add({.key = "capacity_factor",
         .label = "Capacity factor",
         .group = "training",
         .kind = K::number,
         .member = &Config::capacityFactor,
         .min = 0.1,
         .max = 64,
         .unit = "",
         .help = "Routed tokens an expert rank holds, relative to a perfectly even split",
         .section = moe});

    add({.key = "tp",
         .label = "Tensor parallel TP",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::tp,
         .min = 1,
         .max = 1024,
         .unit = "GPUs",
         .help = "Tensor-parallel degree",
         .section = s4});
    add({.key = "pp",
         .label = "Pipeline parallel PP",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::pp,
         .min = 1,
         .max = 1024,
         .unit = "stages",
         .help = "Pipeline-parallel stages",
         .section = s4});
    add({.key = "dp",
         .label = "Data parallel DP",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::dp,
         .min = 1,
         .max = 1048576,
         .unit = "GPUs",
         .help = "Data-parallel degree (the ZeRO/FSDP sharding group)",
         .section = s4});
    add({.key = "cp",
         .label = "Context parallel CP",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::cp,
         .min = 1,
         .max = 1024,
         .unit = "GPUs",
         .help = "Context-parallel degree: splits the sequence",
         .section = s2});
    add({.key = "ep",
         .label = "Expert parallel EP",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::ep,
         .min = 1,
         .max = 4096,
         .unit = "GPUs",
         .help = "Experts split across EP ranks",
         .section = moe});
    add({.key = "etp",
         .label = "Expert tensor parallel",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::etp,
         .min = 1,
         .max = 1024,
         .zeroMeansAuto = true,
         .autoMeaning = "TP",
         .unit = "GPUs",
         .help = "Tensor parallelism inside each expert",
         .section = moe});
    add({.key = "sp",
         .label = "Sequence parallel",
         .group = "parallelism",
         .kind = K::boolean,
         .member = &Config::sp,
         .unit = "",
         .help = "Shards the LayerNorm/dropout regions over the TP group",
         .section = s2});
    add({.key = "zero",
         .label = "ZeRO stage",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::zero,
         .min = 0,
         .max = 3,
         .unit = "",
         .help = "0 none; 1 optimizer sharded over DP; 2 and gradients; 3 (FSDP) and parameters",
         .section = s3});
    add({.key = "gpus",
         .label = "GPU count",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::gpus,
         .min = 1,
         .max = 10000000,
         .zeroMeansAuto = true,
         .autoMeaning = "TP × PP × CP × DP",
         .unit = "GPUs",
         .help = "Total GPUs, to check that DP matches it",
         .section = s4});

    add({.key = "vpp",
         .label = "Virtual pipeline stages",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::vpp,
         .min = 1,
         .max = 128,
         .unit = "chunks",
         .help = "Model chunks per pipeline rank (interleaved 1F1B); 1 = not interleaved",
         .section = "Korthikanti et al. 2022 §4.2; Megatron-LM --num-layers-per-virtual-pipeline-stage"});
    add({.key = "first_stage_layers",
         .label = "Layers on the first stage",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::firstStageLayers,
         .min = 1,
         .max = 10000,
         .zeroMeansAuto = true,
         .autoMeaning = "an even split",
         .unit = "layers",
         .help = "Uneven pipeline: layers on stage 0 (which also holds the embedding)",
         .section = "Chapter §5 (PP stage imbalance); Megatron-LM --decoder-first-pipeline-num-layers"});
    add({.key = "last_stage_layers",
         .label = "Layers on the last stage",
         .group = "parallelism",
         .kind = K::integer,
         .member = &Config::lastStageLayers,
         .min = 1,
         .max = 10000,
         .zeroMeansAuto = true,
         .autoMeaning = "an even split",
         .unit = "layers",
         .help = "Uneven pipeline: layers on the last stage (which also holds the output layer and loss)",
         .section = "Chapter §5 (PP stage imbalance); Megatron-LM --decoder-last-pipeline-num-layers"});

    add({.key = "mb",
         .label = "Micro-batch b_μ",
         .group = "training",
         .kind = K::integer,
         .member = &Config::mb,
         .min = 1,
         .max = 65536,
         .unit = "sequences",
         .help = "Sequences per micro-batch (not the global batch)",
         .section = s3});
    add({.key = "seq",
         .label = "Sequence length s",
         .group = "training",
         .kind = K::integer,
         .member = &Config::seq,
         .min = 1,
         .max = 16777216,
         .unit = "tokens",
         .help = "Tokens per sequence",
         .section = s2});
    add({.key = "ckpt",
         .label = "Activation checkpointing",
         .group = "training",
         .kind = K::choice,
         .member = choiceMember<&Config::ckpt>(),
         .choices = choiceIds<Checkpointing>(),
         .unit = "",
         .help = "none keeps every activation; selective recomputes attention; full keeps layer inputs only",
         .section = s2});
    add({.key = "microbatches",
         .label = "Micro-batches per step",
         .group = "training",
         .kind = K::integer,
         .member = &Config::microbatches,
         .min = 1,
         .max = 1000000,
         .unit = "",
         .help = "Gradient-accumulation steps; 1F1B keeps min(PP, this) in flight on stage 0",
         .section = s4});
    add({.key = "static_bytes",
         .label = "Static bytes per parameter",
         .group = "training",
         .kind = K::integer,
         .member = &Config::staticBytes,
         .min = 16,
         .max = 20,
         .allowed = {16, 18, 20},
         .unit = "bytes/param",
         .help = "16 canonical BF16+AdamW; 18 with FP32 gradients; 20 with an extra FP32 accumulator",
         .section = s1});
    add({.key = "act_formula",
         .label = "Activation formula",
         .group = "training",
         .kind = K::choice,
         .member = choiceMember<&Config::actFormula>(),
         .choices = choiceIds<ActFormula>(),
         .unit = "",
         .help = "table: 22bsh + 2bas² per layer; worked: (14h + 6·d_ff)bs + 3as²b, the worked 70B example",
         .section = s2});

    add({.key = "attention",
         .label = "Attention kernel",
         .group = "training",
         .kind = K::choice,
         .member = choiceMember<&Config::attention>(),
         .choices = choiceIds<Attention>(),
         .unit = "",
         .help = "flash keeps no s × s scores; eager keeps the softmax output for backward",
         .section = "Dao et al. 2022 (FlashAttention); Korthikanti et al. 2022 §4.1"});
    add({.key = "dropout",
         .label = "Dropout",
         .group = "training",
         .kind = K::boolean,
         .member = &Config::dropout,
         .unit = "",
         .help = "Dropout layers on (their 1-byte masks are kept for backward)",
         .section = "Korthikanti et al. 2022 §4.1"});

    const std::string_view opt = "README, Optimizers and precisions (bitsandbytes, Adafactor, Muon, Transformer Engine)";
    add({.key = "optimizer",
         .label = "Optimizer",
         .group = "training",
         .kind = K::choice,
         .member = choiceMember<&Config::optimizer>(),
         .choices = choiceIds<Optimizer>(),
         .unit = "",
         .help = "Optimizer states per parameter: AdamW 8 B, 8-bit Adam 2 B, Adafactor factored, SGD momentum 4 B, Muon 4 B on matrices",
         .section = opt});
    add({.key = "precision",
         .label = "Training precision",
         .group = "training",
         .kind = K::choice,
         .member = choiceMember<&Config::precision>(),
         .choices = choiceIds<Precision>(),
         .unit = "",
         .help = "Weights and activations; FP8 adds cached FP8 copies of the linear weights",
         .section = opt});
    add({.key = "master_weights",
         .label = "FP32 master weights",
         .group = "training",
         .kind = K::boolean,
         .member = &Config::masterWeights,
         .unit = "",
         .help = "Keep an FP32 copy of low-precision weights for the update",
         .section = opt});

    add({.key = "gpu",
         .label = "GPU",
         .group = "hardware",
         .kind = K::choice,
         .member = &Config::gpu,
         .choices = gpuChoices(),
         .unit = "",
         .help = "Sets the capacity to what the device reports",
         .section = s4});
    add({.key = "gpu_gb",
         .label = "GPU capacity",
         .group = "hardware",
         .kind = K::number,
         .member = &Config::gpuGb,
         .min = 0.001,
         .max = 100000,
         .unit = "GB",
         .help = "Memory per GPU in GB (1e9 bytes); overrides the preset",
         .section = s4});
    add({.key = "buffers_gb",
         .label = "Communication buffers",
         .group = "hardware",
         .kind = K::number,
         .member = &Config::buffersGb,
         .min = 0,
         .max = 1000,
         .unit = "GB",
         .help = "NCCL buffers (chapter: ~2 GB)",
         .section = s4});
    add({.key = "context_gb",
         .label = "CUDA context",
         .group = "hardware",
         .kind = K::number,
         .member = &Config::contextGb,
         .min = 0,
         .max = 1000,
         .unit = "GB",
         .help = "Per-GPU fixed overhead (chapter: ~1 GB)",
         .section = s4});
    add({.key = "headroom",
         .label = "Headroom",
         .group = "hardware",
         .kind = K::number,
         .member = &Config::headroom,
         .min = 0,
         .max = 0.99,
         .unit = "fraction",
         .help = "Share of capacity kept free for fragmentation (chapter: 10-15%)",
         .section = s5});

    add({.key = "gpus_per_node",
         .label = "GPUs per node",
         .group = "hardware",
         .kind = K::integer,
         .member = &Config::gpusPerNode,
         .min = 1,
         .max = 1024,
         .unit = "GPUs",
         .help = "GPUs in one node (DeepSpeed's CPU memory is per node)",
         .section = "DeepSpeed estimate_zero*_model_states_mem_needs"});
    add({.key = "offload",
         .label = "Offload to CPU",
         .group = "hardware",
         .kind = K::choice,
         .member = choiceMember<&Config::offload>(),
         .choices = choiceIds<Offload>(),
         .unit = "",
         .help = "ZeRO-Offload: the optimizer states (and with all, the parameters) live in CPU memory",
         .section = "DeepSpeed ZeRO-Offload / ZeRO-Infinity"});
    add({.key = "zero_init",
         .label = "zero.Init",
         .group = "hardware",
         .kind = K::boolean,
         .member = &Config::zeroInit,
         .unit = "",
         .help = "DeepSpeed builds the model already partitioned (less CPU memory per node)",
         .section = "DeepSpeed estimate_zero3_model_states_mem_needs"});

    const std::string_view inf = "Inference (vLLM: ModelConfig.get_num_kv_heads, kv_cache_interface.py)";
    add({.key = "mode",
         .label = "Mode",
         .group = "method",
         .kind = K::choice,
         .member = choiceMember<&Config::mode>(),
         .choices = choiceIds<Mode>(),
         .unit = "",
         .help = "inference: weights, KV cache and workspace; mb is the concurrent sequences, seq the tokens of each",
         .section = inf});
    add({.key = "weight_dtype",
         .label = "Weight type",
         .group = "inference",
         .kind = K::choice,
         .member = choiceMember<&Config::weightDtype>(),
         .choices = choiceIds<WeightDtype>(),
         .unit = "",
         .help = "Inference weights of the linear layers; embeddings, output layer and norms stay BF16",
         .section = "vLLM quantization (FP8, INT8 per-channel, INT4 AWQ/GPTQ with group scales)"});
    add({.key = "kv_dtype",
         .label = "KV-cache type",
         .group = "inference",
         .kind = K::choice,
         .member = choiceMember<&Config::kvDtype>(),
         .choices = choiceIds<KvDtype>(),
         .unit = "",
         .help = "Element type of the KV cache (vLLM --kv-cache-dtype)",
         .section = inf});
    add({.key = "quant_group",
         .label = "INT4 group size",
         .group = "inference",
         .kind = K::integer,
         .member = &Config::quantGroup,
         .min = 8,
         .max = 8192,
         .unit = "channels",
         .help = "Input channels sharing one FP16 scale and one INT4 zero point",
         .section = "AWQ / GPTQ packing"});
    add({.key = "kv_block",
         .label = "KV block size",
         .group = "inference",
         .kind = K::integer,
         .member = &Config::kvBlock,
         .min = 1,
         .max = 4096,
         .unit = "tokens",
         .help = "Tokens per KV-cache block; each sequence rounds up to whole blocks",
         .section = inf});
    add({.key = "workspace_tokens",
         .label = "Tokens per forward",
         .group = "inference",
         .kind = K::integer,
         .member = &Config::workspaceTokens,
         .min = 1,
         .max = 16777216,
         .unit = "tokens",
         .help = "Tokens one forward pass processes (vLLM max_num_batched_tokens); sizes the activation workspace",
         .section = inf});
    add({.key = "cuda_graphs_gb",
         .label = "CUDA graphs",
         .group = "inference",
         .kind = K::number,
         .member = &Config::cudaGraphsGb,
         .min = 0,
         .max = 1000,
         .unit = "GB",
         .help = "Memory captured CUDA graphs keep (vLLM logs it at start-up)",
         .section = inf});

    add({.key = "method",
         .label = "Method",
         .group = "method",
         .kind = K::choice,
         .member = choiceMember<&Config::method>(),
         .choices = choiceIds<Method>(),
         .unit = "",
         .help = "Which formulas compute the ledger: membudget's own model or a published source, exactly",
         .section = "README, Methods"});
    return f;
}

bool isIntegral(double v) { return std::isfinite(v) && std::floor(v) == v; }

bool inRange(const FieldSpec& field, double v) {
    if (!std::isfinite(v)) return false;
    if (field.kind == FieldKind::integer && !isIntegral(v)) return false;
    if (field.zeroMeansAuto && v == 0) return true;
    if (!field.allowed.empty()) return std::find(field.allowed.begin(), field.allowed.end(), v) != field.allowed.end();
    return v >= field.min && v <= field.max;
}

std::string joinChoices(const std::vector<std::string>& choices) {
    std::string out;
    for (size_t i = 0; i < choices.size(); ++i) {
        if (i) out += i + 1 == choices.size() ? " or " : ", ";
        out += choices[i];
    }
    return out;
}

// One set of spellings for links, flags and JSON (a JSON boolean, 0/1 or one of these strings), in any case.
std::optional<bool> parseBool(std::string_view text) {
    std::string lower(text.substr(0, 6));
    if (text.size() > 5) return std::nullopt;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") return true;
    if (lower == "false" || lower == "0" || lower == "no" || lower == "off") return false;
    return std::nullopt;
}

// Characters of UTF-8 text (bytes that do not continue a character), and whether it holds a C0 or C1 control
// character (U+0000–U+001F, U+007F, U+0080–U+009F, which UTF-8 writes as C2 80–C2 9F) or is not UTF-8.
std::optional<std::string> textProblem(const FieldSpec& field, std::string_view text) {
    const std::string key(field.key);
    size_t characters = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if ((byte & 0xC0) != 0x80) ++characters;
        const bool c1 = byte == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                        static_cast<unsigned char>(text[i + 1]) <= 0x9F;
        if (byte < 0x20 || byte == 0x7F || c1)
            return key + " must be " + describeRange(field) + "; got a control character at byte " +
                   detail::formatNumber(static_cast<double>(i));
    }
    if (static_cast<double>(characters) > field.max)
        return key + " must be " + describeRange(field) + "; got " + detail::formatNumber(static_cast<double>(characters)) + " characters";
    return std::nullopt;
}

std::string quoted(std::string_view text) {
    // Quote what the user gave, cut to a readable length; messages are text, never markup.
    size_t cut = std::min<size_t>(text.size(), 40);
    while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
    std::string shown(text.substr(0, cut));
    if (cut < text.size()) shown += "…";
    return "\"" + shown + "\"";
}

}  // namespace

std::span<const FieldSpec> fields() {
    static const std::vector<FieldSpec> table = buildFields();
    return table;
}

const FieldSpec* findField(std::string_view key) {
    for (const auto& field : fields())
        if (field.key == key) return &field;
    return nullptr;
}

std::string describeRange(const FieldSpec& field) {
    switch (field.kind) {
        case FieldKind::boolean:
            return "true or false";
        case FieldKind::choice:
            return "one of " + joinChoices(field.choices);
        case FieldKind::text:
            return "text of at most " + detail::formatNumber(field.max) + " characters, without control characters";
        case FieldKind::integer:
        case FieldKind::number:
            break;
    }
    std::string range;
    if (!field.allowed.empty()) {
        std::vector<std::string> values;
        for (double v : field.allowed) values.push_back(detail::formatNumber(v));
        range = "one of " + joinChoices(values);
    } else {
        range = std::string(field.kind == FieldKind::integer ? "an integer" : "a number") + " from " + detail::groupedNumber(field.min) +
                " to " + detail::groupedNumber(field.max);
    }
    if (field.zeroMeansAuto) return "0 (" + std::string(field.autoMeaning) + ") or " + range;
    return range;
}

std::string fieldText(const Config& config, const FieldSpec& field) {
    return std::visit(
        [&config](auto member) -> std::string {
            if constexpr (std::is_same_v<decltype(member), ChoiceField>) {
                return std::string(member.get(config));
            } else {
                const auto& value = config.*member;
                using T = std::decay_t<decltype(value)>;
                if constexpr (std::is_same_v<T, double>)
                    return detail::formatNumber(value);
                else if constexpr (std::is_same_v<T, bool>)
                    return value ? "true" : "false";
                else
                    return value;
            }
        },
        field.member);
}

std::string_view choiceText(const Config& config, const FieldSpec& field) {
    if (const auto* choice = std::get_if<ChoiceField>(&field.member)) return choice->get(config);
    if (const auto* member = std::get_if<std::string Config::*>(&field.member)) return config.**member;
    return {};
}

bool setChoiceText(Config& config, const FieldSpec& field, std::string_view id) {
    if (std::find(field.choices.begin(), field.choices.end(), id) == field.choices.end()) return false;
    if (const auto* choice = std::get_if<ChoiceField>(&field.member)) return choice->set(config, id);
    if (const auto* member = std::get_if<std::string Config::*>(&field.member)) config.** member = std::string(id);
    return true;
}

std::vector<Problem> setFieldText(Config& config, const FieldSpec& field, std::string_view text) {
    const std::string key(field.key);
    switch (field.kind) {
        case FieldKind::integer:
        case FieldKind::number: {
            const auto value = detail::parseNumber(text);
            if (!value) return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text) + ", not a finite number"}};
            // Beyond 2^53 a double no longer holds the number typed: quote the text, never its rounding (every
            // field's range ends far below).
            if (std::fabs(*value) >= kExactIntegerLimit) return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text)}};
            if (field.kind == FieldKind::integer && !isIntegral(*value))
                return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text) + ", not an integer"}};
            config.*std::get<double Config::*>(field.member) = *value;
            return {};
        }
        case FieldKind::boolean: {
            const auto value = parseBool(text);
            if (!value) return {{key, key + " must be true or false; got " + quoted(text)}};
            config.*std::get<bool Config::*>(field.member) = *value;
            return {};
        }
        case FieldKind::choice: {
            if (!setChoiceText(config, field, text)) return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text)}};
            return {};
        }
        case FieldKind::text: {
            if (const auto problem = textProblem(field, text)) return {{key, *problem}};
            config.*std::get<std::string Config::*>(field.member) = std::string(text);
            return {};
        }
    }
    return {};
}

std::vector<Problem> validate(const Config& config) {
    std::vector<Problem> errors;
    for (const auto& field : fields()) {
        const std::string key(field.key);
        if (field.kind == FieldKind::integer || field.kind == FieldKind::number) {
            const double v = config.*std::get<double Config::*>(field.member);
            if (!inRange(field, v))
                errors.push_back({key, key + " must be " + describeRange(field) + "; got " +
                                           (std::isfinite(v) ? detail::formatNumber(v) : std::string("a non-finite value"))});
        } else if (field.kind == FieldKind::choice) {
            // An enum holds only its own values, except one set directly from JavaScript with an unknown id.
            const std::string_view v = choiceText(config, field);
            if (std::find(field.choices.begin(), field.choices.end(), v) == field.choices.end())
                errors.push_back(
                    {key, key + " must be " + describeRange(field) + "; got " + (v.empty() ? std::string("an unknown value") : quoted(v))});
        } else if (field.kind == FieldKind::text) {
            if (const auto problem = textProblem(field, config.*std::get<std::string Config::*>(field.member)))
                errors.push_back({key, *problem});
        }
    }
    if (!errors.empty()) return errors;  // the consistency checks below assume every field is in range

    const auto n = detail::groupedNumber;
    if (config.kvHeads > config.heads)
        errors.push_back({"kv_heads", "kv_heads must be at most heads (" + n(config.heads) + "); got " + n(config.kvHeads)});
    else if (std::fmod(config.heads, config.kvHeads) != 0)
        errors.push_back({"kv_heads", "kv_heads must divide heads (" + n(config.heads) + "); got " + n(config.kvHeads)});
    if (config.headDim == 0 && std::fmod(config.hidden, config.heads) != 0)
        errors.push_back({"head_dim", "head_dim must be set (1 to 65,536) when hidden (" + n(config.hidden) +
                                          ") is not divisible by heads (" + n(config.heads) + ")"});
    // The TP sizes this model allows, named in every TP error so that a user (and the page) can pick one.
    const auto validTp = [&config, &n] {
        std::string list;
        for (double tp : validTensorParallel(config)) list += (list.empty() ? "" : ", ") + n(tp);
        return "; this model allows tp = " + list;
    };
    if (config.tp > config.heads)
        errors.push_back({"tp", "tp must be at most heads (" + n(config.heads) + "); got " + n(config.tp) + validTp()});
    // Megatron-LM and vLLM both refuse a TP group that would split an attention head: every rank holds whole heads.
    else if (std::fmod(config.heads, config.tp) != 0)
        errors.push_back({"tp", "tp must divide heads (" + n(config.heads) + "), so that each TP rank holds whole attention heads; got " +
                                    n(config.tp) + validTp()});
    // KV heads are split over TP ranks, or each replicated on tp / kv_heads ranks (vLLM); anything else cannot be laid out.
    else if (config.kvLoraRank == 0 && std::fmod(config.kvHeads, config.tp) != 0 && std::fmod(config.tp, config.kvHeads) != 0)
        errors.push_back({"tp", "tp must divide kv_heads (" + n(config.kvHeads) +
                                    ") or be a multiple of it, so that KV heads are "
                                    "split or replicated evenly; got " +
                                    n(config.tp) + validTp()});
    if (config.pp > config.layers) errors.push_back({"pp", "pp must be at most layers (" + n(config.layers) + "); got " + n(config.pp)});
    if (config.cp > config.seq) errors.push_back({"cp", "cp must be at most seq (" + n(config.seq) + "); got " + n(config.cp)});
    if (config.pp == 1 && (config.firstStageLayers != 0 || config.lastStageLayers != 0)) {
        const std::string key = config.firstStageLayers != 0 ? "first_stage_layers" : "last_stage_layers";
        errors.push_back({key, key + " needs pp > 1 (it sets an uneven pipeline split); got " + key + " = " +
                                   n(config.firstStageLayers != 0 ? config.firstStageLayers : config.lastStageLayers) + " with pp = 1"});
    } else if (config.firstStageLayers + config.lastStageLayers > config.layers)
        errors.push_back({"first_stage_layers", "first_stage_layers + last_stage_layers must be at most layers (" + n(config.layers) +
                                                    "); got " + n(config.firstStageLayers) + " + " + n(config.lastStageLayers)});
    else if (config.pp == 2 && config.firstStageLayers != 0 && config.lastStageLayers != 0 &&
             config.firstStageLayers + config.lastStageLayers != config.layers)
        errors.push_back(
            {"last_stage_layers", "with pp = 2, first_stage_layers + last_stage_layers must equal layers (" + n(config.layers) + ")"});
    else if (config.pp >= 2 && config.layers - config.firstStageLayers - config.lastStageLayers <
                                   config.pp - 2 + (config.firstStageLayers == 0) + (config.lastStageLayers == 0)) {
        const std::string key = config.firstStageLayers != 0 ? "first_stage_layers" : "last_stage_layers";
        const double otherStages = config.pp - (config.firstStageLayers != 0) - (config.lastStageLayers != 0);
        errors.push_back({key, "first_stage_layers + last_stage_layers must be at most " + n(config.layers - otherStages) + " (layers " +
                                   n(config.layers) + ", and a layer for each other pipeline stage); got " + n(config.firstStageLayers) +
                                   " + " + n(config.lastStageLayers)});
    }
    if (config.experts != 0) {
        const double etp = config.etp != 0 ? config.etp : config.tp;
        if (std::fmod(config.experts, config.ep) != 0)
            errors.push_back({"ep", "ep must divide experts (" + n(config.experts) + "); got " + n(config.ep)});
        else if (std::fmod(config.tp * config.cp * config.dp, etp * config.ep) != 0)
            errors.push_back({"ep", "EP × ETP (" + n(config.ep * etp) + ") must divide TP × CP × DP (" +
                                        n(config.tp * config.cp * config.dp) + "), the ranks that share a pipeline stage"});
        if (config.expertsPerToken > config.experts)
            errors.push_back({"experts_per_token",
                              "experts_per_token must be at most experts (" + n(config.experts) + "); got " + n(config.expertsPerToken)});
        // A MoE model has at least one MoE layer: the first after the leading dense ones.
        if (config.firstDenseLayers >= config.layers)
            errors.push_back({"first_dense_layers", "first_dense_layers must be less than layers (" + n(config.layers) +
                                                        ") when experts > 0, or no layer is a MoE layer; got " +
                                                        n(config.firstDenseLayers)});
        if (config.sharedExpertGate && config.sharedExpertFfn == 0)
            errors.push_back(
                {"shared_expert_gate", "shared_expert_gate needs a shared expert (shared_expert_ffn > 0); got shared_expert_ffn = 0"});
    }
    if (config.vpp > 1 && config.pp == 1)
        errors.push_back({"vpp", "vpp (virtual pipeline stages) needs pp > 1; got vpp = " + n(config.vpp) + " with pp = 1"});
    else if (config.vpp > 1 && std::none_of(errors.begin(), errors.end(), [](const Problem& p) {
                 return p.field == "pp" || p.field == "first_stage_layers" || p.field == "last_stage_layers";
             })) {
        // Megatron-LM splits each stage's layers into vpp equal model chunks (the split above is valid).
        const auto perStage = stageLayers(config);
        if (const auto odd = std::find_if(perStage.begin(), perStage.end(), [&config](double l) { return std::fmod(l, config.vpp) != 0; });
            odd != perStage.end())
            errors.push_back({"vpp", "vpp must divide the layers of every pipeline stage (stage " +
                                         n(static_cast<double>(odd - perStage.begin())) + " has " + n(*odd) + "); got " + n(config.vpp)});
        // Megatron-LM's interleaved schedule runs the micro-batches in groups of pp.
        if (config.mode == Mode::training && std::fmod(config.microbatches, config.pp) != 0)
            errors.push_back({"microbatches", "microbatches must be a multiple of pp (" + n(config.pp) +
                                                  ") with interleaving (vpp > 1); got " + n(config.microbatches)});
    }
    if (config.experts == 0 && config.firstDenseLayers != 0)
        errors.push_back({"first_dense_layers", "first_dense_layers needs a mixture-of-experts model (experts > 0); got " +
                                                    n(config.firstDenseLayers) + " with experts = 0"});
    if (config.mode == Mode::inference && config.method != Method::membudget)
        errors.push_back({"method", "method must be membudget in inference mode (the other sources model training); got " +
                                        quoted(toString(config.method))});
    const double modelParallel = config.tp * config.pp * config.cp;
    if (config.gpus != 0 && std::fmod(config.gpus, modelParallel) != 0)
        errors.push_back({"gpus", "gpus must be a multiple of TP × PP × CP = " + n(modelParallel) + "; got " + n(config.gpus)});
    return errors;
}

ParsedConfig applyAssignments(std::span<const Assignment> assignments, Config base) {
    ParsedConfig out{std::move(base), {}};
    auto apply = [&out](const Assignment& a) {
        const FieldSpec* field = findField(a.key);
        if (!field) {
            out.problems.push_back({a.key, "unknown key " + quoted(a.key) + " (ignored)"});
            return;
        }
        for (auto& problem : setFieldText(out.config, *field, a.text)) out.problems.push_back(std::move(problem));
    };
    // Presets first, so that explicit architecture and capacity keys override them whatever their order.
    for (const auto& a : assignments) {
        if (a.key != "model") continue;
        apply(a);
        if (const auto* preset = findModelPreset(a.text); preset && out.config.model == a.text) applyModelPreset(out.config, *preset);
    }
    for (const auto& a : assignments) {
        if (a.key != "gpu") continue;
        apply(a);
        if (const auto* preset = findGpuPreset(a.text); preset && out.config.gpu == a.text) applyGpuPreset(out.config, *preset);
    }
    for (const auto& a : assignments)
        if (a.key != "model" && a.key != "gpu") apply(a);
    // Only membudget's method models inference: choosing inference without naming a method selects it.
    const bool methodGiven = std::any_of(assignments.begin(), assignments.end(), [](const Assignment& a) { return a.key == "method"; });
    if (out.config.mode == Mode::inference && out.config.method != Method::membudget && !methodGiven) {
        out.notices.push_back({"method", "mode = inference selects method membudget (the " + std::string(toString(out.config.method)) +
                                             " method models training only)"});
        out.config.method = Method::membudget;
    }
    return out;
}

std::string jsonTypeWords(std::string_view type) {
    if (type == "null") return "null";
    if (type == "array" || type == "object") return "an " + std::string(type);
    return "a " + std::string(type);
}

void assignJsonValue(const JsonValue& value, AssignmentList& out) {
    const FieldSpec* field = findField(value.key);
    if (!field) {
        out.assignments.push_back({value.key, ""});  // applyAssignments reports it as unknown
        return;
    }
    const std::string name(field->key);
    const std::string_view want = field->kind == FieldKind::integer || field->kind == FieldKind::number ? "number"
                                  : field->kind == FieldKind::boolean                                   ? "boolean"
                                                                                                        : "string";
    // A boolean also takes 0/1 and the spelled forms as a string, as links and flags do (setFieldText checks them).
    const bool spelledBoolean = field->kind == FieldKind::boolean && (value.type == "number" || value.type == "string");
    if (value.type != want && !spelledBoolean) {
        out.problems.push_back({name, name + " must be " + describeRange(*field) + "; got " + jsonTypeWords(value.type)});
        return;
    }
    out.assignments.push_back({name, value.text});
}

std::vector<double> validTensorParallel(const Config& config) {
    std::vector<double> out;
    const double limit = std::min(config.heads, findField("tp")->max);
    for (double tp = 1; tp <= limit; ++tp)
        if (std::fmod(config.heads, tp) == 0 &&
            (config.kvLoraRank != 0 || std::fmod(config.kvHeads, tp) == 0 || std::fmod(tp, config.kvHeads) == 0))
            out.push_back(tp);
    return out;
}

void resetArchitecture(Config& config) {
    const Config defaults;
    for (const auto& field : fields()) {
        if (field.group != "model" || field.key == "model") continue;
        std::visit(
            [&config, &defaults](auto member) {
                if constexpr (std::is_same_v<decltype(member), ChoiceField>)
                    member.set(config, member.get(defaults));
                else
                    config.*member = defaults.*member;
            },
            field.member);
    }
}

Config presetBaseline(const Config& config) {
    Config baseline;
    if (const auto* preset = findModelPreset(config.model)) applyModelPreset(baseline, *preset);
    if (const auto* preset = findGpuPreset(config.gpu)) applyGpuPreset(baseline, *preset);
    return baseline;
}

bool isViewKey(std::string_view key) { return key == "embed" || key == "unit"; }

std::string encodeQuery(const Config& config) {
    // A preset id is compared with the default id; the fields a preset fills, with the preset's values.
    const Config defaults, baseline = presetBaseline(config);
    std::string query;
    for (const auto& field : fields()) {
        const bool presetKey = field.key == "model" || field.key == "gpu";
        const std::string value = fieldText(config, field);
        // mode = inference without a method selects membudget on decoding: any other method is written out, so
        // that the link decodes to this configuration.
        const bool keepMethod = field.key == "method" && config.mode == Mode::inference && config.method != Method::membudget;
        if (value == fieldText(presetKey ? defaults : baseline, field) && !keepMethod) continue;
        if (!query.empty()) query += '&';
        query += detail::percentEncode(field.key);
        query += '=';
        query += detail::percentEncode(value);
    }
    return query;
}

AssignmentList parseQuery(std::string_view query) {
    if (const size_t hash = query.find('#'); hash != std::string_view::npos) query = query.substr(0, hash);
    if (const size_t mark = query.find('?'); mark != std::string_view::npos) query.remove_prefix(mark + 1);
    AssignmentList out;
    size_t start = 0;
    while (start <= query.size()) {
        size_t end = query.find('&', start);
        if (end == std::string_view::npos) end = query.size();
        const std::string_view part = query.substr(start, end - start);
        start = end + 1;
        if (part.empty()) continue;
        const size_t eq = part.find('=');
        const auto key = detail::percentDecode(part.substr(0, eq));
        const auto value = eq == std::string_view::npos ? std::optional<std::string>{} : detail::percentDecode(part.substr(eq + 1));
        if (key && isViewKey(*key)) continue;
        if (!key || !value) {
            out.problems.push_back({key ? *key : std::string(), "malformed parameter " + quoted(part) + " (ignored)"});
            continue;
        }
        out.assignments.push_back({*key, *value});
    }
    auto duplicates = duplicateKeys(out.assignments);
    out.problems.insert(out.problems.end(), duplicates.begin(), duplicates.end());
    return out;
}

ParsedConfig decodeQuery(std::string_view query) {
    AssignmentList list = parseQuery(query);
    ParsedConfig out = applyAssignments(list.assignments);
    out.problems.insert(out.problems.begin(), list.problems.begin(), list.problems.end());
    return out;
}

// Reports every key given more than once and keeps only its last assignment.
std::vector<Problem> duplicateKeys(std::vector<Assignment>& assignments) {
    // Sets rather than scans of what is kept: a hostile link can carry hundreds of thousands of parameters,
    // which made this quadratic (seconds to minutes of a frozen page; found with tests/fuzz/fuzz_query).
    std::vector<Problem> problems;
    std::vector<Assignment> kept;
    std::set<std::string_view> keptKeys, reportedKeys;  // views into `assignments`, unchanged until the end
    for (auto it = assignments.rbegin(); it != assignments.rend(); ++it) {
        if (keptKeys.insert(it->key).second)
            kept.push_back(*it);
        else if (reportedKeys.insert(it->key).second)
            problems.push_back({it->key, it->key + " is given more than once; the last value is used"});
    }
    assignments.assign(kept.rbegin(), kept.rend());
    return problems;
}

}  // namespace membudget
