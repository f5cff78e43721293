// The Hugging Face config.json importer: any text imports without crashing; with errors the configuration
// is the base unchanged, without them it evaluates to a sound ledger (or to errors naming fields).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/io/json.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

using namespace membudget;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    // On the defaults (TP 8) a clean import can still fail validation at a setting of the user's (TP larger
    // than the new model's heads), which evaluate() then reports; with no parallelism it cannot.
    Config serial;
    serial.tp = 1;
    serial.dp = 1;
    const Config bases[] = {Config{}, serial};
    for (const Config& base : bases) {
        const HfImport imported = importHfConfig(text, base);
        for (const auto& problem : imported.errors) fuzz::check(!problem.message.empty(), "an import error without a message");
        for (const auto& notice : imported.notices) fuzz::check(!notice.message.empty(), "an import notice without a message");
        if (!imported.errors.empty()) {
            fuzz::check(imported.config == base, "a failed import changed the configuration");
            continue;
        }
        if (&base == &bases[1])
            fuzz::check(validate(imported.config).empty(), "a clean import onto TP = DP = 1 gave an invalid configuration",
                        encodeQuery(imported.config));
        fuzz::checkEvaluation(imported.config, evaluate(imported.config));
    }
    return 0;
}
