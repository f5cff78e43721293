// The writer the framework exports share (docs/import.md): text built with <<, what an export could not say
// (Exporter), a shell command's lines and the comments that list what was not exported. Each framework's file
// (megatron_export.cpp, torchtitan.cpp, torchtune.cpp, deepspeed.cpp, vllm.cpp, sglang.cpp, trtllm.cpp) writes its
// format with these. Internal.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

// Text built with <<, without <sstream> (whose locale machinery would add tens of KB to the wasm).
struct Text {
    std::string s;
    Text& operator<<(std::string_view part) {
        s += part;
        return *this;
    }
    std::string str() const { return s; }
};

class Exporter {
public:
    explicit Exporter(const Config& c) : c_(c) {}
    void skip(std::string key, std::string value, std::string reason) {
        out_.notExported.push_back({std::move(key), std::move(value), std::move(reason)});
    }
    // Framework behaviours the format has no setting for, when they are not the default.
    void skipTrainingExtras(ImportFormat format);
    ExportResult& result() { return out_; }
    const Config& config() const { return c_; }

private:
    const Config& c_;
    ExportResult out_;
};

// Numbers are written as formatNumber writes them, through a file-local n() in each exporter: a shared one
// here would collide with memory's detail::n (thousands separators) when the engine links.

// Lines of a shell command, each continued with a backslash.
std::string command(const std::vector<std::string>& lines);

// What the export could not say, one comment line each, `comment` being the format's comment sign.
std::string notes(const ExportResult& r, std::string_view comment);

}  // namespace membudget::detail
