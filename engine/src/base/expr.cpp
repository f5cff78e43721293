
#include "base/expr.hpp"

#include <algorithm>
#include <cmath>

#include "membudget/base/text.hpp"

namespace membudget::detail {

std::string exprNumber(double value) {
    if (value == 0 || !std::isfinite(value)) return "0";
    std::string digits;
    if (std::floor(value) == value && std::fabs(value) < 1e21) {
        digits = fixedNumber(value, 0);
    } else {
        // The shortest of at most 12 significant digits: a display rounding far inside the column's 1e-3.
        const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
        digits = fixedNumber(value, std::clamp(11 - magnitude, 0, 40));
        if (digits.find('.') != std::string::npos) {
            while (digits.back() == '0') digits.pop_back();
            if (digits.back() == '.') digits.pop_back();
        }
    }
    const size_t sign = digits[0] == '-' ? 1 : 0;
    size_t point = digits.find('.');
    if (point == std::string::npos) point = digits.size();
    for (size_t i = point; i > sign + 3; i -= 3) digits.insert(i - 3, ",");
    if (sign) digits.replace(0, 1, "−");
    return digits;
}

std::string fill(std::string_view pattern, std::initializer_list<double> values) {
    std::string out;
    const double* next = values.begin();
    for (char ch : pattern) {
        if (ch == '#' && next != values.end())
            out += exprNumber(*next++);
        else
            out += ch;
    }
    return out;
}

std::string wholeBytes(std::string text, double value) { return std::floor(value) == value ? text : "⌈" + text + "⌉"; }

std::string factor(const std::string& text) {
    return text.find(" + ") != std::string::npos || text.find(" − ") != std::string::npos ? "(" + text + ")" : text;
}

std::string gigabytesText(double gb) { return wholeBytes(fill("# × 10⁹", {gb}), gb * 1e9); }

void Terms::add(std::string_view symbol, std::string text, double value) {
    if (value == 0) return;
    if (!text_.empty()) {
        if (!symbol.empty()) formula_ += " + ";
        text_ += " + ";
    }
    formula_ += symbol;
    text_ += text;
    value_ += value;
}

}  // namespace membudget::detail
