// OmegaConf's reading of a YAML scalar (formats/omegaconf.hpp), written without std::regex: libstdc++'s regex
// recurses per character and overflows the stack on a long scalar.
#include "formats/omegaconf.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>

#include "membudget/base/text.hpp"

namespace membudget::detail {
namespace {

bool isDigit(char c) { return c >= '0' && c <= '9'; }

// [0-9_]* from `at`; returns the end.
size_t digitsOrUnderscores(std::string_view t, size_t at) {
    while (at < t.size() && (isDigit(t[at]) || t[at] == '_')) ++at;
    return at;
}

size_t sign(std::string_view t) { return !t.empty() && (t[0] == '-' || t[0] == '+') ? 1 : 0; }

// [eE][-+]?[0-9]+ (the sign required when `signRequired`) from `at` up to the end of t.
bool exponentToEnd(std::string_view t, size_t at, bool signRequired) {
    if (at >= t.size() || (t[at] != 'e' && t[at] != 'E')) return false;
    ++at;
    if (at < t.size() && (t[at] == '-' || t[at] == '+'))
        ++at;
    else if (signRequired)
        return false;
    const size_t start = at;
    while (at < t.size() && isDigit(t[at])) ++at;
    return at > start && at == t.size();
}

// (:[0-5]?[0-9])+ from `at`; returns the end, or npos when there is none.
size_t sexagesimalParts(std::string_view t, size_t at) {
    size_t parts = 0;
    while (at < t.size() && t[at] == ':') {
        size_t j = at + 1;
        if (j + 1 < t.size() && t[j] >= '0' && t[j] <= '5' && isDigit(t[j + 1]))
            j += 2;
        else if (j < t.size() && isDigit(t[j]))
            j += 1;
        else
            return std::string_view::npos;
        at = j;
        ++parts;
    }
    return parts > 0 ? at : std::string_view::npos;
}

bool isBool(std::string_view t, bool& value) {
    // resolver.py's bool: yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
    constexpr std::string_view kTrue[] = {"yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON"};
    constexpr std::string_view kFalse[] = {"no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF"};
    for (size_t i = 0; i < 9; ++i) {
        if (t == kTrue[i]) return value = true;
        if (t == kFalse[i]) return !(value = false);
    }
    return false;
}

// PyYAML's int resolver (resolver.py): binary, octal, decimal, hex, sexagesimal.
bool isInt(std::string_view t) {
    const size_t s = sign(t);
    const std::string_view u = t.substr(s);
    if (u.empty()) return false;
    if (u.size() > 2 && u.substr(0, 2) == "0b")
        return std::all_of(u.begin() + 2, u.end(), [](char c) { return c == '0' || c == '1' || c == '_'; });
    if (u.size() > 2 && u.substr(0, 2) == "0x")
        return std::all_of(u.begin() + 2, u.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0 || c == '_'; });
    if (u[0] == '0') return u.size() == 1 || std::all_of(u.begin() + 1, u.end(), [](char c) { return (c >= '0' && c <= '7') || c == '_'; });
    if (u[0] < '1' || u[0] > '9') return false;
    const size_t end = digitsOrUnderscores(u, 1);
    if (end == u.size()) return true;
    return sexagesimalParts(u, end) == u.size();
}

// PyYAML's float resolver with OmegaConf's added to it (an exponent without a dot, or without its sign).
bool isFloat(std::string_view t) {
    const size_t s = sign(t);
    const std::string_view u = t.substr(s);
    if (u.empty()) return false;
    if (u == ".inf" || u == ".Inf" || u == ".INF") return true;
    if (s == 0 && (u == ".nan" || u == ".NaN" || u == ".NAN")) return true;
    if (u[0] == '.') {  // \.[0-9_]+([eE][-+][0-9]+)?, unsigned
        if (s != 0) return false;
        const size_t end = digitsOrUnderscores(u, 1);
        return end > 1 && (end == u.size() || exponentToEnd(u, end, true));
    }
    if (!isDigit(u[0])) return false;
    const size_t whole = digitsOrUnderscores(u, 1);
    if (whole == u.size()) return false;  // an integer's digits
    if (u[whole] == '.') {
        const size_t fraction = digitsOrUnderscores(u, whole + 1);
        return fraction == u.size() || exponentToEnd(u, fraction, false);
    }
    if (u[whole] == 'e' || u[whole] == 'E') return exponentToEnd(u, whole, false);
    const size_t parts = sexagesimalParts(u, whole);
    if (parts == std::string_view::npos || parts >= u.size() || u[parts] != '.') return false;
    return digitsOrUnderscores(u, parts + 1) == u.size();
}

// The digits of `t` in `base` (2, 8 or 16), as a double.
double digitsInBase(std::string_view t, int base) {
    double value = 0;
    for (char c : t) {
        const int d = isDigit(c) ? c - '0' : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10;
        value = value * base + d;
    }
    return value;
}

// construct_yaml_int / construct_yaml_float: underscores dropped, base-60 parts, then the digits (decimals through
// the engine's own number reader).
double constructNumber(std::string_view written, bool integer) {
    std::string t;
    for (char c : written)
        if (c != '_') t += c;
    double sign = 1;
    if (!t.empty() && (t[0] == '-' || t[0] == '+')) {
        if (t[0] == '-') sign = -1;
        t.erase(0, 1);
    }
    // .inf, .Inf, .INF and the same of nan, as isFloat let them through.
    if (!integer && t.size() == 4 && t[0] == '.' && !isDigit(t[1])) return t[1] == 'i' || t[1] == 'I' ? sign * INFINITY : NAN;
    // Past a double's range Python's float() gives inf (or 0 for a tiny one), where the engine's reader says none.
    auto decimal = [](std::string_view d) {
        if (const auto n = parseNumber(d)) return *n;
        const size_t e = d.find_first_of("eE");
        return e != std::string_view::npos && e + 1 < d.size() && d[e + 1] == '-' ? 0.0 : static_cast<double>(INFINITY);
    };
    if (t.find(':') != std::string::npos) {
        double value = 0;
        size_t at = 0;
        while (at <= t.size()) {
            const size_t colon = std::min(t.find(':', at), t.size());
            value = value * 60 + decimal(std::string_view(t).substr(at, colon - at));
            at = colon + 1;
        }
        return sign * value;
    }
    if (integer && t.size() > 1) {
        if (t[1] == 'b') return sign * digitsInBase(std::string_view(t).substr(2), 2);
        if (t[1] == 'x') return sign * digitsInBase(std::string_view(t).substr(2), 16);
        if (t[0] == '0') return sign * digitsInBase(std::string_view(t).substr(1), 8);
    }
    // A float's "1." and ".5" are Python's float(); the engine's reader takes them with a 0 added.
    if (!t.empty() && t.back() == '.') t += '0';
    if (!t.empty() && t[0] == '.') t.insert(0, "0");
    return sign * decimal(t);
}

}  // namespace

JsonValue resolveYamlPlain(std::string_view key, std::string_view text) {
    JsonValue out{std::string(key), "string", std::string(text)};
    bool flag = false;
    if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
        out.type = "null";
        out.text.clear();
    } else if (isBool(text, flag)) {
        out.type = "boolean";
        out.text = flag ? "true" : "false";
    } else if (text.size() <= 400 && (isInt(text) || isFloat(text))) {
        const double value = constructNumber(text, isInt(text));
        out.type = "number";
        out.text = std::isnan(value) ? "nan" : std::isinf(value) ? (value < 0 ? "-inf" : "inf") : formatNumber(value);
    }
    return out;
}

void resolveOmegaConf(std::vector<JsonValue>& values) {
    for (auto& v : values)
        if (v.type == "plain") v = resolveYamlPlain(v.key, v.text);
    if (std::none_of(values.begin(), values.end(), [](const JsonValue& v) { return v.text.find("${") != std::string::npos; })) return;
    std::map<std::string, size_t> at;
    for (size_t i = 0; i < values.size(); ++i) at.emplace(values[i].key, i);
    // The key a reference names, from the node `key` it is written in: ${a.b} from the root, ${.b} beside the node,
    // ${..b} one level up.
    auto target = [](const std::string& key, std::string_view ref) -> std::string {
        if (ref.empty() || ref[0] != '.') return std::string(ref);
        std::string parent = key;
        size_t dots = 0;
        while (dots < ref.size() && ref[dots] == '.') ++dots;
        for (size_t up = 0; up < dots; ++up) {
            const size_t cut = parent.find_last_of(".[");
            parent = cut == std::string::npos ? std::string() : parent.substr(0, cut);
        }
        const std::string rest(ref.substr(dots));
        return parent.empty() ? rest : parent + "." + rest;
    };
    // A simple reference: letters, digits, _, -, dots; anything else (a resolver's colon, nesting) is left alone.
    auto simple = [](std::string_view ref) {
        return !ref.empty() && std::all_of(ref.begin(), ref.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '.';
        });
    };
    // Bounded by what it writes, not what it reads: a few references to a long value, referenced again, grow as a
    // bomb does. Past 16 MiB written in all, the rest is left as written.
    constexpr size_t kMaxWrittenBytes = 16u << 20;
    size_t written = 0;
    for (size_t round = 0; round < 10 && written <= kMaxWrittenBytes; ++round) {
        bool changed = false;
        for (auto& v : values) {
            if (v.type != "string" || v.text.find("${") == std::string::npos) continue;
            const std::string& t = v.text;
            if (t.size() > 3 && t.rfind("${", 0) == 0 && t.back() == '}' && t.find("${", 2) == std::string::npos) {
                const std::string_view ref = std::string_view(t).substr(2, t.size() - 3);
                if (!simple(ref)) continue;
                const auto it = at.find(target(v.key, ref));
                if (it == at.end() || &values[it->second] == &v) continue;
                const JsonValue& named = values[it->second];
                if (named.type == "object" || named.type == "array") continue;
                written += named.text.size();
                if (written > kMaxWrittenBytes) break;
                v.type = named.type;
                v.text = named.text;
                changed = true;
                continue;
            }
            std::string out;
            size_t from = 0;
            bool replaced = false;
            for (size_t open = t.find("${"); open != std::string::npos; open = t.find("${", from)) {
                const size_t close = t.find('}', open);
                if (close == std::string::npos) break;
                const std::string_view ref = std::string_view(t).substr(open + 2, close - open - 2);
                const auto it = simple(ref) ? at.find(target(v.key, ref)) : at.end();
                out += t.substr(from, open - from);
                if (it != at.end() && values[it->second].type != "object" && values[it->second].type != "array" &&
                    values[it->second].text.find("${") == std::string::npos) {
                    out += values[it->second].text;
                    replaced = true;
                } else {
                    out += t.substr(open, close - open + 1);
                }
                from = close + 1;
                if (out.size() > (1u << 20)) break;
            }
            if (!replaced || out.size() > (1u << 20)) continue;
            written += out.size();
            if (written > kMaxWrittenBytes) break;
            v.text = out + t.substr(std::min(from, t.size()));
            changed = true;
        }
        if (!changed) break;
    }
}

}  // namespace membudget::detail
