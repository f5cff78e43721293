#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/base/units.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/launch.hpp"
#include "membudget/io/json.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

using namespace membudget;

namespace {

bool hasProblem(const std::vector<Problem>& problems, const std::string& field, const std::string& fragment) {
    return std::any_of(problems.begin(), problems.end(),
                       [&](const Problem& p) { return p.field == field && p.message.find(fragment) != std::string::npos; });
}

}  // namespace

TEST_CASE("the field table has every key the format promises, once, each described", "[config]") {
    const std::vector<std::string> required{
        "model",        "params", "hidden", "layers",     "heads",      "kv_heads", "ffn",   "vocab", "gated_ffn", "tied_embeddings",
        "tp",           "pp",     "dp",     "cp",         "sp",         "zero",     "mb",    "seq",   "ckpt",      "microbatches",
        "static_bytes", "gpu",    "gpu_gb", "buffers_gb", "context_gb", "headroom", "method"};
    std::set<std::string> keys;
    for (const auto& field : fields()) {
        INFO(field.key);
        CHECK(keys.insert(std::string(field.key)).second);
        CHECK_FALSE(field.label.empty());
        CHECK_FALSE(field.help.empty());
        CHECK_FALSE(field.section.empty());
        const std::set<std::string_view> groups{"model", "parallelism", "training", "hardware", "inference", "method"};
        CHECK(groups.count(field.group) == 1);
    }
    for (const auto& key : required) CHECK(keys.count(key) == 1);
    CHECK(findField("buffers_gb")->unit == "GB");
}

TEST_CASE("every range error names the field, the bad value and the allowed range", "[config][validate]") {
    struct Case {
        std::string key, text, fragment;
    };
    const std::vector<Case> cases{
        {"tp", "0", "tp must be an integer from 1 to 1,024; got 0"},
        {"tp", "-8", "tp must be an integer from 1 to 1,024; got -8"},
        {"mb", "100000", "mb must be an integer from 1 to 65,536; got 100000"},
        {"headroom", "1.5", "headroom must be a number from 0 to 0.99; got 1.5"},
        {"zero", "4", "zero must be an integer from 0 to 3; got 4"},
        {"static_bytes", "17", "static_bytes must be one of 16, 18 or 20; got 17"},
        {"params", "-1", "params must be 0 (derive from the architecture) or a number from 1,000,000 to"},
        {"gpu_gb", "0", "gpu_gb must be a number from 0.001 to 100,000; got 0"},
    };
    for (const auto& c : cases) {
        INFO(c.key << "=" << c.text);
        const std::vector<Assignment> assignments{{c.key, c.text}};
        const ParsedConfig parsed = applyAssignments(assignments);
        CHECK(parsed.problems.empty());
        const Result result = evaluate(parsed.config);
        CHECK_FALSE(result.ok());
        CHECK(result.lines.empty());
        CHECK(hasProblem(result.errors, c.key, c.fragment));
    }
}

TEST_CASE("malformed values are refused when read, never turned into NaN or Infinity", "[config][validate]") {
    for (const std::string text : {"abc", "", "NaN", "nan", "Infinity", "inf", "1e400", "0x10", " 8", "8 ", "8,0", "1e"}) {
        INFO("tp=\"" << text << "\"");
        const std::vector<Assignment> assignments{{"tp", text}};
        const ParsedConfig parsed = applyAssignments(assignments);
        REQUIRE(parsed.problems.size() == 1);
        CHECK(parsed.problems[0].field == "tp");
        CHECK(parsed.problems[0].message.find("an integer from 1 to 1,024") != std::string::npos);
        CHECK(parsed.config.tp == Config{}.tp);
    }
    const std::vector<Assignment> fractional{{"pp", "2.5"}};
    CHECK(hasProblem(applyAssignments(fractional).problems, "pp", "pp must be an integer from 1 to 1,024; got \"2.5\", not an integer"));
    const std::vector<Assignment> badChoice{{"ckpt", "sometimes"}, {"sp", "maybe"}, {"model", "gpt-7"}};
    const ParsedConfig parsed = applyAssignments(badChoice);
    CHECK(hasProblem(parsed.problems, "ckpt", "one of none, selective, full or op"));
    CHECK(hasProblem(parsed.problems, "sp", "true or false"));
    CHECK(hasProblem(parsed.problems, "model", "one of chapter-70b"));
    const std::vector<Assignment> unknown{{"tensor_parallel", "8"}};
    CHECK(hasProblem(applyAssignments(unknown).problems, "tensor_parallel", "unknown key"));
}

TEST_CASE("a Config built directly (as the wasm boundary does) is validated too", "[config][validate]") {
    Config config;
    config.tp = std::numeric_limits<double>::quiet_NaN();
    config.seq = std::numeric_limits<double>::infinity();
    config.ckpt = invalidChoice<Checkpointing>();
    const Result result = evaluate(config);
    CHECK(hasProblem(result.errors, "tp", "got a non-finite value"));
    CHECK(hasProblem(result.errors, "seq", "got a non-finite value"));
    CHECK(hasProblem(result.errors, "ckpt", "one of none, selective, full or op"));
    CHECK_FALSE(result.verdict.has_value());
}

TEST_CASE("consistency errors: TP beyond the heads, PP beyond the layers, GQA groups, GPU count", "[config][validate]") {
    Config config;
    config.tp = 128;
    CHECK(hasProblem(evaluate(config).errors, "tp", "tp must be at most heads (64); got 128"));
    config = Config{};
    config.pp = 81;
    CHECK(hasProblem(evaluate(config).errors, "pp", "pp must be at most layers (80); got 81"));
    config = Config{};
    config.kvHeads = 7;
    CHECK(hasProblem(evaluate(config).errors, "kv_heads", "kv_heads must divide heads (64); got 7"));
    config = Config{};
    config.gpus = 100;
    CHECK(hasProblem(evaluate(config).errors, "gpus", "gpus must be a multiple of TP × PP × CP = 8; got 100"));
    config = Config{};
    config.hidden = 1000;
    config.heads = 7;
    config.kvHeads = 7;
    config.tp = 7;
    CHECK(hasProblem(evaluate(config).errors, "head_dim", "hidden (1,000) is not divisible by heads (7)"));
}

TEST_CASE("warnings: divisibility, pipeline, no-op settings", "[config][warnings]") {
    auto warningsOf = [](Config c) { return evaluate(c).warnings; };
    Config config;
    config.tp = 16;
    CHECK(hasProblem(warningsOf(config), "tp", "each KV head is replicated"));
    config = Config{};
    config.pp = 3;
    CHECK(hasProblem(warningsOf(config), "pp", "layers (80) is not divisible by pp (3)"));
    config = Config{};
    config.pp = 8;
    config.microbatches = 4;
    CHECK(hasProblem(warningsOf(config), "microbatches", "the pipeline bubble (PP − 1) / (m + PP − 1) is 64%"));
    config = Config{};
    config.tp = 1;
    config.sp = true;
    config.dp = 1;
    CHECK(hasProblem(warningsOf(config), "sp", "no effect"));
    CHECK(hasProblem(warningsOf(config), "zero", "nothing is sharded"));
    CHECK(warningsOf(Config{}).empty());
}

TEST_CASE("the query codec: canonical order, only non-default keys, presets as baselines", "[config][codec]") {
    CHECK(encodeQuery(Config{}).empty());
    Config config;
    config.pp = 4;
    config.tp = 4;
    config.ckpt = Checkpointing::selective;
    CHECK(encodeQuery(config) == "tp=4&pp=4&ckpt=selective");

    const ParsedConfig preset = decodeQuery("?gpu=h100-80gb&model=llama-3.1-8b&tp=2");
    CHECK(preset.problems.empty());
    CHECK(preset.config.hidden == 4096);
    CHECK(encodeQuery(preset.config) == "model=llama-3.1-8b&tp=2&gpu=h100-80gb");

    // A whole shared link works too, and the page's own view keys pass silently.
    const ParsedConfig link = decodeQuery("https://example.org/membudget/?tp=4&embed=1&unit=gib#ledger");
    CHECK(link.problems.empty());
    CHECK(link.config.tp == 4);

    // So do the Hub keys of a model fetched by its id (web/src/url-state.ts): the fields carry the configuration,
    // so the CLI's --url gives the page's numbers without fetching anything, and the keys never come back out.
    const ParsedConfig fetched = decodeQuery(
        "?model=custom&layers=28&hf=Qwen/Qwen2-7B&hf_revision=0123456789abcdef0123456789abcdef01234567&hf_file=config.json&tp=2");
    CHECK(fetched.problems.empty());
    CHECK(fetched.config.layers == 28);
    CHECK(encodeQuery(fetched.config).find("hf") == std::string::npos);
}

TEST_CASE("the query codec reports malformed, unknown and repeated parameters and skips them", "[config][codec]") {
    const ParsedConfig parsed = decodeQuery("tp=4&tp=2&bogus=1&pp&dp=%ZZ&seq=%3Cscript%3E&mb=2");
    CHECK(parsed.config.tp == 2);
    CHECK(parsed.config.mb == 2);
    CHECK(parsed.config.seq == 4096);
    CHECK(hasProblem(parsed.problems, "tp", "given more than once"));
    CHECK(hasProblem(parsed.problems, "bogus", "unknown key"));
    CHECK(hasProblem(parsed.problems, "pp", "malformed parameter"));
    CHECK(hasProblem(parsed.problems, "dp", "malformed parameter \"dp=%ZZ\""));
    CHECK(hasProblem(parsed.problems, "seq", "got \"<script>\""));
}

TEST_CASE("a query over a configuration: the link's reading, the rest kept from the base", "[config][codec]") {
    const Config base = decodeQuery("model=llama-3.1-70b&gpu=h100-80gb&tp=4&dp=16&mb=2&ckpt=none").config;

    // An advice's change: its keys set, every other field the base's.
    const ParsedConfig changed = applyQuery(base, "zero=3&ckpt=full");
    CHECK(changed.problems.empty());
    CHECK(changed.config.zero == 3);
    CHECK(changed.config.ckpt == Checkpointing::full);
    CHECK(changed.config.tp == 4);
    CHECK(changed.config.dp == 16);
    CHECK(changed.config.hidden == 8192);
    CHECK(changed.config.gpu == base.gpu);

    // As a link is read: percent-decoded, the preset first whatever the order, view keys passed over.
    const ParsedConfig linked = applyQuery(base, "?name=My%20model&hidden=1024&model=llama-3.1-8b&unit=gib");
    CHECK(linked.problems.empty());
    CHECK(linked.config.name == "My model");
    CHECK(linked.config.layers == 32);
    CHECK(linked.config.hidden == 1024);

    // What cannot be read is a value, as in a link: reported by key and skipped, the rest applied.
    const ParsedConfig bad = applyQuery(base, "bogus=1&tp=8&pp=x");
    CHECK(hasProblem(bad.problems, "bogus", "unknown key"));
    CHECK(hasProblem(bad.problems, "pp", "pp"));
    CHECK(bad.config.tp == 8);
    CHECK(bad.config.pp == base.pp);

    // What the engine chooses for the user it says, as decodeQuery does; decodeQuery is applyQuery over the defaults.
    const ParsedConfig serving = applyQuery(base, "mode=inference");
    CHECK(serving.config.framework == Framework::vllm);
    CHECK(hasProblem(serving.notices, "framework", "inference is served by vllm"));
    const std::string query = "model=mixtral-8x7b&tp=2&ep=4&dp=4&mode=inference";
    CHECK(encodeQuery(applyQuery(Config{}, query).config) == encodeQuery(decodeQuery(query).config));
}

TEST_CASE("JSON configurations: types are checked, duplicates and bad documents reported", "[config][json]") {
    auto problemsOf = [](std::string_view text) { return parseJsonConfig(text).problems; };
    CHECK(problemsOf(R"({"tp": 4, "sp": true, "ckpt": "none"})").empty());
    CHECK(hasProblem(problemsOf(R"({"tp": "4"})"), "tp", "tp must be an integer from 1 to 1,024; got a string"));
    CHECK(hasProblem(problemsOf(R"({"tp": true})"), "tp", "got a boolean"));
    // Booleans take the same spellings in JSON as in links and flags: true/false, 1/0, yes/no, on/off, any case.
    auto appliedProblemsOf = [](std::string_view text) {
        AssignmentList list = parseJsonConfig(text);
        const ParsedConfig parsed = applyAssignments(list.assignments);
        list.problems.insert(list.problems.end(), parsed.problems.begin(), parsed.problems.end());
        return list.problems;
    };
    CHECK(appliedProblemsOf(R"({"sp": 1})").empty());
    CHECK(appliedProblemsOf(R"({"sp": "Yes"})").empty());
    CHECK(applyAssignments(parseJsonConfig(R"({"sp": "ON"})").assignments).config.sp);
    CHECK(decodeQuery("sp=No").problems.empty());
    CHECK(hasProblem(appliedProblemsOf(R"({"sp": 2})"), "sp", "sp must be true or false; got \"2\""));
    CHECK(hasProblem(appliedProblemsOf(R"({"sp": "maybe"})"), "sp", "sp must be true or false; got \"maybe\""));
    CHECK(hasProblem(decodeQuery("sp=maybe").problems, "sp", "sp must be true or false; got \"maybe\""));
    // An integer beyond 2^53 is quoted as typed, not as the double it rounds to.
    CHECK(hasProblem(appliedProblemsOf(R"({"tp": 9007199254740993})"), "tp", "got \"9007199254740993\""));
    CHECK(hasProblem(decodeQuery("tp=9007199254740993").problems, "tp", "got \"9007199254740993\""));
    // One document: a NUL byte (which nlohmann/json reads as the end) with more after it is refused.
    CHECK(hasProblem(problemsOf(std::string_view("{\"tp\":4}\0{\"tp\":8}", 17)), "", "not one JSON document: a NUL byte at byte 8"));
    CHECK(hasProblem(problemsOf(R"({"tp":4} {"tp":8})"), "", "invalid JSON"));
    CHECK(hasProblem(problemsOf(R"({"ckpt": null})"), "ckpt", "got null"));
    CHECK(hasProblem(problemsOf(R"({"tp": 4, "tp": 2})"), "tp", "given more than once"));
    CHECK(hasProblem(problemsOf(R"([1, 2])"), "", "must be a JSON object"));
    CHECK(hasProblem(problemsOf(R"({"tp": 4)"), "", "invalid JSON"));
    CHECK(hasProblem(problemsOf(""), "", "invalid JSON"));
    const AssignmentList list = parseJsonConfig(R"({"tp": 4.0, "params": 7e10})");
    const ParsedConfig parsed = applyAssignments(list.assignments);
    CHECK(parsed.config.tp == 4);
    CHECK(parsed.config.params == 7e10);
}

TEST_CASE("number text: shortest round trip, strict parsing", "[config][text]") {
    using namespace membudget::detail;
    CHECK(formatNumber(70e9) == "70000000000");
    CHECK(formatNumber(0.1) == "0.1");
    CHECK(formatNumber(85.520809984) == "85.520809984");
    CHECK(formatNumber(1e20) == "1e+20");
    CHECK(groupedNumber(70e9) == "70,000,000,000");
    CHECK(groupedNumber(-1234) == "-1,234");
    CHECK(parseNumber("7e10") == 7e10);
    CHECK(parseNumber("-0") == 0.0);
    CHECK(parseNumber(".5") == 0.5);
    CHECK_FALSE(parseNumber("+"));
    CHECK_FALSE(parseNumber("."));
    CHECK(percentDecode("a%20b+c") == std::optional<std::string>("a b c"));
    CHECK_FALSE(percentDecode("%2"));
    CHECK_FALSE(percentDecode("%00"));
    CHECK(percentEncode("a b&c=d") == "a%20b%26c%3Dd");
}

// The engine writes numbers without printf (the page's module links no printf); they must read as printf writes
// them: integers (through a uint64) and fractions (through the exact decimal), both signs, at several precisions.
TEST_CASE("number text: fixed decimals as printf's %.Nf, integers as %.0f", "[config][text]") {
    using namespace membudget::detail;
    const auto printfFixed = [](double v, int decimals) {
        char text[400];
        std::snprintf(text, sizeof text, "%.*f", decimals, v);
        return std::string(text);
    };
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    const auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    std::vector<double> values{0.0, -0.0, 1, -1, 9, 10, 99, 100, 4096, 70e9, 1e15, 9007199254740993.0, 1e18, 9.2e18, 9.3e18, 1e19, 1e21};
    for (int i = 0; i < 20000; ++i) {
        const std::uint64_t bits = next();
        values.push_back(static_cast<double>(bits >> (bits % 64)));                           // integers of every size
        values.push_back(static_cast<double>(bits >> 11) / static_cast<double>(1ull << 40));  // fractions
    }
    for (double magnitude : values)
        for (double v : {magnitude, -magnitude})
            for (int decimals : {0, 1, 2, 6}) {
                INFO(printfFixed(v, 17) << " at " << decimals << " decimals");
                REQUIRE(fixedNumber(v, decimals) == printfFixed(v, decimals));
            }
}

// ceilBytes replaces std::ceil on the kernel's critical path with arithmetic of its own on x86-64 without SSE4.1: it
// must give std::ceil's double, sign of zero included, for every input, the edges of its 2^52 trick above all.
TEST_CASE("ceilBytes is std::ceil, bit for bit", "[units]") {
    const auto same = [](double x) {
        const double want = std::ceil(x), got = membudget::ceilBytes(x);
        INFO(x);
        if (std::isnan(want)) {
            REQUIRE(std::isnan(got));
            return;
        }
        REQUIRE(got == want);
        REQUIRE(std::signbit(got) == std::signbit(want));
    };
    const double whole = 4503599627370496.0;  // 2^52
    for (double x : {0.0,
                     -0.0,
                     0.5,
                     -0.5,
                     1.0,
                     -1.0,
                     1.5,
                     -1.5,
                     2.5,
                     -2.5,
                     0.49999999999999994,
                     -0.49999999999999994,
                     whole,
                     -whole,
                     whole - 0.5,
                     -(whole - 0.5),
                     whole - 1,
                     whole + 1,
                     2 * whole,
                     1e300,
                     -1e300,
                     5e-324,
                     -5e-324,
                     std::numeric_limits<double>::infinity(),
                     -std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN(),
                     70e9 / 3,
                     123456789.000001,
                     -123456789.000001})
        same(x);
    std::uint64_t state = 0x2545F4914F6CDD1Dull;
    for (int i = 0; i < 200000; ++i) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        double x;  // any bit pattern: every exponent, subnormals, NaNs
        std::memcpy(&x, &state, sizeof x);
        same(x);
        same(static_cast<double>(state >> 11) / 1024.0);  // byte counts with fractions, below 2^53
    }
}

TEST_CASE("the field table says when a field applies and what its 0 stands for", "[config][fields]") {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-70b"));
    auto applies = [&c](std::string_view key) { return fieldApplies(*findField(key), c); };
    auto autoOf = [&c](std::string_view key) { return autoValue(*findField(key), c); };
    // A dense model without latent attention or adapters, in training.
    CHECK_FALSE(applies("experts_per_token"));
    CHECK_FALSE(applies("ep"));
    CHECK_FALSE(applies("qk_rope_dim"));
    CHECK_FALSE(applies("lora_rank"));
    CHECK_FALSE(applies("kv_dtype"));
    CHECK(applies("zero"));
    CHECK(applies("tp"));
    c.method = Method::membudget;
    CHECK(applies("framework"));
    c.method = Method::chapter;
    CHECK_FALSE(applies("framework"));
    c.finetune = Finetune::lora;
    CHECK(applies("lora_rank"));
    c.mode = Mode::inference;
    c.framework = Framework::vllm;
    CHECK_FALSE(applies("lora_rank"));  // adapters are a training setting
    CHECK_FALSE(applies("zero"));
    CHECK(applies("kv_dtype"));
    c = Config{};
    applyModelPreset(c, *findModelPreset("mixtral-8x7b"));
    CHECK(applies("ep"));
    CHECK(applies("moe_ffn"));
    c = Config{};
    applyModelPreset(c, *findModelPreset("deepseek-v3"));
    CHECK(applies("qk_rope_dim"));

    // The derived values behind 0.
    c = Config{};
    applyModelPreset(c, *findModelPreset("llama-3.1-70b"));
    c.tp = 8;
    c.pp = 3;
    c.dp = 4;
    c.headDim = 0;
    CHECK(autoOf("head_dim") == Approx(128));
    CHECK(autoOf("gpus") == Approx(96));
    CHECK(autoOf("etp") == Approx(8));
    CHECK(autoOf("params") == Approx(derivedParameterCount(c)));
    // 80 layers over 3 stages: 26, 27, 27 (the remainder on the stages after the first).
    CHECK(autoOf("first_stage_layers") == Approx(stageLayers(c).front()));
    CHECK(autoOf("last_stage_layers") == Approx(stageLayers(c).back()));
    CHECK(autoOf("loss_chunks") == Approx(1));
    c.framework = Framework::torchtune;
    CHECK(autoOf("loss_chunks") == Approx(8));
    CHECK_FALSE(autoOf("experts").has_value());  // 0 names a mode: a dense model
    CHECK_FALSE(autoOf("tp").has_value());       // not a 0-means-auto field
    // Inputs out of range derive nothing (and allocate nothing): a stage count beyond the layers.
    c.pp = 1e9;
    CHECK_FALSE(autoOf("first_stage_layers").has_value());
    c.heads = 0;
    CHECK_FALSE(autoOf("head_dim").has_value());
}

TEST_CASE("the GPU count is a constraint: DP follows it, or the layout is refused at the field", "[config][gpus]") {
    // The default layout is TP 8 × PP 1 × CP 1 × DP 32 (256 GPUs).
    auto assign = [](std::vector<Assignment> list, Config base = Config{}) { return applyAssignments(list, std::move(base)); };
    // Stating the GPUs makes DP follow, and says so.
    ParsedConfig p = assign({{"gpus", "64"}});
    CHECK(p.config.dp == 8);
    CHECK(hasProblem(p.notices, "dp", "dp = 8: gpus / (TP × PP × CP) = 64 / 8"));
    CHECK(validate(p.config).empty());
    // Changing TP afterwards keeps the GPU count: DP follows again.
    p = assign({{"tp", "4"}}, p.config);
    CHECK(p.config.dp == 16);
    CHECK(validate(p.config).empty());
    // A DP given with it that does not multiply to the GPUs is refused at dp, with the value that would.
    p = assign({{"gpus", "64"}, {"dp", "32"}});
    CHECK(p.config.dp == 32);
    CHECK(hasProblem(validate(p.config), "dp", "dp must be gpus / (TP × PP × CP) = 64 / 8 = 8; got 32 (256 GPUs"));
    CHECK_FALSE(evaluate(p.config).ok());
    // GPUs that TP × PP × CP does not divide: refused at gpus, with the nearest counts that would do.
    p = assign({{"gpus", "60"}});
    CHECK(p.config.dp == 32);  // nothing to follow
    CHECK(hasProblem(validate(p.config), "gpus", "gpus must be a multiple of TP × PP × CP = 8; got 60 (56 or 64 would be"));
    p = assign({{"gpus", "4"}});
    CHECK(hasProblem(validate(p.config), "gpus", "got 4 (8 would be"));
    // gpus = 0 counts the layout's GPUs: nothing follows.
    p = assign({{"gpus", "0"}, {"tp", "2"}});
    CHECK(p.config.dp == 32);
    CHECK(validate(p.config).empty());
    // The same rule from a link.
    const ParsedConfig link = decodeQuery("gpus=128&tp=8&pp=2");
    CHECK(link.config.dp == 8);
}

TEST_CASE("a choice brings what it requires, chosen and said, unless the input sets it", "[config][choices]") {
    auto assign = [](std::vector<Assignment> list, Config base = Config{}) { return applyAssignments(list, std::move(base)); };
    Config page;  // the default page: Megatron-LM, ZeRO-1 (the distributed optimizer), DP 32
    page.method = Method::membudget;
    // Every framework from the default page gives a configuration the engine computes.
    for (const auto framework : {"megatron", "torchtitan", "torchtune", "deepspeed", "hf_accelerate"}) {
        INFO(framework);
        const ParsedConfig p = assign({{"framework", framework}}, page);
        CHECK(p.problems.empty());
        CHECK(validate(p.config).empty());
    }
    ParsedConfig p = assign({{"framework", "torchtitan"}}, page);
    CHECK(p.config.zero == 3);
    CHECK(hasProblem(p.notices, "zero", "zero = 3: framework torchtitan shards with FSDP2's fully_shard"));
    // On one data-parallel rank FSDP2 has nothing to shard: replicated.
    Config single = page;
    single.dp = 1;
    p = assign({{"framework", "torchtune"}}, single);
    CHECK(p.config.zero == 0);
    // Given together, the input's own value stands and the validator names the conflict.
    p = assign({{"framework", "torchtitan"}, {"zero", "1"}}, page);
    CHECK(p.config.zero == 1);
    CHECK(hasProblem(validate(p.config), "zero", "zero must be 0 (replicated) or 3"));
    // Megatron-LM's own switches (the overlaps, the accounted split) leave with Megatron-LM, said; given together
    // with another framework they stand and the validator names them.
    Config megatron = page;
    megatron.overlapGradReduce = megatron.overlapParamGather = true;
    megatron.pp = 2;
    megatron.layers = 30;
    megatron.splitAccounts = SplitAccounts::both;
    REQUIRE(validate(megatron).empty());
    p = assign({{"framework", "deepspeed"}}, megatron);
    CHECK_FALSE(p.config.overlapGradReduce);
    CHECK_FALSE(p.config.overlapParamGather);
    CHECK(p.config.splitAccounts == SplitAccounts::none);
    CHECK(hasProblem(p.notices, "overlap_grad_reduce", "overlap_grad_reduce = false: Megatron-LM's switch"));
    CHECK(hasProblem(p.notices, "split_accounts", "split_accounts = none: Megatron-LM's split"));
    CHECK(validate(p.config).empty());
    p = assign({{"framework", "deepspeed"}, {"overlap_grad_reduce", "true"}}, megatron);
    CHECK(hasProblem(validate(p.config), "overlap_grad_reduce", "overlap_grad_reduce is Megatron-LM's switch"));
    // QLoRA on Megatron-LM, which has no QLoRA path: torchtune, FSDP2, and said.
    p = assign({{"finetune", "qlora"}}, page);
    CHECK(p.config.framework == Framework::torchtune);
    CHECK(p.config.zero == 3);
    CHECK(hasProblem(p.notices, "framework", "Megatron-LM has no QLoRA path"));
    CHECK(validate(p.config).empty());
    // Adapters from the chapter's method select membudget's, which models them.
    Config chapter;
    p = assign({{"finetune", "lora"}}, chapter);
    CHECK(p.config.method == Method::membudget);
    CHECK(validate(p.config).empty());
    // Switching to inference leaves the adapters, which inference does not have.
    Config lora = assign({{"finetune", "lora"}}, page).config;
    p = assign({{"mode", "inference"}}, lora);
    CHECK(p.config.finetune == Finetune::full);
    CHECK(hasProblem(p.notices, "finetune", "finetune = full: inference serves the model"));
    CHECK(validate(p.config).empty());
    // Settings of one framework do not survive a switch to another that lacks them.
    Config titan = assign({{"framework", "torchtitan"}, {"ckpt", "op"}, {"compile", "true"}}, page).config;
    REQUIRE(validate(titan).empty());
    p = assign({{"framework", "megatron"}}, titan);
    CHECK(p.config.ckpt == Checkpointing::selective);
    CHECK_FALSE(p.config.compile);
    CHECK(validate(p.config).empty());
}

TEST_CASE("inference sizes one replica, labels mb as concurrent sequences and launches with vllm serve", "[config][inference]") {
    Config page;  // the default page: TP 8 × DP 32, Megatron-LM
    ParsedConfig p = applyAssignments(std::vector<Assignment>{{"mode", "inference"}}, page);
    CHECK(p.config.dp == 1);
    CHECK(hasProblem(p.notices, "dp", "dp = 1: inference sizes one replica"));
    CHECK(validate(p.config).empty());
    // What the user says stands: a DP given with the mode, or a GPU count they typed (DP follows it).
    p = applyAssignments(std::vector<Assignment>{{"mode", "inference"}, {"dp", "4"}}, page);
    CHECK(p.config.dp == 4);
    Config typed = page;
    typed.gpus = 256;
    p = applyAssignments(std::vector<Assignment>{{"mode", "inference"}}, typed);
    CHECK(p.config.dp == 32);
    // A link that states inference and nothing else of DP reads as one replica; one that states DP keeps it.
    CHECK(decodeQuery("mode=inference").config.dp == 1);
    CHECK(decodeQuery("mode=inference&dp=8").config.dp == 8);
    // Back to training, the served concurrency is not taken as a micro-batch; one given with the mode stands.
    Config served = applyAssignments(std::vector<Assignment>{{"mode", "inference"}, {"mb", "256"}}, page).config;
    p = applyAssignments(std::vector<Assignment>{{"mode", "training"}}, served);
    CHECK(p.config.mb == Config{}.mb);
    CHECK(hasProblem(p.notices, "mb", "training takes a micro-batch, not the 256 concurrent sequences served"));
    CHECK(applyAssignments(std::vector<Assignment>{{"mode", "training"}, {"mb", "4"}}, served).config.mb == 4);
    // The field's words follow the mode; the key and its range do not.
    const FieldSpec* mb = findField("mb");
    REQUIRE(mb != nullptr);
    Config serving = page;
    serving.mode = Mode::inference;
    serving.framework = Framework::vllm;
    CHECK(fieldLabel(*mb, page) == "Micro-batch b_μ");
    CHECK(fieldLabel(*mb, serving) == "Concurrent sequences");
    for (const auto& f : fields())
        if (f.key != "mb") CHECK(fieldLabel(f, serving) == f.label);
    // The format each configuration is launched with.
    CHECK(launchFormat(serving) == ImportFormat::vllm);
    for (const auto& [framework, format] :
         std::vector<std::pair<Framework, ImportFormat>>{{Framework::megatron, ImportFormat::megatron},
                                                         {Framework::torchtitan, ImportFormat::torchtitan},
                                                         {Framework::torchtune, ImportFormat::torchtune},
                                                         {Framework::deepspeed, ImportFormat::deepspeed},
                                                         {Framework::hfAccelerate, ImportFormat::deepspeed}}) {
        Config c = page;
        c.framework = framework;
        CHECK(launchFormat(c) == format);
        c.mode = Mode::inference;
        c.framework = Framework::vllm;
        CHECK(launchFormat(c) == ImportFormat::vllm);
    }
}

TEST_CASE("the framework key names the serving engine in inference and a training framework in training", "[config][framework]") {
    // A link that says inference and no engine gets vLLM, with a notice; one that names an engine alone gets inference.
    const auto inference = decodeQuery("mode=inference");
    CHECK(inference.config.framework == Framework::vllm);
    CHECK(std::any_of(inference.notices.begin(), inference.notices.end(), [](const Problem& p) { return p.field == "framework"; }));
    const auto sglang = decodeQuery("framework=sglang");
    CHECK(sglang.config.mode == Mode::inference);
    CHECK(sglang.config.method == Method::membudget);
    CHECK(validate(sglang.config).empty());
    const auto back = decodeQuery("framework=sglang&mode=training");
    CHECK(back.config.framework == Framework::sglang);
    REQUIRE_FALSE(validate(back.config).empty());
    CHECK(validate(back.config).front().field == "framework");
    const auto training = decodeQuery("mode=inference&framework=torchtitan");
    REQUIRE_FALSE(validate(training.config).empty());
    const auto problems = validate(training.config);
    CHECK(std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return p.field == "framework"; }));
    // Every link made from a valid configuration decodes to it, the engine included.
    for (const Framework f : {Framework::vllm, Framework::sglang}) {
        Config c = sglang.config;
        c.framework = f;
        CHECK(decodeQuery(encodeQuery(c)).config == c);
    }
}
