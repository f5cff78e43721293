// trtllm-bench (tensorrt_llm/commands/bench.py, tensorrt_llm/bench: benchmark/throughput.py, benchmark/low_latency.py,
// utils/general.py get_settings, dataclasses/configuration.py RuntimeConfig.get_llm_args), and the dataset NVIDIA's
// guides generate beside it (benchmarks/cpp/prepare_dataset.py token-norm-dist), over the settings trtllm.cpp gathers
// (trtllm_settings.hpp).
#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "formats/reader.hpp"
#include "formats/trtllm.hpp"
#include "formats/trtllm_settings.hpp"
#include "membudget/base/text.hpp"

namespace membudget::detail {

const std::set<std::string_view> kTrtllmBenchIgnored{"--model_path",
                                                     "--workspace",
                                                     "--log_level",
                                                     "--revision",
                                                     "--warmup",
                                                     "--streaming",
                                                     "--eos_id",
                                                     "--report_json",
                                                     "--iteration_log",
                                                     "--output_json",
                                                     "--request_json",
                                                     "--sampler_options",
                                                     "--custom_module_dirs",
                                                     "--no_skip_tokenizer_init",
                                                     "--image_data_format",
                                                     "--data_device",
                                                     "--modality",
                                                     "--max_input_len",
                                                     "--target_input_len",
                                                     "--target_output_len",
                                                     "--trust_remote_code"};

namespace {

// prepare_dataset.py's options that change no length or count (its root group and token-norm-dist), and trtllm-bench's
// group options before its prepare-dataset subcommand.
const std::set<std::string_view> kDatasetIgnored{"--tokenizer",  "--output",       "--stdout",    "--random-seed",
                                                 "--task-id",    "--rand-task-id", "--lora-dir",  "--model",
                                                 "--model_path", "--workspace",    "--log_level", "--revision"};

}  // namespace

BenchCommand readBenchCommand(Words& w, size_t program, Mapping& m) {
    BenchCommand out;
    const auto& all = w.all();
    // The trtllm-bench group's options go before the subcommand: --model/-m, --model_path, --workspace/-w, --log_level,
    // --revision (commands/bench.py main); the subcommand's own after it.
    size_t at = program + 1;
    std::vector<std::string> early;
    while (at < all.size()) {
        if (all[at] == "-m" || all[at] == "-w") {
            if (all[at] == "-m" && at + 1 < all.size()) out.model = all[at + 1];
            at += 2;
            continue;
        }
        if (!looksLikeOption(all[at])) break;
        const std::string name = all[at].substr(0, all[at].find('='));
        if (name != "--model" && name != "--model_path" && name != "--workspace" && name != "--log_level" && name != "--revision")
            early.push_back(name);
        const bool takesValue = all[at].find('=') == std::string::npos && !kTrtllmSwitches.count(all[at]);
        at += takesValue && at + 1 < all.size() && !looksLikeOption(all[at + 1]) ? 2 : 1;
    }
    if (at < all.size()) out.subcommand = all[at];
    if (Flag* f = w.find({"--model"})) {
        out.model = f->value;
        out.modelOption = "--model";
    }
    if (!early.empty()) {
        std::string names;
        for (const auto& n : early) names += (names.empty() ? "" : ", ") + n;
        m.warn(names + " before the " + (out.subcommand.empty() ? std::string("subcommand") : out.subcommand) +
               " subcommand: they are its options, not the trtllm-bench group's (commands/bench.py), and click refuses them "
               "there; read as if given after it");
    }
    if (out.subcommand == "build")
        m.error("trtllm-bench build: a TensorRT engine (the TensorRT backend), which membudget does not model");
    else if (out.subcommand != "throughput" && out.subcommand != "latency")
        m.error("trtllm-bench " + (out.subcommand.empty() ? std::string("without a subcommand") : out.subcommand) +
                ": membudget reads its throughput and latency subcommands");
    return out;
}

// benchmarks/cpp/prepare_dataset.py … token-norm-dist (utils/prepare_synthetic_data.py): the requests and their
// lengths, normal with the given spread (utils/utils.py get_norm_dist_lengths: max(1, ceil(x)) of each draw).
void readDataset(Words& data, Settings& s, Mapping& m) {
    if (std::none_of(data.all().begin(), data.all().end(), [](const std::string& w) { return w == "token-norm-dist"; })) {
        m.unmapped("prepare_dataset.py", "",
                   "only its token-norm-dist subcommand is read: set input_tokens, output_tokens and num_prompts");
        data.listUnread(m, kDatasetIgnored, "not modelled by membudget");
        return;
    }
    s.dataset = true;
    s.requests = numberOf(m, data, {"--num-requests"});
    s.inputMean = numberOf(m, data, {"--input-mean"});
    s.outputMean = numberOf(m, data, {"--output-mean"});
    const auto inputStdev = numberOf(m, data, {"--input-stdev"}), outputStdev = numberOf(m, data, {"--output-stdev"});
    // With both spreads 0 every request is exactly the means ("all requests will be uniform", perf-overview.md).
    if (!(inputStdev && *inputStdev == 0 && outputStdev && *outputStdev == 0)) {
        s.fixedLengths = false;
        m.warn("token-norm-dist draws each length from a normal distribution (--input-stdev " +
               (inputStdev ? formatNumber(*inputStdev) : "?") + ", --output-stdev " + (outputStdev ? formatNumber(*outputStdev) : "?") +
               "), not the uniform range membudget draws: the lengths are taken as fixed at the means (length_range_ratio 1)");
    }
    data.listUnread(m, kDatasetIgnored, "not modelled by membudget");
}

// trtllm-bench --model M throughput|latency [options] (tensorrt_llm/bench/benchmark/throughput.py, low_latency.py).
void readBench(Words& w, Settings& s, Mapping& m, const std::string& subcommand) {
    s.bench = true;
    s.latency = subcommand == "latency";
    s.tp = numberOf(m, w, {"--tp"});
    s.pp = numberOf(m, w, {"--pp"});
    s.ep = numberOf(m, w, {"--ep"});
    if (const auto cluster = numberOf(m, w, {"--cluster_size"}); known(cluster) && *cluster > 1)
        m.unmapped("--cluster_size", formatNumber(*cluster), "expert cluster parallelism is not modelled");
    if (const auto beams = numberOf(m, w, {"--beam_width"}); known(beams) && *beams > 1)
        m.unmapped("--beam_width", formatNumber(*beams), "beam search is not modelled");
    // --concurrency: throughput -1, "no concurrency limit" (every request submitted at once: LlmManager's semaphore is
    // None, utils/asynchronous.py); latency 1.
    s.concurrency = numberOf(m, w, {"--concurrency"});
    if (!s.concurrency) s.concurrency = s.latency ? 1 : -1;
    // --num_requests 0: the dataset's length.
    if (const auto requests = numberOf(m, w, {"--num_requests"}); requests && *requests != 0) s.requests = requests;
    // latency has no --max_batch_size or --max_num_tokens and forces max_batch_size 1 (low_latency.py).
    if (s.latency) {
        for (const std::string_view name : {"--max_batch_size", "--max_num_tokens"})
            if (Flag* f = w.find({name})) m.unmapped(f->name, f->value, "trtllm-bench latency has no such option (its batch is 1)");
        s.maxBatch = 1;
    } else {
        s.maxBatch = numberOf(m, w, {"--max_batch_size"});
        s.maxTokens = numberOf(m, w, {"--max_num_tokens"});
    }
    s.maxSeq = numberOf(m, w, {"--max_seq_len"});
    // --kv_cache_free_gpu_mem_fraction .90 (_mem_: trtllm-serve's is _memory_).
    s.fraction = numberOf(m, w, {"--kv_cache_free_gpu_mem_fraction"});
    if (Flag* f = w.find({"--kv_cache_free_gpu_memory_fraction"}))
        m.unmapped(f->name, f->value,
                   "trtllm-serve's name; trtllm-bench's is --kv_cache_free_gpu_mem_fraction, and click refuses this one");
    if (Flag* f = w.find({"--enable_chunked_context", "--disable_chunked_context"})) {
        s.chunked = f->name == "--enable_chunked_context";
        s.chunkedSaid = true;
    }
    if (Flag* policy = w.find({"--scheduler_policy"}); policy && policy->value != "guaranteed_no_evict")
        m.unmapped(policy->name, policy->value, "not modelled: membudget takes guaranteed_no_evict, trtllm-bench's default");
    if (Flag* engine = w.find({"--engine_dir"}))
        m.error(engine->name + " " + engine->value + ": a TensorRT engine (the TensorRT backend), which membudget does not model");
}

// trtllm-bench's batch and tokens (utils/general.py get_settings): both --max_batch_size and --max_num_tokens given, they
// are taken; else its heuristic (tensorrt_llm/bench/build/tuning.py calc_engine_setting) gives the one not given, from the GPU's
// memory, which the text does not say, so 2048 and 8192 are taken and asked of the user; without chunked prefill
// max_num_tokens is then at least the longest prompt + max_batch_size. The requests in flight: the concurrency where
// it is set, else every request at once, each bounded by max_batch_size.
void finishBench(Settings& s, Mapping& m) {
    if (!s.chunkedSaid && !s.latency)
        m.warn(
            "chunked prefill taken as off, trtllm-bench throughput's default in 1.0 (--enable_chunked_context a switch); later "
            "releases turn it on unless --disable_chunked_context: set chunked_prefill to match yours");
    const bool heuristic = !(s.maxBatch && s.maxTokens);
    const std::string why =
        "trtllm-bench sizes max_batch_size and max_num_tokens itself unless both are given (get_settings → "
        "get_benchmark_engine_settings: requests = (GPU memory × GPUs − weights) × the KV fraction / KV bytes of ISL + OSL, "
        "max_batch_size that / pp rounded up to 32, 128 or 256 (at least 64), max_num_tokens max_batch_size × (1 + ISL / OSL) "
        "rounded up (at least 2048)), by the GPU, which the text does not say; BuildConfig's 2048 and 8192 are taken: set them "
        "from its log";
    const bool batchAssumed = !s.maxBatch && heuristic && !s.latency;
    if (batchAssumed) s.maxBatch = 2048;
    if (!s.maxTokens && heuristic) {
        double tokens = 8192;
        if (!s.chunked && known(s.inputMean) && known(s.maxBatch)) tokens = std::max(tokens, *s.inputMean + *s.maxBatch);
        s.maxTokens = tokens;
        if (!s.latency) m.assume("workspace_tokens", formatNumber(tokens), why);
    }
    // trtllm-bench's own cuda_graph_config, {enable_padding: true, max_batch_size: the runtime batch} (get_settings),
    // which a YAML cuda_graph_config replaces; one with neither batch_sizes nor max_batch_size gets the runtime batch
    // (RuntimeConfig.get_llm_args).
    if (!s.graphsFromYaml) s.padding = true;
    if (!s.graphMax && known(s.maxBatch)) s.graphMax = s.maxBatch;
    // The benchmark: its requests and their lengths; max_seq_len unset is the dataset's longest request
    // (max_seq_len or metadata.max_sequence_length).
    if (known(s.requests)) m.setNumber("num_prompts", *s.requests);
    if (known(s.inputMean)) m.setNumber("input_tokens", *s.inputMean);
    if (known(s.outputMean)) m.setNumber("output_tokens", *s.outputMean);
    if (s.dataset) m.setNumber("length_range_ratio", 1);
    if (!s.maxSeq && known(s.inputMean) && known(s.outputMean) && s.fixedLengths) s.maxSeq = *s.inputMean + *s.outputMean;
    std::optional<double> mb = s.maxBatch;
    if (known(mb)) mb = requestsInFlight(s, *mb);
    if (!known(s.concurrency) || !known(mb)) {
        if (known(s.concurrency) && *s.concurrency > 0) m.assume("mb", formatNumber(*s.concurrency), why);
        return;  // unread: asked for by the import (Mapping::finish)
    }
    if (*s.concurrency > 0) mb = std::min(*mb, *s.concurrency);
    if (known(s.requests)) mb = std::min(*mb, *s.requests);
    if (batchAssumed && *mb == 2048)
        m.assume("mb", "2048", why);
    else if (batchAssumed)
        m.assume("mb", formatNumber(*mb),
                 "the concurrency or the request count, " + formatNumber(*mb) +
                     ", taken as the requests in flight, assuming trtllm-bench's own max_batch_size is no smaller: " + why);
    else
        m.setNumber("mb", *mb);
}

}  // namespace membudget::detail
