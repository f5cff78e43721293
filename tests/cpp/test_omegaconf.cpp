// A torchtune YAML read as torchtune reads it (issue 29 item 3): the engine's resolution of unquoted scalars against
// what OmegaConf's loader makes of them (tests/fixtures/yaml-scalars.json, written by PyYAML with OmegaConf's
// resolvers: tools/fixtures/yaml_scalars.py), and whole files through the CLI's parser.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "formats/omegaconf.hpp"
#include "import_parse.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/model/assignments.hpp"

using namespace membudget;

TEST_CASE("an unquoted YAML scalar is typed as OmegaConf's loader types it", "[import][yaml]") {
    std::ifstream file(std::string(MEMBUDGET_FIXTURES_DIR) + "/yaml-scalars.json");
    std::stringstream text;
    text << file.rdbuf();
    const nlohmann::json fixture = nlohmann::json::parse(text.str());
    size_t checked = 0;
    for (const auto& s : fixture["scalars"]) {
        const std::string written = s["text"], type = s["type"], value = s["value"];
        const JsonValue got = detail::resolveYamlPlain("v", written);
        INFO("`" << written << "` is " << type << " " << value << " to OmegaConf; got " << got.type << " " << got.text);
        CHECK(got.type == type);
        if (type == "number" && got.type == "number") {
            if (value == "nan" || value == "inf" || value == "-inf") {
                CHECK(got.text == value);
            } else {
                const double want = std::stod(value);
                const auto have = detail::parseNumber(got.text);
                REQUIRE(have.has_value());
                CHECK(*have == Approx(want).epsilon(1e-15));
            }
        } else if (type == got.type) {
            CHECK(got.text == value);
        }
        ++checked;
    }
    CHECK(checked > 3000);
}

TEST_CASE("a torchtune YAML: OmegaConf's scalars, interpolations, one document, no key twice", "[import][yaml]") {
    const std::string head = "model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\n";
    auto imported = [](const std::string& yaml) { return importConfig(cli::parseImport(yaml, ImportFormat::torchtune)); };
    auto value = [](const ImportResult& r, std::string_view key) {
        for (const auto& a : r.assignments)
            if (a.key == key) return a.text;
        return std::string("(not set)");
    };
    const ImportResult r = imported(head +
                                    "batch_size: 010\nenable_activation_checkpointing: yes\ncompile: on\n"
                                    "gradient_accumulation_steps: 0x2\nseq: 1_024\ntokenizer:\n  max_seq_len: ${seq}\n");
    REQUIRE(r.ok());
    CHECK(value(r, "mb") == "8");  // YAML 1.1's octal
    CHECK(value(r, "ckpt") == "full");
    CHECK(value(r, "compile") == "true");
    CHECK(value(r, "microbatches") == "2");
    CHECK(value(r, "seq") == "1024");  // ${seq}, 1_024
    // Quoted, a scalar is a string: "yes" is not a boolean, and the mapping says it does not read.
    const ImportResult quoted = imported(head + "enable_activation_checkpointing: \"yes\"\n");
    CHECK(value(quoted, "ckpt") != "full");
    // A relative interpolation, and one inside a string, and one OmegaConf resolves through a resolver (left as written).
    const ImportResult relative = imported(head + "tokenizer:\n  n: 2048\n  max_seq_len: ${.n}\nbatch_size: ${oc.env:BS}\n");
    CHECK(value(relative, "seq") == "2048");
    CHECK(value(relative, "mb") == "(not set)");
    // OmegaConf refuses a key given twice and a second document.
    const ImportResult twice = imported(head + "batch_size: 2\nbatch_size: 4\n");
    REQUIRE_FALSE(twice.ok());
    CHECK(twice.errors[0].message.find("found duplicate key batch_size") != std::string::npos);
    const ImportResult documents = imported(head + "batch_size: 2\n---\nbatch_size: 4\n");
    REQUIRE_FALSE(documents.ok());
    CHECK(documents.errors[0].message.find("expected a single document") != std::string::npos);
    // tune run's key=value overrides go through the same loader (OmegaConf.from_dotlist).
    const ImportResult overrides = importConfig(cli::parseImport(
        "tune run full_finetune_distributed --config llama3_1/8B_full batch_size=010 compile=on\n", ImportFormat::torchtune));
    CHECK(value(overrides, "mb") == "8");
    CHECK(value(overrides, "compile") == "true");
}
