// The configuration: one flat record whose keys are the same in JSON, CLI flags and URL queries.
// The field table below is the single description of it that validation, the CLI, the query codec and
// the page's form are generated from.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <variant>

#include <vector>
#include "membudget/choices.hpp"

namespace membudget {

inline constexpr double kBytesPerGB = 1e9;                        // decimal gigabyte, as the chapter uses
inline constexpr double kBytesPerGiB = 1073741824.0;              // 2^30, what allocators and nvidia-smi count in
inline constexpr double kBytesPerMiB = 1048576.0;                 // 2^20
inline constexpr double kExactIntegerLimit = 9007199254740992.0;  // 2^53: doubles are exact integers below this

// Integer fields are held as double so that the same record crosses into JavaScript unchanged; the
// validator checks they are integral. Choices are enums (membudget/choices.hpp), their ids only at the
// boundaries; model and gpu are preset ids, and name is free text.
// Member initialisers are the chapter's 70B example (section 4): TP=8, PP=1, DP=32, b=1, s=4096, full
// checkpointing, an 80 GB GPU. A test checks they equal the `chapter-70b` and `generic-80gb` presets.
struct Config {
    // model
    std::string model = "chapter-70b";
    std::string name;      // a custom or imported model's own name (config.json's _name_or_path); "" for a preset
    double params = 70e9;  // Ψ; 0 derives it from the architecture
    double hidden = 8192;
    double layers = 80;
    double heads = 64;
    double kvHeads = 8;
    double headDim = 0;  // 0 means hidden / heads
    double ffn = 28672;
    double vocab = 128256;
    bool gatedFfn = true;
    bool tiedEmbeddings = false;
    Norm norm = Norm::rmsnorm;
    bool bias = false;
    bool qkvBias = false;  // biases on Q, K, V only (Qwen2)
    double posEmb = 0;     // rows of a learned absolute position embedding; 0 for rotary
    // mixture of experts (experts = 0: dense)
    double experts = 0;
    double expertsPerToken = 2;
    double moeFfn = 0;           // 0: ffn
    double sharedExpertFfn = 0;  // 0: no shared expert
    double moeLayerFreq = 1;     // from first_dense_layers on, every moe_layer_freq-th layer is MoE
    double firstDenseLayers = 0;
    bool routerBias = false;        // a per-expert router bias (DeepSeek-V3's e_score_correction_bias)
    bool sharedExpertGate = false;  // a sigmoid gate h -> 1 on the shared expert's output (Qwen2-MoE)
    double mtpLayers = 0;           // multi-token-prediction layers (DeepSeek-V3: 1), on the last stage
    double capacityFactor = 1;
    // multi-head latent attention (kv_lora_rank = 0: standard attention)
    double kvLoraRank = 0;
    double qLoraRank = 0;   // 0: a full-rank query projection
    double qkRopeDim = 64;  // decoupled rotary dimension of Q and K
    double qkNopeDim = 0;   // 0: head_dim
    double vHeadDim = 0;    // 0: head_dim
    // parallelism
    double tp = 8;
    double pp = 1;
    double dp = 32;
    double cp = 1;
    bool sp = false;
    double zero = 1;
    double gpus = 0;              // 0 means TP × PP × CP × DP
    double ep = 1;                // expert parallel
    double etp = 0;               // expert tensor parallel; 0 means TP
    double vpp = 1;               // virtual pipeline stages (interleaved 1F1B) per rank
    double firstStageLayers = 0;  // 0: an even split
    double lastStageLayers = 0;
    // training
    double mb = 1;
    double seq = 4096;
    Checkpointing ckpt = Checkpointing::full;
    double ckptEvery = 1;        // checkpoint every Nth layer (torchtitan selective_ac_option = N; 1: every layer)
    double recomputeLayers = 0;  // Megatron-LM recompute_num_layers (recompute_method block); 0: every layer
    double microbatches = 32;
    double staticBytes = 16;
    ActFormula actFormula = ActFormula::table;
    Attention attention = Attention::flash;
    bool dropout = false;
    Optimizer optimizer = Optimizer::adamw;  // adamw, adamw_8bit, adafactor, sgd, muon (method membudget)
    Precision precision = Precision::bf16;   // bf16, fp16, fp8, fp32 (method membudget)
    bool masterWeights = true;
    OptimizerDtype optimizerDtype = OptimizerDtype::automatic;
    bool optimizerInBackward = false;  // each gradient freed right after its parameter's step (torchtune)
    Fp8Recipe fp8Recipe = Fp8Recipe::te;
    // Fine-tuning (docs/frameworks.md, "Fine-tuning"): frozen base weights and trained low-rank adapters.
    Finetune finetune = Finetune::full;
    double loraRank = 16;
    std::string loraTargets = "q,v";  // q,k,v,o,gate,up,down,output or attention, mlp, all_linear
    bool loraDropout = false;
    LoraDtype loraDtype = LoraDtype::automatic;
    double lossChunks = 0;           // the loss in chunks of the sequence (torchtune num_output_chunks); 0: the framework's
    bool activationOffload = false;  // layer inputs kept on the CPU (torchtune enable_activation_offloading)
    bool compile = false;            // torch.compile of each block
    bool expandableSegments =
        false;  // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True               // an FP32 master copy of BF16/FP16/FP8 weights
    // hardware
    std::string gpu = "generic-80gb";
    double gpuGb = 80;
    double buffersGb = 2;
    double contextGb = 1;
    double headroom = 0.10;
    double gpusPerNode = 8;
    // speed (the step-time estimate): the GPU preset's, or the user's for another GPU
    double peakTflops = 989.4;           // dense BF16 tensor-core peak, TFLOP/s
    double fp8Tflops = 1978.9;           // dense FP8 peak, TFLOP/s; 0: no FP8 tensor cores (FP8 runs at the BF16 rate)
    double matmulEfficiency = 0.803;     // the fraction of the BF16 peak a large GEMM reaches (MAMF)
    double fp8MatmulEfficiency = 0.709;  // the same for FP8 GEMMs; 0: matmul_efficiency
    double tdpW = 700;                   // the GPU's rated power, W
    double powerLimitW = 0;              // a lower power cap (nvidia-smi -pl), W; 0: the rated power
    double hbmTbps = 3.35;               // memory bandwidth, TB/s
    double nvlinkGbps = 450;             // GPU-to-GPU inside a node, per direction, GB/s
    double networkGbps = 50;             // per GPU between nodes, per direction, GB/s
    Offload offload = Offload::none;     // ZeRO-Offload: none, optimizer, all (optimizer and parameters)
    bool zeroInit = true;                // DeepSpeed zero.Init: parameters partitioned as they are created
    // inference (mode = inference: mb is the number of concurrent sequences, seq the tokens of each)
    Mode mode = Mode::training;
    WeightDtype weightDtype = WeightDtype::bf16;
    KvDtype kvDtype = KvDtype::bf16;
    double quantGroup = 128;        // INT4 weights: input channels per scale/zero group (AWQ, GPTQ)
    double kvBlock = 16;            // tokens per KV-cache block (vLLM's block_size); 1 = no rounding
    double workspaceTokens = 8192;  // tokens in one forward pass (vLLM's max_num_batched_tokens)
    double cudaGraphsGb = 0;
    // method
    Method method = Method::chapter;
    Framework framework = Framework::megatron;

    bool operator==(const Config&) const = default;
};

// torchtitan and torchtune shard with FSDP2's fully_shard or not at all: ZeRO 0 or 3 (validate() refuses 1 and 2,
// the planner tries only those).
inline bool shardsAllOrNothing(Framework framework) { return framework == Framework::torchtitan || framework == Framework::torchtune; }

enum class FieldKind { integer, number, boolean, choice, text };

// Longest text of a text field (characters).
inline constexpr size_t kMaxTextLength = 100;

// A choice field held as an enum: read and written by its id.
struct ChoiceField {
    std::string_view (*get)(const Config&);  // "" for a value outside the enum
    // An id the enum does not have stores a value no id names (validate() refuses it by the field's name) and
    // returns false: what the wasm boundary does with an unknown id from JavaScript.
    bool (*set)(Config&, std::string_view id);
};

using FieldMember = std::variant<double Config::*, bool Config::*, std::string Config::*, ChoiceField>;

struct FieldSpec {
    std::string_view key;    // the one name used in JSON, `--key` and `?key=`
    std::string_view label;  // for tables and forms
    std::string_view group;  // model, parallelism, training, hardware, method
    FieldKind kind;
    FieldMember member;
    double min = 0;  // inclusive range for integer and number fields
    double max = 0;
    bool zeroMeansAuto = false;        // 0 is allowed outside [min, max] and means autoMeaning
    std::string_view autoMeaning;      // what 0 stands for
    std::vector<double> allowed;       // a fixed set of values for an integer field (empty: any in range)
    std::vector<std::string> choices;  // for choice fields
    std::string_view unit;
    std::string_view help;
    std::string_view section;  // where the field's meaning comes from
};

// The field table, in canonical order (the order of URL queries, CLI help and the form).
std::span<const FieldSpec> fields();
const FieldSpec* findField(std::string_view key);

// The allowed values of a field in words, as every error message states them.
std::string describeRange(const FieldSpec& field);

// The value of one field as canonical text: shortest round-trip decimal for numbers, true/false, ids.
std::string fieldText(const Config& config, const FieldSpec& field);

// A choice field (enum or preset id) by its id: read, and written (false when the id is not one of its choices).
std::string_view choiceText(const Config& config, const FieldSpec& field);
bool setChoiceText(Config& config, const FieldSpec& field, std::string_view id);

struct Problem {
    std::string field;  // a key of the field table, or "" for the configuration as a whole
    std::string message;

    bool operator==(const Problem&) const = default;
};

// Sets one field from text (a query value, a CLI flag). Type errors ("abc" for an integer, NaN,
// Infinity, an unknown choice) come back as a Problem and leave the field unchanged; range and
// consistency are checked by validate().
std::vector<Problem> setFieldText(Config& config, const FieldSpec& field, std::string_view text);

// Every range and consistency error of a configuration, each naming its field and the allowed range.
std::vector<Problem> validate(const Config& config);

// The tensor-parallel sizes the model's heads allow (TP divides the heads, and divides the KV heads or is a
// multiple of them), up to the field's maximum.
std::vector<double> validTensorParallel(const Config& config);

// Resets every architecture field (group model) but `model` to the custom model's defaults: what an import
// starts from, so that what one config.json leaves unset never comes from the model before it.
void resetArchitecture(Config& config);

struct Assignment {
    std::string key;
    std::string text;
};

// Assignments read from one source (a query, a JSON object), with what could not be read from it:
// malformed parameters and keys given twice (the last one wins).
struct AssignmentList {
    std::vector<Assignment> assignments;
    std::vector<Problem> problems;
};

struct ParsedConfig {
    Config config;
    std::vector<Problem> problems;  // unknown keys and malformed values, which were skipped
    std::vector<Problem> notices;   // what the engine chose for the user (mode = inference selects method membudget)
};

// Reports every key given more than once and keeps only its last assignment.
std::vector<Problem> duplicateKeys(std::vector<Assignment>& assignments);

// Applies key=text assignments in order on top of `base`: the model and GPU presets first (so that
// explicit architecture or capacity keys override them whatever their order), then every other key,
// a later assignment of a key overriding an earlier one.
ParsedConfig applyAssignments(std::span<const Assignment> assignments, Config base = Config{});

// The configuration a preset choice implies: the defaults with config.model's and config.gpu's presets
// applied. The query codec writes only the fields that differ from it.
Config presetBaseline(const Config& config);

// Keys that belong to the page's view (`embed`, `unit`), not to the configuration; the codec passes
// over them without a notice.
bool isViewKey(std::string_view key);

// URL query codec: `tp=8&pp=4`, keys in canonical order, only fields that differ from presetBaseline.
// parseQuery takes a bare query, one starting with '?', or a whole URL.
std::string encodeQuery(const Config& config);
AssignmentList parseQuery(std::string_view query);
ParsedConfig decodeQuery(std::string_view query);

// A Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2, DeepSeek-V3, GPT-2, GPT-NeoX styles) mapped onto
// the architecture fields of `base`, with model = custom, params = 0 (derived) and method = membudget.
// `errors`: not a config (invalid JSON, not an object, a size missing or not a number); `notices`: fields
// that change memory but that membudget cannot model yet (experts, MLA), each named. With errors, config
// is `base`.
struct HfImport {
    Config config;
    std::vector<Problem> errors;
    std::vector<Problem> notices;
};

// One value of a JSON document as the engine reads it, whatever parsed it (nlohmann/json in the CLI, JSON.parse
// on the page): its key or path, its JSON type (number, string, boolean, null, array, object) and its text
// (numbers as shortest decimals; an array's first string element; objects empty).
struct JsonValue {
    std::string key;
    std::string type;
    std::string text;
};
using HfValue = JsonValue;  // a config.json's top-level values

// One configuration key's JSON value, type-checked as the field's kind wants it (numbers for integer and number
// fields, true/false for booleans, strings for choices and text): an assignment, or a problem naming the key.
// An unknown key becomes an assignment that applyAssignments reports.
void assignJsonValue(const JsonValue& value, AssignmentList& out);

// "a number", "an object", "null": a JSON type as messages name it.
std::string jsonTypeWords(std::string_view type);

// rootType: "object", another JSON type name, or "invalid" when the text did not parse.
HfImport importHfFields(std::string_view rootType, std::span<const HfValue> fields, const Config& base = Config{});

}  // namespace membudget
