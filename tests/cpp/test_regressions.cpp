// Inputs the fuzz targets (tests/fuzz) showed to break the engine, kept as tests. Their files are in
// tests/fuzz/regressions/<target>/, which scripts/fuzz.sh also replays.
#include <catch2/catch.hpp>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>

#include "membudget/config.hpp"
#include "membudget/json.hpp"

using namespace membudget;

namespace {

std::string regressionInput(const std::string& target, const std::string& name) {
    std::ifstream in(std::string(MEMBUDGET_FIXTURES_DIR) + "/../fuzz/regressions/" + target + "/" + name, std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

template <class Work>
double secondsFor(Work&& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// 100,000 distinct keys: linear work takes well under a second (a few under the sanitizers), quadratic work
// minutes. The bound is loose so that a loaded machine does not fail it.
constexpr int kManyKeys = 100000;
constexpr double kLinearBoundSeconds = 30;

}  // namespace

TEST_CASE("regression fuzz_query: every parameter of a long link is read, once", "[regression]") {
    // 8,000 distinct unknown keys, then tp given twice.
    const ParsedConfig parsed = decodeQuery(regressionInput("fuzz_query", "many-distinct-keys"));
    CHECK(parsed.config.tp == 4);
    REQUIRE(parsed.problems.size() == 8001);
    CHECK(parsed.problems.front().field == "tp");  // duplicates first, then unknown keys in link order
    CHECK(parsed.problems[1].field == "aaa");
    CHECK(parsed.problems.back().message.find("unknown key") != std::string::npos);
}

TEST_CASE("regression fuzz_query: a link of 100,000 parameters decodes in linear time", "[regression]") {
    // duplicateKeys compared every key with every key kept so far: a long hostile link froze the page.
    std::string query;
    for (int i = 0; i < kManyKeys; ++i) query += "k" + std::to_string(i) + "=1&";
    query += "tp=2&pp=2&tp=4";
    ParsedConfig parsed;
    const double seconds = secondsFor([&] { parsed = decodeQuery(query); });
    CHECK(parsed.config.tp == 4);
    CHECK(parsed.config.pp == 2);
    CHECK(parsed.problems.size() == kManyKeys + 1);
    CHECK(seconds < kLinearBoundSeconds);
}

TEST_CASE("regression fuzz_hf_config: a config.json of 100,000 keys imports in linear time", "[regression]") {
    // ordered_json finds a key by scanning the keys before it: reading such a file took half a minute.
    std::string text = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
                          "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256)";
    for (int i = 0; i < kManyKeys; ++i) text += ", \"extra_" + std::to_string(i) + "\": " + std::to_string(i);
    text += "}";
    HfImport imported;
    const double seconds = secondsFor([&] { imported = importHfConfig(text); });
    CHECK(imported.errors.empty());
    CHECK(imported.config.hidden == 4096);
    CHECK(imported.config.kvHeads == 8);
    CHECK(seconds < kLinearBoundSeconds);
}
