// The URL query codec: keys in the field table's order, only those that differ from the presets' baseline.
#include "membudget/model/query.hpp"

#include <optional>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"

namespace membudget {

using detail::quoted;

std::string encodeQuery(const Config& config) {
    // A preset id is compared with the default id; the fields a preset fills, with the preset's values.
    const Config defaults, baseline = presetBaseline(config);
    std::string query;
    for (const auto& field : fields()) {
        const bool presetKey = field.key == "model" || field.key == "gpu";
        const std::string value = fieldText(config, field);
        // mode = inference without a method selects membudget on decoding: any other method is written out, so
        // that the link decodes to this configuration.
        const bool keepMethod = field.key == "method" && config.mode == Mode::inference && config.method != Method::membudget;
        if (value == fieldText(presetKey ? defaults : baseline, field) && !keepMethod) continue;
        if (!query.empty()) query += '&';
        query += detail::percentEncode(field.key);
        query += '=';
        query += detail::percentEncode(value);
    }
    return query;
}

AssignmentList parseQuery(std::string_view query) {
    if (const size_t hash = query.find('#'); hash != std::string_view::npos) query = query.substr(0, hash);
    if (const size_t mark = query.find('?'); mark != std::string_view::npos) query.remove_prefix(mark + 1);
    AssignmentList out;
    size_t start = 0;
    while (start <= query.size()) {
        size_t end = query.find('&', start);
        if (end == std::string_view::npos) end = query.size();
        const std::string_view part = query.substr(start, end - start);
        start = end + 1;
        if (part.empty()) continue;
        const size_t eq = part.find('=');
        const auto key = detail::percentDecode(part.substr(0, eq));
        const auto value = eq == std::string_view::npos ? std::optional<std::string>{} : detail::percentDecode(part.substr(eq + 1));
        if (key && isViewKey(*key)) continue;
        if (!key || !value) {
            out.problems.push_back({key ? *key : std::string(), "malformed parameter " + quoted(part) + " (ignored)"});
            continue;
        }
        out.assignments.push_back({*key, *value});
    }
    auto duplicates = duplicateKeys(out.assignments);
    out.problems.insert(out.problems.end(), duplicates.begin(), duplicates.end());
    return out;
}

ParsedConfig decodeQuery(std::string_view query) {
    AssignmentList list = parseQuery(query);
    ParsedConfig out = applyAssignments(list.assignments);
    out.problems.insert(out.problems.begin(), list.problems.begin(), list.problems.end());
    return out;
}

}  // namespace membudget
