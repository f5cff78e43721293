// Text columns for the CLI's tables: widths counted in terminal columns, not bytes.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

namespace membudget::cli {

// Our text has only single-width characters (Ψ, ×, ², ·): one column per UTF-8 lead byte.
inline size_t displayWidth(std::string_view text) {
    return static_cast<size_t>(
        std::count_if(text.begin(), text.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

inline std::string pad(std::string_view text, size_t width) {
    std::string out(text);
    const size_t w = displayWidth(text);
    if (w < width) out.append(width - w, ' ');
    return out;
}

inline std::string padLeft(std::string_view text, size_t width) {
    const size_t w = displayWidth(text);
    return std::string(w < width ? width - w : 0, ' ') + std::string(text);
}

}  // namespace membudget::cli
