// The URL query codec: keys in the field table's order, only those that differ from the presets' baseline.
#include "membudget/model/query.hpp"

#include <algorithm>
#include <optional>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"

namespace membudget {

using detail::quoted;

namespace {

// The fields that differ from the baseline, and those in `forced` whatever their value.
std::string queryOf(const Config& config, const std::vector<std::string_view>& forced) {
    // A preset id is compared with the default id; the fields a preset fills, with the preset's values.
    const Config defaults, baseline = presetBaseline(config);
    std::string query;
    for (const auto& field : fields()) {
        const bool presetKey = field.key == "model" || field.key == "gpu";
        const std::string value = fieldText(config, field);
        const bool force = std::find(forced.begin(), forced.end(), field.key) != forced.end();
        if (value == fieldText(presetKey ? defaults : baseline, field) && !force) continue;
        if (!query.empty()) query += '&';
        query += detail::percentEncode(field.key);
        query += '=';
        query += detail::percentEncode(value);
    }
    return query;
}

}  // namespace

std::string encodeQuery(const Config& config) {
    // Decoding chooses for the user where a link leaves a key out (DP follows gpus, a framework brings its ZeRO,
    // inference selects membudget's method: applyAssignments). A key whose value such a choice would change is
    // written out even at its default, so that every link decodes to the configuration it was made from; each
    // pass only adds keys, which only remove choices, so it ends within a few passes.
    std::vector<std::string_view> forced;
    for (;;) {
        const std::string query = queryOf(config, forced);
        const Config back = decodeQuery(query).config;
        const size_t before = forced.size();
        for (const auto& field : fields())
            if (fieldText(back, field) != fieldText(config, field) && std::find(forced.begin(), forced.end(), field.key) == forced.end())
                forced.push_back(field.key);
        if (forced.size() == before) return query;
    }
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

ParsedConfig applyQuery(const Config& base, std::string_view query) {
    AssignmentList list = parseQuery(query);
    ParsedConfig out = applyAssignments(list.assignments, base);
    out.problems.insert(out.problems.begin(), list.problems.begin(), list.problems.end());
    return out;
}

ParsedConfig decodeQuery(std::string_view query) { return applyQuery(Config{}, query); }

}  // namespace membudget
