// What reaches the terminal: text from the user (a link value, a JSON key or value, a config name, a measured
// file's device name) is printed with every C0 and C1 control character escaped, so that no input can move the
// cursor, retitle the terminal or hide output. An output stream's buffer is wrapped for the whole run.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>

namespace membudget::cli {

// The escaped form of text: C0 controls but the newline, DEL, C1 controls (U+0080–U+009F, UTF-8 C2 80–C2 9F)
// and bytes that are not UTF-8 (detail::decodeUtf8: overlong forms and surrogates too) as \xNN in text (jsonStrings:
// as \u00NN, which is what a JSON string writes); bidirectional formatting characters as \uNNNN in both.
std::string escapeControls(std::string_view text, bool jsonStrings = false);

// A stream buffer that escapes what passes through it, a line at a time, into another buffer.
class EscapingBuffer : public std::streambuf {
public:
    EscapingBuffer(std::streambuf* target, bool jsonStrings) : target_(target), json_(jsonStrings) {}
    ~EscapingBuffer() override { sync(); }
    void setJsonStrings(bool json) {
        flushLine();
        json_ = json;
    }

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* data, std::streamsize count) override;
    int sync() override;

private:
    void flushLine();
    std::streambuf* target_;
    bool json_;
    std::string line_;
};

// Routes a stream through an EscapingBuffer for the lifetime of this object.
class EscapedStream {
public:
    EscapedStream(std::ostream& stream, bool jsonStrings)
        : stream_(stream), buffer_(stream.rdbuf(), jsonStrings), previous_(stream.rdbuf(&buffer_)) {}
    ~EscapedStream() {
        stream_.flush();
        stream_.rdbuf(previous_);
    }
    // JSON output escapes C1 controls as \u00NN, which keeps the document valid; text as \xNN.
    void setJsonStrings(bool json) { buffer_.setJsonStrings(json); }
    EscapedStream(const EscapedStream&) = delete;
    EscapedStream& operator=(const EscapedStream&) = delete;

private:
    std::ostream& stream_;
    EscapingBuffer buffer_;
    std::streambuf* previous_;
};

}  // namespace membudget::cli
