// Importing a Hugging Face config.json: the fields it fills, the counts they give, and what it names.
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "membudget/json.hpp"
#include "membudget/ledger.hpp"

using namespace membudget;
using membudget::test::fixture;

TEST_CASE("Hugging Face config.json: Llama, Mistral, Qwen2, GPT-2, GPT-NeoX, Mixtral", "[hf]") {
    for (const auto& c : fixture("hf-configs")["cases"]) {
        INFO(c["name"].get<std::string>());
        const HfImport imported = importHfConfig(c["config"].dump());
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
