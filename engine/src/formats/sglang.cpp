// SGLang (python/sglang/srt/server_args.py ServerArgs): a `python -m sglang.launch_server` or `sglang serve` command
// read into membudget's keys over the shared reader, and a configuration written back as one over the shared writer.
// Each default taken where the command is silent names the SGLang function that sets it.
#include "formats/sglang.hpp"

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

namespace {

// --moe-a2a-backend values whose all-to-all spans the TP group: SGLang then sets ep_size = tp_size
// (arg_groups/overrides.py _A2A_EP_SPANNING_BACKENDS, applied by _a2a_ep_size).
const std::set<std::string_view> kEpSpanningBackends{"deepep",     "deepep_v2", "mooncake", "nixl",   "ascend_fuseep",
                                                     "flashinfer", "mori",      "pplx",     "megamoe"};

// SGLang's parser is a plain argparse.ArgumentParser (server_args.py prepare_server_args), which takes a unique
// prefix of a long flag (allow_abbrev): its documentation launches with --tp 2 and --dp 2 for --tp-size and
// --dp-size. --ep is an alias of --ep-size in recent releases (ServerArgs.ep_size).
const std::initializer_list<std::string_view> kTp{"--tp-size", "--tensor-parallel-size", "--tp"};
const std::initializer_list<std::string_view> kPp{"--pp-size", "--pipeline-parallel-size", "--pp"};
const std::initializer_list<std::string_view> kDp{"--dp-size", "--data-parallel-size", "--dp"};
const std::initializer_list<std::string_view> kEp{"--ep-size", "--expert-parallel-size", "--ep"};

}  // namespace

const std::set<std::string_view> kSglangSwitches{"--trust-remote-code",
                                                 "--disable-cuda-graph",
                                                 "--disable-cuda-graph-padding",
                                                 "--disable-prefill-cuda-graph",
                                                 "--disable-decode-cuda-graph",
                                                 "--enable-ep-moe",
                                                 "--enable-deepep-moe",
                                                 "--enable-dp-attention",
                                                 "--enable-dp-lm-head",
                                                 "--enable-torch-compile",
                                                 "--disable-radix-cache",
                                                 "--enable-mixed-chunk",
                                                 "--enable-p2p-check",
                                                 "--skip-server-warmup",
                                                 "--skip-tokenizer-init",
                                                 "--enable-metrics",
                                                 "--enable-cache-report",
                                                 "--log-requests",
                                                 "--disable-overlap-schedule",
                                                 "--enable-two-batch-overlap",
                                                 "--enable-single-batch-overlap",
                                                 "--enable-eplb",
                                                 "--disable-custom-all-reduce",
                                                 "--disable-shared-experts-fusion",
                                                 "--disable-chunked-prefix-cache",
                                                 "--enable-hierarchical-cache",
                                                 "--enable-lora",
                                                 "--enable-multimodal",
                                                 "--is-embedding",
                                                 "--enable-deterministic-inference",
                                                 "--enable-priority-scheduling",
                                                 "--enable-memory-saver",
                                                 "--enable-symm-mem",
                                                 "--enable-nccl-nvls",
                                                 "--enable-flashinfer-allreduce-fusion",
                                                 "--enable-fp32-lm-head",
                                                 "--enable-dynamic-chunking",
                                                 "--disable-hybrid-swa-memory",
                                                 "--allow-auto-truncate",
                                                 "--quantize-and-serve"};

// Flags with no effect on the memory or the layout membudget models.
const std::set<std::string_view> kSglangIgnored{"--host",
                                                "--port",
                                                "--api-key",
                                                "--served-model-name",
                                                "--trust-remote-code",
                                                "--tokenizer-path",
                                                "--tokenizer-mode",
                                                "--skip-tokenizer-init",
                                                "--revision",
                                                "--download-dir",
                                                "--load-format",
                                                "--chat-template",
                                                "--completion-template",
                                                "--tool-call-parser",
                                                "--reasoning-parser",
                                                "--log-level",
                                                "--log-level-http",
                                                "--log-requests",
                                                "--log-requests-level",
                                                "--enable-metrics",
                                                "--enable-cache-report",
                                                "--random-seed",
                                                "--nccl-port",
                                                "--dist-init-addr",
                                                "--nnodes",
                                                "--node-rank",
                                                "--dist-timeout",
                                                "--skip-server-warmup",
                                                "--warmups",
                                                "--stream-interval",
                                                "--schedule-policy",
                                                "--schedule-conservativeness",
                                                "--max-queued-requests",
                                                "--enable-p2p-check",
                                                "--disable-custom-all-reduce",
                                                "--disable-radix-cache",
                                                "--disable-overlap-schedule",
                                                "--enable-mixed-chunk",
                                                "--enable-torch-compile",
                                                "--disable-cuda-graph-padding",
                                                "--attention-backend",
                                                "--prefill-attention-backend",
                                                "--decode-attention-backend",
                                                "--sampling-backend",
                                                "--grammar-backend",
                                                "--moe-runner-backend",
                                                "--deepep-mode",
                                                "--fp8-gemm-backend",
                                                "--device",
                                                "--base-gpu-id",
                                                "--gpu-id-step",
                                                "--watchdog-timeout",
                                                "--enable-deterministic-inference",
                                                "--enable-priority-scheduling"};

namespace {

// --model-path MODEL, or its alias --model (ServerArgs.model_path).
std::optional<std::string> readModel(Words& w, Mapping& m) {
    std::optional<std::string> model;
    if (Flag* f = w.find({"--model-path", "--model"})) model = f->value;
    if (model) {
        const std::string id = lower(*model);
        if (const std::string_view preset = presetOfHubId(id); !preset.empty())
            m.set("model", std::string(preset));
        else
            m.unmapped("model", *model, "not a preset; import its config.json (format hf) for the architecture");
    }
    return model;
}

// The layout: TP, PP, DP, and the experts' EP and ETP within the TP group.
void readLayout(Words& w, Mapping& m) {
    // tp_size, pp_size, dp_size and ep_size are 1 unless given (ServerArgs).
    const double tp = setFromFlag(m, w, "tp", kTp) ? m.number("tp").value_or(1) : (m.setNumber("tp", 1), 1.0);
    if (!setFromFlag(m, w, "pp", kPp)) m.setNumber("pp", 1);
    if (!setFromFlag(m, w, "dp", kDp)) m.setNumber("dp", 1);
    m.setNumber("cp", 1);
    // DP attention runs the dp_size attention groups inside the TP group: the world is TP × PP GPUs, not DP × TP × PP
    // (server_args.py compute_world_size), each group of attn_tp_size = tp_size // dp_size GPUs with its own requests and
    // KV cache (dp_attention.py compute_dp_attention_world_info): attention_dp = dp_size, one replica.
    if (w.find({"--enable-dp-attention"})) {
        m.setNumber("attention_dp", m.number("dp").value_or(1));
        m.setNumber("dp", 1);
    }
    if (!setFromFlag(m, w, "ep", kEp)) m.setNumber("ep", 1);
    // --enable-ep-moe and --enable-deepep-moe (older releases, ServerArgs.__post_init__) and an all-to-all backend that
    // spans the TP group (arg_groups/overrides.py _a2a_ep_size) make ep_size tp_size, whatever --ep-size said.
    std::string spanning;
    if (Flag* f = w.find({"--enable-ep-moe", "--enable-deepep-moe"})) spanning = f->name;
    if (Flag* a2a = w.find({"--moe-a2a-backend"}); a2a && kEpSpanningBackends.count(a2a->value))
        spanning = "--moe-a2a-backend " + a2a->value;
    if (!spanning.empty()) {
        if (m.number("ep").value_or(1) != 1 && m.number("ep") != tp)
            m.warn(spanning + " sets SGLang's expert parallelism to the TP size, " + formatNumber(tp) + ", over the --ep-size given");
        m.setNumber("ep", tp);
    }
    // Each expert is split over the TP ranks that share it: moe_tp_size = tp_size / ep_size
    // (distributed/parallel_state.py initialize_model_parallel); etp 0 is TP's, all of it, without EP.
    const double ep = m.number("ep").value_or(1);
    if (ep > 1 && std::fmod(tp, ep) == 0)
        m.setNumber("etp", tp / ep);
    else
        m.setNumber("etp", 0);
    if (std::fmod(tp, ep) != 0)
        m.warn("ep " + formatNumber(ep) + " does not divide tp " + formatNumber(tp) +
               ": SGLang splits the experts within the TP group and refuses it");
}

// The requests: the context length, how many run at once, the tokens a prefill batch holds and the KV cache's page.
void readRequests(Words& w, Mapping& m) {
    setFromFlag(m, w, "seq", {"--context-length"});
    // max_running_requests unset: the request pool holds min(max(pool tokens / context length × 512, 2048), 4096)
    // slots (model_executor/model_runner_kv_cache_mixin.py ModelRunnerKVCacheMixin.init_memory; _resolve_max_num_reqs in
    // newer releases), and max_running_requests = min(pool tokens / 2, that) (model_runner.py, after init_memory_pool).
    if (!setFromFlag(m, w, "mb", {"--max-running-requests"})) {
        m.setNumber("mb", 2048);
        m.warn(
            "--max-running-requests not given: SGLang's default, 2048 to 4096 by its KV pool (min(max(pool tokens / context "
            "× 512, 2048), 4096, pool tokens / 2), ModelRunnerKVCacheMixin.init_memory), taken as 2048; SGLang admits "
            "requests by the KV tokens left, so set mb to the concurrency you serve");
    } else if (m.number("dp").value_or(1) > 1 || m.number("attention_dp").value_or(1) > 1) {
        m.warn(
            "--max-running-requests with --dp-size: taken as each replica's; newer SGLang releases split it among the DP "
            "workers (ModelRunner._resolve_max_num_reqs)");
    }
    // New requests read every --scheduler-recv-interval decode passes (SchedulerRecvSkipper; 1, every pass, by default).
    setFromFlag(m, w, "scheduler_recv_interval", {"--scheduler-recv-interval"});
    // A prefill batch holds at most chunked_prefill_size tokens, and with chunked prefill off (-1) up to
    // max(max_prefill_tokens, the context length) (server_args.py, ServerArgs.max_prefill_tokens: 16384).
    Flag* chunk = w.find({"--chunked-prefill-size"});
    if (const auto tokens = flagNumber(m, chunk); tokens && *tokens > 0) {
        m.setNumber("workspace_tokens", *tokens);
    } else if (tokens) {
        const double maxPrefill = flagNumber(m, w.find({"--max-prefill-tokens"})).value_or(16384);
        if (const auto seq = m.number("seq"))
            m.setNumber("workspace_tokens", std::max(maxPrefill, *seq));
        else
            m.unmapped(
                chunk->name, chunk->value,
                "chunked prefill off: a prefill batch takes max(--max-prefill-tokens, the context length) tokens; set workspace_tokens");
    } else if (!chunk) {
        // ServerArgs._handle_gpu_memory_settings, by the GPU's memory: under 35 GiB 2048, under 60 GiB 4096, under
        // 160 GiB 8192 (H100, H200), else 16384 (B200, MI300); 4096 when the memory is not known.
        m.setNumber("workspace_tokens", 8192);
        m.warn(
            "--chunked-prefill-size not given: SGLang sets it by the GPU's memory (ServerArgs._handle_gpu_memory_settings: "
            "2048 under 35 GiB, 4096 under 60 GiB, 8192 under 160 GiB, 16384 above), taken as 8192 (A100-80GB, H100, H200)");
    }
    // page_size unset is 1 on CUDA (arg_groups/overrides.py _page_size_default); some attention backends raise it.
    if (!setFromFlag(m, w, "kv_block", {"--page-size"})) {
        m.setNumber("kv_block", 1);
        m.warn(
            "--page-size not given: SGLang's default page of 1 token (arg_groups/overrides.py _page_size_default) taken "
            "as kv_block 1; some attention backends raise it (FlashMLA 64, TRT-LLM MLA 32 or 64)");
    }
}

// The weights' and the KV cache's dtypes.
void readDtypes(Words& w, Mapping& m) {
    // --dtype is the activations' (and an unquantized model's weights' and the KV cache's) dtype; auto is the
    // checkpoint's, BF16 for a BF16 model (ServerArgs.dtype).
    const std::string dtypeText = servingDtype(m, w);
    std::string weights = dtypeText;
    if (Flag* quantization = w.find({"--quantization"})) {
        // QUANTIZATION_CHOICES in server_args.py, by the bits the linear layers' weights keep.
        const std::string q = quantization->value;
        const std::set<std::string> fp8{"fp8", "mxfp8", "modelopt", "modelopt_fp8", "w8a8_fp8"};
        const std::set<std::string> int4{"awq", "gptq", "awq_marlin", "gptq_marlin", "marlin", "moe_wna16", "w4afp8", "bitsandbytes"};
        if (fp8.count(q))
            weights = "fp8";
        else if (q == "w8a8_int8")
            weights = "int8";
        else if (int4.count(q))
            weights = "int4";
        else if (q == "mxfp4")
            m.set("expert_weight_dtype", "mxfp4");  // "MOE-only" (QUANTIZATION_CHOICES): the other layers keep --dtype
        else if (q != "unquant")
            m.unmapped(quantization->name, q, "the weights' bit width depends on the checkpoint; set weight_dtype");
    }
    m.set("weight_dtype", weights);
    // kv_cache_dtype auto is the model's dtype (ServerArgs.kv_cache_dtype).
    std::string kv = dtypeText;
    if (Flag* cache = w.find({"--kv-cache-dtype"})) {
        if (startsWith(cache->value, "fp8"))
            kv = "fp8";
        else if (cache->value == "bf16" || cache->value == "bfloat16")
            kv = "bf16";
        else if (cache->value != "auto")
            m.unmapped(cache->name, cache->value, "not auto, bf16, fp8_e4m3 or fp8_e5m2");
    }
    m.set("kv_dtype", kv);
}

// The GPU's share for the weights and the KV pool, and the decode's CUDA graphs.
void readGpuShare(Words& w, Mapping& m) {
    // mem_fraction_static is the share of the GPU for the weights and the KV pool (profile_max_num_token: the pool is
    // what is free after the weights less (1 − fraction) × the GPU); the rest holds activations and CUDA graphs.
    if (const auto fraction = flagNumber(m, w.find({"--mem-fraction-static"})))
        m.setNumber("headroom", std::round((1 - *fraction) * 1e6) / 1e6);
    else
        m.warn(
            "--mem-fraction-static not given: SGLang derives it from the GPU's memory (ServerArgs._handle_gpu_memory_settings: "
            "(GPU − reserved) / GPU, reserved = 512 MiB + 1.5 MiB × max(chunked prefill, 2048) + TP × PP / 8 GiB + the "
            "CUDA graphs' reserve, at least 10 GiB above 60 GiB; about 0.83 on an 80 GB H100 at TP 1; 0.88 to 0.79 by TP in "
            "older releases): headroom is left as it was; set it to 1 − that fraction");
    // Decode without CUDA graphs: --disable-cuda-graph (both phases; deprecated in newer releases for the per-phase
    // flags, server_args.py _parse_cuda_graph_config), --disable-decode-cuda-graph, --cuda-graph-backend-decode disabled.
    Flag* graphs = w.find({"--cuda-graph-backend-decode"});
    if (w.has({"--disable-cuda-graph", "--disable-decode-cuda-graph"}) || (graphs && graphs->value == "disabled")) {
        m.setBool("enforce_eager", true);
        m.setNumber("cuda_graphs_gb", 0);
    } else if (graphs) {
        m.unmapped(graphs->name, graphs->value, "a decode CUDA-graph backend; its memory is cuda_graphs_gb");
    }
    // The largest decode batch captured (ServerArgs.cuda_graph_max_bs; unset, SGLang's own by the GPU's memory and TP).
    if (const auto size = flagNumber(m, w.find({"--cuda-graph-max-bs"}))) m.setNumber("cuda_graph_max_batch", *size);
}

// Whether the text is an SGLang launch at all: its command, a model or one of its own flags.
bool namesSglang(Words& w, bool model) {
    const auto& all = w.all();
    const bool launcher =
        std::any_of(all.begin(), all.end(), [](const std::string& word) { return contains(word, "sglang.launch_server"); }) ||
        std::adjacent_find(all.begin(), all.end(),
                           [](const std::string& a, const std::string& b) { return a == "sglang" && b == "serve"; }) != all.end();
    const bool flags = std::any_of(w.flags().begin(), w.flags().end(), [](const Flag& f) {
        return f.name == "--tp-size" || f.name == "--mem-fraction-static" || f.name == "--context-length" ||
               f.name == "--max-running-requests";
    });
    return launcher || model || flags;
}

}  // namespace

void importSglang(Words& w, Mapping& m) {
    m.set("mode", "inference");
    m.set("framework", "sglang");
    m.set("method", "membudget");
    const std::optional<std::string> model = readModel(w, m);
    readLayout(w, m);
    readRequests(w, m);
    readDtypes(w, m);
    readGpuShare(w, m);
    if (Flag* config = w.find({"--config"}))
        m.unmapped(config->name, config->value, "a YAML file of further flags, not read: import its flags as a command");
    // SGLang's argparse knows each flag by its dashes only (arg_utils.py _field_to_cli_name): --tp_size is refused there.
    for (Flag& f : w.flags())
        if (!f.read && f.name.find('_') != std::string::npos) {
            f.read = true;
            m.unmapped(f.name, f.value, "SGLang's parser takes dashes only (--tp-size, not --tp_size) and refuses this flag");
        }
    if (!namesSglang(w, model.has_value()))
        m.error(
            "no sglang.launch_server or sglang serve command and no SGLang flags (--model-path, --tp-size, "
            "--mem-fraction-static, …) in the text");
    w.listUnread(m, kSglangIgnored, "not modelled by membudget");
}

ExportResult exportSglang(const Config& c) {
    Exporter e(c);
    const std::string_view hub = hubIdOf(c.model);
    if (hub.empty()) e.skip("model", c.name.empty() ? c.model : c.name, "no Hugging Face Hub id for it here: put the model's id or path");
    std::vector<std::string> l{"python -m sglang.launch_server --model-path " + (hub.empty() ? std::string("MODEL") : std::string(hub))};
    std::string layout = "--tp-size " + formatNumber(c.tp);
    if (c.pp > 1) layout += " --pp-size " + formatNumber(c.pp);
    if (c.dp > 1) layout += " --dp-size " + formatNumber(c.dp);
    // Data-parallel attention: dp_size attention groups inside the TP group (replicas are then separate servers).
    if (c.attentionDp > 1) {
        if (c.dp > 1)
            e.skip("dp", formatNumber(c.dp), "with data-parallel attention, --dp-size is the attention groups: one server a replica");
        layout = "--tp-size " + formatNumber(c.tp) + (c.pp > 1 ? " --pp-size " + formatNumber(c.pp) : "") + " --dp-size " +
                 formatNumber(c.attentionDp) + " --enable-dp-attention";
    }
    // Experts split over part of each replica's TP group, each expert over the rest: moe_tp_size = tp_size / ep_size.
    const double ep = c.ep > 1 && std::fmod(c.tp, c.ep) == 0 ? c.ep : 1;
    if (ep > 1)
        layout += " --ep-size " + formatNumber(ep);
    else if (c.ep > 1)
        e.skip("ep", formatNumber(c.ep), "SGLang splits the experts within the TP group: ep must divide tp");
    if (c.experts != 0 && c.etp != (ep > 1 ? c.tp / ep : 0))
        e.skip("etp", formatNumber(c.etp),
               "SGLang splits each expert over tp / ep ranks (moe_tp_size), " + formatNumber(c.tp / ep) + " here");
    l.push_back(layout);
    if (c.cp > 1) e.skip("cp", formatNumber(c.cp), "SGLang serves without context parallelism here");
    l.push_back("--context-length " + formatNumber(c.seq) + " --max-running-requests " + formatNumber(c.mb) + " --chunked-prefill-size " +
                formatNumber(c.workspaceTokens) + " --page-size " + formatNumber(c.kvBlock));
    // --dtype sets the activations and the KV cache (unless --kv-cache-dtype says otherwise); quantized weights keep it
    // free to follow the cache.
    const bool unquantized = c.weightDtype == WeightDtype::bf16 || c.weightDtype == WeightDtype::fp16;
    const bool halfPrecision = unquantized ? c.weightDtype == WeightDtype::fp16 : c.kvDtype == KvDtype::fp16;
    std::string precision = halfPrecision ? "--dtype float16" : "--dtype bfloat16";
    if (c.weightDtype == WeightDtype::fp8) precision += " --quantization fp8";
    if (c.weightDtype == WeightDtype::int8) precision += " --quantization w8a8_int8";
    if (c.weightDtype == WeightDtype::int4) precision += " --quantization awq";
    if (c.kvDtype == KvDtype::fp8) precision += " --kv-cache-dtype fp8_e4m3";
    if (c.kvDtype == KvDtype::bf16 && halfPrecision) precision += " --kv-cache-dtype bf16";
    if (c.kvDtype == KvDtype::fp16 && !halfPrecision) e.skip("kv_dtype", "fp16", "SGLang's KV cache takes --dtype unless bf16 or fp8");
    l.push_back(precision);
    // The fraction SGLang gives the weights and the KV pool; the rest is left for activations and CUDA graphs.
    std::string memory = "--mem-fraction-static " + formatNumber(std::round((1 - c.headroom) * 1e6) / 1e6);
    if (c.enforceEager) memory += " --disable-cuda-graph";
    if (c.schedulerRecvInterval > 1) memory += " --scheduler-recv-interval " + formatNumber(c.schedulerRecvInterval);
    if (c.cudaGraphMaxBatch != 0 && !c.enforceEager) memory += " --cuda-graph-max-bs " + formatNumber(c.cudaGraphMaxBatch);
    l.push_back(memory);
    // SGLang captures its graphs up to cuda_graph_max_bs (set by the GPU's memory and TP) and sizes them itself.
    if (c.cudaGraphsGb != 0)
        e.skip("cuda_graphs_gb", formatNumber(c.cudaGraphsGb),
               c.enforceEager ? "--disable-cuda-graph keeps none" : "SGLang sizes its CUDA graphs itself; no flag sets their memory");
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: SGLang (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") + command(l);
    return r;
}

}  // namespace membudget::detail
