// The field table's text: each field's range in words, its value as canonical text, and setting it from text.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/base/units.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"

namespace membudget {

using detail::quoted;

namespace {

bool isIntegral(double v) { return std::isfinite(v) && std::floor(v) == v; }

}  // namespace

bool inFieldRange(const FieldSpec& field, double v) {
    if (!std::isfinite(v)) return false;
    if (field.kind == FieldKind::integer && !isIntegral(v)) return false;
    if (field.zeroMeansAuto && v == 0) return true;
    if (!field.allowed.empty()) return std::find(field.allowed.begin(), field.allowed.end(), v) != field.allowed.end();
    return v >= field.min && v <= field.max;
}

namespace {

template <class Range>
std::string joinChoices(const Range& choices) {
    std::string out;
    for (size_t i = 0; i < choices.size(); ++i) {
        if (i) out += i + 1 == choices.size() ? " or " : ", ";
        out += choices[i];
    }
    return out;
}

// One set of spellings for links, flags and JSON (a JSON boolean, 0/1 or one of these strings), in any case.
std::optional<bool> parseBool(std::string_view text) {
    std::string lower(text.substr(0, 6));
    if (text.size() > 5) return std::nullopt;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (lower == "true" || lower == "1" || lower == "yes" || lower == "on") return true;
    if (lower == "false" || lower == "0" || lower == "no" || lower == "off") return false;
    return std::nullopt;
}

}  // namespace

// Characters of UTF-8 text, and whether it is UTF-8 at all (detail::decodeUtf8: no overlong forms, surrogates or
// stray bytes), or holds a C0 or C1 control character (U+0000–U+001F, U+007F, U+0080–U+009F) or a bidirectional
// formatting character (U+202E and its kin), which would make the name read other than it is where it is shown.
std::optional<std::string> fieldTextProblem(const FieldSpec& field, std::string_view text) {
    const std::string key(field.key);
    size_t characters = 0;
    for (size_t i = 0; i < text.size();) {
        const detail::Utf8Char ch = detail::decodeUtf8(text, i);
        const std::string at = " at byte " + detail::formatNumber(static_cast<double>(i));
        if (ch.length == 0) return key + " must be " + describeRange(field) + "; got bytes that are not UTF-8" + at;
        if (ch.code < 0x20 || (ch.code >= 0x7F && ch.code <= 0x9F))
            return key + " must be " + describeRange(field) + "; got a control character" + at;
        if (detail::isBidiControl(ch.code))
            return key + " must be " + describeRange(field) + "; got a bidirectional formatting character" + at;
        ++characters;
        i += ch.length;
    }
    if (static_cast<double>(characters) > field.max)
        return key + " must be " + describeRange(field) + "; got " + detail::formatNumber(static_cast<double>(characters)) + " characters";
    return std::nullopt;
}

std::string describeRange(const FieldSpec& field) {
    switch (field.kind) {
        case FieldKind::boolean:
            return "true or false";
        case FieldKind::choice:
            return "one of " + joinChoices(field.choices());
        case FieldKind::text:
            return "UTF-8 text of at most " + detail::formatNumber(field.max) +
                   " characters, without control or bidirectional formatting characters";
        case FieldKind::integer:
        case FieldKind::number:
            break;
    }
    std::string range;
    if (!field.allowed.empty()) {
        std::vector<std::string> values;
        for (double v : field.allowed) values.push_back(detail::formatNumber(v));
        range = "one of " + joinChoices(values);
    } else {
        range = std::string(field.kind == FieldKind::integer ? "an integer" : "a number") + " from " + detail::groupedNumber(field.min) +
                " to " + detail::groupedNumber(field.max);
    }
    if (field.zeroMeansAuto) return "0 (" + std::string(field.autoMeaning) + ") or " + range;
    return range;
}

std::string fieldText(const Config& config, const FieldSpec& field) {
    return std::visit(
        [&config](auto member) -> std::string {
            if constexpr (std::is_same_v<decltype(member), ChoiceField>) {
                return std::string(member.get(config));
            } else {
                const auto& value = config.*member;
                using T = std::decay_t<decltype(value)>;
                if constexpr (std::is_same_v<T, double>)
                    return detail::formatNumber(value);
                else if constexpr (std::is_same_v<T, bool>)
                    return value ? "true" : "false";
                else
                    return value;
            }
        },
        field.member);
}

std::string_view choiceText(const Config& config, const FieldSpec& field) {
    if (const auto* choice = std::get_if<ChoiceField>(&field.member)) return choice->get(config);
    if (const auto* member = std::get_if<std::string Config::*>(&field.member)) return config.**member;
    return {};
}

bool setChoiceText(Config& config, const FieldSpec& field, std::string_view id) {
    const auto choices = field.choices();
    if (std::find(choices.begin(), choices.end(), id) == choices.end()) return false;
    if (const auto* choice = std::get_if<ChoiceField>(&field.member)) return choice->set(config, id);
    if (const auto* member = std::get_if<std::string Config::*>(&field.member)) config.** member = std::string(id);
    return true;
}

std::vector<Problem> setFieldText(Config& config, const FieldSpec& field, std::string_view text) {
    const std::string key(field.key);
    switch (field.kind) {
        case FieldKind::integer:
        case FieldKind::number: {
            const auto value = detail::parseNumber(text);
            if (!value) return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text) + ", not a finite number"}};
            // Beyond 2^53 a double no longer holds the number typed: quote the text, never its rounding (every
            // field's range ends far below).
            if (std::fabs(*value) >= kExactIntegerLimit) return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text)}};
            if (field.kind == FieldKind::integer && !isIntegral(*value))
                return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text) + ", not an integer"}};
            config.*std::get<double Config::*>(field.member) = *value;
            return {};
        }
        case FieldKind::boolean: {
            const auto value = parseBool(text);
            if (!value) return {{key, key + " must be true or false; got " + quoted(text)}};
            config.*std::get<bool Config::*>(field.member) = *value;
            return {};
        }
        case FieldKind::choice: {
            if (!setChoiceText(config, field, text)) return {{key, key + " must be " + describeRange(field) + "; got " + quoted(text)}};
            return {};
        }
        case FieldKind::text: {
            if (const auto problem = fieldTextProblem(field, text)) return {{key, *problem}};
            config.*std::get<std::string Config::*>(field.member) = std::string(text);
            return {};
        }
    }
    return {};
}

}  // namespace membudget
