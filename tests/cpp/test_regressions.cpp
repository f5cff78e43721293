// Inputs the fuzz targets (tests/fuzz) showed to break the engine, kept as tests. Their files are in
// tests/fuzz/regressions/<target>/, which scripts/fuzz.sh also replays.
#include <catch2/catch.hpp>

#include <algorithm>
#include <ctime>
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

// Processor seconds (not wall-clock, which a loaded machine stretches) of the faster of two runs.
template <class Work>
double cpuSeconds(Work&& work) {
    double fastest = 1e300;
    for (int run = 0; run < 2; ++run) {
        const std::clock_t start = std::clock();
        work();
        fastest = std::min(fastest, static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC);
    }
    return fastest;
}

// How the work grows from n to 4n items: about 4 when linear (a little more with a logarithm), 16 when
// quadratic. A ratio, so that it holds alike in Release and under the sanitizers, on a fast or a slow machine.
struct Growth {
    double smallSeconds, largeSeconds;
    double factor() const { return largeSeconds / std::max(smallSeconds, 1e-6); }
};
template <class Make, class Run>
Growth growth(Make&& make, Run&& run, int n) {
    const auto small = make(n), large = make(4 * n);
    return {cpuSeconds([&] { run(small); }), cpuSeconds([&] { run(large); })};
}
// Measured: 3.3 to 4.9 for the fixed code (Release and ASan); the quadratic code gave 28.7 (query) and 22.8
// (config.json).
constexpr double kLinearGrowthBound = 9;

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

TEST_CASE("regression fuzz_query: a link of many parameters decodes in linear time", "[regression]") {
    // duplicateKeys compared every key with every key kept so far: a long hostile link froze the page.
    auto linkOf = [](int count) {
        std::string query;
        for (int i = 0; i < count; ++i) query += "k" + std::to_string(i) + "=1&";
        return query + "tp=2&pp=2&tp=4";
    };
    const ParsedConfig parsed = decodeQuery(linkOf(1000));
    CHECK(parsed.config.tp == 4);
    CHECK(parsed.config.pp == 2);
    CHECK(parsed.problems.size() == 1001);  // tp given twice, and every unknown key
    const Growth decoding = growth(linkOf, [](const std::string& query) { (void)decodeQuery(query); }, 25000);
    INFO("25,000 parameters: " << decoding.smallSeconds << " s; 100,000: " << decoding.largeSeconds << " s");
    CHECK(decoding.factor() < kLinearGrowthBound);
}

TEST_CASE("regression fuzz_hf_config: a config.json of many keys imports in linear time", "[regression]") {
    // ordered_json finds a key by scanning the keys before it: a config.json of 100,000 keys took half a minute.
    auto configOf = [](int extraKeys) {
        std::string text = R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 14336, "num_attention_heads": 32,
                              "num_hidden_layers": 32, "num_key_value_heads": 8, "vocab_size": 128256)";
        for (int i = 0; i < extraKeys; ++i) text += ", \"extra_" + std::to_string(i) + "\": " + std::to_string(i);
        return text + "}";
    };
    const HfImport imported = importHfConfig(configOf(1000));
    CHECK(imported.errors.empty());
    CHECK(imported.config.hidden == 4096);
    CHECK(imported.config.kvHeads == 8);
    const Growth importing = growth(configOf, [](const std::string& text) { (void)importHfConfig(text); }, 20000);
    INFO("20,000 keys: " << importing.smallSeconds << " s; 80,000: " << importing.largeSeconds << " s");
    CHECK(importing.factor() < kLinearGrowthBound);
}
