// Text for the CLI's tables: widths counted in terminal columns, fixed decimals, and the one byte unit a run
// prints in (GB = 10^9 bytes, or GiB = 2^30 bytes with --gib).
#pragma once

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>

#include "membudget/base/units.hpp"

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

inline std::string fixed2(double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.2f", value);
    return buffer;
}

// The unit every amount of a run is printed in.
struct ByteUnit {
    double bytes;
    std::string_view name;
    std::string amount(double value) const { return fixed2(value / bytes); }  // "17.50"
};
inline ByteUnit byteUnit(bool gib) { return gib ? ByteUnit{kBytesPerGiB, "GiB"} : ByteUnit{kBytesPerGB, "GB"}; }

}  // namespace membudget::cli
