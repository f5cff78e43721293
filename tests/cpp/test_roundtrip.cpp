// Export then import is the identity (issue 29 item 5): for generated configurations (presets × layouts ×
// precisions × frameworks × modes) and every format that can express them, the configuration an import of the
// export gives, applied as the CLI and the page apply an import (importBase: the defaults with the GPU and the
// method kept), holds every field of the original, except what the export said it could not write
// (`notExported`) and what the import says it had to take (`assumed`, asked of the user).
#include <catch2/catch.hpp>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "import_parse.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/formats/export.hpp"
#include "membudget/formats/import.hpp"
#include "membudget/formats/launch.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

using namespace membudget;

namespace {

// The fields an import never carries: the method is kept by importBase, as the GPU.
bool keptByImport(std::string_view key) { return key == "method" || key == "name"; }

// Settings with nothing to act on, which a framework's file cannot say and which change no byte: SP over one TP rank
// (Megatron-LM turns it off; torchtitan's plan has none), ZeRO sharding over one data-parallel and CP rank.
bool noEffect(std::string_view key, const Config& c) { return (key == "sp" && c.tp == 1) || (key == "zero" && c.dp * c.cp == 1); }

}  // namespace

TEST_CASE("export then import is the identity over generated configurations", "[import][roundtrip][generated]") {
    std::mt19937 random(2905);
    auto pick = [&](std::initializer_list<std::string> values) { return values.begin()[random() % values.size()]; };
    const auto models = modelPresets();
    std::map<std::string, int> checked;
    std::map<std::string, int> failures;
    int configurations = 0;
    for (int attempt = 0; attempt < 20000 && configurations < 1500; ++attempt) {
        const bool inference = random() % 4 == 0;
        std::vector<Assignment> a{{"model", std::string(models[random() % models.size()].id)}, {"method", "membudget"}};
        if (inference) {
            a.insert(a.end(), {{"mode", "inference"},
                               {"framework", pick({"vllm", "sglang", "trtllm"})},
                               {"tp", pick({"1", "2", "4", "8"})},
                               {"pp", pick({"1", "1", "2"})},
                               {"dp", pick({"1", "2"})},
                               {"ep", pick({"1", "1", "2", "8"})},
                               {"mb", pick({"1", "16", "64"})},
                               {"seq", pick({"4096", "32768"})},
                               {"weight_dtype", pick({"bf16", "fp8", "int4"})},
                               {"kv_dtype", pick({"bf16", "fp8"})}});
        } else {
            a.insert(a.end(), {{"framework", pick({"megatron", "torchtitan", "torchtune", "deepspeed", "hf_accelerate"})},
                               {"tp", pick({"1", "2", "4", "8"})},
                               {"pp", pick({"1", "1", "2", "4"})},
                               {"cp", pick({"1", "1", "2"})},
                               {"dp", pick({"1", "2", "8"})},
                               {"ep", pick({"1", "1", "2", "8"})},
                               {"zero", pick({"0", "1", "2", "3"})},
                               {"ckpt", pick({"none", "selective", "full", "op"})},
                               {"sp", pick({"false", "true"})},
                               {"mb", pick({"1", "2", "4"})},
                               {"microbatches", pick({"1", "4", "8"})},
                               {"seq", pick({"2048", "4096", "8192"})},
                               {"precision", pick({"bf16", "bf16", "fp8", "fp32"})},
                               {"compile", pick({"false", "true"})}});
        }
        const ParsedConfig parsed = applyAssignments(a);
        if (!parsed.problems.empty() || !validate(parsed.config).empty()) continue;
        const Config& config = parsed.config;
        ++configurations;
        // The format of the configuration's own framework: writing a torchtitan job as Megatron-LM flags is a
        // translation to another framework, not a round trip.
        std::optional<ImportFormat> own;
        if (inference)
            own = launchFormat(config);
        else if (config.framework == Framework::megatron)
            own = ImportFormat::megatron;
        else if (config.framework == Framework::torchtitan)
            own = ImportFormat::torchtitan;
        else if (config.framework == Framework::torchtune)
            own = ImportFormat::torchtune;
        else if (config.framework == Framework::deepspeed)
            own = ImportFormat::deepspeed;
        if (!own) continue;
        for (const ImportFormat format : {*own}) {
            const ExportResult exported = exportConfig(format, config);
            const ImportResult back = importConfig(cli::parseImport(exported.text, format));
            INFO(toString(format) << " of " << encodeQuery(config) << "\n" << exported.text);
            for (const auto& e : back.errors) INFO(e.message);
            REQUIRE(back.ok());
            std::set<std::string> excused;
            for (const auto& s : exported.notExported) excused.insert(s.key);
            for (const auto& s : back.assumed) excused.insert(s.field);
            const ParsedConfig again = applyAssignments(back.assignments, importBase(config, back).config);
            for (const auto& p : again.problems) INFO(p.field << ": " << p.message);
            CHECK(again.problems.empty());
            for (const FieldSpec& field : fields()) {
                // What does not apply to the configuration (an inference field in training) is not compared.
                if (keptByImport(field.key) || excused.count(std::string(field.key)) || !fieldApplies(field, config) ||
                    noEffect(field.key, config))
                    continue;
                const std::string was = fieldText(config, field), is = fieldText(again.config, field);
                if (was != is) ++failures[std::string(toString(format)) + " " + std::string(field.key)];
                INFO("field " << field.key << ": " << was << " became " << is);
                CHECK(was == is);
            }
            ++checked[std::string(toString(format))];
        }
    }
    for (const auto& [k, n] : failures) WARN(k << ": " << n);
    CHECK(configurations >= 200);
    for (const auto& [format, n] : checked) INFO(format << " " << n);
    CHECK(checked["vllm"] > 0);
    CHECK(checked["sglang"] > 0);
    CHECK(checked["trtllm"] > 0);
}
