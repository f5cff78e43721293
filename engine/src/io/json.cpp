// Reading JSON with nlohmann/json (json.hpp): a configuration's JSON object, a Hugging Face config.json, a
// measured run, and any document flattened into the values the engine's readers take. Writing is json_write.cpp's.
#include "membudget/io/json.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "membudget/base/text.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/io/measured.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"

namespace membudget {

namespace {

template <class Json>
std::string jsonTypeName(const Json& value) {
    if (value.is_boolean()) return "a boolean";
    if (value.is_number()) return "a number";
    if (value.is_string()) return "a string";
    if (value.is_null()) return "null";
    if (value.is_array()) return "an array";
    return "an object";
}

// Python's json module writes float('inf') and float('nan') as the bare words Infinity, -Infinity and NaN, which
// JSON has not (RFC 8259 §6) and nlohmann/json refuses (and reads 1e400 as inf and keeps a lone surrogate escape,
// which nlohmann/json refuses too: Infinity, and U+FFFD); config.json files hold them where a value may be
// unbounded (Nemotron-H's time_step_limit). Outside strings, each such word where a value starts becomes the
// string of itself, so the document parses and a field that needs a number from it says what it holds.
// nullopt when the text has none of them. The page does the same (web/src/python-json.ts).
std::optional<std::string> pythonJsonConstants(std::string_view text) {
    std::string out;
    bool inString = false, changed = false;
    char previous = '[';  // the last character outside a string that is not blank
    for (size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (inString) {
            // A lone surrogate escape (\ud800 without its low half), which Python's json keeps and nlohmann/json
            // refuses: U+FFFD, as the page's reader makes of it.
            if (ch == '\\' && i + 5 < text.size() && text[i + 1] == 'u') {
                const auto hex = [&](size_t at) {
                    const std::string digits(text.substr(at, 4));
                    return std::all_of(digits.begin(), digits.end(),
                                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; })
                               ? std::stoul(digits, nullptr, 16)
                               : 0ul;
                };
                const unsigned long unit = hex(i + 2);
                const bool high = unit >= 0xD800 && unit <= 0xDBFF, low = unit >= 0xDC00 && unit <= 0xDFFF;
                const bool paired = high && i + 11 < text.size() && text[i + 6] == '\\' && text[i + 7] == 'u' && hex(i + 8) >= 0xDC00 &&
                                    hex(i + 8) <= 0xDFFF;
                if ((high && !paired) || low) {
                    out += "\\ufffd";
                    i += 5;
                    changed = true;
                    continue;
                }
                if (paired) {
                    out += text.substr(i, 12);
                    i += 11;
                    continue;
                }
            }
            out += ch;
            if (ch == '\\' && i + 1 < text.size())
                out += text[++i];
            else if (ch == '"')
                inString = false;
            continue;
        }
        const bool valueStarts = previous == '[' || previous == ',' || previous == ':';
        // A number past a double's range (1e400), which Python's json reads as inf: the string of it, as Infinity.
        if (valueStarts && (ch == '-' || std::isdigit(static_cast<unsigned char>(ch)))) {
            size_t end = i + 1;
            while (end < text.size() && (std::isdigit(static_cast<unsigned char>(text[end])) || std::strchr(".eE+-", text[end]))) ++end;
            const std::string_view literal = text.substr(i, end - i);
            const size_t e = literal.find_first_of("eE");
            const bool grows = e != std::string_view::npos && e + 1 < literal.size() && literal[e + 1] != '-';
            const bool digits = literal.size() > 310 && literal.find_first_of(".eE") == std::string_view::npos;
            // (The engine's own reader, not strtod: it says none for a number past the range.)
            if ((grows || digits) && !detail::parseNumber(literal)) {
                out += literal[0] == '-' ? "\"-Infinity\"" : "\"Infinity\"";
                i = end - 1;
                previous = '"';
                changed = true;
                continue;
            }
        }
        bool replaced = false;
        for (std::string_view word : {std::string_view("-Infinity"), std::string_view("Infinity"), std::string_view("NaN")}) {
            if (!valueStarts || text.substr(i, word.size()) != word) continue;
            const size_t end = i + word.size();
            if (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) continue;
            out += '"';
            out += word;
            out += '"';
            i = end - 1;
            previous = '"';
            replaced = changed = true;
            break;
        }
        if (replaced) continue;
        out += ch;
        if (ch == '"') inString = true;
        if (ch != ' ' && ch != '\t' && ch != '\n' && ch != '\r') previous = ch;
    }
    if (!changed) return std::nullopt;
    return out;
}

}  // namespace

AssignmentList parseJsonConfig(std::string_view text) {
    AssignmentList out;
    // A NUL ends nlohmann's input as if the document stopped there: what follows it would be read as nothing.
    if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
        out.problems.push_back({"", "not one JSON document: a NUL byte at byte " + std::to_string(nul)});
        return out;
    }
    std::set<std::string> seen, duplicated;
    // The top-level key whose value is being read, so that a value JSON cannot hold (NaN, 1e400) names its field.
    std::optional<std::string> reading;
    // The callback sees every key of the top-level object, including ones the parser would overwrite.
    auto callback = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
        using E = nlohmann::json::parse_event_t;
        if (event == E::key && depth == 1) {
            auto key = parsed.get<std::string>();
            if (!seen.insert(key).second) duplicated.insert(key);
            reading = std::move(key);
        } else if (depth == 1 && (event == E::value || event == E::object_end || event == E::array_end)) {
            reading.reset();
        }
        return true;
    };
    // nlohmann::json's objects are std::maps: N keys cost N log N (ordered_json inserts by a linear search, N²).
    nlohmann::json root;
    try {
        root = nlohmann::json::parse(text.begin(), text.end(), callback);
    } catch (const nlohmann::json::exception& e) {
        std::string why = e.what();
        if (const size_t tag = why.find("] "); why.rfind("[json.exception.", 0) == 0 && tag != std::string::npos) why.erase(0, tag + 2);
        const FieldSpec* field = reading ? findField(*reading) : nullptr;
        if (field)
            out.problems.push_back({*reading, *reading + " must be " + describeRange(*field) + "; got invalid JSON: " + why});
        else if (reading)
            out.problems.push_back({*reading, "invalid JSON in the value of \"" + *reading + "\": " + why});
        else
            out.problems.push_back({"", "invalid JSON: " + why});
        return out;
    }
    if (!root.is_object()) {
        out.problems.push_back({"", "the configuration must be a JSON object of field keys; got " + jsonTypeName(root)});
        return out;
    }
    for (const auto& key : duplicated) out.problems.push_back({key, key + " is given more than once; the last value is used"});
    for (const auto& [key, value] : root.items()) {
        // The engine checks each value against its field's kind: the same checks as a measured file's config.
        const std::string type = value.is_number()    ? "number"
                                 : value.is_boolean() ? "boolean"
                                 : value.is_string()  ? "string"
                                 : value.is_null()    ? "null"
                                 : value.is_array()   ? "array"
                                                      : "object";
        // Integers as typed (9007199254740993 stays itself in a message, not its rounded double).
        const std::string valueText = value.is_number_integer() ? value.dump()
                                      : value.is_number()       ? detail::formatNumber(value.get<double>())
                                      : value.is_boolean()      ? (value.get<bool>() ? "true" : "false")
                                      : value.is_string()       ? value.get<std::string>()
                                                                : "";
        assignJsonValue({key, type, valueText}, out);
    }
    return out;
}

HfImport importHfConfig(std::string_view text, const Config& base) {
    // The document's values by path, as every JSON reader takes them (flattenJson: nlohmann::json's std::map
    // objects, the depth check, Python's Infinity/NaN); importHfFields picks what it maps.
    const FlatJson flat = flattenJson(text);
    return importHfFields(flat.rootType, flat.values, base);
}

namespace {

std::string typeOf(const nlohmann::json& value) {
    return value.is_number()    ? "number"
           : value.is_boolean() ? "boolean"
           : value.is_string()  ? "string"
           : value.is_null()    ? "null"
           : value.is_array()   ? "array"
                                : "object";
}

void flatten(const nlohmann::json& value, const std::string& path, int depth, FlatJson& out) {
    if (!out.error.empty()) return;
    if (depth > 32) {
        out.error = "nested deeper than 32 levels at " + path.substr(0, 200);
        return;
    }
    std::string text;
    if (value.is_number_integer())
        text = value.dump();
    else if (value.is_number())
        text = detail::formatNumber(value.get<double>());
    else if (value.is_boolean())
        text = value.get<bool>() ? "true" : "false";
    else if (value.is_string())
        text = value.get<std::string>();
    else if (value.is_array() && !value.empty() && value.front().is_string())
        text = value.front().get<std::string>();
    if (!path.empty()) {
        out.bytes += path.size() + text.size();
        if (out.values.size() >= kMaxFlatValues || out.bytes > kMaxFlatBytes) {
            out.error = out.values.size() >= kMaxFlatValues
                            ? "more than " + std::to_string(kMaxFlatValues) + " values"
                            : "its keys' paths and values pass " + std::to_string(kMaxFlatBytes >> 20) + " MiB once flattened";
            return;
        }
        out.values.push_back({path, typeOf(value), text});
    }
    if (value.is_object())
        for (const auto& [key, child] : value.items()) flatten(child, detail::childPath(path, key), depth + 1, out);
    else if (value.is_array())
        for (size_t i = 0; i < value.size(); ++i) flatten(value[i], path + "[" + std::to_string(i) + "]", depth + 1, out);
}

}  // namespace

FlatJson flattenJson(std::string_view text) {
    FlatJson out;
    if (const size_t nul = text.find('\0'); nul != std::string_view::npos) {
        out.rootType = "invalid";
        out.error = "not one JSON document: a NUL byte at byte " + std::to_string(nul);
        return out;
    }
    // nlohmann::json (std::map objects: N log N for N keys; a later duplicate wins, as JSON.parse) with its own
    // depth check: a document nested deeper than the readers need is refused before it is walked.
    int deepest = 0;
    const auto depthLimit = [&deepest](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        deepest = std::max(deepest, depth);
        return deepest <= 64;
    };
    nlohmann::json root = nlohmann::json::parse(text.begin(), text.end(), depthLimit, /*allow_exceptions=*/false);
    if (root.is_discarded() && deepest <= 64)
        if (const auto rewritten = pythonJsonConstants(text)) {
            deepest = 0;
            root = nlohmann::json::parse(rewritten->begin(), rewritten->end(), depthLimit, /*allow_exceptions=*/false);
        }
    if (deepest > 64) {
        out.rootType = "invalid";
        out.error = "nested deeper than 64 levels";
        return out;
    }
    if (root.is_discarded()) {
        out.rootType = "invalid";
        out.error = "invalid JSON";
        return out;
    }
    out.rootType = typeOf(root);
    flatten(root, "", 0, out);
    if (!out.error.empty()) out.rootType = "invalid";
    return out;
}

MeasuredComparison compareMeasured(std::string_view text) {
    const FlatJson flat = flattenJson(text);
    return compareMeasured(readMeasuredFile(flat.rootType, flat.values, flat.error));
}

}  // namespace membudget
