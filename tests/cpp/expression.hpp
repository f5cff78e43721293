// An evaluator for the ledger's `substituted` column, written apart from the engine's builder so that a test
// reads the text as a user would: numbers (thousands separators, an optional decimal part and " B"), + − - ×
// /, parentheses, min(…), max(…), ⌈…⌉, ⌊…⌋ and a number raised by superscript digits (10⁹). Anything else
// (a word, a stray symbol) is a parse error.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace membudget::test {

struct Evaluated {
    std::optional<double> value;
    std::string error;  // where and why the text is not an expression
};

Evaluated evaluateExpression(std::string_view text);

}  // namespace membudget::test
