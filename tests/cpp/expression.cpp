#include "expression.hpp"

#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace membudget::test {

namespace {

class Parser {
public:
    explicit Parser(std::string_view text) : s_(text) {}

    double parse() {
        const double value = sum();
        skipSpaces();
        if (pos_ != s_.size()) fail("unexpected text");
        return value;
    }

private:
    std::string_view s_;
    size_t pos_ = 0;

    [[noreturn]] void fail(const std::string& why) {
        throw std::runtime_error(why + " at byte " + std::to_string(pos_) + " of \"" + std::string(s_) + "\"");
    }
    void skipSpaces() {
        while (pos_ < s_.size() && s_[pos_] == ' ') ++pos_;
    }
    bool take(std::string_view token) {
        skipSpaces();
        if (s_.substr(pos_, token.size()) != token) return false;
        pos_ += token.size();
        return true;
    }
    double sum() {
        double value = product();
        for (;;) {
            if (take("+"))
                value += product();
            else if (take("−") || take("-"))
                value -= product();
            else
                return value;
        }
    }
    double product() {
        double value = unary();
        for (;;) {
            if (take("×"))
                value *= unary();
            else if (take("/"))
                value /= unary();
            else
                return value;
        }
    }
    double unary() {
        if (take("−") || take("-")) return -unary();
        return power();
    }
    double power() {
        double base = atom();
        // Superscript digits: ⁰¹²³⁴⁵⁶⁷⁸⁹ (¹²³ are two bytes in UTF-8, the others three).
        static const std::vector<std::string_view> superscripts{"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
        std::string exponent;
        for (bool found = true; found;) {
            found = false;
            for (size_t d = 0; d < superscripts.size(); ++d)
                if (s_.substr(pos_, superscripts[d].size()) == superscripts[d]) {
                    exponent += static_cast<char>('0' + d);
                    pos_ += superscripts[d].size();
                    found = true;
                }
        }
        return exponent.empty() ? base : std::pow(base, std::stod(exponent));
    }
    std::vector<double> arguments() {
        if (!take("(")) fail("expected (");
        std::vector<double> args{sum()};
        while (take(", ")) args.push_back(sum());
        if (!take(")")) fail("expected )");
        return args;
    }
    double atom() {
        skipSpaces();
        if (take("(")) {
            const double value = sum();
            if (!take(")")) fail("expected )");
            return value;
        }
        if (take("⌈")) {
            const double value = sum();
            if (!take("⌉")) fail("expected ⌉");
            return std::ceil(value);
        }
        if (take("⌊")) {
            const double value = sum();
            if (!take("⌋")) fail("expected ⌋");
            return std::floor(value);
        }
        if (take("min")) {
            double value = INFINITY;
            for (double a : arguments()) value = std::fmin(value, a);
            return value;
        }
        if (take("max")) {
            double value = -INFINITY;
            for (double a : arguments()) value = std::fmax(value, a);
            return value;
        }
        return number();
    }
    static bool digit(char c) { return c >= '0' && c <= '9'; }
    double number() {
        std::string digits;
        size_t start = pos_;
        while (pos_ < s_.size() && digit(s_[pos_])) digits += s_[pos_++];
        if (digits.empty()) fail("expected a number");
        // A thousands separator: a comma followed by exactly three digits and no fourth.
        while (pos_ + 3 < s_.size() + 0 && s_[pos_] == ',' && digit(s_[pos_ + 1]) && digit(s_[pos_ + 2]) && digit(s_[pos_ + 3]) &&
               (pos_ + 4 >= s_.size() || !digit(s_[pos_ + 4]))) {
            digits += s_.substr(pos_ + 1, 3);
            pos_ += 4;
        }
        if (pos_ < s_.size() && s_[pos_] == '.') {
            digits += '.';
            ++pos_;
            if (pos_ >= s_.size() || !digit(s_[pos_])) fail("expected digits after the point");
            while (pos_ < s_.size() && digit(s_[pos_])) digits += s_[pos_++];
        }
        if (pos_ - start == 0) fail("expected a number");
        // An optional unit: "B" after a space or directly.
        const size_t before = pos_;
        skipSpaces();
        if (pos_ < s_.size() && s_[pos_] == 'B' && (pos_ + 1 == s_.size() || !std::isalpha(static_cast<unsigned char>(s_[pos_ + 1]))))
            ++pos_;
        else
            pos_ = before;
        return std::stod(digits);
    }
};

}  // namespace

Evaluated evaluateExpression(std::string_view text) {
    try {
        return {Parser(text).parse(), ""};
    } catch (const std::exception& e) {
        return {std::nullopt, e.what()};
    }
}

}  // namespace membudget::test
