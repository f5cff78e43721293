// TensorRT-LLM's extra options (tensorrt_llm/llmapi/llm_args.py, 1.0-era LlmArgs, read with PyYAML's safe_load and
// merged over the command's settings by update_llm_args_with_extra_dict): the here-document the command names or the
// YAML alone, and the membudget keys the settings give (trtllm_settings.hpp).
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "formats/omegaconf.hpp"
#include "formats/reader.hpp"
#include "formats/trtllm.hpp"
#include "formats/trtllm_settings.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/assignments.hpp"

namespace membudget::detail {

namespace {

// LlmArgs keys with no effect on the memory or the layout membudget models.
constexpr std::array<std::string_view, 14> kOptionsIgnored{"print_iter_log",
                                                           "stream_interval",
                                                           "num_postprocess_workers",
                                                           "trust_remote_code",
                                                           "tokenizer",
                                                           "skip_tokenizer_init",
                                                           "enable_iter_perf_stats",
                                                           "return_perf_metrics",
                                                           "enable_iter_req_stats",
                                                           "postprocess_tokenizer_dir",
                                                           "kv_cache_config.enable_block_reuse",
                                                           "kv_cache_config.enable_partial_reuse",
                                                           "kv_cache_config.event_buffer_max_size",
                                                           "garbage_collection_gen0_threshold"};

// Keys from before TensorRT-LLM 1.0 (TorchLlmArgs at llm_args.py@fcd3f316, CudaGraphConfig.padding_enabled at
// @0171265e): LlmArgs forbids keys it does not know (StrictBaseModel, extra = "forbid"), so 1.0 refuses each.
struct LegacyKey {
    std::string_view key, now;
};
constexpr LegacyKey kLegacyKeys[] = {{"use_cuda_graph", "cuda_graph_config: {} (on, the default) or cuda_graph_config: null (off)"},
                                     {"cuda_graph_padding_enabled", "cuda_graph_config.enable_padding"},
                                     {"cuda_graph_batch_sizes", "cuda_graph_config.batch_sizes"},
                                     {"cuda_graph_max_batch_size", "cuda_graph_config.max_batch_size"},
                                     {"cuda_graph_config.padding_enabled", "cuda_graph_config.enable_padding"},
                                     {"kv_cache_dtype", "kv_cache_config.dtype"},
                                     {"moe_backend", "moe_config.backend"},
                                     {"pytorch_backend_config", "its keys at the top level"}};

// LlmArgs keys that start a line of the YAML alone (detection).
constexpr std::string_view kOptionKeys[] = {"kv_cache_config:",
                                            "cuda_graph_config:",
                                            "enable_attention_dp:",
                                            "moe_config:",
                                            "speculative_config:",
                                            "enable_chunked_prefill:",
                                            "disable_overlap_scheduler:",
                                            "use_cuda_graph:",
                                            "cuda_graph_padding_enabled:",
                                            "cuda_graph_batch_sizes:",
                                            "moe_expert_parallel_size:",
                                            "attn_backend:"};

// A here-document the parsers hand over: the file it writes (as the text spells it) and its YAML.
struct HereDoc {
    std::string file;
    bool read = false;     // it parsed as YAML
    std::string rootType;  // the YAML's root: "object" for a mapping
    std::vector<JsonValue> values;
};

std::vector<HereDoc> hereDocs(const std::vector<JsonValue>& values) {
    std::vector<HereDoc> out;
    constexpr std::string_view kPrefix = "heredocs[";
    for (const JsonValue& v : values) {
        if (!startsWith(v.key, kPrefix)) continue;
        const size_t close = v.key.find(']');
        if (close == std::string::npos) continue;
        const auto index = parseNumber(std::string_view(v.key).substr(kPrefix.size(), close - kPrefix.size()));
        if (!index || *index < 0 || *index > 1e6) continue;
        const auto i = static_cast<size_t>(*index);
        if (out.size() <= i) out.resize(i + 1);
        const std::string rest = v.key.substr(close + 1);
        if (rest == ".file") {
            out[i].file = v.text;
        } else if (rest == ".yaml") {
            out[i].read = true;
            out[i].rootType = v.type == "plain" ? resolveYamlPlain("", v.text).type : v.type;
        } else if (startsWith(rest, ".yaml.") || startsWith(rest, ".yaml[")) {
            // TensorRT-LLM reads the file with PyYAML's safe_load (update_llm_args_with_extra_options): YAML 1.1's scalars.
            const std::string key = rest.substr(rest[5] == '.' ? 6 : 5);
            out[i].values.push_back(v.type == "plain" ? resolveYamlPlain(key, v.text) : JsonValue{key, v.type, v.text});
        }
    }
    return out;
}

// A file name as the shell gives it: $NAME and ${NAME} from the text's literal assignments, a leading ./ dropped.
std::string resolvedPath(const Words& w, const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '$' || i + 1 >= text.size()) {
            out += text[i];
            continue;
        }
        size_t end = i + 1;
        std::string name;
        if (text[end] == '{') {
            const size_t close = text.find('}', end);
            if (close == std::string::npos) {
                out += text.substr(i);
                break;
            }
            name = text.substr(end + 1, close - end - 1);
            end = close + 1;
        } else {
            while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
            name = text.substr(i + 1, end - i - 1);
        }
        const auto value = w.variable(name);
        out += value ? *value : "${" + name + "}";
        i = end - 1;
    }
    while (startsWith(out, "./")) out.erase(0, 2);
    return out;
}

// kv_cache_config replaces the command's whole KvCacheConfig (the shallow merge): what it leaves out is KvCacheConfig's
// default, free_gpu_memory_fraction 0.9 included, whatever the command's fraction said.
void readKvCache(Document& d, Settings& s, Mapping& m) {
    if (const JsonValue* kv = d.get("kv_cache_config")) {
        if (kv->type != "object") m.unmapped("kv_cache_config", kv->text, "not a mapping: KvCacheConfig's defaults taken");
        const std::optional<double> before = s.fraction;
        const std::optional<double> given = numberAt(d, "kv_cache_config.free_gpu_memory_fraction");
        s.fraction = given ? given : 0.9;
        if (!given && known(before) && *before != 0.9)
            m.warn("the YAML's kv_cache_config replaces the KvCacheConfig the command builds from its fraction, " + formatNumber(*before) +
                   " (update_llm_args_with_extra_dict merges shallowly, llm_args | llm_args_dict): TensorRT-LLM takes "
                   "KvCacheConfig's free_gpu_memory_fraction, 0.9, unless the YAML's kv_cache_config sets it");
        s.kvDtype = d.string("kv_cache_config.dtype").value_or("auto");
        s.tokensPerBlock = numberAt(d, "kv_cache_config.tokens_per_block");
        if (const auto tokens = d.number("kv_cache_config.max_tokens"))
            m.unmapped("kv_cache_config.max_tokens", formatNumber(*tokens), "a cap on the KV cache's tokens, not modelled");
        if (const auto bytes = d.number("kv_cache_config.max_gpu_total_bytes"); bytes && *bytes > 0)
            m.unmapped("kv_cache_config.max_gpu_total_bytes", formatNumber(*bytes), "a cap on the KV cache's bytes, not modelled");
    }
}

// cuda_graph_config: null turns the graphs off; a mapping replaces the default CudaGraphConfig (max_batch_size 0,
// which validate_cuda_graph_config makes 128; enable_padding false).
void readGraphs(Document& d, Settings& s, Mapping& m) {
    if (const JsonValue* graphs = d.get("cuda_graph_config")) {
        s.graphsFromYaml = true;
        s.graphs = graphs->type != "null";
        s.padding = d.boolean("cuda_graph_config.enable_padding").value_or(false);
        s.graphMax = numberAt(d, "cuda_graph_config.max_batch_size");
        if (s.graphMax && *s.graphMax == 0) s.graphMax.reset();
        if (d.present("cuda_graph_config.batch_sizes")) {
            double largest = 0;
            size_t count = 0;
            for (size_t i = 0; d.present("cuda_graph_config.batch_sizes[" + std::to_string(i) + "]"); ++i)
                if (const auto size = d.number("cuda_graph_config.batch_sizes[" + std::to_string(i) + "]")) {
                    largest = std::max(largest, *size);
                    ++count;
                }
            if (count > 0) {
                if (known(s.graphMax) && *s.graphMax != largest)
                    m.error("cuda_graph_config sets both batch_sizes (up to " + formatNumber(largest) + ") and max_batch_size (" +
                            formatNumber(*s.graphMax) +
                            "), which TensorRT-LLM refuses: \"Please don't set both cuda_graph_config.batch_sizes and "
                            "cuda_graph_config.max_batch_size.\"");
                s.graphMax = largest;
                m.warn("cuda_graph_config.batch_sizes lists " + std::to_string(count) + " sizes: taken by the largest, " +
                       formatNumber(largest) + " (cuda_graph_max_batch); membudget counts the sizes TensorRT-LLM generates up to it");
            }
        }
    }
}

// The extra options YAML (llm_args.py, 1.0-era LlmArgs): each key membudget models, over the command's settings.
void readOptions(Document& d, Settings& s, Mapping& m) {
    for (const LegacyKey& legacy : kLegacyKeys)
        if (const JsonValue* v = d.get(legacy.key)) {
            d.markRead(legacy.key);
            m.unmapped(
                std::string(legacy.key), v->text,
                "TensorRT-LLM ≥ 1.0 refuses this key (LlmArgs forbids keys it does not know); it is " + std::string(legacy.now) + " now");
        }
    if (const auto backend = d.string("backend"); backend && *backend != "pytorch")
        m.error("backend: " + *backend + ": membudget models TensorRT-LLM's PyTorch backend only (backend: pytorch, the default)");
    // The layout (LlmArgs: tensor_parallel_size, pipeline_parallel_size, moe_expert_parallel_size, moe_tensor_parallel_size).
    for (const auto& [key, member] :
         {std::pair{"tensor_parallel_size", &Settings::tp}, std::pair{"pipeline_parallel_size", &Settings::pp},
          std::pair{"moe_expert_parallel_size", &Settings::ep}, std::pair{"moe_tensor_parallel_size", &Settings::moeTp},
          std::pair{"max_batch_size", &Settings::maxBatch}, std::pair{"max_num_tokens", &Settings::maxTokens},
          std::pair{"max_seq_len", &Settings::maxSeq}})
        if (const auto v = numberAt(d, key)) s.*member = v;
    if (const auto cp = d.number("context_parallel_size"); cp && *cp != 1)
        m.unmapped("context_parallel_size", formatNumber(*cp), "context parallelism is not modelled for serving");
    if (const auto cluster = d.number("moe_cluster_parallel_size"); cluster && *cluster > 1)
        m.unmapped("moe_cluster_parallel_size", formatNumber(*cluster), "expert cluster parallelism is not modelled");
    if (const auto beams = d.number("max_beam_width"); beams && *beams > 1)
        m.unmapped("max_beam_width", formatNumber(*beams), "beam search is not modelled");
    if (const auto dtype = d.string("dtype")) s.dtype = *dtype;
    readKvCache(d, s, m);
    readGraphs(d, s, m);
    if (const auto dp = d.boolean("enable_attention_dp")) s.attentionDp = *dp;
    if (const auto chunked = d.boolean("enable_chunked_prefill")) {
        s.chunked = *chunked;
        s.chunkedSaid = true;
    }
    // MoeConfig: backend CUTLASS by default; max_num_tokens None (the MoE input unchunked).
    if (const auto backend = d.string("moe_config.backend"); backend && *backend != "CUTLASS")
        m.unmapped("moe_config.backend", *backend, "the MoE layers' kernels (CUTLASS by default), not modelled apart");
    if (const auto tokens = d.number("moe_config.max_num_tokens"))
        m.unmapped("moe_config.max_num_tokens", formatNumber(*tokens),
                   "chunks the MoE layers' input to this many tokens, not modelled: their activations are counted for workspace_tokens");
    if (const auto attention = d.string("attn_backend"); attention && *attention != "TRTLLM")
        m.unmapped("attn_backend", *attention, "not modelled: membudget takes TensorRT-LLM's own attention (TRTLLM, the default)");
    if (const auto overlap = d.boolean("disable_overlap_scheduler"); overlap && *overlap)
        m.unmapped("disable_overlap_scheduler", "true", "not modelled: membudget takes the overlap scheduler, on by default");
    if (const JsonValue* speculative = d.get("speculative_config")) {
        d.markRead("speculative_config");
        const auto kind = d.string("speculative_config.decoding_type");
        m.unmapped("speculative_config", kind.value_or(speculative->text),
                   "speculative decoding is not modelled: its draft tokens' KV cache and weights are not counted");
        m.warn("speculative_config" + (kind ? " (" + *kind + ")" : std::string()) +
               ": the serving speed ignores speculation (each decode step is taken as one token per request)");
    }
    if (const auto policy = d.string("scheduler_config.capacity_scheduler_policy"); policy && *policy != "GUARANTEED_NO_EVICT")
        m.unmapped("scheduler_config.capacity_scheduler_policy", *policy,
                   "not modelled: membudget takes GUARANTEED_NO_EVICT, TensorRT-LLM's default");
}

}  // namespace

std::optional<double> numberAt(Document& d, std::string_view path) {
    if (!d.present(path)) return std::nullopt;
    return d.number(path).value_or(std::nan(""));
}

bool looksLikeTrtllmOptions(std::string_view text) {
    return !contains(text, "_component_") && anyLine(text, [](std::string_view line) {
        return std::any_of(std::begin(kOptionKeys), std::end(kOptionKeys), [line](std::string_view key) { return startsWith(line, key); });
    });
}

void importTrtllmOptions(const ImportInput& input, Mapping& m) {
    m.set("mode", "inference");
    m.set("framework", "trtllm");
    m.set("method", "membudget");
    if (input.rootType != "object") {
        m.error("TensorRT-LLM's extra options are a YAML mapping of LlmArgs keys; got " + jsonTypeWords(input.rootType));
        return;
    }
    std::vector<JsonValue> values = input.values;
    for (auto& v : values)
        if (v.type == "plain") v = resolveYamlPlain(v.key, v.text);
    Document d(values);
    Settings s;
    readOptions(d, s, m);
    if (s.attentionDp && !s.tp)
        m.warn(
            "enable_attention_dp: the extra options alone name no TP size, so tp is 1 (LlmArgs' default) and attention_dp 1: "
            "set tp, and attention_dp to it");
    if (!s.maxTokens) s.maxTokens = 8192;
    if (!s.maxBatch)
        m.assume("mb", "2048", "the extra options alone: max_batch_size not set, TensorRT-LLM's 2048 (BuildConfig) taken");
    else if (known(s.maxBatch))
        m.setNumber("mb", requestsInFlight(s, *s.maxBatch));
    Checkpoint none;
    none.weights.clear();
    writeKeys(s, none, m);
    d.listUnread(m, kOptionsIgnored, "not modelled by membudget");
}

void readExtraOptions(const Words& w, Flag* options, const std::vector<JsonValue>& values, Settings& s, Mapping& m) {
    const std::vector<HereDoc> docs = hereDocs(values);
    // The YAML, where the text writes the file the command names (the last here-document writing it).
    std::vector<bool> used(docs.size(), false);
    if (options) {
        const std::string wanted = resolvedPath(w, options->value);
        const HereDoc* doc = nullptr;
        std::string written;
        for (size_t i = 0; i < docs.size(); ++i) {
            if (docs[i].file.empty()) continue;
            written += (written.empty() ? "" : ", ") + docs[i].file;
            if (resolvedPath(w, docs[i].file) == wanted) {
                doc = &docs[i];
                used[i] = true;
            }
        }
        if (!doc)
            m.unmapped(options->name, options->value,
                       written.empty()
                           ? "a YAML file of LlmArgs options, not in the text: paste it beside the command as a here-document (cat > FILE "
                             "<<'EOF' … EOF), or import it alone (format trtllm)"
                           : "the YAML it names is not in the text (its here-documents write " + written +
                                 "): paste it as a here-document writing that file, or import it alone (format trtllm)");
        else if (!doc->read)
            m.unmapped(options->name, options->value, "its here-document does not read as YAML: its options are not read");
        else if (doc->rootType != "object")
            m.unmapped(options->name, options->value,
                       "its here-document is not a YAML mapping (" + jsonTypeWords(doc->rootType) + "): its options are not read");
        else {
            Document d(doc->values);
            readOptions(d, s, m);
            d.listUnread(m, kOptionsIgnored, "not modelled by membudget");
        }
    }
    for (size_t i = 0; i < docs.size(); ++i) {
        const std::string& file = docs[i].file;
        if (!used[i] && (file.ends_with(".yml") || file.ends_with(".yaml") || file.ends_with("_FILE}")))
            m.warn("a here-document writes " + file + ", which the command does not name (--extra_llm_api_options or --config): not read");
    }
}

void writeKeys(Settings s, const Checkpoint& checkpoint, Mapping& m) {
    if (!s.tp) s.tp = 1;  // LlmArgs.tensor_parallel_size, pipeline_parallel_size: 1
    if (!s.pp) s.pp = 1;
    auto set = [&m](std::string_view key, const std::optional<double>& v, double standard) {
        if (!v)
            m.setNumber(key, standard);
        else if (std::isfinite(*v))
            m.setNumber(key, *v);
    };
    m.setNumber("cp", 1);
    m.setNumber("dp", 1);
    set("tp", s.tp, 1);
    set("pp", s.pp, 1);
    // Experts over moe_ep_size ranks of the TP group, each split over moe_tp_size = tp / ep of them (mapping.py
    // MappingBase.__init__); ep unset or -1 is "auto": ep 1, every expert split over TP (moe_tp_size = tp).
    const std::optional<double> ep = s.ep && (!std::isfinite(*s.ep) || *s.ep > 0) ? s.ep : std::nullopt;
    set("ep", ep, 1);
    if (known(s.tp) && (!ep || known(ep)) && (!s.moeTp || known(s.moeTp))) {
        const double tp = *s.tp, e = ep.value_or(1);
        const double moeTp = s.moeTp && *s.moeTp > 0 ? *s.moeTp : tp / e;
        if (moeTp * e != tp || moeTp != std::floor(moeTp))
            m.warn("moe_expert_parallel_size " + formatNumber(e) + " × moe_tensor_parallel_size " + formatNumber(moeTp) +
                   " is not the TP size, " + formatNumber(tp) +
                   ": TensorRT-LLM's Mapping refuses it (\"moe_tp_size * moe_ep_size * moe_cluster_size must equal to moe_world_size\")");
        m.setNumber("etp", moeTp == tp ? 0 : moeTp);
    }
    // Attention DP: every TP rank its own requests and KV cache (Mapping.dp_size = tp_size under enable_attention_dp).
    if (!s.attentionDp)
        m.setNumber("attention_dp", 1);
    else if (known(s.tp))
        m.setNumber("attention_dp", *s.tp);
    if (known(s.maxSeq)) m.setNumber("seq", *s.maxSeq);
    if (known(s.maxTokens)) m.setNumber("workspace_tokens", *s.maxTokens);
    // KvCacheConfig.tokens_per_block 32.
    set("kv_block", s.tokensPerBlock, 32);
    if (!s.fraction)
        m.setNumber("headroom", 0.1);
    else if (std::isfinite(*s.fraction))
        m.setNumber("headroom", std::round((1 - *s.fraction) * 1e6) / 1e6);
    // The activations' dtype (LlmArgs.dtype auto: the checkpoint's, BF16 here); an unquantized checkpoint's weights are
    // cast to it, a quantized one's keep their format.
    std::string activations = "bf16";
    if (s.dtype == "float16" || s.dtype == "half" || s.dtype == "fp16")
        activations = "fp16";
    else if (s.dtype != "auto" && s.dtype != "bfloat16" && s.dtype != "bf16")
        m.unmapped("dtype", s.dtype, "not auto, bfloat16 or float16");
    if (!checkpoint.weights.empty()) m.set("weight_dtype", checkpoint.weights == "bf16" ? activations : checkpoint.weights);
    // KvCacheConfig.dtype auto: the checkpoint's kv_cache_quant_algo where it has one, else the model's dtype
    // (_create_kv_cache_manager); fp8 sets kv_cache_quant_algo FP8 (sync_quant_config_with_kv_cache_config_dtype).
    if (s.kvDtype == "fp8") {
        m.set("kv_dtype", "fp8");
    } else {
        if (s.kvDtype != "auto") m.unmapped("kv_cache_config.dtype", s.kvDtype, "not auto or fp8");
        m.set("kv_dtype", activations);
        if (checkpoint.modelopt)
            m.warn("kv_dtype " + activations +
                   ": NVIDIA's ModelOpt FP8 checkpoints often quantize the KV cache too (hf_quant_config.json kv_cache_quant_algo "
                   "FP8), which kv_cache_config.dtype auto then takes; set kv_dtype fp8 if the checkpoint's does");
    }
    m.setBool("enforce_eager", !s.graphs);
    if (!s.graphs) m.setNumber("cuda_graphs_gb", 0);
    if (!s.graphs)
        m.setNumber("cuda_graph_max_batch", 0);
    else
        set("cuda_graph_max_batch", s.graphMax, 0);
    m.setBool("cuda_graph_padding", s.graphs && s.padding);
    m.setBool("chunked_prefill", s.chunked);
}

}  // namespace membudget::detail
