
#include "membudget/base/text.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace membudget::detail {

namespace {

// (std::bit_cast, which Emscripten 3.1.6's libc++ lacks.)
std::uint64_t bitsOf(double value) {
    std::uint64_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

double doubleOf(std::uint64_t bits) {
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// An exact decimal, the way Go's strconv reads and writes floats without tables (strconv/decimal.go): digits d[0..nd)
// with the point dp digits from the left (0.d × 10^dp); shifts by powers of two are exact up to kDigits digits, past
// which only whether a nonzero digit was dropped is kept (trunc). It gives the correctly rounded double of a decimal
// and the exact decimal of a double, so that the engine needs neither strtod nor printf, which with their long-double
// arithmetic are a fifth of the page's module's library code.
struct Decimal {
    static constexpr int kDigits = 800;  // a double's exact decimal has at most 767 significant digits
    static constexpr int kMaxShift = 60;
    char d[kDigits];
    int nd = 0;
    int dp = 0;
    bool trunc = false;

    void trim() {
        while (nd > 0 && d[nd - 1] == '0') --nd;
        if (nd == 0) dp = 0;
    }

    void assign(std::uint64_t v) {
        char buffer[24];
        int n = 0;
        for (; v > 0; v /= 10) buffer[n++] = static_cast<char>('0' + v % 10);
        nd = 0;
        while (n > 0) d[nd++] = buffer[--n];
        dp = nd;
        trim();
    }

    void rightShift(unsigned k) {
        int r = 0, w = 0;
        std::uint64_t n = 0;
        for (; (n >> k) == 0; ++r) {
            if (r >= nd) {
                if (n == 0) {
                    nd = 0;
                    return;
                }
                while ((n >> k) == 0) {
                    n *= 10;
                    ++r;
                }
                break;
            }
            n = n * 10 + static_cast<std::uint64_t>(d[r] - '0');
        }
        dp -= r - 1;
        const std::uint64_t mask = (std::uint64_t{1} << k) - 1;
        for (; r < nd; ++r) {
            const std::uint64_t digit = n >> k;
            n &= mask;
            d[w++] = static_cast<char>('0' + digit);
            n = n * 10 + static_cast<std::uint64_t>(d[r] - '0');
        }
        while (n > 0) {
            const std::uint64_t digit = n >> k;
            n &= mask;
            if (w < kDigits)
                d[w++] = static_cast<char>('0' + digit);
            else if (digit > 0)
                trunc = true;
            n *= 10;
        }
        nd = w;
        trim();
    }

    void leftShift(unsigned k) {
        // The product's digits from the right into a scratch buffer, since how many digits it gains is known at the end.
        char out[kDigits + 24];
        int w = kDigits + 24;
        std::uint64_t n = 0;
        for (int r = nd - 1; r >= 0; --r) {
            n += static_cast<std::uint64_t>(d[r] - '0') << k;
            out[--w] = static_cast<char>('0' + n % 10);
            n /= 10;
        }
        for (; n > 0; n /= 10) out[--w] = static_cast<char>('0' + n % 10);
        const int length = kDigits + 24 - w;
        dp += length - nd;
        nd = length < kDigits ? length : kDigits;
        for (int i = 0; i < nd; ++i) d[i] = out[w + i];
        for (int i = nd; i < length; ++i)
            if (out[w + i] != '0') trunc = true;
        trim();
    }

    void shift(int k) {
        if (nd == 0) return;
        for (; k > kMaxShift; k -= kMaxShift) leftShift(kMaxShift);
        for (; k < -kMaxShift; k += kMaxShift) rightShift(kMaxShift);
        if (k > 0) leftShift(static_cast<unsigned>(k));
        if (k < 0) rightShift(static_cast<unsigned>(-k));
    }

    // Whether keeping `keep` digits rounds up: half to even on an exact tie, as printf does.
    bool roundsUp(int keep) const {
        if (keep < 0 || keep >= nd) return false;
        if (d[keep] == '5' && keep + 1 == nd) return trunc || (keep > 0 && (d[keep - 1] - '0') % 2 == 1);
        return d[keep] >= '5';
    }

    // Keeps `keep` digits (those left of the point plus the decimals wanted), correctly rounded.
    void round(int keep) {
        if (keep < 0) {
            nd = 0;
            dp = 0;
            return;
        }
        if (keep >= nd) return;
        if (!roundsUp(keep)) {
            nd = keep;
            trim();
            return;
        }
        for (int i = keep - 1; i >= 0; --i)
            if (d[i] < '9') {
                ++d[i];
                nd = i + 1;
                return;
            }
        d[0] = '1';  // all nines: 1 with the point one digit further right
        nd = 1;
        ++dp;
    }

    // The nearest double's bits (ties to even), and whether it overflowed (then the bits are infinity's).
    std::uint64_t doubleBits(bool& overflow) {
        static constexpr int powers[] = {1, 3, 6, 9, 13, 16, 19, 23, 26};  // 2^powers[i] < 10^i
        constexpr int bias = -1023, mantBits = 52;
        overflow = false;
        if (nd == 0 || dp < -330) return 0;
        if (dp > 310) {
            overflow = true;
            return std::uint64_t{0x7FF} << mantBits;
        }
        int exp = 0;
        while (dp > 0) {
            const int n = dp >= 9 ? 27 : powers[dp];
            shift(-n);
            exp += n;
        }
        while (dp < 0 || (dp == 0 && d[0] < '5')) {
            const int n = -dp >= 9 ? 27 : powers[-dp];
            shift(n);
            exp -= n;
        }
        --exp;  // [0.5, 1) to the mantissa's [1, 2)
        if (exp < bias + 1) {
            const int n = bias + 1 - exp;
            shift(-n);
            exp += n;
        }
        if (exp - bias >= 0x7FF) {
            overflow = true;
            return std::uint64_t{0x7FF} << mantBits;
        }
        shift(1 + mantBits);
        std::uint64_t mant = 0;
        int i = 0;
        for (; i < dp && i < nd; ++i) mant = mant * 10 + static_cast<std::uint64_t>(d[i] - '0');
        for (; i < dp; ++i) mant *= 10;
        if (roundsUp(dp)) ++mant;
        if (mant == std::uint64_t{2} << mantBits) {
            mant >>= 1;
            if (++exp - bias >= 0x7FF) {
                overflow = true;
                return std::uint64_t{0x7FF} << mantBits;
            }
        }
        if ((mant & (std::uint64_t{1} << mantBits)) == 0) exp = bias;  // subnormal
        return (mant & ((std::uint64_t{1} << mantBits) - 1)) | (static_cast<std::uint64_t>(exp - bias) << mantBits);
    }

    char digit(int i) const { return i >= 0 && i < nd ? d[i] : '0'; }
};

// The exact decimal of |value| (finite).
Decimal exactDecimal(double value) {
    const std::uint64_t bits = bitsOf(value);
    const int exponent = static_cast<int>((bits >> 52) & 0x7FF);
    std::uint64_t mant = bits & ((std::uint64_t{1} << 52) - 1);
    if (exponent != 0) mant |= std::uint64_t{1} << 52;
    Decimal out;
    out.assign(mant);
    out.shift((exponent == 0 ? 1 : exponent) - 1075);
    return out;
}

// An integral |value| below 2^63 in decimal digits, through an integer: exact as the Decimal path is, and without
// its shifts over hundreds of digits, which made the field texts (94 numbers, most of them integers) a tenth of a
// field change on the page.
std::string integerDigits(double magnitude) {
    auto n = static_cast<std::uint64_t>(magnitude);
    char digits[20];
    int count = 0;
    do {
        digits[count++] = static_cast<char>('0' + n % 10);
        n /= 10;
    } while (n != 0);
    std::string out;
    out.reserve(static_cast<size_t>(count) + 1);
    while (count > 0) out += digits[--count];
    return out;
}

}  // namespace

std::string fixedNumber(double value, int decimals) {
    if (std::floor(value) == value && std::fabs(value) < 9.2e18) {
        std::string out = std::signbit(value) ? "-" : "";
        out += integerDigits(std::fabs(value));
        if (decimals > 0) out.append(1, '.').append(static_cast<size_t>(decimals), '0');
        return out;
    }
    Decimal dec = exactDecimal(value);
    dec.round(dec.dp + decimals);
    std::string out = std::signbit(value) ? "-" : "";
    if (dec.dp <= 0) out += '0';
    for (int i = 0; i < dec.dp; ++i) out += dec.digit(i);
    if (decimals > 0) out += '.';
    for (int i = 0; i < decimals; ++i) out += dec.digit(dec.dp + i);
    return out;
}

std::string formatNumber(double value) {
    if (!std::isfinite(value)) return value != value ? "NaN" : (value > 0 ? "Infinity" : "-Infinity");
    if (value == 0) return "0";  // also for -0
    if (std::floor(value) == value && std::fabs(value) < 1e15) return fixedNumber(value, 0);
    // printf's %.<p>g at the fewest significant digits p that read back as the same double.
    const Decimal exact = exactDecimal(value);
    const std::uint64_t bits = bitsOf(std::fabs(value));
    Decimal dec;
    int precision = 1;
    for (; precision < 17; ++precision) {
        dec = exact;
        dec.round(precision);
        Decimal back = dec;
        bool overflow = false;
        if (back.doubleBits(overflow) == bits) break;
    }
    if (precision == 17) {
        dec = exact;
        dec.round(17);
    }
    // %g: fixed for an exponent from -4 to below the precision, else d.ddde±XX; no trailing zeros either way.
    std::string out = value < 0 ? "-" : "";
    const int exponent = dec.dp - 1;
    if (exponent >= -4 && exponent < precision) {
        if (dec.dp <= 0) out += '0';
        for (int i = 0; i < dec.dp; ++i) out += dec.digit(i);
        if (dec.nd > dec.dp) {
            out += '.';
            for (int i = dec.dp < 0 ? dec.dp : 0; i < 0; ++i) out += '0';
            for (int i = dec.dp > 0 ? dec.dp : 0; i < dec.nd; ++i) out += dec.d[i];
        }
        return out;
    }
    out += dec.d[0];
    if (dec.nd > 1) {
        out += '.';
        out.append(dec.d + 1, dec.d + dec.nd);
    }
    out += exponent < 0 ? "e-" : "e+";
    const int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude >= 100) out += static_cast<char>('0' + magnitude / 100);
    out += static_cast<char>('0' + magnitude / 10 % 10);
    out += static_cast<char>('0' + magnitude % 10);
    return out;
}

std::string percentText(double fraction) { return fixedNumber(std::round(fraction * 1000) / 10, 1) + "%"; }

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
    // The digits into an exact decimal (Go's strconv readFloat), then its nearest double.
    Decimal dec;
    bool dot = false;
    i = text[0] == '+' || text[0] == '-' ? 1 : 0;
    for (; i < text.size() && text[i] != 'e' && text[i] != 'E'; ++i) {
        if (text[i] == '.') {
            dot = true;
            dec.dp = dec.nd;
        } else if (text[i] == '0' && dec.nd == 0) {
            --dec.dp;  // a leading zero
        } else if (dec.nd < Decimal::kDigits) {
            dec.d[dec.nd++] = text[i];
        } else if (text[i] != '0') {
            dec.trunc = true;
        }
    }
    if (!dot) dec.dp = dec.nd;
    if (i < text.size()) {
        ++i;
        const bool negativeExponent = text[i] == '-';
        if (text[i] == '+' || text[i] == '-') ++i;
        int exponent = 0;
        for (; i < text.size(); ++i)
            if (exponent < 10000) exponent = exponent * 10 + (text[i] - '0');
        dec.dp += negativeExponent ? -exponent : exponent;
    }
    bool overflow = false;
    const double magnitude = doubleOf(dec.doubleBits(overflow));
    if (overflow) return std::nullopt;  // underflow reads as 0
    if (magnitude == 0) return 0.0;
    return text[0] == '-' ? -magnitude : magnitude;
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
