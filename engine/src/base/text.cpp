
#include "membudget/base/text.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace membudget::detail {

std::string formatNumber(double value) {
    if (!std::isfinite(value)) return value != value ? "NaN" : (value > 0 ? "Infinity" : "-Infinity");
    if (value == 0) return "0";  // also for -0
    char buffer[64];
    if (std::floor(value) == value && std::fabs(value) < 1e15) {
        std::snprintf(buffer, sizeof buffer, "%.0f", value);
        return buffer;
    }
    for (int precision = 1; precision <= 17; ++precision) {
        std::snprintf(buffer, sizeof buffer, "%.*g", precision, value);
        if (std::strtod(buffer, nullptr) == value) break;
    }
    return buffer;
}

std::string percentText(double fraction) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.1f%%", std::round(fraction * 1000) / 10);
    return buffer;
}

std::string groupedNumber(double value) {
    std::string plain = formatNumber(value);
    if (!(std::isfinite(value) && std::floor(value) == value && std::fabs(value) < 1e15)) return plain;
    const size_t digitsStart = plain[0] == '-' ? 1 : 0;
    for (size_t i = plain.size(); i > digitsStart + 3; i -= 3) plain.insert(i - 3, ",");
    return plain;
}

std::optional<double> parseNumber(std::string_view text) {
    size_t i = 0;
    auto digits = [&] {
        const size_t from = i;
        while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
        return i - from;
    };
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    size_t mantissa = digits();
    if (i < text.size() && text[i] == '.') {
        ++i;
        mantissa += digits();
    }
    if (mantissa == 0) return std::nullopt;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if (digits() == 0) return std::nullopt;
    }
    if (i != text.size()) return std::nullopt;
    const std::string copy(text);
    errno = 0;
    const double value = std::strtod(copy.c_str(), nullptr);
    if (errno == ERANGE && std::fabs(value) > 1) return std::nullopt;  // overflow; underflow reads as 0
    if (!std::isfinite(value)) return std::nullopt;
    return value == 0 ? 0.0 : value;
}

std::string percentEncode(std::string_view text) {
    static constexpr char hex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        const bool unreserved =
            (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';
        if (unreserved) {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

std::optional<std::string> percentDecode(std::string_view text) {
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '+') {
            out += ' ';
        } else if (text[i] == '%') {
            if (i + 2 >= text.size()) return std::nullopt;
            const int hi = nibble(text[i + 1]), lo = nibble(text[i + 2]);
            if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) return std::nullopt;
            out += static_cast<char>(hi * 16 + lo);
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

std::string childPath(std::string_view path, std::string_view key) {
    if (key.find_first_of(".[]") != std::string_view::npos) return std::string(path) + "[\"" + std::string(key) + "\"]";
    return path.empty() ? std::string(key) : std::string(path) + "." + std::string(key);
}

Utf8Char decodeUtf8(std::string_view text, std::size_t at) {
    if (at >= text.size()) return {};
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[at + k]); };
    const unsigned lead = byte(0);
    if (lead < 0x80) return {lead, 1};
    // The lead byte's length and the range its first continuation byte must fall in (RFC 3629 §4's table).
    std::size_t length = 0;
    unsigned low = 0x80, high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF)
        length = 2;
    else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) low = 0xA0;   // overlong below U+0800
        if (lead == 0xED) high = 0x9F;  // U+D800-DFFF: surrogates
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) low = 0x90;   // overlong below U+10000
        if (lead == 0xF4) high = 0x8F;  // past U+10FFFF
    }
    if (length == 0 || at + length > text.size() || byte(1) < low || byte(1) > high) return {};
    char32_t code = lead & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(k) & 0xC0) != 0x80) return {};
        code = (code << 6) | (byte(k) & 0x3F);
    }
    return {code, length};
}

std::string quoted(std::string_view text) {
    // Quote what the user gave, cut to a readable length; messages are text, never markup.
    size_t cut = std::min<size_t>(text.size(), 40);
    while (cut < text.size() && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 characters
    std::string shown(text.substr(0, cut));
    if (cut < text.size()) shown += "…";
    return "\"" + shown + "\"";
}

}  // namespace membudget::detail
