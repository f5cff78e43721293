// The choices a configuration and a result hold, as enums inside the engine and the CLI; their names (the ids
// of JSON, links, flags, the wasm boundary and the page's string unions) are written once, here, in the order
// of the enumerators.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string_view>

namespace membudget {

enum class Norm : std::uint8_t { rmsnorm, layernorm };
// An RMSNorm on the queries and keys before attention: one of head_dim shared by the heads (Qwen3, Gemma 3,
// GLM-4.5's use_qk_norm), or one over the whole projection, a·d for Q and kv·d for K (OLMo 2).
enum class QkNorm : std::uint8_t { none, perHead, fullWidth };
// op: torchtitan's op-level selective checkpointing (a save list of ops, every other matmul).
enum class Checkpointing : std::uint8_t { none, selective, full, op };
// The training framework whose behaviour the membudget method models: what it saves, in which dtype, when it
// frees gradients, how its loss upcasts the logits (docs/frameworks.md).
// The training frameworks, then the serving engines (mode inference): vLLM and SGLang.
enum class Framework : std::uint8_t { megatron, torchtitan, torchtune, deepspeed, hfAccelerate, vllm, sglang, trtllm };
constexpr bool servesInference(Framework f) { return f == Framework::vllm || f == Framework::sglang || f == Framework::trtllm; }
enum class Fp8Recipe : std::uint8_t { te, torchao };
// How a MoE layer sends its tokens to the expert ranks: NCCL all-to-all (torchtitan's "standard", Megatron-LM's
// alltoall), or DeepEP's kernels through their own communication buffer (torchtitan's deepep, Megatron-LM's flex
// dispatcher with DeepEP).
enum class MoeDispatcher : std::uint8_t { alltoall, deepep };
// Fine-tuning: every weight trained, or frozen base weights with low-rank adapters (LoRA, Hu et al. 2021), the
// base in NF4 for QLoRA (Dettmers et al. 2023).
enum class Finetune : std::uint8_t { full, lora, qlora };
// The adapters' dtype; automatic: the framework's (torchtune: the model's BF16; PEFT and the others: FP32).
enum class LoraDtype : std::uint8_t { automatic, fp32, bf16 };
// automatic: the framework's own (torchtune: the parameters' dtype; the others FP32).
enum class OptimizerDtype : std::uint8_t { automatic, fp32, bf16 };
enum class ActFormula : std::uint8_t { table, worked };
// triton: a FlashAttention-style fused kernel written in Triton (FlashAttention's Triton version; MPT's attn_impl
// triton): it saves what flash saves, and runs slower (docs/planner.md, "Step time").
enum class Attention : std::uint8_t { flash, eager, triton };
// Megatron-LM's account_for_embedding_in_pipeline_split / account_for_loss_in_pipeline_split: the embedding, the
// loss, or both count as a layer when the layers are split over the pipeline.
enum class SplitAccounts : std::uint8_t { none, embedding, loss, both };
enum class Optimizer : std::uint8_t { adamw, adamw8bit, adafactor, sgd, muon };
enum class Precision : std::uint8_t { bf16, fp16, fp8, fp32 };
enum class Offload : std::uint8_t { none, optimizer, all };
enum class Mode : std::uint8_t { training, inference };
enum class WeightDtype : std::uint8_t { bf16, fp16, fp8, int8, int4 };
// The routed experts' stored format: weight_dtype's, or MXFP4 (gpt-oss: 4-bit E2M1 pairs with an E8M0 scale per 32).
enum class ExpertWeights : std::uint8_t { same, mxfp4 };
enum class KvDtype : std::uint8_t { bf16, fp16, fp8 };
// A Mamba layer's SSM state in vLLM (mamba_ssm_cache_dtype; NemotronH's hook takes the config's, float32 by default).
enum class StateDtype : std::uint8_t { fp32, bf16, fp16 };
enum class Method : std::uint8_t { membudget, chapter, korthikanti, megatron, zero, deepspeed };
enum class Verdict : std::uint8_t { fits, tight, doesNotFit };
enum class StepPhase : std::uint8_t { forwardBackward, optimizerStep };
// A configuration file membudget imports and exports (docs/import.md); hf is a Hugging Face config.json.
enum class ImportFormat : std::uint8_t { megatron, torchtitan, torchtune, deepspeed, hf, vllm, sglang, trtllm };
// How a file of a format is written, so that the CLI and the page pick the same parser. words_yaml: a shell script's
// words, and the YAML of its here-documents with the file each writes (TensorRT-LLM's extra options pasted beside
// the command).
enum class ImportSyntax : std::uint8_t { json, toml, yaml, words, words_yaml };
// A line of the checklist (training and inference), and of the host-memory ledger of ZeRO-Offload.
enum class LineId : std::uint8_t {
    parameters,
    gradients,
    optimizer,
    activations,
    workspace,
    kvCache,
    cudaGraphs,
    buffers,
    cudaContext,
    cpuOptimizer,
    cpuMaster,
    cpuGradients,
    cpuParameters,
    cpuModelStates
};

template <class E>
struct ChoiceNames;  // names[i] is the id of the enumerator whose value is i

template <>
struct ChoiceNames<Norm> {
    static constexpr std::array<std::string_view, 2> names{"rmsnorm", "layernorm"};
};
template <>
struct ChoiceNames<QkNorm> {
    static constexpr std::array<std::string_view, 3> names{"none", "per_head", "full_width"};
};
template <>
struct ChoiceNames<Checkpointing> {
    static constexpr std::array<std::string_view, 4> names{"none", "selective", "full", "op"};
};
template <>
struct ChoiceNames<Framework> {
    static constexpr std::array<std::string_view, 8> names{"megatron",      "torchtitan", "torchtune", "deepspeed",
                                                           "hf_accelerate", "vllm",       "sglang",    "trtllm"};
};
template <>
struct ChoiceNames<ImportFormat> {
    static constexpr std::array<std::string_view, 8> names{"megatron", "torchtitan", "torchtune", "deepspeed",
                                                           "hf",       "vllm",       "sglang",    "trtllm"};
};
template <>
struct ChoiceNames<ImportSyntax> {
    static constexpr std::array<std::string_view, 5> names{"json", "toml", "yaml", "words", "words_yaml"};
};
template <>
struct ChoiceNames<Finetune> {
    static constexpr std::array<std::string_view, 3> names{"full", "lora", "qlora"};
};
template <>
struct ChoiceNames<LoraDtype> {
    static constexpr std::array<std::string_view, 3> names{"auto", "fp32", "bf16"};
};
template <>
struct ChoiceNames<Fp8Recipe> {
    static constexpr std::array<std::string_view, 2> names{"te", "torchao"};
};
template <>
struct ChoiceNames<MoeDispatcher> {
    static constexpr std::array<std::string_view, 2> names{"alltoall", "deepep"};
};
template <>
struct ChoiceNames<OptimizerDtype> {
    static constexpr std::array<std::string_view, 3> names{"auto", "fp32", "bf16"};
};
template <>
struct ChoiceNames<ActFormula> {
    static constexpr std::array<std::string_view, 2> names{"table", "worked"};
};
template <>
struct ChoiceNames<SplitAccounts> {
    static constexpr std::array<std::string_view, 4> names{"none", "embedding", "loss", "both"};
};
template <>
struct ChoiceNames<Attention> {
    static constexpr std::array<std::string_view, 3> names{"flash", "eager", "triton"};
};
template <>
struct ChoiceNames<Optimizer> {
    static constexpr std::array<std::string_view, 5> names{"adamw", "adamw_8bit", "adafactor", "sgd", "muon"};
};
template <>
struct ChoiceNames<Precision> {
    static constexpr std::array<std::string_view, 4> names{"bf16", "fp16", "fp8", "fp32"};
};
template <>
struct ChoiceNames<Offload> {
    static constexpr std::array<std::string_view, 3> names{"none", "optimizer", "all"};
};
template <>
struct ChoiceNames<Mode> {
    static constexpr std::array<std::string_view, 2> names{"training", "inference"};
};
template <>
struct ChoiceNames<ExpertWeights> {
    static constexpr std::array<std::string_view, 2> names{"same", "mxfp4"};
};
template <>
struct ChoiceNames<WeightDtype> {
    static constexpr std::array<std::string_view, 5> names{"bf16", "fp16", "fp8", "int8", "int4"};
};
template <>
struct ChoiceNames<KvDtype> {
    static constexpr std::array<std::string_view, 3> names{"bf16", "fp16", "fp8"};
};
template <>
struct ChoiceNames<StateDtype> {
    static constexpr std::array<std::string_view, 3> names{"fp32", "bf16", "fp16"};
};
template <>
struct ChoiceNames<Method> {
    static constexpr std::array<std::string_view, 6> names{"membudget", "chapter", "korthikanti", "megatron", "zero", "deepspeed"};
};
template <>
struct ChoiceNames<Verdict> {
    static constexpr std::array<std::string_view, 3> names{"fits", "tight", "does_not_fit"};
};
template <>
struct ChoiceNames<StepPhase> {
    static constexpr std::array<std::string_view, 2> names{"forward/backward", "optimizer step"};
};

template <>
struct ChoiceNames<LineId> {
    static constexpr std::array<std::string_view, 14> names{
        "parameters", "gradients",    "optimizer",     "activations", "workspace",     "kv_cache",       "cuda_graphs",
        "buffers",    "cuda_context", "cpu_optimizer", "cpu_master",  "cpu_gradients", "cpu_parameters", "cpu_model_states"};
};

// The id of a choice; "" for a value outside its enumerators (a Config set directly from JavaScript with an
// unknown id holds one, and validate() refuses it by name).
template <class E>
constexpr std::string_view toString(E value) {
    const auto index = static_cast<std::size_t>(value);
    return index < ChoiceNames<E>::names.size() ? ChoiceNames<E>::names[index] : std::string_view();
}

// "" for none (a result with errors has no verdict).
template <class E>
constexpr std::string_view toString(const std::optional<E>& value) {
    return value ? toString(*value) : std::string_view();
}

template <class E>
constexpr std::optional<E> parseChoice(std::string_view text) {
    for (std::size_t i = 0; i < ChoiceNames<E>::names.size(); ++i)
        if (ChoiceNames<E>::names[i] == text) return static_cast<E>(i);
    return std::nullopt;
}

template <class E>
constexpr bool isValid(E value) {
    return static_cast<std::size_t>(value) < ChoiceNames<E>::names.size();
}

// An enumerator no id names: what an unknown id from the wasm boundary becomes.
template <class E>
constexpr E invalidChoice() {
    return static_cast<E>(0xFF);
}

// A choice prints as its id (the CLI's text, test messages).
template <class E>
requires requires { ChoiceNames<E>::names; }
std::ostream& operator<<(std::ostream& out, E value) { return out << toString(value); }
template <class E>
requires requires { ChoiceNames<E>::names; }
std::ostream& operator<<(std::ostream& out, const std::optional<E>& value) { return out << toString(value); }

}  // namespace membudget
