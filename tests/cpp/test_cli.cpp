// The CLI in-process: exit statuses, the table, JSON, and the three input routes agreeing.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.hpp"
#include "fixtures.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"

using membudget::runCli;

namespace {

using Run = membudget::test::CliRun;

Run run(std::vector<std::string> args, const std::string& input = "") { return membudget::test::cliRun(std::move(args), input); }

}  // namespace

TEST_CASE("cli: the default is the chapter's 70B example, printed as the checklist", "[cli]") {
    const Run r = run({});
    CHECK(r.status == 0);
    CHECK(r.out.find("Parameters") != std::string::npos);
    CHECK(r.out.find("2Ψ / (TP × PP)") != std::string::npos);
    CHECK(r.out.find("17.50") != std::string::npos);
    CHECK(r.out.find("41.95") != std::string::npos);
    CHECK(r.out.find("Verdict: fits") != std::string::npos);
    CHECK(r.err.empty());
}

TEST_CASE("cli: exit 1 for tight and for does-not-fit", "[cli]") {
    CHECK(run({"--model", "chapter-405b", "--tp", "8", "--pp", "4", "--dp", "8"}).status == 1);
    const Run over = run({"--ckpt", "none"});
    CHECK(over.status == 1);
    CHECK(over.out.find("does not fit") != std::string::npos);
}

TEST_CASE("cli: bad input exits 2 with the field and the allowed range", "[cli]") {
    const Run zero = run({"--tp", "0"});
    CHECK(zero.status == 2);
    CHECK(zero.err.find("tp must be an integer from 1 to 1,024; got 0") != std::string::npos);
    CHECK(zero.out.empty());
    const Run word = run({"--seq", "long"});
    CHECK(word.status == 2);
    CHECK(word.err.find("seq must be an integer from 1 to 16,777,216; got \"long\"") != std::string::npos);
    const Run heads = run({"--tp", "128"});
    CHECK(heads.status == 2);
    CHECK(heads.err.find("tp must be at most heads (64)") != std::string::npos);
    const Run preset = run({"--model", "llama-9"});
    CHECK(preset.status == 2);
    CHECK(preset.err.find("model must be one of chapter-70b") != std::string::npos);
    CHECK(run({"--no-such-flag", "1"}).status == 2);
    const Run missing = run({"eval", "/nonexistent/config.json"});
    CHECK(missing.status == 2);
    CHECK(nlohmann::json::parse(missing.out)["errors"][0]["message"].get<std::string>().find("cannot read") == 0);
    const Run badUrl = run({"--url", "tp=8&bogus=1"});
    CHECK(badUrl.status == 2);
    CHECK(badUrl.err.find("unknown key \"bogus\"") != std::string::npos);
}

TEST_CASE("cli: eval prints the JSON result, from a file or standard input", "[cli]") {
    const auto& example = membudget::test::fixture("chapter")["checklists"][1];
    const Run r = run({"eval", "-"}, example["config"].dump());
    CHECK(r.status == 1);
    const auto result = nlohmann::json::parse(r.out);
    CHECK(result["method"] == "chapter");
    CHECK(result["verdict"] == "tight");
    CHECK(result["total_bytes"].get<double>() == example["expect"]["total_bytes"].get<double>());
    for (const auto& line : result["lines"]) {
        INFO(line["id"]);
        CHECK(line["bytes"].get<double>() == example["expect"]["lines"][line["id"].get<std::string>()].get<double>());
        for (const char* key : {"label", "formula", "substituted", "note"}) CHECK_FALSE(line[key].get<std::string>().empty());
    }
    CHECK(result["capacity_bytes"] == 80000000000);
    CHECK(result["usable_bytes"] == 72000000000);
    CHECK(result["errors"].empty());

    const std::string path = "membudget_test_config.json";
    std::ofstream(path) << example["config"].dump();
    const Run fromFile = run({"eval", path});
    std::remove(path.c_str());
    CHECK(fromFile.out == r.out);

    const Run bad = run({"eval", "-"}, R"({"tp": -1})");
    CHECK(bad.status == 2);
    CHECK(nlohmann::json::parse(bad.out)["errors"][0]["field"] == "tp");
}

TEST_CASE("cli: a token budget gives the run's days, GPU-hours and, with a price, its cost", "[cli]") {
    const std::vector<std::string> base{"--model", "llama-3.1-8b", "--gpu", "h100-80gb", "--tp", "1", "--dp", "16", "--gpus", "16"};
    auto with = [&base](std::vector<std::string> more) {
        std::vector<std::string> args = base;
        args.insert(args.end(), more.begin(), more.end());
        return args;
    };
    const auto plain = nlohmann::json::parse(run(with({"--json"})).out);
    CHECK(plain["run"].is_null());
    const auto budget = nlohmann::json::parse(run(with({"--train_tokens", "2e12", "--json"})).out);
    const auto& runJson = budget["run"];
    REQUIRE(runJson.is_object());
    const double tokensPerStep = budget["step_time"]["tokens_per_step"].get<double>();
    CHECK(runJson["train_tokens"] == 2000000000000.0);
    CHECK(runJson["optimizer_steps"].get<double>() == std::ceil(2e12 / tokensPerStep));
    const double days = runJson["optimizer_steps"].get<double>() * budget["step_time_s"].get<double>() / 86400;
    CHECK(runJson["wall_clock_days"].get<double>() == Approx(days).epsilon(1e-6));
    CHECK(runJson["gpu_hours"].get<double>() == Approx(16 * days * 24).epsilon(1e-6));
    CHECK(runJson["cost_usd"].is_null());
    const auto priced = nlohmann::json::parse(run(with({"--train_tokens", "2e12", "--gpu_hour_usd", "3", "--json"})).out);
    CHECK(priced["run"]["cost_usd"].get<double>() == Approx(3 * runJson["gpu_hours"].get<double>()).epsilon(1e-6));
    const Run table = run(with({"--train_tokens", "2e12", "--gpu_hour_usd", "3"}));
    CHECK(table.out.find("Run (estimate): 2,000,000,000,000 tokens in ") != std::string::npos);
    CHECK(table.out.find(" GPU-hours, $") != std::string::npos);
    CHECK(run(with({"--train_tokens", "1e16"})).status == 2);
}

TEST_CASE("cli: plan --which-gpu gives each GPU preset's recommended layout, as plan --gpu does", "[cli][plan]") {
    const std::string url = "model=llama-3.1-8b&tp=1&dp=16&seq=8192&train_tokens=1e12";
    const Run text = run({"plan", "--which-gpu", "--url", url, "--global-batch", "64"});
    CHECK(text.status == 0);
    CHECK(text.out.find("each GPU preset's fastest layout that fits") != std::string::npos);
    CHECK(text.out.find("NVIDIA H200") != std::string::npos);
    const auto all = nlohmann::json::parse(run({"plan", "--which-gpu", "--json", "--url", url, "--global-batch", "64"}).out);
    REQUIRE(all["which_gpu"].is_array());
    for (const auto& gpu : all["which_gpu"]) {
        INFO(gpu["gpu"]);
        const auto alone = nlohmann::json::parse(
            run({"plan", "--json", "--url", url + "&gpu=" + gpu["gpu"].get<std::string>(), "--global-batch", "64"}).out);
        CHECK(gpu["fitting"] == alone["fitting"]);
        if (alone["recommended"].is_null()) {
            CHECK(gpu["recommended"].is_null());
            continue;
        }
        CHECK(gpu["recommended"] == alone["rows"][alone["recommended"]["index"].get<size_t>()]);
        CHECK(gpu["reason"] == alone["recommended"]["reason"]);
    }
    // A request no GPU can take is bad input, named.
    const Run bad = run({"plan", "--which-gpu", "--url", "model=llama-3.1-8b&mode=inference&tp=1&dp=16", "--global-batch", "64"});
    CHECK(bad.status == 2);
    CHECK(bad.err.find("mode must be training") != std::string::npos);
}

TEST_CASE("cli: flags, --url and JSON give the same ledger and flags override", "[cli]") {
    const Run flags = run({"--json", "--model", "chapter-405b", "--tp", "8", "--pp", "4", "--dp", "8"});
    const Run url = run({"--json", "--url", "https://x.example/?model=chapter-405b&tp=8&pp=4&dp=8"});
    const Run json = run({"eval", "-"}, R"({"model": "chapter-405b", "tp": 8, "pp": 4, "dp": 8})");
    CHECK(flags.out == url.out);
    CHECK(flags.out == json.out);
    const Run overridden = run({"--json", "--url", "tp=4", "--tp", "2"});
    CHECK(nlohmann::json::parse(overridden.out)["config"]["tp"] == 2);
    const Run gib = run({"--gib"});
    CHECK(gib.out.find("Value (GiB)") != std::string::npos);
    CHECK(gib.out.find("39.07") != std::string::npos);  // 41,952,338,640 B = 39.07 GiB
}

TEST_CASE("cli: help lists every field with its range and fields and presets print JSON", "[cli]") {
    const Run help = run({"--help"});
    CHECK(help.status == 0);
    CHECK(help.out.find("--static_bytes") != std::string::npos);
    CHECK(help.out.find("one of 16, 18 or 20") != std::string::npos);
    const auto table = nlohmann::json::parse(run({"fields"}).out);
    CHECK(table.size() == membudget::fields().size());
    const auto presets = nlohmann::json::parse(run({"presets"}).out);
    CHECK(presets["gpus"].size() == membudget::gpuPresets().size());
}

TEST_CASE("cli: a preset and a config.json together are refused, naming both", "[cli]") {
    const auto r = membudget::test::cliRun(
        {"--model", "llama-3.1-8b", "--hf-config", "-"},
        R"({"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})");
    CHECK(r.status == 2);
    CHECK(r.err.find("--hf-config (-) and model = llama-3.1-8b both set the architecture") != std::string::npos);
}

TEST_CASE("cli: --mode inference alone works, selecting method membudget with a notice", "[cli]") {
    const auto r = membudget::test::cliRun({"--mode", "inference", "--tp", "8", "--dp", "1"});
    CHECK(r.status == 0);
    CHECK(r.err.find("mode = inference selects method membudget") != std::string::npos);
    CHECK(r.out.find("method membudget") != std::string::npos);
    // Naming a training-only method with inference stays an error.
    CHECK(membudget::test::cliRun({"--mode", "inference", "--method", "chapter"}).status == 2);
}

TEST_CASE("cli: nothing from the input reaches the terminal raw", "[cli][hostile]") {
    // A link value that would retitle the terminal: shown escaped in the error message.
    const auto r = membudget::test::cliRun({"--url", "tp=%1B%5D0;pwned%07"});
    CHECK(r.status == 2);
    CHECK(r.err.find("\\x1b]0;pwned\\x07") != std::string::npos);
    CHECK(r.err.find('\x1b') == std::string::npos);
    CHECK(r.err.find('\x07') == std::string::npos);
    // A JSON key with a C1 control (CSI, U+009B) in text output, and in JSON output as a valid JSON escape.
    const auto text = membudget::test::cliRun({"--config", "-"},
                                              "{\"a\xc2\x9b"
                                              "b\": 1}");
    CHECK(text.err.find("\\x9b") != std::string::npos);
    CHECK(text.err.find("\xc2\x9b") == std::string::npos);
    const auto json = membudget::test::cliRun({"eval", "-"},
                                              "{\"a\xc2\x9b"
                                              "b\": 1}");
    CHECK(json.out.find("\xc2\x9b") == std::string::npos);
    CHECK(nlohmann::json::parse(json.out, nullptr, false).is_object());
    CHECK(json.out.find("\\u009b") != std::string::npos);
    // A measured file's device name in the table.
    nlohmann::json measured = membudget::test::fixture("measured-sample");
    measured["device"]["name"] = "H100\x1b[2J\x1b]0;x\x07";
    const auto table = membudget::test::cliRun({"compare-measured", "-"}, measured.dump());
    CHECK(table.out.find('\x1b') == std::string::npos);
    CHECK(table.out.find("\\x1b[2J") != std::string::npos);
}

TEST_CASE("cli: input is read up to 16 MiB, and one JSON document only", "[cli][hostile]") {
    const std::string huge(16 * 1024 * 1024 + 1, ' ');
    for (const auto& args :
         std::vector<std::vector<std::string>>{{"eval", "-"}, {"--config", "-"}, {"--hf-config", "-"}, {"compare-measured", "-"}}) {
        INFO(args[0]);
        const auto r = membudget::test::cliRun(args, huge);
        CHECK(r.status == 2);
        CHECK((r.err + r.out).find("standard input is larger than 16 MiB") != std::string::npos);
    }
    const auto nul = membudget::test::cliRun({"--config", "-"}, std::string("{\"tp\": 4}\0{\"tp\": 8}", 19));
    CHECK(nul.status == 2);
    CHECK(nul.err.find("not one JSON document: a NUL byte at byte 9") != std::string::npos);
    CHECK(membudget::test::cliRun({"--config", "-"}, R"({"tp": 4} {"tp": 8})").status == 2);
}

TEST_CASE("cli: --import says what the file does not say, until a flag or link sets it", "[cli][import]") {
    const std::string script = std::string(MEMBUDGET_FIXTURES_DIR) + "/import/megatron/train_gpt3_175b_distributed.sh";
    const Run r = run({"--import", script});
    CHECK(r.err.find("membudget: needs your input: dp = 32 is assumed") != std::string::npos);
    CHECK(r.err.find("set --dp") != std::string::npos);
    const Run answered = run({"--import", script, "--dp", "8"});
    CHECK(answered.err.find("needs your input: dp") == std::string::npos);
    const Run linked = run({"--import", script, "--url", "dp=8&microbatches=192"});
    CHECK(linked.err.find("needs your input") == std::string::npos);
    // `membudget import` lists them in its JSON.
    const Run json = run({"import", script});
    CHECK(json.out.find("\"assumed\"") != std::string::npos);
}
