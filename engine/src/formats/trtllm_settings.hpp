// What TensorRT-LLM's command and its extra options YAML leave set (trtllm.hpp): the settings the mapping collects,
// shared by the files that read each part: trtllm.cpp (trtllm-serve and the text), trtllm_bench.cpp (trtllm-bench and
// its dataset), trtllm_options.cpp (the YAML, and the keys all of it gives). Internal.
#pragma once

#include <cmath>
#include <initializer_list>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "formats/reader.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/assignments.hpp"

namespace membudget::detail {

// TensorRT-LLM's settings as the command and its YAML leave them: LlmArgs' fields, each the command's value, replaced
// by the YAML's where it sets the key (update_llm_args_with_extra_dict: llm_args | llm_args_dict, a shallow merge).
// A number is nothing where neither says it, NaN where one says it in a way that does not read.
struct Settings {
    bool bench = false, latency = false;
    std::optional<double> tp, pp, ep, moeTp;  // ep, moe_tp unset: -1, "auto" (Mapping: experts over TP, ep 1)
    std::optional<double> maxBatch, maxTokens, maxSeq;
    std::optional<double> fraction;  // KvCacheConfig.free_gpu_memory_fraction, 0.9 unless said
    std::optional<double> tokensPerBlock;
    std::string kvDtype = "auto";
    std::string dtype = "auto";  // LlmArgs.dtype: the activations' (and an unquantized checkpoint's weights')
    bool graphs = true;          // cuda_graph_config: default_factory=CudaGraphConfig; null turns it off
    bool graphsFromYaml = false;
    std::optional<double> graphMax;
    bool padding = false;
    bool attentionDp = false;
    bool chunked = false, chunkedSaid = false;
    // trtllm-bench's: the requests in flight and the dataset.
    std::optional<double> concurrency, requests, inputMean, outputMean;
    bool fixedLengths = true;
    bool dataset = false;  // generated in the text (prepare_dataset.py token-norm-dist)
};

// The checkpoint a Hub id names: its preset and the format TensorRT-LLM loads its weights in (the checkpoint's
// hf_quant_config.json from NVIDIA ModelOpt, or config.json's quantization_config; TensorRT-LLM has no option
// that quantizes an unquantized checkpoint on load in the PyTorch backend).
struct Checkpoint {
    std::string weights = "bf16";  // "" where not modelled (NVFP4)
    bool modelopt = false;         // NVIDIA's -FP8 checkpoints (ModelOpt), which often quantize the KV cache too
    bool native = false;           // published in FP8 by its authors (DeepSeek-V3 and R1)
};

// Whether a Hub id (lower case) is a checkpoint its authors publish in FP8: deepseek-ai's DeepSeek-V3 and R1
// (config.json quantization_config: quant_method fp8, 128 × 128 block scales), which TensorRT-LLM serves as they are.
bool publishedInFp8(std::string_view lowerId);

// A number from an option: nothing where the option is absent, NaN where it is there but its value does not read (an
// unresolved $VAR, listed as unmapped by flagNumber): its key is then left unset, never defaulted.
std::optional<double> numberOf(Mapping& m, Words& w, std::initializer_list<std::string_view> names);
// The same for a YAML key.
std::optional<double> numberAt(Document& d, std::string_view path);
inline bool known(const std::optional<double>& v) { return v && std::isfinite(*v); }  // set and finite

// The requests a server keeps in flight for a max_batch_size: under enable_attention_dp every TP rank runs its own
// scheduler over its own requests (Mapping.enable_attention_dp; NVIDIA's DeepSeek-R1 best-practice blog runs
// "Batch = 1024" on 8 GPUs with --max_batch_size 128 and --concurrency 1024), so the server keeps tp × that.
inline double requestsInFlight(const Settings& s, double maxBatch) { return s.attentionDp && known(s.tp) ? maxBatch * *s.tp : maxBatch; }
inline bool looksLikeOption(std::string_view word) { return word.size() > 1 && word[0] == '-'; }

// The extra options: the YAML alone (importTrtllm's whole import when the text is no command), or the here-document
// the command's --extra_llm_api_options (--config) names, read over the command's settings.
void importTrtllmOptions(const ImportInput& input, Mapping& m);
void readExtraOptions(const Words& w, Flag* options, const std::vector<JsonValue>& values, Settings& s, Mapping& m);

// trtllm-bench: its group's options and subcommand (the model, "throughput", "latency"), the subcommand's options, the
// dataset generated beside it, and what it decides itself (the batch, the tokens, its CUDA graphs) once all is read.
struct BenchCommand {
    std::optional<std::string> model;
    std::string modelOption = "model";
    std::string subcommand;
};
BenchCommand readBenchCommand(Words& w, size_t program, Mapping& m);
void readBench(Words& w, Settings& s, Mapping& m, const std::string& subcommand);
void readDataset(Words& data, Settings& s, Mapping& m);
void finishBench(Settings& s, Mapping& m);
extern const std::set<std::string_view> kTrtllmBenchIgnored;

// The membudget keys for the settings and the checkpoint.
void writeKeys(Settings s, const Checkpoint& checkpoint, Mapping& m);

}  // namespace membudget::detail
