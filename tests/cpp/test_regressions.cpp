// Inputs the fuzz targets (tests/fuzz) showed to break the engine, kept as tests. Their files are in
// tests/fuzz/regressions/<target>/, which scripts/fuzz.sh also replays.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/io/json.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/query.hpp"

using namespace membudget;

namespace {

std::string regressionInput(const std::string& target, const std::string& name) {
    std::ifstream in(std::string(MEMBUDGET_FIXTURES_DIR) + "/../fuzz/regressions/" + target + "/" + name, std::ios::binary);
    REQUIRE(in.good());
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

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

TEST_CASE("regression fuzz_query: a link of many parameters decodes, every one read", "[regression]") {
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
    // Its growth with the link's length is measured, not asserted: bench/bench.cpp BM_DecodeLongLink fits
    // O(N log N) (it was quadratic). Here the longest link is read, whole.
    CHECK(decodeQuery(linkOf(100000)).problems.size() == 100001);
}

TEST_CASE("regression fuzz_hf_config: a config.json of many keys imports", "[regression]") {
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
    // Its growth with the number of keys is measured, not asserted: bench/bench.cpp BM_ImportManyKeys fits
    // O(N log N) (it was quadratic). Here a config.json of 100,000 extra keys imports, whole.
    CHECK(importHfConfig(configOf(100000)).config.hidden == 4096);
}

TEST_CASE("regression fuzz_hf_config: a GPT-2 config.json sets head_dim too", "[regression]") {
    // GPT-2 has no head_dim: the width is n_embd / n_head. The import left head_dim as it was, so a GPT-2 import
    // over a model with an explicit head_dim kept that width, and n_head not dividing n_embd came out of a clean
    // import as a head_dim error. tests/fuzz/regressions/fuzz_hf_config/gpt2-heads-not-dividing-width
    Config llama;  // as after importing Llama-3.1-8B's config.json, which sets head_dim
    llama.tp = 1;
    llama.headDim = 128;
    const std::string gpt2 = R"({"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "n_positions": 1024,
                                  "vocab_size": 50257})";
    const HfImport imported = importHfConfig(gpt2, llama);
    REQUIRE(imported.errors.empty());
    CHECK(imported.config.headDim == 0);
    CHECK(evaluate(imported.config).parameterCount == 124439808);  // GPT-2's published count

    const HfImport uneven = importHfConfig(regressionInput("fuzz_hf_config", "gpt2-heads-not-dividing-width"), llama);
    REQUIRE_FALSE(uneven.errors.empty());
    CHECK(uneven.errors.front().field == "head_dim");
    CHECK(uneven.config == llama);
}

TEST_CASE("regression fuzz_query: inference with a method that cannot be read round-trips through its link", "[regression]") {
    // mode = inference selects membudget only when no method is given; a method given but unreadable leaves the
    // default (chapter), whose link must then name it, or decoding it would select membudget.
    const ParsedConfig parsed = decodeQuery("tp=4&mode=inference&method=membudggt");
    REQUIRE_FALSE(parsed.problems.empty());
    CHECK(parsed.config.method == Method::chapter);
    CHECK(decodeQuery(encodeQuery(parsed.config)).config == parsed.config);
    CHECK(encodeQuery(parsed.config).find("method=chapter") != std::string::npos);
}

TEST_CASE("regression fuzz_query: a link with gpus and a DP it does not follow round-trips", "[regression]") {
    // gpus makes DP follow it unless the link gives dp; a link giving the default DP with gpus = 1024 (refused by the
    // validator) encoded dp away, and decoding it then derived DP 128 instead. A key that decoding would choose
    // otherwise is written out, even at its default (tests/fuzz/regressions/fuzz_query/gpus-with-a-dp-the-link-drops).
    const ParsedConfig parsed = decodeQuery("gpus=1024&dp=32&seq=131072&ckpt=none&act_formula=worked");
    REQUIRE(parsed.config.dp == 32);
    CHECK(decodeQuery(encodeQuery(parsed.config)).config == parsed.config);
    CHECK(encodeQuery(parsed.config).find("dp=32") != std::string::npos);
    // A choice a framework brings, likewise: QLoRA on the default framework (refused) keeps its framework in the link.
    const ParsedConfig qlora = decodeQuery("finetune=qlora&framework=megatron&method=membudget");
    CHECK(qlora.config.framework == Framework::megatron);
    CHECK(decodeQuery(encodeQuery(qlora.config)).config == qlora.config);
}
