// The CLI in-process: exit statuses, the table, JSON, and the three input routes agreeing.
#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli.hpp"
#include "fixtures.hpp"
#include "io/json_parts.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "terminal.hpp"

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

TEST_CASE("cli: JSON numbers are written shortest, as the page writes them", "[cli][json]") {
    using membudget::detail::shortestNumbers;
    // nlohmann/json's Grisu2 writes the double nearest 2.463144 with 17 digits; JavaScript, and the page, with 7.
    nlohmann::ordered_json j = {{"a", 2463144.0 / 1e6}, {"b", "2.4631439999999998 stays inside a string"}, {"c", -0.1}};
    const std::string text = shortestNumbers(j.dump(2));
    CHECK(text.find("\"a\": 2.463144,") != std::string::npos);
    CHECK(text.find("2.4631439999999998 stays inside a string") != std::string::npos);
    CHECK(text.find("\"c\": -0.1") != std::string::npos);
    // What is already shortest stays as written: integers, an integral double's point, exponents, escapes in strings.
    CHECK(shortestNumbers(R"({"n": 17500000000, "x": 3.0, "e": 1e+20, "s": "q\"1.0000000000000002"})") ==
          R"({"n": 17500000000, "x": 3.0, "e": 1e+20, "s": "q\"1.0000000000000002"})");
    CHECK(shortestNumbers("[0.30000000000000004]") == "[0.30000000000000004]");
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
    // The whole job's rate: the global batch over the step, the per-GPU rate on all 16 GPUs.
    const double tokensPerSecond = budget["step_time"]["tokens_per_second"].get<double>();
    CHECK(tokensPerSecond == Approx(tokensPerStep / budget["step_time_s"].get<double>()).epsilon(1e-6));
    CHECK(tokensPerSecond == Approx(16 * budget["tokens_per_second_per_gpu"].get<double>()).epsilon(1e-6));
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
    // In inference the plan is the serving planner's (docs/inference.md, "Serving plan"): each preset's recommended row.
    const Run serving = run({"plan", "--which-gpu", "--json", "--url",
                             "model=llama-3.1-8b&mode=inference&tp=1&dp=16&input_tokens=512&output_tokens=256&seq=1024"});
    CHECK(serving.status == 0);
    const auto servingJson = nlohmann::json::parse(serving.out);
    CHECK(servingJson["mode"] == "inference");
    CHECK(servingJson["which_gpu"].size() >= 6);
    // A request no GPU can take is bad input, named.
    const Run bad = run({"plan", "--which-gpu", "--url", "model=llama-3.1-8b&mode=inference&tp=1&dp=16", "--max-concurrency", "0"});
    CHECK(bad.status == 2);
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

TEST_CASE("cli: --import lists the first unmapped entries and counts the rest; import lists every one", "[cli][import]") {
    // Generated scripts around the listing limit: every unknown flag is unmapped, with vocab and dp.
    for (const size_t flags : {size_t{0}, membudget::kListedEntries - 2, membudget::kListedEntries - 1, size_t{5000}}) {
        std::string script = "torchrun pretrain_gpt.py --num-layers 4";
        for (size_t i = 0; i < flags; ++i) script += " --unknown-" + std::to_string(i) + " " + std::to_string(i);
        const Run r = run({"--import", "-", "--import-format", "megatron"}, script);
        const size_t unmapped = flags + 2;
        size_t listed = 0;
        for (size_t at = r.err.find("membudget: not imported: "); at != std::string::npos;
             at = r.err.find("membudget: not imported: ", at + 1))
            ++listed;
        INFO(flags << " flags");
        const bool cut = unmapped > membudget::kListedEntries;
        CHECK(listed == (cut ? membudget::kListedEntries + 1 : unmapped));
        CHECK((r.err.find(" more, not shown (membudget import FILE lists every one)") != std::string::npos) == cut);
        if (cut)
            CHECK(r.err.find("… and " + membudget::detail::groupedNumber(static_cast<double>(unmapped - membudget::kListedEntries)) +
                             " more") != std::string::npos);
        const Run json = run({"import", "-", "--format", "megatron"}, script);
        CHECK(nlohmann::json::parse(json.out)["unmapped"].size() == unmapped);
    }
}

namespace {

// UTF-8 by its definition, independent of detail::decodeUtf8: decode any lead and continuation bytes, then keep the
// character only if it is the shortest form of its code point, not a surrogate and at most U+10FFFF (RFC 3629).
size_t referenceUtf8Length(const std::string& s, size_t at) {
    const auto b = [&](size_t k) { return static_cast<unsigned char>(s[at + k]); };
    const size_t length = b(0) < 0x80 ? 1 : (b(0) >> 5) == 0x6 ? 2 : (b(0) >> 4) == 0xE ? 3 : (b(0) >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || at + length > s.size()) return 0;
    char32_t code = length == 1 ? b(0) : b(0) & (0xFF >> (length + 1));
    for (size_t k = 1; k < length; ++k) {
        if ((b(k) & 0xC0) != 0x80) return 0;
        code = (code << 6) | (b(k) & 0x3F);
    }
    const char32_t shortest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < shortest[length] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return 0;
    return length;
}

// Every sequence of up to four bytes the generator makes: leads over the whole byte range, continuations at the
// edges of each range RFC 3629 draws (80, 8F, 90, 9F, A0, BF) and outside them.
std::vector<std::string> generatedSequences() {
    const std::vector<unsigned> edges{0x00, 0x1B, 0x41, 0x7F, 0x80, 0x81, 0x8F, 0x90, 0x9B, 0x9F, 0xA0, 0xBF, 0xC0, 0xFF};
    std::vector<std::string> out;
    for (unsigned lead = 0; lead < 256; ++lead) {
        out.push_back(std::string(1, static_cast<char>(lead)));
        for (unsigned c1 = 0; c1 < 256; ++c1) {
            out.push_back({static_cast<char>(lead), static_cast<char>(c1)});
            if (lead < 0xE0) continue;
            for (unsigned c2 : edges) {
                out.push_back({static_cast<char>(lead), static_cast<char>(c1), static_cast<char>(c2)});
                if (lead >= 0xF0)
                    for (unsigned c3 : {0x80u, 0xBFu, 0x41u})
                        out.push_back({static_cast<char>(lead), static_cast<char>(c1), static_cast<char>(c2), static_cast<char>(c3)});
            }
        }
    }
    return out;
}

// What may reach a terminal: printable ASCII, the newline, and whole UTF-8 characters that are neither C1 controls
// nor bidirectional formatting characters.
bool terminalSafe(const std::string& s) {
    for (size_t i = 0; i < s.size();) {
        const auto byte = static_cast<unsigned char>(s[i]);
        if (byte == '\n' || (byte >= 0x20 && byte < 0x7F)) {
            ++i;
            continue;
        }
        const membudget::detail::Utf8Char ch = membudget::detail::decodeUtf8(s, i);
        if (ch.length == 0 || ch.code < 0xA0 || membudget::detail::isBidiControl(ch.code)) return false;
        i += ch.length;
    }
    return true;
}

}  // namespace

TEST_CASE("cli: overlong forms, surrogates, stray bytes and bidi controls never reach the terminal raw", "[cli][hostile]") {
    const std::vector<std::string> sequences = generatedSequences();
    size_t valid = 0;
    for (const std::string& s : sequences) {
        INFO(membudget::cli::escapeControls(s));
        // The engine's decoder agrees with UTF-8's definition on every generated sequence.
        const size_t expected = referenceUtf8Length(s, 0);
        CHECK(membudget::detail::decodeUtf8(s, 0).length == expected);
        valid += expected == s.size() ? 1 : 0;
        // Escaped, in text or in JSON, anywhere on a line, nothing unsafe is left.
        CHECK(terminalSafe(membudget::cli::escapeControls("a" + s + "b\n")));
        CHECK(terminalSafe(membudget::cli::escapeControls(s, true)));
    }
    CHECK(sequences.size() > 350000);
    CHECK(valid > 1000);
    // The issue's cases: C0 9B (an overlong ESC) and E0 82 9B (an overlong CSI) are bytes, not controls, escaped as such.
    CHECK(membudget::cli::escapeControls("\xc0\x9b[2J") == "\\xc0\\x9b[2J");
    CHECK(membudget::cli::escapeControls("\xe0\x82\x9b"
                                         "31m") == "\\xe0\\x82\\x9b31m");
    CHECK(membudget::cli::escapeControls("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a UTF-16 surrogate
    CHECK(membudget::cli::escapeControls("abc\xe2\x80\xae"
                                         "gnp.exe") == "abc\\u202egnp.exe");
    CHECK(membudget::cli::escapeControls("\xc3\xa9\xe2\x82\xac") == "\xc3\xa9\xe2\x82\xac");  // é€ stay as they are
}

TEST_CASE("cli: a text field refuses what is not UTF-8 and bidi controls, naming the field and the byte", "[cli][hostile]") {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"H100\xc0\x9b[2J", "not UTF-8 at byte 4"},
        {"x\xe0\x82\x9b", "not UTF-8 at byte 1"},
        {"\xed\xa0\x80", "not UTF-8 at byte 0"},
        {"ab\xf4\x90\x80\x80", "not UTF-8 at byte 2"},
        {"\x80", "not UTF-8 at byte 0"},
        {"file\xe2\x80\xaegnp.exe", "a bidirectional formatting character at byte 4"},
        {"\xd8\x9c", "a bidirectional formatting character at byte 0"},
        {"\xe2\x81\xa6x", "a bidirectional formatting character at byte 0"},
        {"a\xc2\x9b", "a control character at byte 1"},
    };
    for (const auto& [name, reason] : cases) {
        INFO(membudget::cli::escapeControls(name));
        const Run r = run({"--name", name});
        CHECK(r.status == 2);
        CHECK(r.err.find("name must be UTF-8 text of at most") != std::string::npos);
        CHECK(r.err.find(reason) != std::string::npos);
        CHECK(terminalSafe(r.err));
        CHECK(terminalSafe(r.out));
        // The same through a link and a JSON configuration.
        const Run link = run({"--url", "name=" + membudget::detail::percentEncode(name)});
        CHECK(link.status == 2);
        CHECK(link.err.find(reason) != std::string::npos);
        CHECK(terminalSafe(link.err));
    }
    // Text from other scripts stays accepted.
    CHECK(run({"--name", "Llama-3 日本語 é", "--json"}).status != 2);
}
