// Sequences of imports: importing config.json A then B gives exactly what importing B alone gives (nothing of
// A's model is left behind), and a failed import leaves its base as it was. The input is A, a 0xFF byte, then B.
// The measured-file reader reads either document without crashing and names every problem's field.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz_check.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/io/json.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/query.hpp"

using namespace membudget;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    const std::size_t split = input.find('\xff');
    const std::string_view a = input.substr(0, split), b = split == std::string_view::npos ? std::string_view() : input.substr(split + 1);
    Config base;
    base.tp = base.dp = 1;
    const HfImport first = importHfConfig(a, base);
    const HfImport chained = importHfConfig(b, first.config), alone = importHfConfig(b, base);
    fuzz::check(chained.errors.empty() == alone.errors.empty(), "B imports after A but not alone, or the other way");
    if (alone.errors.empty())
        fuzz::check(chained.config == alone.config, "importing A then B differs from importing B alone",
                    encodeQuery(chained.config) + "\n" + encodeQuery(alone.config));
    else
        fuzz::check(chained.config == first.config && alone.config == base, "a failed import changed its base");
    for (const std::string_view text : {a, b}) {
        const FlatJson flat = flattenJson(text);
        const MeasuredFile file = readMeasuredFile(flat.rootType, flat.values, flat.error);
        for (const auto& problem : file.errors) fuzz::check(!problem.message.empty(), "a measured-file problem without a message");
        if (file.errors.empty()) {
            const MeasuredComparison comparison = compareMeasured(file);
            for (const auto& line : comparison.lines)
                fuzz::check(!line.measuredBytes || (*line.measuredBytes >= 0 && *line.measuredBytes <= kMaxMeasuredBytes),
                            "a measured value out of bounds");
        }
    }
    return 0;
}
