// A configuration as TensorRT-LLM's extra options here-document and a `trtllm-serve` command that names it (trtllm.hpp),
// over the shared writer: the inverse of importTrtllm for every key the two can say.
#include <cmath>
#include <string>
#include <tuple>
#include <vector>

#include "formats/framework_names.hpp"
#include "formats/reader.hpp"
#include "formats/trtllm.hpp"
#include "formats/trtllm_settings.hpp"
#include "formats/writer.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

ExportResult exportTrtllm(const Config& c) {
    Exporter e(c);
    const std::string_view hub = hubIdOf(c.model);
    if (hub.empty()) e.skip("model", c.name.empty() ? c.model : c.name, "no Hugging Face Hub id for it here: put the model's id or path");
    // The weights' format is the checkpoint's, the Hub id's (deepseek-ai's DeepSeek-V3 and R1 are FP8, the others BF16),
    // cast to dtype: float16 where that is asked of a BF16 checkpoint.
    const WeightDtype checkpoint = publishedInFp8(lower(hub)) ? WeightDtype::fp8 : WeightDtype::bf16;
    const bool halfPrecision = c.weightDtype == WeightDtype::fp16 && checkpoint == WeightDtype::bf16;
    if (c.weightDtype != checkpoint && !halfPrecision)
        e.skip("weight_dtype", std::string(toString(c.weightDtype)),
               "TensorRT-LLM loads the weights in the checkpoint's format (" + std::string(toString(checkpoint)) +
                   " here): serve a checkpoint quantized to it (NVIDIA ModelOpt's hf_quant_config.json)");
    if (c.expertWeightDtype != ExpertWeights::same)
        e.skip("expert_weight_dtype", std::string(toString(c.expertWeightDtype)), "the checkpoint's format, not an option");
    const KvDtype natural = halfPrecision ? KvDtype::fp16 : KvDtype::bf16;
    if (c.kvDtype != KvDtype::fp8 && c.kvDtype != natural)
        e.skip("kv_dtype", std::string(toString(c.kvDtype)), "TensorRT-LLM's KV cache takes the model's dtype unless fp8");

    // The extra options. The YAML's kv_cache_config replaces the command's whole (the shallow merge), so the fraction is
    // written in it too.
    const double fraction = std::round((1 - c.headroom) * 1e6) / 1e6;
    std::string yaml = "kv_cache_config:\n  free_gpu_memory_fraction: " + formatNumber(fraction) + "\n";
    if (c.kvDtype == KvDtype::fp8) yaml += "  dtype: fp8\n";
    if (c.kvBlock != 32) yaml += "  tokens_per_block: " + formatNumber(c.kvBlock) + "\n";
    if (halfPrecision) yaml += "dtype: float16\n";
    if (c.enforceEager) {
        yaml += "cuda_graph_config: null\n";
        if (c.cudaGraphMaxBatch != 0)
            e.skip("cuda_graph_max_batch", formatNumber(c.cudaGraphMaxBatch), "cuda_graph_config: null (enforce_eager) captures none");
        if (c.cudaGraphPadding) e.skip("cuda_graph_padding", "true", "cuda_graph_config: null (enforce_eager) captures none");
    } else if (c.cudaGraphMaxBatch != 0 || c.cudaGraphPadding) {
        yaml += "cuda_graph_config:\n";
        if (c.cudaGraphMaxBatch != 0) yaml += "  max_batch_size: " + formatNumber(c.cudaGraphMaxBatch) + "\n";
        if (c.cudaGraphPadding) yaml += "  enable_padding: true\n";
    }
    // TensorRT-LLM sizes its graphs itself (captured in warmup, counted in the profiling run's memory outside torch).
    if (c.cudaGraphsGb != 0)
        e.skip("cuda_graphs_gb", formatNumber(c.cudaGraphsGb),
               c.enforceEager ? "cuda_graph_config: null captures none"
                              : "TensorRT-LLM sizes its CUDA graphs itself; no option sets their memory");
    // Attention DP gives every TP rank its own requests (Mapping.enable_attention_dp): attention_dp is 1 or tp.
    if (c.attentionDp > 1 && c.attentionDp == c.tp)
        yaml += "enable_attention_dp: true\n";
    else if (c.attentionDp > 1)
        e.skip("attention_dp", formatNumber(c.attentionDp), "TensorRT-LLM's enable_attention_dp splits attention over all tp ranks");
    if (c.chunkedPrefill) yaml += "enable_chunked_prefill: true\n";

    std::vector<std::string> l{"trtllm-serve " + (hub.empty() ? std::string("MODEL") : std::string(hub)), "--backend pytorch"};
    // Experts over ep ranks of the TP group, each split over tp / ep (Mapping's moe_tp_size).
    const double ep = c.ep > 1 && std::fmod(c.tp, c.ep) == 0 ? c.ep : 1;
    if (c.ep > 1 && ep == 1) e.skip("ep", formatNumber(c.ep), "TensorRT-LLM splits the experts within the TP group: ep must divide tp");
    const double etp = c.etp == c.tp ? 0 : c.etp;
    if (c.experts != 0 && etp != (ep > 1 && c.tp / ep != c.tp ? c.tp / ep : 0))
        e.skip("etp", formatNumber(c.etp),
               "TensorRT-LLM splits each expert over tp / ep ranks (moe_tp_size), " + formatNumber(c.tp / ep) + " here");
    l.push_back("--tp_size " + formatNumber(c.tp) + " --pp_size " + formatNumber(c.pp) + " --ep_size " + formatNumber(ep));
    if (c.dp > 1) e.skip("dp", formatNumber(c.dp), "one trtllm-serve a replica: start dp of them behind a router");
    if (c.cp > 1) e.skip("cp", formatNumber(c.cp), "context parallelism is not modelled for TensorRT-LLM serving");
    if (c.schedulerRecvInterval > 1) e.skip("scheduler_recv_interval", formatNumber(c.schedulerRecvInterval), "SGLang's setting");
    // Under enable_attention_dp max_batch_size is each TP rank's: the server keeps tp × it in flight.
    const bool perRank = c.attentionDp > 1 && c.attentionDp == c.tp;
    const double maxBatch = perRank ? std::ceil(c.mb / c.tp) : c.mb;
    if (perRank && maxBatch * c.tp != c.mb)
        e.skip("mb", formatNumber(c.mb),
               "under enable_attention_dp max_batch_size is each of the " + formatNumber(c.tp) + " ranks': " + formatNumber(maxBatch) +
                   " a rank, " + formatNumber(maxBatch * c.tp) + " in all");
    l.push_back("--max_batch_size " + formatNumber(maxBatch) + " --max_num_tokens " + formatNumber(c.workspaceTokens) + " --max_seq_len " +
                formatNumber(c.seq));
    l.push_back("--kv_cache_free_gpu_memory_fraction " + formatNumber(fraction));
    l.push_back("--extra_llm_api_options extra-llm-api-config.yml");
    // A benchmark's settings: trtllm-serve serves; trtllm-bench or a client sends the requests.
    const Config defaults;
    for (const auto& [key, value, standard] : {std::tuple<const char*, double, double>{"num_prompts", c.numPrompts, defaults.numPrompts},
                                               {"request_rate", c.requestRate, defaults.requestRate},
                                               {"input_tokens", c.inputTokens, defaults.inputTokens},
                                               {"output_tokens", c.outputTokens, defaults.outputTokens},
                                               {"length_range_ratio", c.lengthRangeRatio, defaults.lengthRangeRatio}})
        if (value != standard) e.skip(key, formatNumber(value), "a benchmark's setting: trtllm-serve serves, a client sends the requests");
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: TensorRT-LLM (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") +
             "cat > extra-llm-api-config.yml <<'EOF'\n" + yaml + "EOF\n" + command(l);
    return r;
}

}  // namespace membudget::detail
