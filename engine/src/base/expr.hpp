// The `substituted` column: the formula with this configuration's numbers, as an arithmetic expression that
// evaluates to the line's bytes (words belong in the formula and the note). Grammar, as
// tests/support/expression.* evaluate it: numbers with thousands separators, + − × /, parentheses, min(…),
// max(…), ⌈…⌉, ⌊…⌋ and 10⁹.
// Expressions are written as patterns with a # for each number, filled by one call: the page's module builds
// a few hundred of them, and one call per expression keeps its code small.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace membudget::detail {

// A number as the column writes it: integers with thousands separators, others with up to 12 significant
// digits, never in exponent form.
std::string exprNumber(double value);

// `pattern` with each # replaced by the next of `values`.
std::string fill(std::string_view pattern, std::initializer_list<double> values);

// ⌈text⌉ when `value` (what text evaluates to) is not a whole number, else text: a line of whole bytes.
std::string wholeBytes(std::string text, double value);

// "(text)" when text holds a + or −, for use as a factor.
std::string factor(const std::string& text);

// gb × 10⁹ as whole bytes.
std::string gigabytesText(double gb);

// A sum of terms, each with its symbol for the formula column, its substituted text and its value; terms whose
// value is zero are left out of both.
class Terms {
public:
    void add(std::string_view symbol, std::string text, double value);
    std::string formula() const { return formula_.empty() ? "0" : formula_; }
    std::string text() const { return text_.empty() ? "0" : text_; }
    double value() const { return value_; }
    std::string wholeBytes() const { return detail::wholeBytes(text(), value_); }

private:
    std::string formula_, text_;
    double value_ = 0;
};

}  // namespace membudget::detail
