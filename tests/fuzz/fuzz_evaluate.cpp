// evaluate() over configurations built from fuzz bytes: no crash, no undefined behaviour, and its contract
// (fuzz_check.hpp): a valid configuration gives finite, non-negative bytes; an invalid one, errors naming
// fields.
//
// Input: a mode byte, then
//   mode bit 0 clear: the rest is a URL query (decodeQuery), so every query seed is a seed here too;
//   mode bit 0 set:   a model preset byte, a GPU preset byte, then per field of the table, in order, a
//                     selector and its payload (missing bytes read as 0: keep the value), which can put any
//                     double (extremes, raw bits, the range's edges) or any string into any field.
//   mode bit 1: also compareMethods; mode bit 2: also the JSON result, parsed back.
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/io/json_write.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"

using namespace membudget;

namespace {

class Bytes {
public:
    Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
    std::uint64_t u64() {
        std::uint64_t value = 0;
        for (int i = 0; i < 8; ++i) value = value << 8 | byte();
        return value;
    }
    std::string text(std::size_t length) {
        std::string out;
        while (out.size() < length && at_ < size_) out += static_cast<char>(data_[at_++]);
        return out;
    }
    std::string_view rest() const { return {reinterpret_cast<const char*>(data_ + at_), size_ - at_}; }

private:
    const std::uint8_t* data_;
    std::size_t size_;
    std::size_t at_ = 0;
};

double extreme(std::uint8_t index, const FieldSpec& field) {
    const double values[] = {0.0,
                             -0.0,
                             1.0,
                             -1.0,
                             0.5,
                             field.min,
                             field.max,
                             field.min - 1,
                             field.max + 1,
                             std::nextafter(field.max, HUGE_VAL),
                             std::nextafter(field.min, -HUGE_VAL),
                             9007199254740992.0,  // 2^53
                             9007199254740994.0,
                             1e15,
                             1e300,
                             DBL_MAX,
                             -DBL_MAX,
                             DBL_MIN,
                             std::numeric_limits<double>::denorm_min(),
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN(),
                             9223372036854775808.0,   // 2^63
                             18446744073709551616.0,  // 2^64
                             1e-300,
                             4294967296.0,   // 2^32
                             2147483648.0};  // 2^31
    return values[index % std::size(values)];
}

double numberFor(Bytes& in, const FieldSpec& field, double current) {
    switch (in.byte() % 8) {
        case 1:
            return extreme(in.byte(), field);
        case 2: {  // an integer in range, anywhere in it
            const double span = std::min(field.max - field.min, 1e15) + 1;
            return field.min + std::floor(static_cast<double>(in.u64() % (1ULL << 53)) / 9007199254740992.0 * span);
        }
        case 3:
            return std::bit_cast<double>(in.u64());
        case 4:
            return in.byte();
        case 5:
            return field.allowed.empty() ? field.min : field.allowed[in.byte() % field.allowed.size()];
        case 6:
            return field.max - in.byte();
        default:
            return current;
    }
}

Config configFromFields(Bytes& in) {
    Config config;
    const auto models = modelPresets();
    const auto gpus = gpuPresets();
    if (const std::uint8_t m = in.byte(); m != 0) applyModelPreset(config, models[(m - 1u) % models.size()]);
    if (const std::uint8_t g = in.byte(); g != 0) applyGpuPreset(config, gpus[(g - 1u) % gpus.size()]);
    for (const auto& field : fields()) {
        switch (field.kind) {
            case FieldKind::integer:
            case FieldKind::number: {
                double& value = config.*std::get<double Config::*>(field.member);
                value = numberFor(in, field, value);
                break;
            }
            case FieldKind::boolean: {
                const std::uint8_t selector = in.byte();
                if (selector != 0) config.*std::get<bool Config::*>(field.member) = (selector & 1) != 0;
                break;
            }
            case FieldKind::choice: {
                const std::uint8_t selector = in.byte();
                if (selector % 4 == 1 || selector % 4 == 2) {
                    setChoiceText(config, field, field.choices()[in.byte() % field.choices().size()]);
                } else if (selector % 4 == 3) {
                    // Any id: an enum stores a value no id names, a preset id the text itself.
                    const std::string id = in.text(in.byte() % 16);
                    if (const auto* choice = std::get_if<ChoiceField>(&field.member))
                        choice->set(config, id);
                    else
                        config.*std::get<std::string Config::*>(field.member) = id;
                }
                break;
            }
            case FieldKind::text: {
                // Any bytes, control characters and overlong text included: validate() must refuse them by name.
                std::string& value = config.*std::get<std::string Config::*>(field.member);
                if (const std::uint8_t selector = in.byte(); selector % 2 == 1) value = in.text(in.byte());
                break;
            }
        }
    }
    return config;
}

void checkJson(const Result& result, const Config& config) {
    const std::string json = resultToJson(result, config);
    const auto parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
    fuzz::check(!parsed.is_discarded() && parsed.is_object(), "resultToJson wrote invalid JSON", json.substr(0, 2000));
    if (result.ok())
        fuzz::check(parsed["total_bytes"].is_number() && parsed["total_bytes"].get<double>() == result.totalBytes,
                    "the JSON total differs from the result's", json.substr(0, 2000));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Bytes in(data, size);
    const std::uint8_t mode = in.byte();
    const Config config = (mode & 1) != 0 ? configFromFields(in) : decodeQuery(in.rest()).config;
    const Result result = evaluate(config);
    fuzz::checkEvaluation(config, result);
    if ((mode & 2) != 0) {
        for (const auto& column : compareMethods(config)) {
            Config withMethod = config;
            withMethod.method = column.method;
            fuzz::checkEvaluation(withMethod, column.result);
            fuzz::check(std::isfinite(column.sourceBytes) && column.sourceBytes >= 0, "source bytes negative or not finite");
        }
    }
    if ((mode & 4) != 0) checkJson(result, config);
    return 0;
}
