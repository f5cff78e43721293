// TensorRT-LLM's commands (docs/import.md, "trtllm"): trtllm-serve and trtllm-bench with the extra options YAML pasted
// beside them as a here-document, the YAML alone, and the export written back as a here-document and a trtllm-serve
// command. The commands are NVIDIA's own, quoted verbatim from NVIDIA/TensorRT-LLM (each path below in that repository):
//   E1 NVIDIA/TensorRT-LLM/docs/source/deployment-guide/quick-start-recipe-for-llama3.3-70b-on-trtllm.md
//      @0f34bf05edf0d8dc49f86675a431971e3cd59ea2
//   E2 NVIDIA/TensorRT-LLM/docs/source/deployment-guide/quick-start-recipe-for-deepseek-r1-on-trtllm.md
//      @0d2a785611268f394ce467cc43d372b04a55a2ba
//   E3 NVIDIA/TensorRT-LLM/docs/source/deployment-guide/quick-start-recipe-for-gpt-oss-on-trtllm.md
//      @0e7fdcd081c53511310d9952f6aef49c0a4b6e6e
//   E4 NVIDIA/TensorRT-LLM/examples/serve/deepseek_r1_reasoning_parser.sh @14e6b10f48d9bd8cc9fc04d1480f7a29e08b16cb
//   E5 NVIDIA/TensorRT-LLM/docs/source/performance/perf-overview.md (the 1.x text, PyTorch backend; the index gave no commit)
// E1 and E2 are read from their fixtures (tests/fixtures/import/trtllm), checked with the others in test_import.cpp; E3
// is the max-throughput variant of that fixture's low-latency block.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "fixtures.hpp"
#include "import_parse.hpp"
#include "import_support.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/formats/launch.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

using namespace membudget;
using membudget::test::assignedText;
using membudget::test::importText;

namespace {

std::string unmappedReason(const ImportResult& r, std::string_view key) {
    const auto u = std::find_if(r.unmapped.begin(), r.unmapped.end(), [key](const Unmapped& x) { return x.key == key; });
    return u == r.unmapped.end() ? std::string("(not unmapped)") : u->reason;
}

bool warned(const ImportResult& r, std::string_view part) {
    return std::any_of(r.warnings.begin(), r.warnings.end(), [part](const std::string& w) { return w.find(part) != std::string::npos; });
}

bool assumed(const ImportResult& r, std::string_view field) {
    return std::any_of(r.assumed.begin(), r.assumed.end(), [field](const Problem& p) { return p.field == field; });
}

std::string errorsOf(const ImportResult& r) {
    std::string out;
    for (const auto& e : r.errors) out += e.message + "\n";
    return out;
}

void checkKeys(const ImportResult& r, const std::vector<std::pair<std::string, std::string>>& keys) {
    for (const auto& [key, value] : keys) {
        INFO(key);
        CHECK(assignedText(r, key) == value);
    }
}

// The texts NVIDIA's deployment guides give, kept as import fixtures (tests/fixtures/import/trtllm, each with its
// source in its .expect.json).
std::string importFixture(const std::string& name) {
    return test::readFile(std::string(MEMBUDGET_FIXTURES_DIR) + "/import/trtllm/" + name);
}

// E1: the extra options block and the launch block of the Llama 3.3 70B recipe (container release:1.0.0rc6).
const std::string kE1 = importFixture("llama3_3_70b_fp8_quick_start.sh");

// E2: the DeepSeek-R1 recipe's FP8 variant (its ${EXTRA_LLM_API_FILE} is set in an earlier block of the page).
const std::string kE2 = importFixture("deepseek_r1_fp8_quick_start.sh");

// E3: the gpt-oss recipe's max-throughput block (the CUTLASS MoE backend) and its launch block.
const std::string kE3 = R"(EXTRA_LLM_API_FILE=/tmp/config.yml

cat << EOF > ${EXTRA_LLM_API_FILE}
enable_attention_dp: true
cuda_graph_config:
  enable_padding: true
  max_batch_size: 720
moe_config:
    backend: CUTLASS
stream_interval: 10
num_postprocess_workers: 4
EOF

trtllm-serve openai/gpt-oss-120b \
    --host 0.0.0.0 \
    --port 8000 \
    --backend pytorch \
    --max_batch_size 720 \
    --max_num_tokens 16384 \
    --kv_cache_free_gpu_memory_fraction 0.9 \
    --tp_size 8 \
    --ep_size 8 \
    --trust_remote_code \
    --extra_llm_api_options ${EXTRA_LLM_API_FILE}
)";

// E4: the here-document and the command of examples/serve/deepseek_r1_reasoning_parser.sh (--config, after 1.0).
const std::string kE4 = R"(cat >./extra-llm-api-config.yml <<EOF
cuda_graph_config:
    enable_padding: true
    max_batch_size: 512
enable_attention_dp: true
kv_cache_config:
    dtype: fp8
    free_gpu_memory_fraction: 0.8
stream_interval: 10
moe_config:
    backend: DEEPGEMM
EOF

trtllm-serve \
    deepseek-ai/DeepSeek-R1 \
    --host localhost --port 8000 \
    --trust_remote_code \
    --max_batch_size 1024 --max_num_tokens 8192 \
    --tp_size 8 --ep_size 8 --pp_size 1 \
    --config ./extra-llm-api-config.yml \
    --reasoning_parser deepseek-r1
)";

// E5: perf-overview's dataset and benchmark lines, with the page's variables left as they are.
const std::string kE5 =
    "python benchmarks/cpp/prepare_dataset.py --tokenizer=$model_name --stdout token-norm-dist --num-requests=$num_requests "
    "--input-mean=$isl --output-mean=$osl --input-stdev=0 --output-stdev=0 > $dataset_file\n"
    "trtllm-bench --tp $tp_size --pp $pp_size --ep $ep_size --model $model_name throughput --dataset $dataset_file --backend pytorch "
    "--extra_llm_api_options $llm_options\n";

// Export, then import as the page and `--import` apply it (over importBase): every field that applies comes back,
// except what the export said it could not write and what the import asks for.
void checkRoundTrip(const Config& config) {
    const ExportResult exported = exportConfig(ImportFormat::trtllm, config);
    INFO(encodeQuery(config) << "\n" << exported.text);
    REQUIRE(detectImportFormat(exported.text) == ImportFormat::trtllm);
    const ImportResult back = importText(exported.text);
    INFO(errorsOf(back));
    REQUIRE(back.ok());
    std::set<std::string> excused;
    for (const auto& s : exported.notExported) excused.insert(s.key);
    for (const auto& s : back.assumed) excused.insert(s.field);
    for (const auto& u : back.unmapped) {
        INFO("unmapped " << u.key << " = " << u.value << ": " << u.reason);
        CHECK(excused.count(u.key) == 1);
    }
    const ParsedConfig again = applyAssignments(back.assignments, importBase(config, back).config);
    for (const auto& p : again.problems) INFO(p.field << ": " << p.message);
    CHECK(again.problems.empty());
    for (const FieldSpec& field : fields()) {
        if (field.key == "name" || excused.count(std::string(field.key)) || !fieldApplies(field, config)) continue;
        INFO("field " << field.key);
        CHECK(fieldText(again.config, field) == fieldText(config, field));
    }
}

Config configOf(const std::string& query) {
    const ParsedConfig parsed = applyAssignments(parseQuery(query).assignments);
    for (const auto& p : parsed.problems) INFO(p.field << ": " << p.message);
    REQUIRE(parsed.problems.empty());
    for (const auto& p : validate(parsed.config)) INFO(p.field << ": " << p.message);
    REQUIRE(validate(parsed.config).empty());
    return parsed.config;
}

}  // namespace

TEST_CASE("TensorRT-LLM: NVIDIA's trtllm-serve recipes with their extra options here-documents", "[import][trtllm]") {
    for (const std::string* text : {&kE1, &kE2, &kE3, &kE4}) CHECK(detectImportFormat(*text) == ImportFormat::trtllm);

    // E1: an NVIDIA ModelOpt FP8 checkpoint of Llama 3.3 70B; the YAML's kv_cache_config (no fraction) replaces the CLI's.
    const ImportResult e1 = importText(kE1);
    INFO(errorsOf(e1));
    REQUIRE(e1.ok());
    checkKeys(e1, {{"mode", "inference"},
                   {"framework", "trtllm"},
                   {"model", "llama-3.1-70b"},
                   {"tp", "1"},
                   {"pp", "1"},
                   {"dp", "1"},
                   {"ep", "1"},
                   {"etp", "0"},
                   {"mb", "1024"},
                   {"workspace_tokens", "2048"},
                   {"seq", "2048"},
                   {"headroom", "0.1"},
                   {"weight_dtype", "fp8"},
                   {"kv_dtype", "fp8"},
                   {"kv_block", "32"},
                   {"attention_dp", "1"},
                   {"cuda_graph_max_batch", "1024"},
                   {"cuda_graph_padding", "true"},
                   {"chunked_prefill", "false"},
                   {"enforce_eager", "false"}});
    CHECK(e1.unmapped.empty());
    CHECK(e1.warnings.empty());

    // E2: the CLI's 0.8 is lost to the YAML's kv_cache_config (update_llm_args_with_extra_dict's shallow merge), said.
    const ImportResult e2 = importText(kE2);
    INFO(errorsOf(e2));
    REQUIRE(e2.ok());
    checkKeys(e2, {{"model", "deepseek-v3"},
                   {"tp", "8"},
                   {"ep", "8"},
                   {"etp", "1"},
                   {"attention_dp", "8"},
                   {"mb", "8192"},  // --max_batch_size 1024 on each of 8 attention-DP ranks
                   {"workspace_tokens", "3200"},
                   {"seq", "2048"},
                   {"headroom", "0.1"},
                   {"weight_dtype", "fp8"},
                   {"kv_dtype", "fp8"},
                   {"cuda_graph_max_batch", "128"},
                   {"cuda_graph_padding", "true"}});
    CHECK(warned(e2, "replaces the KvCacheConfig the command builds from its fraction, 0.8"));
    CHECK(warned(e2, "published in FP8"));
    CHECK(warned(e2, "speculative_config (MTP): the serving speed ignores speculation"));
    CHECK(unmappedReason(e2, "speculative_config").find("not modelled") != std::string::npos);
    CHECK(unmappedReason(e2, "moe_config.backend") != "(not unmapped)");
    CHECK(unmappedReason(e2, "moe_config.max_num_tokens") != "(not unmapped)");
    CHECK(unmappedReason(e2, "stream_interval") == "(not unmapped)");

    // E3: not a preset; attention DP over all eight ranks; CUTLASS, the default MoE backend, passes silently.
    const ImportResult e3 = importText(kE3);
    REQUIRE(e3.ok());
    checkKeys(e3, {{"model", "(not set)"},
                   {"tp", "8"},
                   {"ep", "8"},
                   {"attention_dp", "8"},
                   {"mb", "5760"},  // 720 a rank
                   {"workspace_tokens", "16384"},
                   {"seq", "(not set)"},
                   {"weight_dtype", "bf16"},
                   {"kv_dtype", "bf16"},
                   {"cuda_graph_max_batch", "720"}});
    CHECK(unmappedReason(e3, "model").find("not a preset") != std::string::npos);
    CHECK(unmappedReason(e3, "moe_config.backend") == "(not unmapped)");
    CHECK(assumed(e3, "seq"));
    CHECK(warned(e3, "weight_dtype bf16"));

    // E4: --config (the newer alias) names ./extra-llm-api-config.yml, which `cat >./extra-llm-api-config.yml` writes.
    const ImportResult e4 = importText(kE4);
    REQUIRE(e4.ok());
    checkKeys(e4, {{"model", "deepseek-v3"},
                   {"tp", "8"},
                   {"pp", "1"},
                   {"ep", "8"},
                   {"etp", "1"},
                   {"attention_dp", "8"},
                   {"mb", "8192"},  // 1024 on each of 8 attention-DP ranks
                   {"workspace_tokens", "8192"},
                   {"headroom", "0.2"},
                   {"kv_dtype", "fp8"},
                   {"cuda_graph_max_batch", "512"},
                   {"cuda_graph_padding", "true"}});
    CHECK(unmappedReason(e4, "--config") == "(not unmapped)");
    CHECK(unmappedReason(e4, "--reasoning_parser") == "(not unmapped)");
    CHECK_FALSE(warned(e4, "replaces the KvCacheConfig"));

    // The format TensorRT-LLM's configurations are launched with.
    Config serving;
    serving.mode = Mode::inference;
    serving.framework = Framework::trtllm;
    CHECK(launchFormat(serving) == ImportFormat::trtllm);
}

TEST_CASE("TensorRT-LLM: trtllm-bench with its dataset generated in the same text", "[import][trtllm]") {
    // E5 as NVIDIA writes it: the variables are the page's, so their options are named, never defaulted; --tp/--pp/--ep
    // before `throughput` are the subcommand's options, which click refuses there.
    const ImportResult e5 = importText(kE5);
    REQUIRE(e5.ok());
    for (const char* option : {"--model", "--tp", "--pp", "--ep", "--num-requests", "--input-mean", "--output-mean"}) {
        INFO(option);
        CHECK(unmappedReason(e5, option).find("depends on $") != std::string::npos);
    }
    CHECK(unmappedReason(e5, "--extra_llm_api_options").find("not in the text") != std::string::npos);
    CHECK(warned(e5, "--tp, --pp, --ep before the throughput subcommand"));
    CHECK(assignedText(e5, "tp") == "(not set)");
    CHECK(assumed(e5, "mb"));
    CHECK(assumed(e5, "workspace_tokens"));
    CHECK(assignedText(e5, "cuda_graph_padding") == "true");  // trtllm-bench's own cuda_graph_config
    CHECK(assignedText(e5, "length_range_ratio") == "1");

    // The same with its values: the dataset's requests and fixed lengths, the concurrency, the bench's fraction name.
    const std::string data =
        "python benchmarks/cpp/prepare_dataset.py --tokenizer=meta-llama/Llama-3.1-8B --stdout token-norm-dist --num-requests=1000 "
        "--input-mean=1024 --output-mean=1024 --input-stdev=0 --output-stdev=0 > /tmp/synthetic.txt\n";
    const std::string bench = "trtllm-bench --model meta-llama/Llama-3.1-8B throughput --dataset /tmp/synthetic.txt --backend pytorch ";
    const ImportResult given = importText(
        data + bench + "--tp 2 --concurrency 128 --max_batch_size 512 --max_num_tokens 4096 --kv_cache_free_gpu_mem_fraction 0.95\n");
    INFO(errorsOf(given));
    REQUIRE(given.ok());
    CHECK(given.unmapped.empty());
    checkKeys(given, {{"model", "llama-3.1-8b"},
                      {"tp", "2"},
                      {"num_prompts", "1000"},
                      {"input_tokens", "1024"},
                      {"output_tokens", "1024"},
                      {"length_range_ratio", "1"},
                      {"seq", "2048"},
                      {"mb", "128"},
                      {"workspace_tokens", "4096"},
                      {"headroom", "0.05"},
                      {"cuda_graph_max_batch", "512"},
                      {"cuda_graph_padding", "true"},
                      {"chunked_prefill", "false"}});
    CHECK(given.assumed.empty());
    CHECK(warned(given, "chunked prefill taken as off"));
    // Neither --max_batch_size nor --max_num_tokens: trtllm-bench's heuristic needs the GPU; BuildConfig's values are
    // taken and asked for, max_num_tokens raised to the longest prompt + max_batch_size without chunked prefill.
    const ImportResult heuristic = importText(
        "python benchmarks/cpp/prepare_dataset.py --tokenizer=x --stdout token-norm-dist --num-requests=3000 --input-mean=8000 "
        "--output-mean=500 --input-stdev=0 --output-stdev=0 > d.txt\n" +
        bench + "--disable_chunked_context\n");
    REQUIRE(heuristic.ok());
    CHECK(assignedText(heuristic, "mb") == "2048");
    CHECK(assignedText(heuristic, "workspace_tokens") == "10048");
    CHECK(assumed(heuristic, "mb"));
    CHECK(assumed(heuristic, "workspace_tokens"));
    CHECK_FALSE(warned(heuristic, "chunked prefill taken as off"));
    // A spread: not the uniform range membudget draws, said.
    const ImportResult spread = importText(
        "python benchmarks/cpp/prepare_dataset.py --tokenizer=x --stdout token-norm-dist --num-requests=100 --input-mean=512 "
        "--output-mean=128 --input-stdev=64 --output-stdev=0 > d.txt\n" +
        bench + "--max_batch_size 64 --max_num_tokens 8192\n");
    REQUIRE(spread.ok());
    CHECK(warned(spread, "normal distribution"));
    CHECK(assignedText(spread, "seq") == "(not set)");
    // latency: batch 1, one request at a time.
    const ImportResult latency = importText(data + "trtllm-bench --model meta-llama/Llama-3.1-8B latency --dataset /tmp/synthetic.txt\n");
    REQUIRE(latency.ok());
    CHECK(assignedText(latency, "mb") == "1");
    // A dataset file with no generator in the text: its lengths are not known.
    const ImportResult file = importText(bench + "--max_batch_size 64 --max_num_tokens 8192\n");
    REQUIRE(file.ok());
    CHECK(unmappedReason(file, "--dataset").find("set num_prompts, input_tokens and output_tokens") != std::string::npos);
    // serve's fraction name is not bench's.
    CHECK(unmappedReason(importText(bench + "--kv_cache_free_gpu_memory_fraction 0.8"), "--kv_cache_free_gpu_memory_fraction")
              .find("--kv_cache_free_gpu_mem_fraction") != std::string::npos);
}

TEST_CASE("TensorRT-LLM: what it refuses is refused or named, never read", "[import][trtllm]") {
    const std::string serve = "trtllm-serve meta-llama/Llama-3.1-8B-Instruct ";
    // The TensorRT engine (and AutoDeploy) backends: an error naming the option.
    for (const char* backend : {"tensorrt", "trt", "_autodeploy"}) {
        const ImportResult r = importText(serve + "--backend " + backend);
        CHECK_FALSE(r.ok());
        CHECK(errorsOf(r).find(std::string("--backend ") + backend) != std::string::npos);
    }
    CHECK_FALSE(importText("trtllm-bench --model m build --tp_size 2").ok());
    CHECK_FALSE(importText("trtllm-bench --model m throughput --engine_dir /tmp/engine").ok());
    // click registers the underscored names only: --tp-size is "No such option".
    const ImportResult dashed = importText(serve + "--tp-size 8 --max-batch-size 64");
    REQUIRE(dashed.ok());
    CHECK(assignedText(dashed, "tp") == "1");
    CHECK(assignedText(dashed, "mb") == "2048");
    CHECK(unmappedReason(dashed, "--tp-size").find("underscores only") != std::string::npos);
    CHECK(unmappedReason(dashed, "--max-batch-size").find("underscores only") != std::string::npos);
    CHECK(warned(dashed, "--max_batch_size not given"));
    // Keys from before 1.0, which LlmArgs (extra = "forbid") refuses; NVIDIA's own run-benchmark-with-trtllm-serve.md
    // still shows cuda_graph_config.padding_enabled and kv_cache_dtype.
    const ImportResult legacy = importText(
        "cat > extra.yml <<EOF\nuse_cuda_graph: true\ncuda_graph_padding_enabled: true\ncuda_graph_batch_sizes: [1, 2, 4]\nkv_cache_dtype: "
        "fp8\ncuda_graph_config:\n  padding_enabled: true\nEOF\n" +
        serve + "--extra_llm_api_options extra.yml");
    REQUIRE(legacy.ok());
    for (const auto& [key, now] :
         std::vector<std::pair<std::string, std::string>>{{"use_cuda_graph", "cuda_graph_config"},
                                                          {"cuda_graph_padding_enabled", "enable_padding"},
                                                          {"cuda_graph_batch_sizes", "batch_sizes"},
                                                          {"kv_cache_dtype", "kv_cache_config.dtype"},
                                                          {"cuda_graph_config.padding_enabled", "enable_padding"}}) {
        INFO(key);
        CHECK(unmappedReason(legacy, key).find("TensorRT-LLM ≥ 1.0 refuses this key") != std::string::npos);
        CHECK(unmappedReason(legacy, key).find(now) != std::string::npos);
    }
    CHECK(assignedText(legacy, "kv_dtype") == "bf16");
    CHECK(assignedText(legacy, "cuda_graph_padding") == "false");
    // Both batch_sizes and a max_batch_size other than their largest: TensorRT-LLM's validator refuses it.
    CHECK_FALSE(importText("cat > x.yml <<EOF\ncuda_graph_config:\n  batch_sizes: [1, 8]\n  max_batch_size: 64\nEOF\n" + serve +
                           "--extra_llm_api_options x.yml")
                    .ok());
    // A YAML the command names but the text does not hold, or holds under another name, or not as YAML.
    CHECK(unmappedReason(importText(serve + "--extra_llm_api_options /tmp/x.yml"), "--extra_llm_api_options").find("not in the text") !=
          std::string::npos);
    const ImportResult other = importText("cat > a.yml <<EOF\nenable_attention_dp: true\nEOF\n" + serve + "--config b.yml");
    CHECK(unmappedReason(other, "--config").find("write a.yml") != std::string::npos);
    CHECK(warned(other, "a here-document writes a.yml"));
    CHECK(assignedText(other, "attention_dp") == "1");
    CHECK(unmappedReason(importText("cat > a.yml <<EOF\nkey: [unclosed\nEOF\n" + serve + "--config a.yml"), "--config")
              .find("does not read as YAML") != std::string::npos);
}

TEST_CASE("TensorRT-LLM: the extra options override the command, a whole section at a time", "[import][trtllm]") {
    const std::string serve =
        "trtllm-serve deepseek-ai/DeepSeek-V3 --tp_size 8 --max_batch_size 256 --kv_cache_free_gpu_memory_fraction 0.8 ";
    auto withYaml = [&](const std::string& yaml, const std::string& more = "") {
        return importText("cat > o.yml <<'EOF'\n" + yaml + "EOF\n" + serve + more + "--extra_llm_api_options o.yml\n");
    };
    // kv_cache_config with its fraction: the YAML's; tokens_per_block: kv_block.
    const ImportResult kv = withYaml("kv_cache_config:\n  free_gpu_memory_fraction: 0.85\n  tokens_per_block: 64\n");
    checkKeys(kv, {{"headroom", "0.15"}, {"kv_block", "64"}, {"kv_dtype", "bf16"}, {"weight_dtype", "fp8"}});
    CHECK_FALSE(warned(kv, "replaces the KvCacheConfig"));
    // No kv_cache_config: the command's fraction.
    CHECK(assignedText(withYaml("enable_chunked_prefill: true\n"), "headroom") == "0.2");
    CHECK(assignedText(withYaml("enable_chunked_prefill: true\n"), "chunked_prefill") == "true");
    // cuda_graph_config: null turns the graphs off; the YAML's max_batch_size and layout win over the command's.
    checkKeys(withYaml("cuda_graph_config: null\n"), {{"enforce_eager", "true"}, {"cuda_graphs_gb", "0"}, {"cuda_graph_max_batch", "0"}});
    checkKeys(withYaml("max_batch_size: 32\nmoe_expert_parallel_size: 4\nenable_attention_dp: true\n"),
              {{"mb", "256"}, {"ep", "4"}, {"etp", "2"}, {"attention_dp", "8"}});  // 32 on each of 8 ranks
    // batch_sizes: taken by their largest, said.
    const ImportResult sizes =
        withYaml("cuda_graph_config:\n  enable_padding: true\n  batch_sizes: [1, 2, 4, 8, 16, 32, 64, 128, 256, 384]\n");
    CHECK(assignedText(sizes, "cuda_graph_max_batch") == "384");
    CHECK(warned(sizes, "taken by the largest, 384"));
    // The ModelOpt FP8 checkpoint's KV cache: said, kept at the model's dtype unless kv_cache_config.dtype says fp8.
    const ImportResult modelopt = importText("trtllm-serve nvidia/Llama-3.1-8B-Instruct-FP8 --max_seq_len 4096");
    checkKeys(modelopt, {{"model", "llama-3.1-8b"}, {"weight_dtype", "fp8"}, {"kv_dtype", "bf16"}});
    CHECK(warned(modelopt, "kv_cache_quant_algo"));
    // NVFP4 weights are not modelled: named, weight_dtype left as it was.
    const ImportResult fp4 = importText("trtllm-serve nvidia/DeepSeek-R1-0528-FP4-v2 --tp_size 8");
    CHECK(assignedText(fp4, "model") == "deepseek-v3");
    CHECK(assignedText(fp4, "weight_dtype") == "(not set)");
    CHECK(unmappedReason(fp4, "model").find("NVFP4 weights") != std::string::npos);
    // --ep_size not given: Mapping keeps every expert on every rank, split over TP.
    checkKeys(importText("trtllm-serve mistralai/Mixtral-8x7B-Instruct-v0.1 --tp_size 4"), {{"ep", "1"}, {"etp", "0"}});
}

TEST_CASE("TensorRT-LLM: the extra options YAML alone", "[import][trtllm]") {
    const std::string yaml =
        "enable_attention_dp: true\ncuda_graph_config:\n  enable_padding: true\n  max_batch_size: 256\nkv_cache_config:\n"
        "  dtype: fp8\n  free_gpu_memory_fraction: 0.85\nprint_iter_log: true\n";
    REQUIRE(detectImportFormat(yaml) == ImportFormat::trtllm);
    CHECK(importSyntax(ImportFormat::trtllm, yaml) == ImportSyntax::yaml);
    const ImportResult r = importText(yaml);
    INFO(errorsOf(r));
    REQUIRE(r.ok());
    checkKeys(r, {{"framework", "trtllm"},
                  {"model", "(not set)"},
                  {"kv_dtype", "fp8"},
                  {"headroom", "0.15"},
                  {"cuda_graph_max_batch", "256"},
                  {"cuda_graph_padding", "true"},
                  {"attention_dp", "1"},
                  {"workspace_tokens", "8192"}});
    CHECK(assumed(r, "mb"));
    CHECK(r.unmapped.empty());
    CHECK_FALSE(importText("- a\n- b\n", ImportFormat::trtllm).ok());
}

TEST_CASE("TensorRT-LLM: here-documents reach the mapping with the file each writes", "[import][trtllm][words]") {
    std::vector<cli::HereDocument> docs;
    const auto lines = cli::shellWords(
        "X=/tmp/a.yml\ncat << EOF > ${X}\nk: 1\nEOF\ncat >./b.yml <<'END'\nm: 2\nEND\ncat <<-EOF | tee c.yml\n\tn: 3\n\tEOF\ncat <<E "
        "2>&1\no\nE\n",
        docs);
    REQUIRE(docs.size() == 4);
    CHECK(docs[0].file == "${X}");
    CHECK(docs[0].body == "k: 1\n");
    CHECK(docs[1].file == "./b.yml");
    CHECK(docs[1].body == "m: 2\n");
    CHECK(docs[2].file == "c.yml");
    CHECK(docs[2].body == "n: 3\n");
    CHECK(docs[3].file.empty());
    CHECK(lines.size() == 5);
    const ImportInput input =
        cli::parseImport("cat > a.yml <<EOF\nkv_cache_config:\n  dtype: fp8\nEOF\ntrtllm-serve m\n", ImportFormat::trtllm);
    CHECK(std::any_of(input.values.begin(), input.values.end(),
                      [](const JsonValue& v) { return v.key == "heredocs[0].yaml.kv_cache_config.dtype" && v.text == "fp8"; }));
}

TEST_CASE("TensorRT-LLM: export then import gives the configuration back", "[import][trtllm][roundtrip]") {
    // Dense TP with an FP8 KV cache; MoE with EP and attention DP (DeepSeek's FP8 checkpoint); eager with chunked prefill;
    // padded CUDA graphs.
    for (const std::string query : {
             "model=llama-3.1-70b&mode=inference&framework=trtllm&tp=8&mb=64&seq=8192&workspace_tokens=8192&kv_dtype=fp8&headroom=0.08",
             "model=deepseek-v3&mode=inference&framework=trtllm&tp=8&ep=8&etp=1&attention_dp=8&weight_dtype=fp8&mb=256&seq=4096&"
             "cuda_graph_max_batch=256&cuda_graph_padding=true&kv_dtype=fp8",
             "model=llama-3.1-8b&mode=inference&framework=trtllm&tp=2&pp=2&mb=32&seq=32768&workspace_tokens=4096&chunked_prefill=true&"
             "enforce_eager=true&kv_block=64",
             "model=mixtral-8x7b&mode=inference&framework=trtllm&tp=4&ep=2&etp=2&mb=128&seq=4096&cuda_graph_padding=true&"
             "cuda_graph_max_batch=64",
         }) {
        INFO(query);
        const Config config = configOf(query);
        checkRoundTrip(config);
        CHECK(exportConfig(ImportFormat::trtllm, config).notExported.empty());
    }
    // Eager with padding: cuda_graph_config: null says no graphs, so the padding is named as not exported.
    Config eager = configOf("model=llama-3.1-8b&mode=inference&framework=trtllm&tp=1&mb=8&seq=4096&enforce_eager=true");
    eager.cudaGraphPadding = true;
    const ExportResult eagerOut = exportConfig(ImportFormat::trtllm, eager);
    CHECK(std::any_of(eagerOut.notExported.begin(), eagerOut.notExported.end(),
                      [](const Unmapped& u) { return u.key == "cuda_graph_padding"; }));
    checkRoundTrip(eager);
    // What trtllm-serve cannot say: replicas, context parallelism, a quantization the checkpoint decides, the benchmark.
    const Config other =
        configOf("model=llama-3.1-70b&mode=inference&framework=trtllm&tp=4&dp=2&mb=16&seq=4096&weight_dtype=int4&num_prompts=100");
    const ExportResult out = exportConfig(ImportFormat::trtllm, other);
    std::set<std::string> skipped;
    for (const auto& u : out.notExported) skipped.insert(u.key);
    CHECK(skipped == std::set<std::string>{"dp", "weight_dtype", "num_prompts"});
    CHECK(out.text.find("cat > extra-llm-api-config.yml <<'EOF'\nkv_cache_config:\n  free_gpu_memory_fraction: 0.9\n") !=
          std::string::npos);
    CHECK(out.text.find(
              "trtllm-serve meta-llama/Llama-3.1-70B-Instruct \\\n    --backend pytorch \\\n    --tp_size 4 --pp_size 1 --ep_size 1") !=
          std::string::npos);
    CHECK(out.text.find("--extra_llm_api_options extra-llm-api-config.yml\n") != std::string::npos);
    checkRoundTrip(other);
}

TEST_CASE("TensorRT-LLM: the CLI imports and exports it", "[import][trtllm][cli]") {
    const std::string path = "membudget_test_trtllm_e1.sh";
    std::ofstream(path) << kE1;
    const auto imported = test::cliRun({"import", "--format", "trtllm", path});
    std::remove(path.c_str());
    INFO(imported.err);
    REQUIRE(imported.status == 0);
    const auto json = nlohmann::json::parse(imported.out);
    CHECK(json["format"] == "trtllm");
    CHECK(json["config"]["cuda_graph_max_batch"] == 1024);
    const auto exported =
        test::cliRun({"export", "--format", "trtllm", "--url", "model=llama-3.1-8b&mode=inference&framework=trtllm&tp=2&mb=64"});
    REQUIRE(exported.status == 0);
    CHECK(exported.out.find("trtllm-serve meta-llama/Llama-3.1-8B-Instruct") != std::string::npos);
    const auto back = test::cliRun({"import", "-"}, exported.out);
    INFO(back.err);
    CHECK(back.status == 0);
    CHECK(nlohmann::json::parse(back.out)["config"]["mb"] == 64);
}
