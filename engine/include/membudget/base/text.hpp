// Text helpers shared by the codec, the messages and the CLI. Internal: not part of the stable API.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace membudget::detail {

// Shortest decimal that reads back as the same double; integers below 1e15 without an exponent.
std::string formatNumber(double value);

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

}  // namespace membudget::detail
