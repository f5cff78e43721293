// Importing users' configurations and exporting the chosen one (docs/import.md): the real files in
// tests/fixtures/import/ give the flat configurations written beside them; export then import gives the
// configuration back; bad files stop with exit 2 and the reason.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>
#include <tuple>

#include "fixtures.hpp"
#include "import_parse.hpp"
#include "import_support.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/formats/launch.hpp"
#include "membudget/io/json_write.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/plan/advice.hpp"
#include "model/pipeline_layout.hpp"
#include "model/rank.hpp"

using nlohmann::json;
using namespace membudget;
using membudget::test::assignedText;
using membudget::test::importText;
using membudget::test::readFile;

namespace {

const std::filesystem::path kImportDir = std::filesystem::path(MEMBUDGET_FIXTURES_DIR) / "import";

Config applied(const std::vector<Assignment>& assignments) {
    const ParsedConfig parsed = applyAssignments(assignments);
    for (const auto& p : parsed.problems) INFO(p.field << ": " << p.message);
    REQUIRE(parsed.problems.empty());
    return parsed.config;
}

// Every key the import of `format`'s export sets has the value `config` holds, unless the export said it
// could not write it.
void checkRoundTrip(const Config& config, ImportFormat format) {
    const ExportResult exported = exportConfig(format, config);
    INFO("format " << toString(format) << "\n" << exported.text);
    const ImportResult back = importText(exported.text, format);
    for (const auto& e : back.errors) INFO(e.message);
    REQUIRE(back.ok());
    std::set<std::string> skipped;
    for (const auto& s : exported.notExported) skipped.insert(s.key);
    for (const auto& u : back.unmapped) {
        INFO("unmapped " << u.key << " = " << u.value << ": " << u.reason);
        CHECK(skipped.count(u.key) == 1);
    }
    const Config again = applied(back.assignments);
    for (const auto& a : back.assignments) {
        if (skipped.count(a.key) || a.key == "mode" || a.key == "method" || a.key == "framework") continue;
        // Flags name no preset: Megatron-LM's and torchtune's architectures come back as model = custom.
        if ((a.key == "model" || a.key == "params" || a.key == "name") && again.model == "custom") continue;
        const FieldSpec* field = findField(a.key);
        REQUIRE(field != nullptr);
        INFO("key " << a.key);
        CHECK(fieldText(again, *field) == fieldText(config, *field));
    }
}

struct Fixture {
    std::filesystem::path file;
    json expect;
};

std::vector<Fixture> importFixtures() {
    std::vector<Fixture> out;
    if (!std::filesystem::exists(kImportDir)) return out;
    for (const auto& dir : std::filesystem::directory_iterator(kImportDir)) {
        if (!dir.is_directory()) continue;
        for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
            const std::string name = entry.path().filename().string();
            if (!name.ends_with(".expect.json")) continue;
            const std::string stem = name.substr(0, name.size() - std::string(".expect.json").size());
            std::filesystem::path file;
            for (const auto& candidate : std::filesystem::directory_iterator(dir.path()))
                if (candidate.path().stem() == stem && !candidate.path().filename().string().ends_with(".expect.json"))
                    file = candidate.path();
            REQUIRE(!file.empty());
            out.push_back({file, json::parse(readFile(entry.path()))});
        }
    }
    std::sort(out.begin(), out.end(), [](const Fixture& a, const Fixture& b) { return a.file < b.file; });
    return out;
}

}  // namespace

TEST_CASE("import: real configuration files give the flat configuration written beside them", "[import][fixtures]") {
    const auto fixtures = importFixtures();
    std::map<std::string, int> perFormat;
    for (const auto& f : fixtures) {
        INFO(f.file.string());
        const std::string text = readFile(f.file);
        const auto detected = detectImportFormat(text);
        REQUIRE(detected.has_value());
        CHECK(toString(*detected) == f.expect["format"].get<std::string>());
        const ImportResult result = importText(text);
        for (const auto& e : result.errors) INFO(e.message);
        REQUIRE(result.ok());
        const json got = json::parse(importToJson(result));
        for (const auto& [key, value] : f.expect["config"].items()) {
            INFO("key " << key);
            REQUIRE(got["config"].contains(key));
            CHECK(got["config"][key] == value);
        }
        for (const auto& [key, value] : got["config"].items()) {
            INFO("key " << key << " = " << value.dump() << " is set but not expected");
            CHECK(f.expect["config"].contains(key));
        }
        std::set<std::string> unmapped;
        for (const auto& u : result.unmapped) unmapped.insert(u.key);
        for (const auto& key : f.expect.value("unmapped", json::array())) {
            INFO("expected unmapped " << key);
            CHECK(unmapped.count(key.get<std::string>()) == 1);
        }
        // The configuration it gives is one the engine accepts (with the preset's model where the file names none).
        // (A file written for more GPUs than it says, or a choice membudget does not model for the model, is
        // marked "valid": false with the reason.)
        const Config config = applied(result.assignments);
        for (const auto& p : validate(config)) INFO(p.field << ": " << p.message);
        if (f.expect.value("valid", true))
            CHECK(validate(config).empty());
        else
            CHECK_FALSE(validate(config).empty());
        ++perFormat[f.expect["format"].get<std::string>()];
        // And it round-trips through the framework's own form.
        if (*detected != ImportFormat::hf && f.expect.value("valid", true)) checkRoundTrip(config, *detected);
    }
    for (const char* format : {"megatron", "torchtitan", "torchtune", "deepspeed", "vllm", "sglang", "trtllm"}) {
        INFO(format);
        CHECK(perFormat[format] >= 3);
    }
}

TEST_CASE("export then import gives the configuration back: presets × layouts × formats", "[import][roundtrip]") {
    for (const std::string model :
         {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "mixtral-8x7b", "deepseek-v3", "gpt-3-175b", "qwen2-57b-a14b"}) {
        for (const auto& layout : std::vector<std::vector<Assignment>>{
                 {{"tp", "8"}, {"pp", "2"}, {"dp", "16"}, {"ckpt", "selective"}, {"sp", "true"}, {"zero", "1"}},
                 {{"tp", "1"},
                  {"pp", "1"},
                  {"dp", "8"},
                  {"ckpt", "full"},
                  {"zero", "3"},
                  {"framework", "torchtitan"},
                  {"mb", "2"},
                  {"microbatches", "4"}},
                 {{"tp", "4"},
                  {"pp", "4"},
                  {"vpp", "2"},
                  {"dp", "4"},
                  {"ckpt", "none"},
                  {"zero", "0"},
                  {"precision", "fp8"},
                  {"microbatches", "8"}},
                 {{"mode", "inference"},
                  {"tp", "8"},
                  {"pp", "1"},
                  {"dp", "1"},
                  {"mb", "64"},
                  {"seq", "32768"},
                  {"kv_dtype", "fp8"},
                  {"weight_dtype", "fp8"}},
                 {{"mode", "inference"},
                  {"tp", "4"},
                  {"pp", "2"},
                  {"dp", "2"},
                  {"weight_dtype", "int4"},
                  {"kv_dtype", "fp16"},
                  {"headroom", "0.08"}},
             }) {
            std::vector<Assignment> all{{"model", model}, {"method", "membudget"}};
            all.insert(all.end(), layout.begin(), layout.end());
            ParsedConfig parsed = applyAssignments(all);
            REQUIRE(parsed.problems.empty());
            const Config config = parsed.config;
            INFO(encodeQuery(config));
            if (config.mode == Mode::inference) {
                checkRoundTrip(config, ImportFormat::vllm);
                checkRoundTrip(config, ImportFormat::sglang);
                checkRoundTrip(config, ImportFormat::trtllm);
            } else {
                for (const ImportFormat format :
                     {ImportFormat::megatron, ImportFormat::torchtitan, ImportFormat::torchtune, ImportFormat::deepspeed})
                    checkRoundTrip(config, format);
            }
        }
    }
}

TEST_CASE("import: a script's literal variables are resolved, others leave the flag unmapped", "[import][words]") {
    const std::string script =
        "#!/bin/bash\nTP=4\nexport PP=\"2\"\nGPUS_PER_NODE=8\nNNODES=${NNODES:-2}\nMODEL_ARGS=(\n  --num-layers 32 --hidden-size 4096\n"
        "  --num-attention-heads 32 --seq-length 4096 # the context\n)\ntorchrun --nproc_per_node $GPUS_PER_NODE --nnodes ${NNODES} "
        "pretrain_gpt.py \\\n"
        "  ${MODEL_ARGS[@]} --tensor-model-parallel-size $TP --pipeline-model-parallel-size ${PP} \\\n"
        "  --micro-batch-size 1 --global-batch-size 64 --context-parallel-size $CP --bf16\n";
    const ImportResult r = importText(script);
    REQUIRE(r.ok());
    CHECK(r.format == ImportFormat::megatron);
    const Config c = applied(r.assignments);
    CHECK(c.tp == 4);
    CHECK(c.pp == 2);
    CHECK(c.layers == 32);
    CHECK(c.seq == 4096);
    CHECK(c.precision == Precision::bf16);
    CHECK(c.staticBytes == 18);
    // 16 GPUs over TP 4 × PP 2 × CP 1 (the CP flag is unresolved: Megatron-LM's default 1 stands).
    CHECK(c.dp == 2);
    CHECK(c.microbatches == 32);
    const auto cp =
        std::find_if(r.unmapped.begin(), r.unmapped.end(), [](const Unmapped& u) { return u.key == "--context-parallel-size"; });
    REQUIRE(cp != r.unmapped.end());
    CHECK(cp->reason.find("$CP") != std::string::npos);
}

TEST_CASE("import: the shell tokenizer", "[import][words]") {
    const auto lines = cli::shellWords("a 'b c' \"d $E ${F} \\\"g\\\"\" h\\ i # comment\nx=(1 2) | y;z \\\n  w 2>&1\n");
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == std::vector<std::string>{"a", "b c", "d ${E} ${F} \"g\"", "h i"});
    CHECK(lines[1] == std::vector<std::string>{"x=", "1", "2", "y", "z", "w", "2", "1"});
}

TEST_CASE("import: bad files stop with exit 2 and the reason, never a crash", "[import][bad]") {
    struct Case {
        std::string text, format, expected;
    };
    const std::vector<Case> cases{
        {"[parallelism]\ntensor_parallel_degree = ", "", "line 2"},
        {"model:\n\t_component_: x\n", "torchtune", "line"},
        {"{ // comment\n \"zero_optimization\": {\"stage\": 3} }", "", "JSON"},
        {"#!/bin/bash\necho hello\npython train.py --lr 1\n", "megatron", "no Megatron-LM flags"},
        {"just some words\n", "", "not a configuration membudget can read"},
        {"[1, 2, 3]", "deepspeed", "a DeepSpeed config is a JSON object"},
        {"- a\n- b\n", "torchtune", "YAML mapping"},
        {"[model]\nname = \"llama3\"\n[model]\n", "", "line"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        std::vector<std::string> args{"import", "-"};
        if (!c.format.empty()) args.insert(args.end(), {"--format", c.format});
        const auto run = test::cliRun(args, c.text);
        CHECK(run.status == 2);
        CHECK(run.err.find(c.expected) != std::string::npos);
        CHECK(run.out.empty());
    }
    // 16 MiB of noise: refused by size before it is parsed.
    const auto big = test::cliRun({"import", "-"}, std::string(16 * 1024 * 1024 + 1, 'x'));
    CHECK(big.status == 2);
    CHECK(big.err.find("16 MiB") != std::string::npos);
    // Nearly 16 MiB of noise in a format: an answer, with exit 2.
    std::string noise;
    for (size_t i = 0; noise.size() < 15 * 1024 * 1024; ++i) noise += "--flag" + std::to_string(i % 97) + " $X{" + std::to_string(i) + "\n";
    const auto noisy = test::cliRun({"import", "-", "--format", "megatron"}, noise);
    CHECK((noisy.status == 0 || noisy.status == 2));
    // YAML aliases cannot multiply a small file beyond the value limit.
    std::string bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
    for (char name = 'b'; name <= 'j'; ++name)
        bomb += std::string(1, name) + ": &" + name + " [*" + static_cast<char>(name - 1) + ", *" + static_cast<char>(name - 1) + ", *" +
                static_cast<char>(name - 1) + ", *" + static_cast<char>(name - 1) + ", *" + static_cast<char>(name - 1) + ", *" +
                static_cast<char>(name - 1) + ", *" + static_cast<char>(name - 1) + ", *" + static_cast<char>(name - 1) + ", *" +
                static_cast<char>(name - 1) + ", *" + static_cast<char>(name - 1) + "]\n";
    const auto bombed = test::cliRun({"import", "-", "--format", "torchtune"}, bomb);
    CHECK(bombed.status == 2);
    CHECK(bombed.err.find("more than") != std::string::npos);
}

TEST_CASE("import: --import is an input of every subcommand, and later flags override it", "[import][cli]") {
    const std::string toml =
        "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 2\nseq_len = 8192\n"
        "[parallelism]\ndata_parallel_shard_degree = 8\ntensor_parallel_degree = 1\n";
    const auto run = test::cliRun({"--import", "-", "--json", "--tp", "2", "--dp", "4"}, toml);
    INFO(run.err);
    REQUIRE(run.status != 2);
    const json result = json::parse(run.out);
    CHECK(result["config"]["model"] == "llama-3.1-8b");
    CHECK(result["config"]["framework"] == "torchtitan");
    CHECK(result["config"]["mb"] == 2);
    CHECK(result["config"]["tp"] == 2);
    CHECK(result["config"]["dp"] == 4);
    const auto exported = test::cliRun({"export", "--format", "torchtitan", "--import", "-"}, toml);
    CHECK(exported.status == 0);
    CHECK(exported.out.find("flavor = \"8B\"") != std::string::npos);
    const auto bad = test::cliRun({"export", "--format", "hf"});
    CHECK(bad.status == 2);
}

TEST_CASE("vLLM reads a long flag's underscores as dashes, as its parser does", "[import][vllm]") {
    // vllm/utils FlexibleArgumentParser: --tensor_parallel_size 8 is --tensor-parallel-size 8.
    const ImportResult dashes = importText(
        "vllm serve meta-llama/Llama-3.1-70B --tensor-parallel-size 8 --max-model-len=16384 --gpu-memory-utilization 0.85 "
        "--enforce-eager --max-num-seqs 64");
    const ImportResult underscores = importText(
        "vllm serve meta-llama/Llama-3.1-70B --tensor_parallel_size 8 --max_model_len=16384 --gpu_memory_utilization 0.85 "
        "--enforce_eager --max_num_seqs 64");
    REQUIRE(dashes.ok());
    REQUIRE(underscores.ok());
    auto pairs = [](const ImportResult& r) {
        std::vector<std::pair<std::string, std::string>> out;
        for (const auto& a : r.assignments) out.emplace_back(a.key, a.text);
        return out;
    };
    CHECK(pairs(underscores) == pairs(dashes));
    CHECK(underscores.unmapped.size() == dashes.unmapped.size());
    CHECK(assignedText(underscores, "tp") == "8");
    // A value keeps its underscores (a served model name, a path).
    const ImportResult named = importText("vllm serve org/my_model --served_model_name my_model_v2 --tensor_parallel_size 2");
    REQUIRE(named.ok());
}

TEST_CASE("SGLang: its parser's spellings, the defaults it derives, and its launch format", "[import][sglang]") {
    const std::string launch = "python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct ";
    auto unmappedReason = [](const ImportResult& r, std::string_view key) {
        const auto u = std::find_if(r.unmapped.begin(), r.unmapped.end(), [key](const Unmapped& x) { return x.key == key; });
        return u == r.unmapped.end() ? std::string("(not unmapped)") : u->reason;
    };
    auto warned = [](const ImportResult& r, std::string_view part) {
        return std::any_of(r.warnings.begin(), r.warnings.end(),
                           [part](const std::string& w) { return w.find(part) != std::string::npos; });
    };
    // Detected by its launcher, and before vLLM: SGLang's parser takes vLLM's --tensor-parallel-size too.
    CHECK(detectImportFormat("python3 -m sglang.launch_server --model-path org/m --tensor-parallel-size 2") == ImportFormat::sglang);
    CHECK(detectImportFormat("sglang serve --model-path org/m") == ImportFormat::sglang);
    CHECK(detectImportFormat("--model-path org/m --mem-fraction-static 0.8") == ImportFormat::sglang);
    // argparse's unique prefixes (--tp, --dp, --pp, as SGLang's documentation launches) and the aliases.
    const ImportResult shortForms =
        importText("python -m sglang.launch_server --model meta-llama/Llama-3.1-70B-Instruct --tp 4 --dp 2 --pp 2");
    REQUIRE(shortForms.ok());
    CHECK(assignedText(shortForms, "model") == "llama-3.1-70b");
    CHECK(assignedText(shortForms, "tp") == "4");
    CHECK(assignedText(shortForms, "dp") == "2");
    CHECK(assignedText(shortForms, "pp") == "2");
    CHECK(assignedText(shortForms, "framework") == "sglang");
    // Dashes only (server_args.py prepare_server_args, a plain argparse): --tp_size is refused there, and named here.
    const ImportResult underscores = importText(launch + "--tp_size 8");
    REQUIRE(underscores.ok());
    CHECK(assignedText(underscores, "tp") == "1");
    CHECK(unmappedReason(underscores, "--tp_size").find("dashes only") != std::string::npos);
    // What the command leaves out: SGLang's defaults, each said; the context length asked for; the headroom kept.
    const ImportResult bare = importText(launch);
    REQUIRE(bare.ok());
    CHECK(assignedText(bare, "mb") == "2048");
    CHECK(assignedText(bare, "kv_block") == "1");
    CHECK(assignedText(bare, "workspace_tokens") == "8192");
    CHECK(assignedText(bare, "headroom") == "(not set)");
    for (const char* flag : {"--max-running-requests", "--page-size", "--chunked-prefill-size", "--mem-fraction-static"}) {
        INFO(flag);
        CHECK(warned(bare, flag));
    }
    const auto seq = std::find_if(bare.assumed.begin(), bare.assumed.end(), [](const Problem& p) { return p.field == "seq"; });
    REQUIRE(seq != bare.assumed.end());
    CHECK(seq->message.find("--context-length") != std::string::npos);
    // What it gives.
    const ImportResult given = importText(launch +
                                          "--context-length 32768 --max-running-requests 64 --chunked-prefill-size 4096 --page-size 16 "
                                          "--mem-fraction-static 0.85 --quantization fp8 --kv-cache-dtype fp8_e5m2 --disable-cuda-graph");
    REQUIRE(given.ok());
    CHECK(given.unmapped.empty());
    for (const auto& [key, value] : std::vector<std::pair<std::string, std::string>>{{"seq", "32768"},
                                                                                     {"mb", "64"},
                                                                                     {"workspace_tokens", "4096"},
                                                                                     {"kv_block", "16"},
                                                                                     {"headroom", "0.15"},
                                                                                     {"weight_dtype", "fp8"},
                                                                                     {"kv_dtype", "fp8"},
                                                                                     {"cuda_graphs_gb", "0"},
                                                                                     {"enforce_eager", "true"}}) {
        INFO(key);
        CHECK(assignedText(given, key) == value);
    }
    // Chunked prefill off: a prefill batch takes max(--max-prefill-tokens, the context length), unknown without the latter.
    CHECK(assignedText(importText(launch + "--chunked-prefill-size -1 --context-length 32768"), "workspace_tokens") == "32768");
    const ImportResult unchunked = importText(launch + "--chunked-prefill-size -1");
    CHECK(assignedText(unchunked, "workspace_tokens") == "(not set)");
    CHECK(unmappedReason(unchunked, "--chunked-prefill-size").find("chunked prefill off") != std::string::npos);
    // Expert parallelism: --ep-size; --enable-ep-moe and an all-to-all backend over the TP group make it TP's.
    CHECK(assignedText(importText(launch + "--tp 8 --ep-size 4"), "ep") == "4");
    CHECK(assignedText(importText(launch + "--tp 8 --enable-ep-moe"), "ep") == "8");
    CHECK(assignedText(importText(launch + "--tp 4 --ep 2 --moe-a2a-backend none"), "ep") == "2");
    const ImportResult deepep = importText(launch + "--tp 8 --ep 2 --moe-a2a-backend deepep");
    CHECK(assignedText(deepep, "ep") == "8");
    CHECK(warned(deepep, "--moe-a2a-backend deepep"));
    // DP attention: the world is TP × PP (compute_world_size), no replicas; --dp-size is the attention groups, and the
    // export writes it back.
    const ImportResult dpAttention = importText(launch + "--tp 8 --dp 8 --enable-dp-attention");
    CHECK(assignedText(dpAttention, "dp") == "1");
    CHECK(assignedText(dpAttention, "attention_dp") == "8");
    CHECK(unmappedReason(dpAttention, "--enable-dp-attention") == "(not unmapped)");
    CHECK(assignedText(importText(launch + "--tp 8 --dp 2"), "attention_dp") == "(not set)");
    CHECK(assignedText(importText(launch + "--tp 8 --scheduler-recv-interval 30"), "scheduler_recv_interval") == "30");
    // The format SGLang's configurations are launched with, and text that is not an SGLang command.
    Config serving;
    serving.mode = Mode::inference;
    serving.framework = Framework::sglang;
    CHECK(launchFormat(serving) == ImportFormat::sglang);
    CHECK_FALSE(importText("echo hello\n", ImportFormat::sglang).ok());
    serving.tp = 8, serving.dp = 1, serving.attentionDp = 8, serving.schedulerRecvInterval = 30;
    const ExportResult exported = exportConfig(ImportFormat::sglang, serving);
    CHECK(exported.text.find("--tp-size 8 --dp-size 8 --enable-dp-attention") != std::string::npos);
    CHECK(assignedText(importText(exported.text, ImportFormat::sglang), "attention_dp") == "8");
    CHECK(assignedText(importText(exported.text, ImportFormat::sglang), "scheduler_recv_interval") == "30");
    // The largest decode batch captured: --cuda-graph-max-bs (ServerArgs.cuda_graph_max_bs), both ways.
    CHECK(assignedText(importText(launch + "--tp 8 --cuda-graph-max-bs 128"), "cuda_graph_max_batch") == "128");
    serving.cudaGraphMaxBatch = 128;
    CHECK(assignedText(importText(exportConfig(ImportFormat::sglang, serving).text, ImportFormat::sglang), "cuda_graph_max_batch") ==
          "128");
}

TEST_CASE("vLLM: the largest CUDA graph, read and written", "[import][vllm]") {
    // --max-cudagraph-capture-size (CompilationConfig.max_cudagraph_capture_size).
    const ImportResult r = importText("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-cudagraph-capture-size 64 --max-num-seqs 128");
    REQUIRE(r.ok());
    CHECK(assignedText(r, "cuda_graph_max_batch") == "64");
    Config c;
    c.mode = Mode::inference;
    c.framework = Framework::vllm;
    c.cudaGraphMaxBatch = 64;
    const ExportResult exported = exportConfig(ImportFormat::vllm, c);
    CHECK(exported.text.find("--max-cudagraph-capture-size 64") != std::string::npos);
    CHECK(assignedText(importText(exported.text, ImportFormat::vllm), "cuda_graph_max_batch") == "64");
    c.enforceEager = true;
    CHECK(exportConfig(ImportFormat::vllm, c).text.find("--max-cudagraph-capture-size") == std::string::npos);
}

TEST_CASE("DeepSpeed's BF16 master and optimizer-state options map to the keys that exist", "[import][deepspeed]") {
    const ImportResult r = importText(
        R"({"train_micro_batch_size_per_gpu": 1, "bf16": {"enabled": true, "bf16_master_weights_and_grads": true,
            "bf16_optimizer_states": true}, "zero_optimization": {"stage": 3}})",
        ImportFormat::deepspeed);
    REQUIRE(r.ok());
    CHECK(assignedText(r, "master_weights") == "false");
    CHECK(assignedText(r, "optimizer_dtype") == "bf16");
    for (const auto& u : r.unmapped) CHECK(u.key.find("bf16_") == std::string::npos);
    // Without them, DeepSpeed's default: an FP32 master and FP32 states, set rather than inherited.
    const ImportResult plain = importText(R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 1}})", ImportFormat::deepspeed);
    REQUIRE(plain.ok());
    CHECK(assignedText(plain, "master_weights") == "true");
}

TEST_CASE("torchtune: the recipe decides FSDP2, and bitsandbytes' 32-bit AdamW keeps FP32 states", "[import][torchtune]") {
    const std::string model = " --config llama3_1/8B_full model._component_=torchtune.models.llama3_1.llama3_1_8b batch_size=1";
    // full_finetune_distributed shards with FSDP2 (fully_shard) on one rank as on eight; single_device never does.
    for (const auto& [command, dp, zero] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"tune run --nproc_per_node 1 full_finetune_distributed", "1", "3"},
             {"tune run --nproc_per_node 8 full_finetune_distributed", "8", "3"},
             {"tune run --nnodes 2 --nproc_per_node 8 lora_finetune_distributed", "16", "3"},
             {"tune run full_finetune_single_device", "1", "0"},
             {"tune run lora_finetune_single_device", "1", "0"}}) {
        INFO(command);
        const ImportResult r =
            importText(command + model +
                       (command.find("lora") != std::string::npos ? " model._component_=torchtune.models.llama3_1.lora_llama3_1_8b" : ""));
        REQUIRE(r.ok());
        CHECK(assignedText(r, "dp") == dp);
        CHECK(assignedText(r, "zero") == zero);
    }
    const ImportResult copies = importText("tune run --nproc_per_node 4 full_finetune_single_device" + model);
    REQUIRE(copies.ok());
    CHECK(std::any_of(copies.warnings.begin(), copies.warnings.end(),
                      [](const std::string& w) { return w.find("starts copies of it") != std::string::npos; }));
    // bitsandbytes/optim/optimizer.py Optimizer2State.init_state: optim_bits 32 allocates float32 state; torch's
    // AdamW keeps its state in the BF16 parameters' dtype.
    for (const auto& [component, optimizer, dtype] :
         std::vector<std::tuple<std::string, std::string, std::string>>{{"torch.optim.AdamW", "adamw", "auto"},
                                                                        {"bitsandbytes.optim.AdamW", "adamw", "fp32"},
                                                                        {"bitsandbytes.optim.PagedAdamW", "adamw", "fp32"},
                                                                        {"bitsandbytes.optim.AdamW32bit", "adamw", "fp32"},
                                                                        {"bitsandbytes.optim.PagedAdamW32bit", "adamw", "fp32"},
                                                                        {"bitsandbytes.optim.PagedAdamW8bit", "adamw_8bit", "auto"}}) {
        INFO(component);
        const ImportResult r = importText("tune run full_finetune_single_device" + model + " optimizer._component_=" + component);
        REQUIRE(r.ok());
        CHECK(assignedText(r, "optimizer") == optimizer);
        CHECK(assignedText(r, "optimizer_dtype") == dtype);
    }
    // The FP32 states are what the ledger counts: 8 bytes of m and v per parameter against torch's 4.
    const ImportResult torchAdam = importText("tune run full_finetune_single_device" + model + " optimizer._component_=torch.optim.AdamW");
    const ImportResult bnbAdam =
        importText("tune run full_finetune_single_device" + model + " optimizer._component_=bitsandbytes.optim.PagedAdamW");
    const ParsedConfig a = applyAssignments(torchAdam.assignments), b = applyAssignments(bnbAdam.assignments);
    REQUIRE(a.problems.empty());
    REQUIRE(b.problems.empty());
    auto optimizerBytes = [](const Result& r) {
        const auto line = std::find_if(r.lines.begin(), r.lines.end(), [](const Line& l) { return l.id == LineId::optimizer; });
        return line == r.lines.end() ? 0.0 : line->bytes;
    };
    const Result ra = evaluate(a.config), rb = evaluate(b.config);
    REQUIRE(optimizerBytes(ra) > 0);
    CHECK(optimizerBytes(rb) == Approx(2 * optimizerBytes(ra)).epsilon(1e-9));
}

TEST_CASE("an import sets what its file says: importing A then B is importing B alone", "[import][sequence]") {
    // Every ordered pair of the real files, all formats: nothing of A survives B but the model, and only when B
    // names none (then the model A set is kept, and said).
    const std::vector<Fixture> files = importFixtures();
    REQUIRE(files.size() >= 10);
    Config page;  // a user's own GPU and method, which no launch file states: kept through every import
    page.gpu = "h200";
    applyGpuPreset(page, *findGpuPreset("h200"));
    page.method = Method::membudget;
    auto importOver = [](const Config& current, const ImportResult& r) {
        const ImportBase start = importBase(current, r);
        return std::pair{applyAssignments(r.assignments, start.config).config, start.modelKept};
    };
    std::vector<ImportResult> results;
    for (const auto& f : files) results.push_back(importText(readFile(f.file)));
    size_t pairs = 0;
    for (size_t a = 0; a < files.size(); ++a) {
        if (!results[a].ok()) continue;
        const Config afterA = importOver(page, results[a]).first;
        for (size_t b = 0; b < files.size(); ++b) {
            if (!results[b].ok()) continue;
            INFO(files[a].file.filename().string() << " then " << files[b].file.filename().string());
            const auto [afterAB, keptFromA] = importOver(afterA, results[b]);
            const auto [alone, keptFromPage] = importOver(page, results[b]);
            CHECK(keptFromA == keptFromPage);
            for (const FieldSpec& field : fields()) {
                INFO("key " << field.key);
                if (keptFromA && field.group == "model")
                    CHECK(fieldText(afterAB, field) == fieldText(afterA, field));  // the kept model: A's
                else
                    CHECK(fieldText(afterAB, field) == fieldText(alone, field));
            }
            CHECK(afterAB.gpu == "h200");
            ++pairs;
        }
    }
    CHECK(pairs >= 100);
}

TEST_CASE("what a launch file does not say is marked as needing the user's input, never taken silently", "[import][assumed]") {
    // Every real file: the world size (dp), the batch (mb), the sequence length and the micro-batches (training)
    // are each either read from the file or listed as assumed, with why; a config.json asks nothing.
    int asked = 0;
    for (const auto& f : importFixtures()) {
        INFO(f.file.string());
        const ImportResult r = importText(readFile(f.file));
        REQUIRE(r.ok());
        for (const auto& a : r.assumed) {
            INFO(a.field << ": " << a.message);
            CHECK((a.field == "dp" || a.field == "mb" || a.field == "seq" || a.field == "microbatches"));
            CHECK_FALSE(a.message.empty());
        }
        if (r.format == ImportFormat::hf) {
            CHECK(r.assumed.empty());
            continue;
        }
        for (const std::string key : {"dp", "mb", "seq", "microbatches"}) {
            if (key == "microbatches" &&
                (r.format == ImportFormat::vllm || r.format == ImportFormat::sglang || r.format == ImportFormat::trtllm))
                continue;
            const bool assumed = std::any_of(r.assumed.begin(), r.assumed.end(), [&key](const Problem& p) { return p.field == key; });
            INFO(key);
            CHECK((assignedText(r, key) != "(not set)" || assumed));
            asked += assumed ? 1 : 0;
        }
    }
    CHECK(asked > 0);
    // A torchtune YAML names no GPU count: dp 1 is taken and said; a tune run command with --nproc_per_node is read.
    const ImportResult yaml = importText("batch_size: 2\ntokenizer:\n  max_seq_len: 4096\ndtype: bf16\n", ImportFormat::torchtune);
    REQUIRE(yaml.ok());
    REQUIRE_FALSE(yaml.assumed.empty());
    CHECK(yaml.assumed[0].field == "dp");
    CHECK(yaml.assumed[0].message.find("--nproc_per_node") != std::string::npos);
    const ImportResult command = importText(
        "tune run --nproc_per_node 8 full_finetune_distributed --config llama3_1/8B_full batch_size=2 tokenizer.max_seq_len=4096");
    REQUIRE(command.ok());
    CHECK(std::none_of(command.assumed.begin(), command.assumed.end(), [](const Problem& p) { return p.field == "dp"; }));
}

TEST_CASE("a script with a preset's architecture carries the preset's name", "[import][name]") {
    const ImportResult r = importText(
        "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 96 --hidden-size 12288 --num-attention-heads 96 --seq-length 2048 "
        "--micro-batch-size 1 --tensor-model-parallel-size 8 --bf16");
    REQUIRE(r.ok());
    CHECK(assignedText(r, "name") == "GPT-3 175B");
    // Another width is no preset: no name is made up.
    const ImportResult other = importText(
        "torchrun --nproc_per_node 8 pretrain_gpt.py --num-layers 96 --hidden-size 12800 --num-attention-heads 100 --seq-length 2048");
    REQUIRE(other.ok());
    CHECK(assignedText(other, "name").empty());
}

TEST_CASE("DeepSpeed's stage3_param_persistence_threshold: the file's value, its default, and auto said", "[import][deepspeed]") {
    const std::string head = "{\"train_micro_batch_size_per_gpu\": 1, \"zero_optimization\": {\"stage\": 3";
    const ImportResult set = importText(head + ", \"stage3_param_persistence_threshold\": 1e8}}", ImportFormat::deepspeed);
    REQUIRE(set.ok());
    CHECK(assignedText(set, "stage3_param_persistence_threshold") == "100000000");
    const ImportResult standard = importText(head + "}}", ImportFormat::deepspeed);
    CHECK(assignedText(standard, "stage3_param_persistence_threshold") == "100000");
    const ImportResult automatic = importText(head + ", \"stage3_param_persistence_threshold\": \"auto\"}}", ImportFormat::deepspeed);
    CHECK(assignedText(automatic, "stage3_param_persistence_threshold") == "100000");
    CHECK(std::any_of(automatic.warnings.begin(), automatic.warnings.end(),
                      [](const auto& w) { return w.find("stage3_param_persistence_threshold") != std::string::npos; }));
}

TEST_CASE("torchtitan's compile.components says whether the loss is compiled with the blocks", "[import][compile]") {
    const std::string head = "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[compile]\nenable = true\n";
    const ImportResult both = importText(head + "components = [\"model\", \"loss\"]\n", ImportFormat::torchtitan);
    REQUIRE(both.ok());
    CHECK(assignedText(both, "compile") == "true");
    CHECK(assignedText(both, "compile_loss") == "true");
    const ImportResult blocks = importText(head + "components = [\"model\"]\n", ImportFormat::torchtitan);
    CHECK(assignedText(blocks, "compile") == "true");
    CHECK(assignedText(blocks, "compile_loss") == "false");
    // No components: torchtitan's default, both (and an earlier file's false does not survive).
    const ImportResult standard = importText(head, ImportFormat::torchtitan);
    CHECK(assignedText(standard, "compile_loss") == "true");
    // Written back as the components list.
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-8b"));
    c.framework = Framework::torchtitan;
    c.compile = true;
    c.compileLoss = false;
    const ExportResult out = exportConfig(ImportFormat::torchtitan, c);
    CHECK(out.text.find("components = [\"model\"]\n") != std::string::npos);
    const ImportResult back = importText(out.text, ImportFormat::torchtitan);
    CHECK(assignedText(back, "compile_loss") == "false");
}

TEST_CASE("the MoE token dispatcher comes from the launch file: torchtitan's comm backend, Megatron-LM's flex with DeepEP",
          "[import][moe]") {
    const ImportResult titan = importText(
        "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = 8\nexpert_parallel_degree = 8\n"
        "expert_parallel_comm_backend = \"deepep\"\n",
        ImportFormat::torchtitan);
    REQUIRE(titan.ok());
    CHECK(assignedText(titan, "moe_dispatcher") == "deepep");
    // Set when the file has EP ranks and does not say, so that an earlier file's DeepEP does not survive.
    const ImportResult standard = importText(
        "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = 8\nexpert_parallel_degree = 4\n",
        ImportFormat::torchtitan);
    CHECK(assignedText(standard, "moe_dispatcher") == "alltoall");
    const ImportResult hybrid = importText(
        "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\ndata_parallel_shard_degree = 8\nexpert_parallel_comm_backend = "
        "\"hybridep\"\n",
        ImportFormat::torchtitan);
    CHECK(assignedText(hybrid, "moe_dispatcher") == "alltoall");
    CHECK(std::any_of(hybrid.unmapped.begin(), hybrid.unmapped.end(),
                      [](const Unmapped& u) { return u.key == "parallelism.expert_parallel_comm_backend"; }));

    const std::string megatron =
        "torchrun pretrain_gpt.py --num-layers 4 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 "
        "--max-position-embeddings 1024 --micro-batch-size 1 --global-batch-size 8 --vocab-size 32000 --bf16 "
        "--num-experts 8 --moe-router-topk 2 --expert-model-parallel-size 8 ";
    const ImportResult flex = importText(megatron + "--moe-token-dispatcher-type flex --moe-enable-deepep", ImportFormat::megatron);
    REQUIRE(flex.ok());
    CHECK(assignedText(flex, "moe_dispatcher") == "deepep");
    for (const auto& u : flex.unmapped) CHECK(u.key.find("dispatcher") == std::string::npos);
    const ImportResult a2a = importText(megatron + "--moe-token-dispatcher-type alltoall", ImportFormat::megatron);
    CHECK(assignedText(a2a, "moe_dispatcher") == "alltoall");
    const ImportResult gathered = importText(megatron + "--moe-token-dispatcher-type allgather", ImportFormat::megatron);
    CHECK(std::any_of(gathered.unmapped.begin(), gathered.unmapped.end(),
                      [](const Unmapped& u) { return u.key == "--moe-token-dispatcher-type"; }));

    // Megatron-LM's EP all-to-all overlap (Megatron-Bridge's moe_a2a_overlap) is a flag of its own; absent, it is off.
    const ImportResult overlapped = importText(megatron + "--overlap-moe-expert-parallel-comm", ImportFormat::megatron);
    CHECK(assignedText(overlapped, "overlap_moe_comm") == "true");
    for (const auto& u : overlapped.unmapped) CHECK(u.key.find("overlap") == std::string::npos);
    CHECK(assignedText(a2a, "overlap_moe_comm") == "false");

    // Routing balance: dropless unless a capacity factor is given (arguments.py's default None), and the benchmarks'
    // forced balance, in both formats.
    CHECK(assignedText(a2a, "capacity_factor") == "0");
    CHECK(assignedText(a2a, "moe_force_balance") == "false");
    const ImportResult forced =
        importText(megatron + "--moe-router-force-load-balancing --moe-expert-capacity-factor 1.5", ImportFormat::megatron);
    CHECK(assignedText(forced, "moe_force_balance") == "true");
    CHECK(assignedText(forced, "capacity_factor") == "1.5");
    const ImportResult roundRobin = importText(
        "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[parallelism]\nexpert_parallel_degree = 8\n[debug]\n"
        "moe_force_load_balance = true\n",
        ImportFormat::torchtitan);
    CHECK(assignedText(roundRobin, "moe_force_balance") == "true");
    // torchtitan's DeepSeek-V3 16B flavor is DeepSeek-V2-Lite's architecture (deepseek_v3/__init__.py _16b: dim 2048,
    // 27 layers, 16 heads, MLA without a query LoRA, 64 experts of 1,408, top-6, 2 shared, the first layer dense),
    // and a flavor builds no MTP layer.
    const ImportResult sixteen = importText("[model]\nname = \"deepseek_v3\"\nflavor = \"16B\"\n", ImportFormat::torchtitan);
    CHECK(assignedText(sixteen, "model") == "deepseek-v2-lite");
    CHECK(assignedText(sixteen, "mtp_layers") == "0");

    // --recompute-modules is a list (nargs "*"), read under selective granularity only; a module membudget does not
    // know is named and the rest kept.
    const ImportResult modules =
        importText(megatron + "--recompute-granularity selective --recompute-modules moe_act layernorm --use-distributed-optimizer",
                   ImportFormat::megatron);
    CHECK(assignedText(modules, "recompute_modules") == "moe_act,layernorm");
    CHECK(assignedText(modules, "ckpt") == "selective");
    const ImportResult newer =
        importText(megatron + "--recompute-granularity selective --recompute-modules gdn_norm_out moe", ImportFormat::megatron);
    CHECK(assignedText(newer, "recompute_modules") == "moe");
    CHECK(std::any_of(newer.unmapped.begin(), newer.unmapped.end(),
                      [](const Unmapped& u) { return u.key == "--recompute-modules" && u.value == "gdn_norm_out"; }));
    const ImportResult underFull = importText(megatron + "--recompute-granularity full --recompute-modules moe", ImportFormat::megatron);
    CHECK(assignedText(underFull, "recompute_modules") == "core_attn");
    CHECK(std::any_of(underFull.unmapped.begin(), underFull.unmapped.end(),
                      [](const Unmapped& u) { return u.key == "--recompute-modules"; }));

    // Both write it back.
    Config c;
    applyModelPreset(c, *findModelPreset("mixtral-8x7b"));
    c.moeForceBalance = true;
    c.method = Method::membudget;
    c.ep = 8;
    c.dp = 8;
    c.tp = 1;
    c.pp = 1;
    c.zero = 3;
    c.moeDispatcher = MoeDispatcher::deepep;
    for (const Framework framework : {Framework::torchtitan, Framework::megatron}) {
        c.framework = framework;
        if (framework == Framework::megatron) c.zero = 1;
        c.overlapMoeComm = framework == Framework::megatron;
        checkRoundTrip(c, framework == Framework::megatron ? ImportFormat::megatron : ImportFormat::torchtitan);
    }
    c.ckpt = Checkpointing::selective;
    for (const char* listed : {"moe_act,layernorm", "moe", ""}) {
        c.recomputeModules = listed;
        checkRoundTrip(c, ImportFormat::megatron);
    }
}

TEST_CASE("Megatron-LM's accounted pipeline split: the embedding and the loss count as layers, imported, validated and exported",
          "[import][megatron][stages]") {
    // Megatron-Bridge's Llama 3.1 405B layout: PP 8 × VPP 8 over 126 layers with both accounted, (126 + 2) / 8 = 16 a
    // stage, 15 on the first (the embedding) and the last (the loss), chunks of 2 but the first's and the last's.
    const ImportResult r = importText(
        "torchrun pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 8 "
        "--num-virtual-stages-per-pipeline-rank 8 --account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split "
        "--sequence-parallel --use-distributed-optimizer --num-layers 126 --hidden-size 16384 --ffn-hidden-size 53248 "
        "--num-attention-heads 128 --group-query-attention --num-query-groups 8 --seq-length 8192 --micro-batch-size 1 "
        "--global-batch-size 1536 --vocab-size 128256 --swiglu --disable-bias-linear --untie-embeddings-and-output-weights --bf16",
        ImportFormat::megatron);
    for (const auto& u : r.unmapped) CHECK(u.key.find("account") == std::string::npos);
    CHECK(assignedText(r, "split_accounts") == "both");
    CHECK(assignedText(r, "vpp") == "8");
    Config c = applied(r.assignments);
    c.dp = 16;
    c.microbatches = 96;
    CHECK(validate(c).empty());
    CHECK(stageLayers(c) == std::vector<double>{15, 16, 16, 16, 16, 16, 16, 15});
    checkRoundTrip(c, ImportFormat::megatron);
    // The same split by --num-layers-per-virtual-pipeline-stage counts the accounted layers too: 128 / 8 / 2 = 8.
    CHECK(assignedText(importText("pretrain_gpt.py --pipeline-model-parallel-size 8 --num-layers-per-virtual-pipeline-stage 2 "
                                  "--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split --num-layers 126",
                                  ImportFormat::megatron),
                       "vpp") == "8");
    // One accounted: 126 + 1 is not divisible by 8, said at split_accounts; without either, VPP 8 does not divide 126/8.
    Config embedding = c;
    embedding.splitAccounts = SplitAccounts::embedding;
    CHECK(test::refusedAt(embedding) == "split_accounts");
    Config none = c;
    none.splitAccounts = SplitAccounts::none;
    CHECK(test::refusedAt(none) == "vpp");
    // Megatron-LM's option only, beside neither first_stage_layers nor last_stage_layers, and with a pipeline.
    Config titan = c;
    titan.framework = Framework::torchtitan;
    titan.zero = 3;
    CHECK(test::refusedAt(titan) == "split_accounts");
    Config first = c;
    first.firstStageLayers = 14;
    CHECK(test::refusedAt(first) == "split_accounts");
    Config flat = c;
    flat.pp = 1;
    flat.vpp = 1;
    CHECK(test::refusedAt(flat) == "split_accounts");
}

TEST_CASE("Megatron-LM's custom pipeline layout: read as Megatron-LM reads it, validated, imported, exported, each chunk in flight",
          "[import][megatron][stages]") {
    using detail::parsePipelineLayout;
    // Megatron-LM's own example (parse_str_to_list): "Ettt|(tt|)*29,m|L" is [E t t t] + [t t] × 29 + [m], [L].
    const detail::ParsedLayout example = parsePipelineLayout("Ettt|(tt|)*29,m|L");
    REQUIRE(example.error.empty());
    REQUIRE(example.chunks.size() == 32);
    CHECK(example.chunks[0].embedding == 1);
    CHECK(example.chunks[0].decoder == 3);
    for (size_t v = 1; v < 30; ++v) CHECK(example.chunks[v].decoder == 2);
    CHECK(example.chunks[30].mtp == 1);
    CHECK(example.chunks[31].loss == 1);
    CHECK(example.first == 'E');
    CHECK(example.last == 'L');
    CHECK(parsePipelineLayout("Et*3|t|tL").chunks[0].decoder == 3);
    // Bounded: a short text that unrolls past the bound is refused at once; a character outside the grammar is named.
    CHECK(parsePipelineLayout("E(t|)*99999999999999L").error.find("unrolls to more than") != std::string::npos);
    CHECK(parsePipelineLayout("Et*99999999999999L").error.find("unrolls to more than") != std::string::npos);
    CHECK(parsePipelineLayout("Etx|L").error.find("'x'") != std::string::npos);
    // The bound holds for each step of the unrolling: a group of empty repeats counts before its repeats vanish.
    CHECK(parsePipelineLayout("E(t|)*1023t(t*0)*40000L").error.find("unrolls to more than 100,000") != std::string::npos);
    CHECK(parsePipelineLayout("E(t|)*1023t(t*0)*30000L").error.empty());

    // Megatron-Bridge's DeepSeek-V3 layout for PP 8 × VP 2 (set_deepseek_v3_pipeline_model_parallel_layout): rank 0
    // holds the embedding and 4 + 4 layers, rank 7 4 layers and then 1 with the MTP layer and the loss.
    const std::string script =
        "torchrun pretrain_gpt.py --pipeline-model-parallel-size 8 --pipeline-model-parallel-layout 'Et*4|(t*4|)*14tmL' "
        "--expert-model-parallel-size 32 --micro-batch-size 1 --global-batch-size 4096 --seq-length 4096 --bf16";
    const ImportResult r = importText(script, ImportFormat::megatron);
    CHECK(assignedText(r, "pipeline_layout") == "Et*4|(t*4|)*14tmL");
    CHECK(assignedText(r, "vpp") == "2");
    for (const auto& u : r.unmapped) CHECK(u.key.find("layout") == std::string::npos);
    Config c = applied({{"model", "deepseek-v3"},
                        {"method", "membudget"},
                        {"framework", "megatron"},
                        {"tp", "1"},
                        {"pp", "8"},
                        {"vpp", "2"},
                        {"dp", "32"},
                        {"ep", "32"},
                        {"etp", "1"},
                        {"mb", "1"},
                        {"microbatches", "128"},
                        {"seq", "4096"},
                        {"zero", "1"},
                        {"ckpt", "none"},
                        {"pipeline_layout", "Et*4|(t*4|)*14tmL"}});
    CHECK(validate(c).empty());
    CHECK(stageLayers(c) == std::vector<double>{8, 8, 8, 8, 8, 8, 8, 5});
    // Without the layout Megatron-LM's split cannot give these chunks (vpp must divide each stage's layers).
    Config even = c;
    even.pipelineLayout.clear();
    CHECK(test::refusedAt(even) == "vpp");
    // In flight under the interleaved schedule: the last rank's warm-up is one group of PP forwards through its first
    // chunk (4 layers each) and one through its second (1 layer): 8 × 4 + 1 = 33 layer copies, not 9 × 5/2; rank 0's
    // 23 forwards all hold 4 layers.
    CHECK(detail::inFlightLayerCopies(c, 5, 7) == 33);
    CHECK(detail::inFlightLayerCopies(c, 8, 0) == 23 * 4);
    // The EP all-to-all overlap schedules one more forward before the 1F1B stages (schedules.py
    // get_pp_rank_microbatches): rank 0 holds a 24th chunk; the last rank a second forward through its second chunk.
    Config overlapped = c;
    overlapped.overlapMoeComm = true;
    REQUIRE(validate(overlapped).empty());
    CHECK(detail::inFlightLayerCopies(overlapped, 8, 0) == 24 * 4);
    CHECK(detail::inFlightLayerCopies(overlapped, 5, 7) == 33 + 1);
    CHECK(evaluate(c).ok());
    checkRoundTrip(c, ImportFormat::megatron);
    // Megatron-LM's checks (PipelineParallelLayerLayout.__init__, validate_layer_layout) and membudget's own.
    auto refused = [&c](const std::string& key, const std::string& value) {
        std::vector<Assignment> all{{key, value}};
        return test::refusedAt(applyAssignments(all, c).config);
    };
    CHECK(refused("vpp", "1") == "vpp");                                              // 16 stages over PP 8
    CHECK(refused("pipeline_layout", "Et*4|(t*4|)*13tmL") == "pipeline_layout");      // 15 stages
    CHECK(refused("pipeline_layout", "Et*4|(t*4|)*14ttmL") == "pipeline_layout");     // 62 layers
    CHECK(refused("pipeline_layout", "t*4|E(t*4|)*14tmL") == "pipeline_layout");      // not E first
    CHECK(refused("pipeline_layout", "Et*4|(t*4|)*14tLm") == "pipeline_layout");      // not L last
    CHECK(refused("pipeline_layout", "Et*4|(t*4|)*13t*4m|tL") == "pipeline_layout");  // MTP off the last rank
    CHECK(refused("first_stage_layers", "8") == "pipeline_layout");
    Config titan = c;
    titan.framework = Framework::torchtitan;
    titan.zero = 3;
    CHECK(test::refusedAt(titan) == "pipeline_layout");
    // Advice that doubles PP leaves the layout (named for PP 8) for an even split without interleaving, and says so.
    Config ep8 = c;
    ep8.ep = 8;
    REQUIRE(validate(ep8).empty());
    const std::vector<Advice> advice = advise(ep8);
    const auto deeper = std::find_if(advice.begin(), advice.end(), [](const Advice& a) { return a.change.rfind("pp = 16", 0) == 0; });
    REQUIRE(deeper != advice.end());
    CHECK(deeper->change.find("pipeline_layout = (an even split), vpp = 1") != std::string::npos);
    CHECK(deeper->query.find("pipeline_layout=&vpp=1") != std::string::npos);
    // Another framework chosen without it: the layout leaves with Megatron-LM, said.
    const std::vector<Assignment> toTitan{{"framework", "torchtitan"}};
    const ParsedConfig switched = applyAssignments(toTitan, c);
    CHECK(switched.config.pipelineLayout.empty());
}

TEST_CASE("PyTorch's allocator settings come from the script's PYTORCH_CUDA_ALLOC_CONF, and go back out", "[import][allocator]") {
    const std::string flags =
        "torchrun --nproc-per-node 8 pretrain_gpt.py --tensor-model-parallel-size 1 --num-layers 32 --hidden-size 4096 "
        "--num-attention-heads 32 --seq-length 4096 --max-position-embeddings 4096 --micro-batch-size 1 --global-batch-size 64 --bf16\n";
    const ImportResult set = importText(
        "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128,"
        "garbage_collection_threshold:0.8\n" +
        flags);
    CHECK(assignedText(set, "expandable_segments") == "true");
    CHECK(assignedText(set, "max_split_size_mb") == "128");
    // The option membudget does not model is said, with its value.
    CHECK(std::any_of(set.unmapped.begin(), set.unmapped.end(),
                      [](const auto& u) { return u.key == "PYTORCH_CUDA_ALLOC_CONF" && u.value == "garbage_collection_threshold:0.8"; }));
    // PyTorch's newer name, and a value it would refuse, named.
    const ImportResult renamed = importText("PYTORCH_ALLOC_CONF=max_split_size_mb:lots " + flags);
    CHECK(assignedText(renamed, "max_split_size_mb") == "0");
    CHECK(std::any_of(renamed.unmapped.begin(), renamed.unmapped.end(),
                      [](const auto& u) { return u.key == "PYTORCH_ALLOC_CONF" && u.value == "max_split_size_mb:lots"; }));
    // Silent script: PyTorch's defaults, so nothing of an earlier import stays.
    const ImportResult silent = importText(flags);
    CHECK(assignedText(silent, "expandable_segments") == "false");
    CHECK(assignedText(silent, "max_split_size_mb") == "0");
    // The export writes the variable back, and the import reads it.
    const Config config = applied(set.assignments);
    const ExportResult exported = exportConfig(ImportFormat::megatron, config);
    CHECK(exported.text.find("export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128\n") != std::string::npos);
    const ImportResult back = importText(exported.text);
    CHECK(assignedText(back, "max_split_size_mb") == "128");
    CHECK(assignedText(back, "expandable_segments") == "true");
}

TEST_CASE("DeepSpeed's torch_autocast: imported, its FP32 tensors kept, refused and reset outside DeepSpeed",
          "[import][deepspeed][autocast]") {
    const std::string file = R"({"train_micro_batch_size_per_gpu": 4, "bf16": {"enabled": true}, "zero_optimization": {"stage": 3},
        "torch_autocast": {"enabled": true, "dtype": "torch.bfloat16"}})";
    const ImportResult r = importText(file, ImportFormat::deepspeed);
    REQUIRE(r.ok());
    CHECK(assignedText(r, "autocast") == "true");
    for (const auto& u : r.unmapped) CHECK(u.key.find("torch_autocast") == std::string::npos);
    CHECK(assignedText(importText(R"({"bf16": {"enabled": true}, "zero_optimization": {"stage": 3}})", ImportFormat::deepspeed),
                       "autocast") == "false");

    // Under autocast, layer_norm and softmax run in FP32 (autocast_mode.cpp): a LayerNorm keeps an FP32 copy of
    // its input, the eager attention its FP32 probabilities beside the bmm's BF16 cast.
    Config c;
    c.model = "custom";
    c.method = Method::membudget;
    c.params = 0;
    c.hidden = 1024;
    c.layers = 12;
    c.heads = c.kvHeads = 16;
    c.ffn = 4096;
    c.vocab = 50000;
    c.gatedFfn = false;
    c.norm = Norm::layernorm;
    c.framework = Framework::deepspeed;
    c.zero = 3;
    c.tp = c.pp = 1;
    c.dp = 4;
    c.mb = 4;
    c.seq = 512;
    c.ckpt = Checkpointing::none;
    c.attention = Attention::eager;
    c.dropout = false;
    c.microbatches = 1;
    REQUIRE(validate(c).empty());
    Config on = c;
    on.autocast = true;
    REQUIRE(validate(on).empty());
    auto tensor = [](const Result& result, std::string_view name) {
        for (const auto& t : result.tensors)
            if (t.name == name) return t.bytesPerCopy;
        return 0.0;
    };
    const Result plain = evaluate(c), cast = evaluate(on);
    REQUIRE(plain.ok());
    REQUIRE(cast.ok());
    const double scores = 4.0 * 16 * 512 * 512, bsh = 4.0 * 512 * 1024;
    CHECK(tensor(plain, "attention probabilities (softmax output)") == 2 * scores);
    CHECK(tensor(cast, "attention probabilities (softmax output)") == 6 * scores);
    CHECK(tensor(cast, "attention norm input") == 4 * bsh);
    CHECK(tensor(plain, "attention norm input") == 2 * bsh);

    // DeepSpeed's own: refused under another framework, and a framework choice takes it away, said.
    Config other = on;
    other.framework = Framework::torchtitan;
    other.zero = 3;
    CHECK(membudget::test::refusedAt(other) == "autocast");
    const ParsedConfig switched = applyAssignments(std::vector<Assignment>{{"framework", "torchtune"}}, on);
    CHECK_FALSE(switched.config.autocast);
}

TEST_CASE("a value a structured file gives that does not read as its type is named, never a silent default", "[import][unreadable]") {
    // Generated: each key an importer reads as a number or a boolean, given values that are neither.
    const std::vector<std::string> bad = {R"("eight")", R"("inf")", R"("nan")", R"("2026-01-01")", R"("yes")", "1e400", "[1, 2]", "{}"};
    struct Case {
        ImportFormat format;
        std::string key;                                      // the path the unmapped entry names
        std::function<std::string(const std::string&)> file;  // the file with that key set to the value
    };
    const std::vector<Case> cases = {
        {ImportFormat::deepspeed, "train_micro_batch_size_per_gpu",
         [](const std::string& v) { return R"({"train_micro_batch_size_per_gpu": )" + v + R"(, "zero_optimization": {"stage": 3}})"; }},
        {ImportFormat::deepspeed, "zero_optimization.stage",
         [](const std::string& v) { return R"({"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": )" + v + "}}"; }},
        {ImportFormat::deepspeed, "bf16.enabled",
         [](const std::string& v) { return R"({"bf16": {"enabled": )" + v + R"(}, "zero_optimization": {"stage": 1}})"; }},
        {ImportFormat::torchtitan, "parallelism.tensor_parallel_degree",
         [](const std::string& v) {
             return "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 1\nseq_len = 2048\n"
                    "[parallelism]\ntensor_parallel_degree = " +
                    v + "\n";
         }},
        {ImportFormat::torchtitan, "training.seq_len",
         [](const std::string& v) {
             return "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 1\nseq_len = " + v + "\n";
         }},
    };
    int checked = 0;
    for (const auto& c : cases)
        for (const auto& value : bad) {
            const std::string text = c.file(value);
            INFO(text);
            ImportResult r;
            try {
                r = importConfig(cli::parseImport(text, c.format));
            } catch (const std::exception& e) {
                FAIL("threw " << e.what());
            }
            if (!r.ok()) continue;  // refused, with its reason: not a silent default either
            const bool named = std::any_of(r.unmapped.begin(), r.unmapped.end(), [&](const auto& u) { return u.key == c.key; });
            CHECK(named);
            ++checked;
        }
    CHECK(checked > 20);
}

TEST_CASE("a long key repeated under many values stops at the flattened-size limit, in every structured format", "[import][bad][bombs]") {
    // Each path copies its parents' keys: 2,000 values under a 40,000-character key flatten to 80 MB from 40 KB.
    const std::string key(40000, 'k');
    std::string jsonValues, tomlValues;
    for (int i = 0; i < 2000; ++i) {
        jsonValues += (i ? ", " : "") + std::string("1");
    }
    tomlValues = "[" + jsonValues + "]";
    // YAML caps an implicit key at 1,024 characters: the same growth from nesting 30 keys of 1,000.
    std::string yaml = "batch_size: 1\n", indent;
    for (int depth = 0; depth < 30; ++depth, indent += " ") yaml += indent + std::string(1000, static_cast<char>('a' + depth % 26)) + ":\n";
    yaml += indent + "- 1\n";
    for (int i = 1; i < 3000; ++i) yaml += indent + "- 1\n";
    const std::vector<std::pair<ImportFormat, std::string>> files = {
        {ImportFormat::deepspeed, R"({"zero_optimization": {"stage": 3}, ")" + key + R"(": [)" + jsonValues + "]}"},
        {ImportFormat::torchtitan, "[model]\nname = \"llama3\"\n[" + key + "]\nv = " + tomlValues + "\n"},
        {ImportFormat::torchtune, yaml},
    };
    for (const auto& [format, text] : files) {
        INFO(toString(format));
        const ImportResult r = importConfig(cli::parseImport(text, format));
        CHECK_FALSE(r.ok());
        bool named = false;
        for (const auto& e : r.errors) named = named || e.message.find("64 MiB") != std::string::npos;
        CHECK(named);
    }
}

TEST_CASE("a script whose variables double each line is bounded by its expansion, and nothing is echoed whole", "[import][bad][bombs]") {
    // A 0.7 KB script (A1="$A0$A0" …) would expand to 2^39 bytes: each word stops at 1 MiB, the variable unresolved.
    std::string script = "A0=xy\n";
    for (int i = 1; i < 40; ++i)
        script += "A" + std::to_string(i) + "=\"$A" + std::to_string(i - 1) + "$A" + std::to_string(i - 1) + "\"\n";
    script +=
        "torchrun pretrain_gpt.py --num-layers 2 --hidden-size 64 --num-attention-heads 4 --seq-length 128 "
        "--micro-batch-size 1 --$A39 1 --tokenizer-type $A30\n";
    const ImportResult r = importConfig(cli::parseImport(script, ImportFormat::megatron));
    REQUIRE(r.ok());
    CHECK(assignedText(r, "layers") == "2");
    for (const auto& u : r.unmapped) {
        INFO(u.key.substr(0, 40));
        CHECK(u.key.size() <= 240);
        CHECK(u.value.size() <= 240);
    }
}

TEST_CASE("a Megatron-LM choice outside its argparse choices is an error naming the flag, never a default", "[import][unreadable]") {
    const std::string base =
        "torchrun pretrain_gpt.py --num-layers 4 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 "
        "--max-position-embeddings 1024 --vocab-size 1000 --micro-batch-size 1 --bf16 ";
    // Generated: each flag with each of its choices (read) and with values outside them (refused).
    const std::vector<std::pair<std::string, std::vector<std::string>>> flags{
        {"--recompute-granularity", {"full", "selective"}},
        {"--recompute-method", {"uniform", "block"}},
        {"--fp8-format", {"e4m3", "hybrid"}},
        {"--attention-backend", {"flash", "fused", "unfused", "local", "auto"}}};
    int refused = 0;
    for (const auto& [flag, choices] : flags) {
        for (const auto& choice : choices) {
            INFO(flag << " " << choice);
            const ImportResult r = importText(base + flag + " " + choice, ImportFormat::megatron);
            CHECK(r.ok());
        }
        for (const std::string bad : {"bogus", "Full", "SELECTIVE", "none", "1", "''"}) {
            INFO(flag << " " << bad);
            const ImportResult r = importText(base + flag + " " + bad, ImportFormat::megatron);
            REQUIRE_FALSE(r.ok());
            CHECK(r.errors.front().message.find(flag) == 0);
            CHECK(r.errors.front().message.find("argparse accepts") != std::string::npos);
            ++refused;
        }
    }
    CHECK(refused == 24);
    // --recompute-activations is selective recomputation; a padding multiple that is not a positive integer stops.
    const ImportResult activations = importText(base + "--recompute-activations", ImportFormat::megatron);
    CHECK(std::any_of(activations.assignments.begin(), activations.assignments.end(),
                      [](const Assignment& a) { return a.key == "ckpt" && a.text == "selective"; }));
    for (const std::string bad : {"0", "-128", "1.5"}) {
        const ImportResult r = importText(base + "--make-vocab-size-divisible-by " + bad, ImportFormat::megatron);
        REQUIRE_FALSE(r.ok());
        CHECK(r.errors.front().message.find("--make-vocab-size-divisible-by") == 0);
    }
}

TEST_CASE("import validates what it maps as --import does: out-of-range values are errors naming the key", "[import][unreadable]") {
    struct Case {
        ImportFormat format;
        std::string text, field;
    };
    const std::vector<Case> cases{
        {ImportFormat::megatron,
         "torchrun pretrain_gpt.py --num-layers 4 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 "
         "--max-position-embeddings 1024 --vocab-size 1000 --micro-batch-size -8 --bf16",
         "mb"},
        {ImportFormat::megatron,
         "torchrun pretrain_gpt.py --num-layers 0 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 "
         "--max-position-embeddings 1024 --vocab-size 1000 --micro-batch-size 1 --bf16",
         "layers"},
        {ImportFormat::deepspeed, R"({"train_micro_batch_size_per_gpu": 0, "zero_optimization": {"stage": 3}})", "mb"},
        {ImportFormat::deepspeed, R"({"train_micro_batch_size_per_gpu": 1, "zero_optimization": {"stage": 7}})", "zero"},
        {ImportFormat::torchtitan, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = -1\nseq_len = 2048\n",
         "mb"},
        {ImportFormat::torchtitan, "[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = 1\nseq_len = 0\n", "seq"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const ImportResult r = importConfig(cli::parseImport(c.text, c.format));
        if (!r.ok()) {  // the importer refused it itself, with its reason
            CHECK_FALSE(r.errors.empty());
            continue;
        }
        const std::vector<Problem> problems = importProblems(r);
        REQUIRE_FALSE(problems.empty());
        CHECK(std::any_of(problems.begin(), problems.end(), [&](const Problem& p) { return p.field == c.field; }));
        // The CLI's `import` exits 2 with the same message.
        const std::string path = "membudget_test_import_problem.txt";
        std::ofstream(path) << c.text;
        const auto cliRun = membudget::test::cliRun({"import", path, "--format", std::string(toString(c.format))});
        std::remove(path.c_str());
        CHECK(cliRun.status == 2);
        CHECK(cliRun.err.find(problems.front().message) != std::string::npos);
    }
    // A good file passes with nothing to say.
    const ImportResult good = importConfig(
        cli::parseImport(R"({"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 3}})", ImportFormat::deepspeed));
    CHECK(importProblems(good).empty());
}

TEST_CASE("a key holding a dot is one key, not a path, in JSON, TOML and YAML", "[import][unreadable]") {
    // The dotted key would set the value if read as a path; each framework reads it as one key and ignores it.
    struct Case {
        ImportFormat format;
        std::string text, key, nested;  // nested: the same file with the key nested, which does set it
    };
    const std::vector<Case> cases{
        {ImportFormat::deepspeed, R"({"train_micro_batch_size_per_gpu": 2, "zero_optimization.stage": 3})", "zero",
         R"({"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 3}})"},
        {ImportFormat::deepspeed, R"({"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 1}, "bf16.enabled": true})",
         "precision", R"({"train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 1}, "bf16": {"enabled": true}})"},
        {ImportFormat::torchtitan,
         "\"parallelism.tensor_parallel_degree\" = 8\n[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = "
         "1\nseq_len = 2048\n",
         "tp",
         "[parallelism]\ntensor_parallel_degree = 8\n[model]\nname = \"llama3\"\nflavor = \"8B\"\n[training]\nlocal_batch_size = "
         "1\nseq_len = 2048\n"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        auto valueOf = [&](const std::string& text) -> std::string {
            const ImportResult r = importConfig(cli::parseImport(text, c.format));
            REQUIRE(r.ok());
            for (const auto& a : r.assignments)
                if (a.key == c.key) return a.text;
            return "";
        };
        const std::string nested = valueOf(c.nested);
        CHECK_FALSE(nested.empty());
        CHECK(valueOf(c.text) != nested);  // the dotted key set nothing: the framework's default
        // And the flattened path says so: the key in brackets, never the nested path.
        const auto parsed = cli::parseImport(c.text, c.format);
        const bool bracketed =
            std::any_of(parsed.values.begin(), parsed.values.end(), [](const auto& v) { return v.key.find("[\"") != std::string::npos; });
        CHECK(bracketed);
    }
    CHECK(detail::childPath("", "a.b") == "[\"a.b\"]");
    CHECK(detail::childPath("x", "y") == "x.y");
    CHECK(detail::childPath("", "y") == "y");
    CHECK(detail::childPath("x", "y[0]") == "x[\"y[0]\"]");
}

TEST_CASE("an import over a --config base keeps of it only the GPU, the method and the model where the file names none",
          "[import][sequence]") {
    // Generated: every real fixture over bases that would leave something behind if they were layered under it.
    const std::vector<std::string> bases{
        R"({"model":"llama-3.1-8b","finetune":"lora","lora_rank":16,"lora_targets":"all","pp":4,"first_stage_layers":5,"tp":1,"dp":2})",
        R"({"model":"mixtral-8x7b","gpu":"h200","ep":4,"tp":2,"dp":2,"ckpt":"full","mb":3,"microbatches":7,"seq":8192})",
        R"({"model":"llama-3.1-70b","mode":"inference","tp":8,"dp":1,"mb":64,"kv_dtype":"fp8"})",
    };
    int compared = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(MEMBUDGET_FIXTURES_DIR) + "/import")) {
        const std::string file = entry.path().string();
        if (!entry.is_regular_file() || file.ends_with(".expect.json") || file.ends_with(".md")) continue;
        for (const std::string& base : bases) {
            INFO(file << " over " << base);
            const std::string path = "membudget_test_import_base.json";
            std::ofstream(path) << base;
            const auto over = membudget::test::cliRun({"--config", path, "--import", file, "--json"});
            // The same import alone, given only what importBase keeps: the GPU, the method and the model.
            const auto baseJson = nlohmann::json::parse(base);
            nlohmann::json kept = {{"gpu", baseJson.value("gpu", "generic-80gb")}};
            const bool namesModel = over.err.find("names no model") == std::string::npos;
            if (!namesModel) kept["model"] = baseJson["model"];
            std::ofstream(path) << kept.dump();
            const auto alone = membudget::test::cliRun({"--config", path, "--import", file, "--json"});
            std::remove(path.c_str());
            CHECK(over.status == alone.status);
            const auto a = nlohmann::json::parse(over.out), b = nlohmann::json::parse(alone.out);
            CHECK(a["config"] == b["config"]);
            CHECK(a["errors"] == b["errors"]);
            ++compared;
        }
    }
    CHECK(compared >= 90);
}

TEST_CASE("a here-document's body is text, not flags", "[import][words]") {
    const std::string launch =
        "torchrun pretrain_gpt.py --num-layers 4 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 "
        "--max-position-embeddings 1024 --vocab-size 1000 --micro-batch-size 1 --bf16\n";
    // Generated: each opener (plain, dashed with tab-indented body, quoted), before and after the launch line; a
    // here-string (<<<) and a << inside quotes open nothing.
    const std::vector<std::pair<std::string, std::string>> docs{
        {"cat > notes.txt <<EOF\n", "--tensor-model-parallel-size 8\nEOF\n"},
        {"cat <<-END > x\n", "\t--tensor-model-parallel-size 8\n\tEND\n"},
        {"cat << 'EOF'\n", "--tensor-model-parallel-size 8 $HOME\nEOF\n"},
        {"cat <<\"DOC\" | tee log\n", "--tensor-model-parallel-size 8\nDOC\n"},
        {"cat <<A <<B\n", "--tensor-model-parallel-size 8\nA\n--tensor-model-parallel-size 4\nB\n"},
    };
    auto tpOf = [](const std::string& script) {
        const ImportResult r = importText(script, ImportFormat::megatron);
        REQUIRE(r.ok());
        for (const auto& a : r.assignments)
            if (a.key == "tp") return a.text;
        return std::string();
    };
    for (const auto& [opener, body] : docs) {
        INFO(opener << body);
        CHECK(tpOf(opener + body + launch) == "1");
        CHECK(tpOf(launch + opener + body) == "1");
        // What follows the delimiter is read again.
        CHECK(tpOf(opener + body + launch.substr(0, launch.size() - 1) + " --tensor-model-parallel-size 2\n") == "2");
    }
    CHECK(tpOf("grep x <<< \"y\"\n" + launch.substr(0, launch.size() - 1) + " --tensor-model-parallel-size 2\n") == "2");
    CHECK(tpOf("echo \"<<EOF\"\n" + launch.substr(0, launch.size() - 1) + " --tensor-model-parallel-size 2\n") == "2");
}

TEST_CASE("a flag given twice with different values is taken last, as argparse takes it, and warned about", "[import][words]") {
    const std::string megatron = "torchrun pretrain_gpt.py --num-layers 4 --hidden-size 512 --num-attention-heads 8 ";
    const std::string vllm = "vllm serve meta-llama/Llama-3.1-8B ";
    struct Case {
        std::string text;
        ImportFormat format;
        std::string key, value;
        bool warned;
    };
    const std::vector<Case> cases{
        {megatron + "--pipeline-model-parallel-size 2 --pipeline-model-parallel-size 4", ImportFormat::megatron, "pp", "4", true},
        {megatron + "--pipeline-model-parallel-size 2 --pipeline-model-parallel-size 2", ImportFormat::megatron, "pp", "2", false},
        {megatron + "--tensor-model-parallel-size 8 --seq-length 1024 --tensor-model-parallel-size 2", ImportFormat::megatron, "tp", "2",
         true},
        {vllm + "--tensor-parallel-size 2 --max-model-len 4096 --tensor-parallel-size 4", ImportFormat::vllm, "tp", "4", true},
        {vllm + "--max-num-seqs 8 --max-num-seqs 8", ImportFormat::vllm, "mb", "8", false},
        // $'…' is bash's ANSI-C quoting: the word is 2, as bash and the page's shell-quote read it.
        {megatron + "--tensor-model-parallel-size $'\\x32'", ImportFormat::megatron, "tp", "2", false},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const ImportResult r = importText(c.text, c.format);
        REQUIRE(r.ok());
        CHECK(assignedText(r, c.key) == c.value);
        const bool warned = std::any_of(r.warnings.begin(), r.warnings.end(), [](const std::string& w) {
            return w.find("is given more than once with different values") != std::string::npos;
        });
        CHECK(warned == c.warned);
    }
}
