#include "terminal.hpp"

#include "membudget/base/text.hpp"

namespace membudget::cli {

std::string escapeControls(std::string_view text, bool jsonStrings) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    out.reserve(text.size());
    auto escaped = [&](unsigned code) {
        out += jsonStrings ? "\\u00" : "\\x";
        out += hex[(code >> 4) & 15];
        out += hex[code & 15];
    };
    for (size_t i = 0; i < text.size();) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte == '\n' || (byte >= 0x20 && byte < 0x7F)) {
            out += text[i++];
            continue;
        }
        if (byte < 0x20 || byte == 0x7F) {
            escaped(byte);
            ++i;
            continue;
        }
        const detail::Utf8Char ch = detail::decodeUtf8(text, i);
        if (ch.length == 0) {
            escaped(byte);  // not UTF-8 (a stray byte, an overlong form, a surrogate): never let it reach the terminal
            ++i;
            continue;
        }
        if (ch.code >= 0x80 && ch.code <= 0x9F) {
            escaped(ch.code);  // a C1 control: U+0080..U+009F
            i += ch.length;
            continue;
        }
        if (detail::isBidiControl(ch.code)) {
            // A bidirectional formatting character reorders what follows it on the line: shown by its code point.
            out += "\\u";
            for (int shift = 12; shift >= 0; shift -= 4) out += hex[(ch.code >> shift) & 15];
            i += ch.length;
            continue;
        }
        const size_t length = ch.length;
        out.append(text.substr(i, length));
        i += length;
    }
    return out;
}

EscapingBuffer::int_type EscapingBuffer::overflow(int_type ch) {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    line_ += traits_type::to_char_type(ch);
    if (ch == '\n') flushLine();
    return ch;
}

std::streamsize EscapingBuffer::xsputn(const char* data, std::streamsize count) {
    line_.append(data, static_cast<size_t>(count));
    if (line_.find('\n') != std::string::npos) flushLine();
    return count;
}

int EscapingBuffer::sync() {
    flushLine();
    return target_->pubsync();
}

void EscapingBuffer::flushLine() {
    // Up to the last newline, so that a multi-byte character split across writes is escaped whole.
    const size_t end = line_.rfind('\n');
    const size_t upTo = end == std::string::npos ? line_.size() : end + 1;
    const std::string escaped = escapeControls(std::string_view(line_).substr(0, upTo), json_);
    target_->sputn(escaped.data(), static_cast<std::streamsize>(escaped.size()));
    line_.erase(0, upTo);
}

}  // namespace membudget::cli
