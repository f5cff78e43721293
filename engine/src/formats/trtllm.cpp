// TensorRT-LLM's PyTorch backend (trtllm.hpp): a `trtllm-serve` or `trtllm-bench` command read into membudget's keys
// over the shared reader: the text's lines, the model and its checkpoint, trtllm-serve's options, and the order of the
// import (trtllm-bench's options are read in trtllm_bench.cpp, the extra options YAML in trtllm_options.cpp; the export
// is trtllm_export.cpp). Each default taken where the text is silent names the TensorRT-LLM function or field that sets
// it: tensorrt_llm/commands/serve.py (click command `serve`, get_llm_args), tensorrt_llm/llmapi/llm_args.py (LlmArgs,
// BuildConfig), tensorrt_llm/mapping.py (Mapping), 1.0 to 1.2.
#include "formats/trtllm.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "formats/framework_names.hpp"
#include "formats/reader.hpp"
#include "formats/trtllm_settings.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// click's is_flag options: trtllm-serve's (serve.py), trtllm-bench's (throughput.py, low_latency.py) and
// prepare_dataset.py's --stdout.
const std::set<std::string_view> kTrtllmSwitches{"--trust_remote_code",
                                                 "--enable_chunked_prefill",
                                                 "--fail_fast_on_attention_window_too_large",
                                                 "--streaming",
                                                 "--enable_chunked_context",
                                                 "--disable_chunked_context",
                                                 "--no_skip_tokenizer_init",
                                                 "--stdout"};

namespace {

// Options with no effect on the memory or the layout membudget models.
const std::set<std::string_view> kServeIgnored{"--host",
                                               "--port",
                                               "--log_level",
                                               "--trust_remote_code",
                                               "--tokenizer",
                                               "--num_postprocess_workers",
                                               "--reasoning_parser",
                                               "--tool_parser",
                                               "--chat_template",
                                               "--revision",
                                               "--custom_module_dirs",
                                               "--otlp_traces_endpoint",
                                               "--metadata_server_config_file",
                                               "--server_role",
                                               "--disagg_cluster_uri",
                                               "--media_io_kwargs",
                                               "--fail_fast_on_attention_window_too_large",
                                               "--gpus_per_node"};

// The program a word runs: its last path component ("/usr/local/bin/trtllm-serve" runs trtllm-serve).
std::string_view program(std::string_view word) {
    const size_t slash = word.rfind('/');
    return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool isAssignment(std::string_view word) {
    const size_t eq = word.find('=');
    return eq != std::string_view::npos && eq > 0 && isIdentifier(word.substr(0, eq));
}

// A line of assignments only (NAME=VALUE …, export NAME=VALUE): the variables a command's words resolve from.
bool assignsOnly(const std::vector<std::string>& line) {
    size_t i = 0;
    if (!line.empty() && (line[0] == "export" || line[0] == "local" || line[0] == "declare" || line[0] == "readonly")) i = 1;
    if (i >= line.size()) return false;
    return std::all_of(line.begin() + static_cast<std::ptrdiff_t>(i), line.end(), [](const std::string& w) { return isAssignment(w); });
}

enum class LineKind { other, serve, bench, dataset };

// Where a line's command starts (the program's word) and what it runs: trtllm-serve, trtllm-bench, or the dataset
// generator (benchmarks/cpp/prepare_dataset.py, or trtllm-bench's prepare-dataset group in newer releases).
std::pair<LineKind, size_t> kindOf(const std::vector<std::string>& line) {
    std::pair<LineKind, size_t> found{LineKind::other, 0};
    for (size_t i = 0; i < line.size(); ++i) {
        const std::string_view p = program(line[i]);
        if (p == "prepare_dataset.py") return {LineKind::dataset, i};
        if (found.first == LineKind::other && p == "trtllm-serve") found = {LineKind::serve, i};
        if (found.first == LineKind::other && p == "trtllm-bench") found = {LineKind::bench, i};
        if (found.first == LineKind::bench && line[i] == "prepare-dataset") return {LineKind::dataset, found.second};
    }
    return found;
}

// A command's words as Words reads them: the assignment lines of the text, in order, and the command from its program
// on (a launcher before it, mpirun or trtllm-llmapi-launch, is not TensorRT-LLM's and its options are not read),
// keeping the NAME=VALUE words that prefix the line.
std::vector<std::vector<std::string>> commandLines(const std::vector<std::vector<std::string>>& lines, size_t chosen, size_t start) {
    std::vector<std::vector<std::string>> out;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (i == chosen) {
            std::vector<std::string> words;
            for (size_t k = 0; k < start && isAssignment(lines[i][k]); ++k) words.push_back(lines[i][k]);
            words.insert(words.end(), lines[i].begin() + static_cast<std::ptrdiff_t>(start), lines[i].end());
            out.push_back(std::move(words));
        } else if (assignsOnly(lines[i])) {
            out.push_back(lines[i]);
        }
    }
    return out;
}

// The first word after `from` that is neither an option nor an option's value (click's positional arguments and
// subcommands), with its index; Words takes an option's next word as its value unless it is a switch or another option.
std::optional<std::pair<std::string, size_t>> nextArgument(Words& w, size_t from) {
    const auto& all = w.all();
    for (size_t i = from; i < all.size(); ++i) {
        const std::string& word = all[i];
        if (!looksLikeOption(word)) return std::pair{word, i};
        const bool takesValue = word.find('=') == std::string::npos && !kTrtllmSwitches.count(word);
        if (takesValue && i + 1 < all.size() && !looksLikeOption(all[i + 1])) ++i;
    }
    return std::nullopt;
}

// A Hub id's preset: the id itself (framework_names.hpp kHubModels), or, for a checkpoint another organisation
// re-published (nvidia/Llama-3.3-70B-Instruct-FP8), its name without the quantization suffix against the listed names.
std::string_view presetOfCheckpoint(const std::string& lowerId, std::string_view lowerBaseName) {
    if (const std::string_view preset = presetOfHubId(lowerId); !preset.empty()) return preset;
    for (const auto& h : kHubModels) {
        const std::string id = lower(h.id);
        const size_t slash = id.find('/');
        if (std::string_view(id).substr(slash + 1) == lowerBaseName) return h.preset;
    }
    return {};
}

Checkpoint readModel(Mapping& m, const std::optional<std::string>& model, std::string_view option, const std::string& unresolved) {
    Checkpoint c;
    if (!unresolved.empty()) {
        m.unmapped(std::string(option), model.value_or(""),
                   "depends on " + unresolved + ", which the script does not set to a literal value");
    } else if (model) {
        const std::string id = lower(*model);
        const size_t slash = id.find('/');
        std::string name = slash == std::string::npos ? id : id.substr(slash + 1);
        // NVIDIA's quantized checkpoints name their format last: -FP8, -FP4, -NVFP4 (-FP4-v2, -FP8-Dynamic).
        std::string quant;
        for (const std::string_view token : {"-nvfp4", "-fp4", "-fp8"}) {
            for (size_t at = name.find(token); at != std::string::npos; at = name.find(token, at + 1))
                if (at + token.size() == name.size() || name[at + token.size()] == '-') {
                    quant = std::string(token.substr(1));
                    name = name.substr(0, at);
                    break;
                }
            if (!quant.empty()) break;
        }
        const std::string_view preset = presetOfCheckpoint(id, name);
        if (!preset.empty())
            m.set("model", std::string(preset));
        else
            m.unmapped(std::string(option), *model, "not a preset; import its config.json (format hf) for the architecture");
        if (quant == "fp8") {
            c.weights = "fp8";
            c.modelopt = true;
        } else if (!quant.empty()) {
            c.weights.clear();
            m.unmapped(std::string(option), *model,
                       "NVFP4 weights (hf_quant_config.json quant_algo NVFP4) are not modelled: weight_dtype is left as it was; set "
                       "it to what membudget should count (int4 is the nearest in size)");
        } else if (preset == "deepseek-v3" && publishedInFp8(id)) {
            c.weights = "fp8";
            c.native = true;
        }
    }
    if (c.weights == "fp8" && c.native)
        m.warn("weight_dtype fp8: " + model.value_or("the model") +
               " is published in FP8 (config.json quantization_config quant_method fp8, 128 × 128 block scales), which "
               "TensorRT-LLM loads as it is");
    else if (c.weights == "bf16")
        m.warn(
            "weight_dtype bf16: TensorRT-LLM loads the weights in the checkpoint's own format (a ModelOpt hf_quant_config.json or "
            "config.json's quantization_config), not a flag; set weight_dtype for a quantized checkpoint");
    return c;
}

// trtllm-serve MODEL [options] (serve.py `serve`): the layout, the batch, the tokens and the KV cache's share.
void readServe(Words& w, Settings& s, Mapping& m) {
    // --tensor_parallel_size and the other long names came with the newer serve.py; 1.0 has the short ones only.
    s.tp = numberOf(m, w, {"--tp_size", "--tensor_parallel_size"});
    s.pp = numberOf(m, w, {"--pp_size", "--pipeline_parallel_size"});
    s.ep = numberOf(m, w, {"--ep_size", "--moe_expert_parallel_size"});
    // --cluster_size goes to get_llm_args, which has no such parameter: it lands in the extra kwargs the caller drops.
    if (Flag* cluster = w.find({"--cluster_size", "--moe_cluster_parallel_size"}))
        m.warn(cluster->name + " " + cluster->value + " has no effect: serve passes it to get_llm_args, which drops it");
    if (const auto cp = numberOf(m, w, {"--cp_size", "--context_parallel_size"}); known(cp) && *cp != 1)
        m.unmapped("--cp_size", formatNumber(*cp), "context parallelism is not modelled for serving");
    if (const auto beams = numberOf(m, w, {"--max_beam_width"}); known(beams) && *beams > 1)
        m.unmapped("--max_beam_width", formatNumber(*beams), "beam search is not modelled");
    // max_batch_size 2048 and max_num_tokens 8192, BuildConfig's, which get_llm_args always passes.
    s.maxBatch = numberOf(m, w, {"--max_batch_size"});
    if (!s.maxBatch) {
        s.maxBatch = 2048;
        m.warn(
            "--max_batch_size not given: TensorRT-LLM's 2048 (BuildConfig.max_batch_size) taken as mb; its KV cache admits fewer "
            "(GUARANTEED_NO_EVICT reserves each request's blocks to completion): set mb to the concurrency you serve");
    }
    s.maxTokens = numberOf(m, w, {"--max_num_tokens"});
    if (!s.maxTokens) s.maxTokens = 8192;
    // max_seq_len None: deduced from the model's config (its context window).
    s.maxSeq = numberOf(m, w, {"--max_seq_len"});
    // --kv_cache_free_gpu_memory_fraction 0.9 (--free_gpu_memory_fraction too in newer releases).
    s.fraction = numberOf(m, w, {"--kv_cache_free_gpu_memory_fraction", "--free_gpu_memory_fraction"});
    if (w.find({"--enable_chunked_prefill"})) s.chunked = s.chunkedSaid = true;
    // trtllm-bench's spelling, which serve does not know.
    if (Flag* f = w.find({"--kv_cache_free_gpu_mem_fraction"}))
        m.unmapped(f->name, f->value,
                   "trtllm-bench's name; trtllm-serve's is --kv_cache_free_gpu_memory_fraction, and click refuses this one");
}

}  // namespace

bool publishedInFp8(std::string_view lowerId) {
    return startsWith(lowerId, "deepseek-ai/deepseek-v3") || startsWith(lowerId, "deepseek-ai/deepseek-r1");
}

std::optional<double> numberOf(Mapping& m, Words& w, std::initializer_list<std::string_view> names) {
    Flag* f = w.find(names);
    if (!f) return std::nullopt;
    return flagNumber(m, f).value_or(std::nan(""));
}

bool namesTrtllmCommand(std::string_view text) {
    return inCode(text, "trtllm-serve") || inCode(text, "trtllm-bench") || inCode(text, "prepare_dataset.py");
}

void importTrtllm(const ImportInput& input, Mapping& m) {
    // The extra options YAML alone: the options a server takes, over trtllm-serve's defaults.
    if (input.lines.empty() &&
        std::none_of(input.values.begin(), input.values.end(), [](const JsonValue& v) { return v.key == "heredocs"; })) {
        importTrtllmOptions(input, m);
        return;
    }
    m.set("mode", "inference");
    m.set("framework", "trtllm");
    m.set("method", "membudget");
    Settings s;
    // The command: the last trtllm-serve or trtllm-bench line, and the last dataset generator line.
    std::optional<size_t> serveLine, benchLine, dataLine;
    size_t serveAt = 0, benchAt = 0, dataAt = 0;
    for (size_t i = 0; i < input.lines.size(); ++i) {
        const auto [kind, at] = kindOf(input.lines[i]);
        if (kind == LineKind::serve) serveLine = i, serveAt = at;
        if (kind == LineKind::bench) benchLine = i, benchAt = at;
        if (kind == LineKind::dataset) dataLine = i, dataAt = at;
    }
    if (!serveLine && !benchLine) {
        m.error("no trtllm-serve or trtllm-bench command in the text");
        return;
    }
    if (serveLine && benchLine) m.warn("the text has both a trtllm-serve and a trtllm-bench command: the trtllm-serve one is read");
    const bool serve = serveLine.has_value();
    Words w(commandLines(input.lines, serve ? *serveLine : *benchLine, serve ? serveAt : benchAt), kTrtllmSwitches);
    const auto& all = w.all();
    size_t program = 0;
    while (program < all.size() && std::string_view(all[program]).find("trtllm-") == std::string_view::npos) ++program;

    // The model: serve's MODEL argument (after `serve` where the group's default command is written), bench's --model.
    BenchCommand command;
    if (serve) {
        auto argument = nextArgument(w, program + 1);
        if (argument && argument->first == "serve") argument = nextArgument(w, argument->second + 1);
        if (argument) command.model = argument->first;
    } else {
        command = readBenchCommand(w, program, m);
    }
    // A model spelled with a variable the text does not set ($model_name) names none.
    const std::optional<std::string>& model = command.model;
    std::string unresolved;
    if (const size_t at = model ? model->find("${") : std::string::npos; at != std::string::npos)
        unresolved = "$" + model->substr(at + 2, model->find('}', at) - at - 2);
    const Checkpoint checkpoint = readModel(m, model, command.modelOption, unresolved);

    // --backend: pytorch, the default in 1.x; the TensorRT engine and AutoDeploy are not modelled.
    if (Flag* backend = w.find({"--backend"}); backend && backend->value != "pytorch")
        m.error("--backend " + backend->value +
                ": membudget models TensorRT-LLM's PyTorch backend only (--backend pytorch, the default); its TensorRT engine and "
                "AutoDeploy backends size their memory otherwise");
    if (serve)
        readServe(w, s, m);
    else
        readBench(w, s, m, command.subcommand);

    // The dataset: generated in the same text (prepare_dataset.py token-norm-dist), or a file whose lengths are not here.
    if (dataLine && !serve) {
        Words data(commandLines(input.lines, *dataLine, dataAt), kTrtllmSwitches);
        readDataset(data, s, m);
    }
    if (Flag* dataset = w.find({"--dataset"})) {
        if (!s.dataset)
            m.unmapped(dataset->name, dataset->value,
                       "a dataset file, not in the text: its request count and lengths are not known; set num_prompts, input_tokens "
                       "and output_tokens");
    } else if (!serve && !s.dataset) {
        m.warn("no --dataset: trtllm-bench reads its requests from standard input; set num_prompts, input_tokens and output_tokens");
    }
    readExtraOptions(w, w.find({"--extra_llm_api_options", "--config"}), input.values, s, m);
    if (s.bench)
        finishBench(s, m);
    else if (known(s.maxBatch))
        m.setNumber("mb", requestsInFlight(s, *s.maxBatch));
    writeKeys(s, checkpoint, m);

    // click registers each option by exactly the names serve.py and bench.py list, all underscored: --tp-size is
    // "No such option".
    for (Flag& f : w.flags())
        if (!f.read && f.name.size() > 2 && f.name.find('-', 2) != std::string::npos) {
            f.read = true;
            m.unmapped(f.name, f.value,
                       "TensorRT-LLM's options are spelled with underscores only (--tp_size, not --tp-size), and click refuses this one");
        }
    w.listUnread(m, serve ? kServeIgnored : kTrtllmBenchIgnored, "not modelled by membudget");
}

}  // namespace membudget::detail
