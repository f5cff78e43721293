#include "terminal.hpp"

namespace membudget::cli {

namespace {

// Length of the valid UTF-8 sequence starting at text[i], or 0.
size_t utf8Length(std::string_view text, size_t i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const size_t length = byte < 0x80 ? 1 : (byte >> 5) == 0x6 ? 2 : (byte >> 4) == 0xE ? 3 : (byte >> 3) == 0x1E ? 4 : 0;
    if (length == 0 || i + length > text.size()) return 0;
    for (size_t k = 1; k < length; ++k)
        if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return 0;
    return length;
}

}  // namespace

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
        const size_t length = utf8Length(text, i);
        if (length == 0) {
            escaped(byte);  // not UTF-8: never let a lone byte reach the terminal
            ++i;
            continue;
        }
        if (length == 2 && byte == 0xC2 && static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
            escaped(static_cast<unsigned char>(text[i + 1]));  // a C1 control: U+0080..U+009F
            i += 2;
            continue;
        }
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
