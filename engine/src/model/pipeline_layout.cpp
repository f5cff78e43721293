#include "model/pipeline_layout.hpp"

#include "membudget/base/text.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace membudget::detail {

namespace {

// A repeat count after '*': digits only, as Megatron-LM's \d+; the value, or -1 when there are none.
double repeatCount(std::string_view text, size_t& at) {
    const size_t from = at;
    double n = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
        n = n * 10 + (text[at] - '0');
        if (n > kMaxLayoutExpansion) n = kMaxLayoutExpansion + 1;  // saturate: past the bound is refused below
        ++at;
    }
    return at == from ? -1 : n;
}

// Appends `piece` n times, refusing an unrolled text past the bound.
bool repeatInto(std::string& out, std::string_view piece, double n) {
    if (static_cast<double>(out.size()) + static_cast<double>(piece.size()) * n > kMaxLayoutExpansion) return false;
    for (double i = 0; i < n; ++i) out.append(piece);
    return true;
}

ParsedLayout failed(std::string why) {
    ParsedLayout out;
    out.error = std::move(why);
    return out;
}

ParsedLayout readLayout(std::string_view text);

}  // namespace

const ParsedLayout& parsePipelineLayout(std::string_view text) {
    thread_local std::string lastText;
    thread_local ParsedLayout last;
    thread_local bool read = false;
    if (!read || text != lastText) {
        last = readLayout(text);
        lastText = std::string(text);
        read = true;
    }
    return last;
}

namespace {

ParsedLayout readLayout(std::string_view text) {
    ParsedLayout result;
    const std::string tooLong = "unrolls to more than " + groupedNumber(kMaxLayoutExpansion) + " characters";
    std::string plain;
    for (char ch : text)
        if (ch != ',') plain += ch;
    // First "(group)*n", then "x*n", each left to right as re.sub replaces.
    std::string groups;
    for (size_t i = 0; i < plain.size();) {
        if (plain[i] == '(') {
            const size_t close = plain.find(')', i + 1);
            if (close != std::string::npos && close > i + 1 && close + 1 < plain.size() && plain[close + 1] == '*' &&
                plain.find('(', i + 1) > close) {
                size_t at = close + 2;
                const double n = repeatCount(plain, at);
                if (n >= 0) {
                    if (!repeatInto(groups, std::string_view(plain).substr(i + 1, close - i - 1), n)) return failed(tooLong);
                    i = at;
                    continue;
                }
            }
        }
        groups += plain[i++];
    }
    std::string unrolled;
    for (size_t i = 0; i < groups.size();) {
        if (i + 1 < groups.size() && groups[i + 1] == '*') {
            size_t at = i + 2;
            const double n = repeatCount(groups, at);
            if (n >= 0) {
                if (!repeatInto(unrolled, std::string_view(groups).substr(i, 1), n)) return failed(tooLong);
                i = at;
                continue;
            }
        }
        if (static_cast<double>(unrolled.size()) + 1 > kMaxLayoutExpansion) return failed(tooLong);
        unrolled += groups[i++];
    }
    result.chunks.emplace_back();
    for (size_t i = 0; i < unrolled.size(); ++i) {
        LayoutChunk& chunk = result.chunks.back();
        if (unrolled[i] != '|') {
            if (result.first == 0) result.first = unrolled[i];
            result.last = unrolled[i];
        }
        switch (unrolled[i]) {
            case '|':
                result.chunks.emplace_back();
                break;
            case 't':
                ++chunk.decoder;
                break;
            case 'm':
                ++chunk.mtp;
                break;
            case 'E':
                ++chunk.embedding;
                break;
            case 'L':
                ++chunk.loss;
                break;
            default: {
                const unsigned char c = static_cast<unsigned char>(unrolled[i]);
                return failed("holds " + (c >= 0x20 && c < 0x7f ? "'" + std::string(1, unrolled[i]) + "'" : std::string("a character")) +
                              ", which is none of E (embedding), t (decoder layer), m (MTP layer), L (loss), '|', '(…)*n' and 'x*n'");
            }
        }
    }
    return result;
}

}  // namespace

}  // namespace membudget::detail
