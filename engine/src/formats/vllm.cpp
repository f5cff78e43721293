// vLLM (vllm/engine/arg_utils.py EngineArgs): a `vllm serve` command read into membudget's keys over the shared
// reader, and a configuration written back as one over the shared writer.
#include "formats/vllm.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "formats/framework_names.hpp"
#include "formats/reader.hpp"
#include "formats/writer.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

const std::set<std::string_view> kVllmSwitches{"--enable-expert-parallel",
                                               "--enforce-eager",
                                               "--trust-remote-code",
                                               "--enable-prefix-caching",
                                               "--no-enable-prefix-caching",
                                               "--enable-chunked-prefill",
                                               "--disable-log-requests",
                                               "--disable-log-stats",
                                               "--enable-auto-tool-choice",
                                               "--async-scheduling",
                                               "--enable-lora",
                                               "--enable-eplb",
                                               "--enable-dbo",
                                               "--headless",
                                               "--disable-custom-all-reduce"};

const std::set<std::string_view> kVllmIgnored{"--config",
                                              "--host",
                                              "--port",
                                              "--api-key",
                                              "--served-model-name",
                                              "--trust-remote-code",
                                              "--disable-log-requests",
                                              "--disable-log-stats",
                                              "--enable-prefix-caching",
                                              "--no-enable-prefix-caching",
                                              "--chat-template",
                                              "--tool-call-parser",
                                              "--enable-auto-tool-choice",
                                              "--reasoning-parser",
                                              "--seed",
                                              "--uvicorn-log-level",
                                              "--tokenizer",
                                              "--tokenizer-mode",
                                              "--revision",
                                              "--download-dir",
                                              "--load-format",
                                              "--generation-config",
                                              "--enable-chunked-prefill",
                                              "--async-scheduling",
                                              "--data-parallel-address",
                                              "--data-parallel-rpc-port",
                                              "--data-parallel-size-local",
                                              "--data-parallel-start-rank",
                                              "--api-server-count",
                                              "--headless",
                                              "--root-path",
                                              "--ssl-keyfile",
                                              "--ssl-certfile",
                                              "--max-log-len",
                                              "--response-role",
                                              "--lora-modules",
                                              "--enable-log-requests",
                                              "--distributed-executor-backend",
                                              "--limit-mm-per-prompt",
                                              "--override-generation-config",
                                              "--speculative-config",
                                              "--hf-overrides",
                                              "--tokenizer-pool-size",
                                              "--max-seq-len-to-capture",
                                              "--disable-custom-all-reduce",
                                              "--enable-eplb",
                                              "--enable-dbo",
                                              "--compilation-config",
                                              "-O",
                                              "--kv-transfer-config",
                                              "--model-impl",
                                              "--scheduling-policy"};

std::vector<std::vector<std::string>> vllmFlagSpelling(const std::vector<std::vector<std::string>>& lines) {
    // vLLM's FlexibleArgumentParser (vllm/utils argparse_utils.py parse_args) reads --tensor_parallel_size as
    // --tensor-parallel-size: underscores in a long flag's name (not its value) are dashes.
    std::vector<std::vector<std::string>> out = lines;
    for (auto& line : out)
        for (auto& word : line) {
            if (word.rfind("--", 0) != 0) continue;
            const size_t end = std::min(word.find('='), word.size());
            std::replace(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(end), '_', '-');
        }
    return out;
}

void importVllm(Words& w, Mapping& m) {
    m.set("mode", "inference");
    m.set("framework", "vllm");
    m.set("method", "membudget");
    // `vllm serve MODEL` (the first word after serve that is not a flag), or --model MODEL.
    std::optional<std::string> model;
    const auto& all = w.all();
    for (size_t i = 0; i + 1 < all.size(); ++i)
        if (all[i] == "serve" && !all[i + 1].empty() && all[i + 1][0] != '-') {
            model = all[i + 1];
            break;
        }
    if (Flag* f = w.find({"--model"})) model = f->value;
    if (model) {
        const std::string id = lower(*model);
        if (const std::string_view preset = presetOfHubId(id); !preset.empty())
            m.set("model", std::string(preset));
        else
            m.unmapped("model", *model, "not a preset; import its config.json (format hf) for the architecture");
    }
    const double tp = setFromFlag(m, w, "tp", {"--tensor-parallel-size", "-tp"}) ? m.number("tp").value_or(1) : (m.setNumber("tp", 1), 1.0);
    if (!setFromFlag(m, w, "pp", {"--pipeline-parallel-size", "-pp"})) m.setNumber("pp", 1);
    const double dp = setFromFlag(m, w, "dp", {"--data-parallel-size", "-dp"}) ? m.number("dp").value_or(1) : (m.setNumber("dp", 1), 1.0);
    m.setNumber("cp", 1);
    // --enable-expert-parallel spreads the experts over TP × DP ranks (vLLM's FusedMoEParallelConfig).
    m.setNumber("ep", w.has({"--enable-expert-parallel"}) ? tp * dp : 1);
    setFromFlag(m, w, "seq", {"--max-model-len"});
    if (!setFromFlag(m, w, "mb", {"--max-num-seqs"})) {
        m.setNumber("mb", 256);
        m.warn("--max-num-seqs not given: vLLM's default (256 in most versions and GPUs) assumed");
    }
    setFromFlag(m, w, "workspace_tokens", {"--max-num-batched-tokens"});
    // --dtype is the activations' (and an unquantized model's weights' and the KV cache's) dtype.
    const std::string dtypeText = servingDtype(m, w);
    std::string weights = dtypeText;
    if (Flag* quantization = w.find({"--quantization", "-q"})) {
        const std::string q = quantization->value;
        if (q == "fp8" || q == "fbgemm_fp8" || q == "modelopt")
            weights = "fp8";
        else if (q == "awq" || q == "gptq" || q == "awq_marlin" || q == "gptq_marlin" || q == "bitsandbytes")
            weights = "int4";
        else
            m.unmapped(quantization->name, q, "the weights' bit width depends on the checkpoint; set weight_dtype");
    }
    m.set("weight_dtype", weights);
    std::string kv = dtypeText;
    if (Flag* cache = w.find({"--kv-cache-dtype"})) {
        if (startsWith(cache->value, "fp8"))
            kv = "fp8";
        else if (cache->value != "auto")
            m.unmapped(cache->name, cache->value, "not auto or fp8");
    }
    m.set("kv_dtype", kv);
    double utilization = 0.9;
    if (const auto u = flagNumber(m, w.find({"--gpu-memory-utilization"}))) utilization = *u;
    m.setNumber("headroom", std::round((1 - utilization) * 1e6) / 1e6);
    // --enforce-eager: no CUDA graphs, no graph memory, every decode kernel launched from the host.
    if (w.has({"--enforce-eager"})) {
        m.setNumber("cuda_graphs_gb", 0);
        m.set("enforce_eager", "true");
    }
    // The largest decode batch captured as a CUDA graph (CompilationConfig.max_cudagraph_capture_size, 512 unless set).
    if (const auto size = flagNumber(m, w.find({"--max-cudagraph-capture-size"}))) m.setNumber("cuda_graph_max_batch", *size);
    const bool vllm = model || std::any_of(w.flags().begin(), w.flags().end(), [](const Flag& f) {
                          return f.name == "--tensor-parallel-size" || f.name == "--max-model-len" || f.name == "--max-num-seqs" ||
                                 f.name == "--gpu-memory-utilization";
                      });
    if (!vllm) m.error("no vllm serve command and no vLLM flags (--model, --tensor-parallel-size, --max-model-len, …) in the text");
    w.listUnread(m, kVllmIgnored, "not modelled by membudget");
}

ExportResult exportVllm(const Config& c) {
    Exporter e(c);
    const std::string_view hub = hubIdOf(c.model);
    if (hub.empty()) e.skip("model", c.name.empty() ? c.model : c.name, "no Hugging Face Hub id for it here: put the model's id or path");
    std::vector<std::string> l{"vllm serve " + (hub.empty() ? std::string("MODEL") : std::string(hub))};
    l.push_back("--tensor-parallel-size " + formatNumber(c.tp) + " --pipeline-parallel-size " + formatNumber(c.pp));
    if (c.dp > 1) l.push_back("--data-parallel-size " + formatNumber(c.dp));
    if (c.ep > 1) {
        l.push_back("--enable-expert-parallel");
        if (c.ep != c.tp * c.dp) e.skip("ep", formatNumber(c.ep), "vLLM spreads the experts over TP × DP ranks");
    }
    if (c.cp > 1) e.skip("cp", formatNumber(c.cp), "vLLM serves without context parallelism");
    l.push_back("--max-model-len " + formatNumber(c.seq) + " --max-num-seqs " + formatNumber(c.mb) + " --max-num-batched-tokens " +
                formatNumber(c.workspaceTokens));
    // --dtype sets the activations and the KV cache (unless fp8); quantized weights keep it free to follow the cache.
    const bool unquantized = c.weightDtype == WeightDtype::bf16 || c.weightDtype == WeightDtype::fp16;
    const bool halfPrecision = unquantized ? c.weightDtype == WeightDtype::fp16 : c.kvDtype == KvDtype::fp16;
    std::string precision = halfPrecision ? "--dtype float16" : "--dtype bfloat16";
    if (c.weightDtype == WeightDtype::fp8) precision += " --quantization fp8";
    if (c.weightDtype == WeightDtype::int4) precision += " --quantization awq";
    if (c.weightDtype == WeightDtype::int8) e.skip("weight_dtype", "int8", "the quantization method depends on the checkpoint");
    if (c.kvDtype == KvDtype::fp8) precision += " --kv-cache-dtype fp8";
    const KvDtype natural = halfPrecision ? KvDtype::fp16 : KvDtype::bf16;
    if (c.kvDtype != KvDtype::fp8 && c.kvDtype != natural)
        e.skip("kv_dtype", std::string(toString(c.kvDtype)), "vLLM's KV cache takes --dtype unless fp8");
    l.push_back(precision);
    l.push_back("--gpu-memory-utilization " + formatNumber(std::round((1 - c.headroom) * 1e6) / 1e6));
    if (c.enforceEager) l.push_back("--enforce-eager");
    if (c.cudaGraphMaxBatch != 0 && !c.enforceEager) l.push_back("--max-cudagraph-capture-size " + formatNumber(c.cudaGraphMaxBatch));
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: vLLM (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") + command(l);
    return r;
}

}  // namespace membudget::detail
