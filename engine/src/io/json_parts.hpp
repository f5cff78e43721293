// What the JSON writers share inside the engine: how a number is written.
#pragma once

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "membudget/base/units.hpp"

namespace membudget::detail {

// Integral byte counts print as integers ("17500000000", not "1.75e10"), the rest as shortest doubles.
inline nlohmann::ordered_json number(double value) {
    if (std::isfinite(value) && std::floor(value) == value && std::fabs(value) < kExactIntegerLimit)
        return static_cast<std::int64_t>(value);
    return value;
}

// A JSON text with every number written shortest: nlohmann/json's Grisu2 writes the shortest digits that read back
// most of the time, not always (the double nearest 2.463144 comes out as 2.4631439999999998), where JavaScript, and so
// the page's JSON, writes 2.463144. The text is walked once; strings are copied as they are.
inline std::string shortestNumbers(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const char ch = text[i];
        if (ch == '"') {  // a string, to its closing quote (a backslash escapes the next character)
            const std::size_t start = i++;
            while (i < text.size() && text[i] != '"') i += text[i] == '\\' ? 2 : 1;
            out.append(text, start, ++i - start);
        } else if (ch == '-' || (ch >= '0' && ch <= '9')) {
            const std::size_t start = i;
            while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '-' || text[i] == '+' ||
                                       text[i] == '.' || text[i] == 'e' || text[i] == 'E'))
                ++i;
            const std::string token = text.substr(start, i - start);
            if (token.find_first_of(".eE") == std::string::npos) {
                out += token;
                continue;
            }
            char buffer[32];
            const auto written = std::to_chars(buffer, buffer + sizeof buffer, std::strtod(token.c_str(), nullptr));
            const std::string shortest(buffer, written.ptr);
            // to_chars leaves an integral double without a point ("3"); JSON keeps what nlohmann wrote then ("3.0").
            out += shortest.size() < token.size() && shortest.find_first_of(".e") != std::string::npos ? shortest : token;
        } else {
            out += ch;
            ++i;
        }
    }
    return out;
}

}  // namespace membudget::detail
