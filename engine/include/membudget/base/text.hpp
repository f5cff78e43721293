// Text helpers shared by the codec, the messages and the CLI. Internal: not part of the stable API.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace membudget::detail {

// Shortest decimal that reads back as the same double; integers below 1e15 without an exponent.
std::string formatNumber(double value);

// printf's %.<decimals>f: the value correctly rounded (half to even on an exact tie) to that many decimals, "-" for a
// negative value even where it rounds to 0.
std::string fixedNumber(double value, int decimals);

// An integer-valued number with thousands separators (70,000,000,000); others as formatNumber.
std::string groupedNumber(double value);

// A fraction as a percentage with one decimal, rounded half up at the tenth of a percent (1/51 -> "2.0%"): the
// same rounding in the CLI's tables, the advice and the page (web/src/format.ts formatPercentTenth).
std::string percentText(double fraction);

// A finite decimal number (optional sign, digits, fraction, exponent) and nothing else: no hex, no
// "inf" or "nan", no surrounding spaces, no overflow.
std::optional<double> parseNumber(std::string_view text);

// encodeURIComponent's unreserved set; everything else as %XX.
std::string percentEncode(std::string_view text);

// '+' is a space; a bad %XX sequence or a decoded NUL gives nullopt.
std::optional<std::string> percentDecode(std::string_view text);

// What the user gave, in quotes and cut to 40 characters (whole UTF-8 characters), for messages.
std::string quoted(std::string_view text);

// A flattened path's child: "parent.key", or parent["key"] for a key holding '.', '[' or ']'. A framework reads such
// a key as one key, never as a path (DeepSpeed's {"zero_optimization.stage": 3} sets no ZeRO stage), so it must
// not read as the nested key a mapping looks for. The same rule in the page's flattening (web/src/import-parse.ts).
std::string childPath(std::string_view path, std::string_view key);

// The character that starts at text[at] under UTF-8's own rules (RFC 3629 §3-4): its code point and byte length, or
// length 0 where the bytes are not UTF-8: a stray continuation byte, a truncated sequence, an overlong form (C0 9B
// would be ESC, E0 82 9B CSI to a lenient terminal), a UTF-16 surrogate (ED A0-BF) or past U+10FFFF.
struct Utf8Char {
    char32_t code = 0;
    std::size_t length = 0;
};
Utf8Char decodeUtf8(std::string_view text, std::size_t at);

// The characters that reorder how a terminal or an editor shows the text around them (Unicode bidirectional
// formatting, UAX #9 §2: ALM, LRM, RLM, LRE-RLO, LRI-PDI), which can make text read other than it is.
inline bool isBidiControl(char32_t code) {
    return code == 0x061C || code == 0x200E || code == 0x200F || (code >= 0x202A && code <= 0x202E) || (code >= 0x2066 && code <= 0x2069);
}

}  // namespace membudget::detail
