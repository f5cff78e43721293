// Importing a Hugging Face config.json: the fields it fills, the counts they give, and what it names.
#include <catch2/catch.hpp>

#include <algorithm>

#include "fixtures.hpp"
#include "membudget/json.hpp"
#include "membudget/ledger.hpp"

using namespace membudget;
using membudget::test::fixture;

TEST_CASE("Hugging Face config.json: Llama, Mistral, Qwen2, GPT-2, GPT-NeoX, Mixtral", "[hf]") {
    for (const auto& c : fixture("hf-configs")["cases"]) {
        INFO(c["name"].get<std::string>());
        // TP 1 divides every model's heads; the default TP 8 does not divide GPT-2's 12 or Qwen2-7B's 28.
        Config base;
        base.tp = 1;
        const HfImport imported = importHfConfig(c["config"].dump(), base);
        CHECK(imported.errors.empty());
        for (const auto& [key, value] : c["expect"].items()) {
            INFO(key);
            if (key == "parameter_count") {
                CHECK(evaluate(imported.config).parameterCount == value.get<double>());
                continue;
            }
            const FieldSpec* field = findField(key);
            REQUIRE(field != nullptr);
            const std::string want = value.is_string() ? value.get<std::string>() : value.is_boolean() ? (value.get<bool>() ? "true" : "false") : value.dump();
            CHECK(fieldText(imported.config, *field) == want);
        }
        std::vector<std::string> noticed;
        for (const auto& n : imported.notices) noticed.push_back(n.field);
        CHECK(noticed == c["notices"].get<std::vector<std::string>>());
        CHECK(imported.config.method == "membudget");
        CHECK(evaluate(imported.config).ok());
    }
}

TEST_CASE("Hugging Face config.json: what cannot be read is named, and the base is kept", "[hf]") {
    for (const auto& c : fixture("hf-configs")["bad"]) {
        INFO(c["name"].get<std::string>());
        Config base;
        base.tp = 4;
        const HfImport imported = importHfConfig(c["text"].get<std::string>(), base);
        REQUIRE_FALSE(imported.errors.empty());
        CHECK(imported.errors[0].field == c["error_field"].get<std::string>());
        CHECK(imported.config == base);
    }
}

TEST_CASE("Hugging Face config.json: a TP the model cannot use does not refuse the import; evaluation names it", "[hf][validate]") {
    const auto cases = fixture("hf-configs")["cases"];
    const auto gpt2 = std::find_if(cases.begin(), cases.end(), [](const auto& c) { return c["name"] == "GPT-2 (124M)"; });
    REQUIRE(gpt2 != cases.end());
    const HfImport imported = importHfConfig((*gpt2)["config"].dump());  // the default TP 8; GPT-2 has 12 heads
    CHECK(imported.errors.empty());
    CHECK(imported.config.hidden == 768);
    const auto errors = evaluate(imported.config).errors;
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].field == "tp");
    CHECK(errors[0].message == "tp must divide heads (12), so that each TP rank holds whole attention heads; got 8");
    // A size JSON.parse reads as Infinity (the page's route) is refused at its field, never turned into 0.
    const std::vector<HfValue> values{{"hidden_size", "number", "Infinity"}, {"num_hidden_layers", "number", "12"},
                                      {"num_attention_heads", "number", "12"}, {"intermediate_size", "number", "3072"},
                                      {"vocab_size", "number", "50257"}};
    const HfImport infinite = importHfFields("object", values);
    REQUIRE_FALSE(infinite.errors.empty());
    CHECK(infinite.errors[0].field == "hidden");
    CHECK(infinite.errors[0].message == "hidden_size must be a finite number to set hidden; got Infinity");
}
