// The reader the framework mappings share (docs/import.md): what an import sets, warns and could not map
// (Mapping), a structured document's values by path (Document), a script's or command's words and flags (Words),
// and the text helpers that the mappings and import.cpp's format detection use. Each framework's file
// (megatron.cpp, torchtitan.cpp, torchtune.cpp, deepspeed.cpp, vllm.cpp, sglang.cpp, trtllm.cpp, hf.cpp) maps its
// format over these. Internal.
#pragma once

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/assignments.hpp"

namespace membudget::detail {

bool contains(std::string_view text, std::string_view part);
bool startsWith(std::string_view text, std::string_view prefix);
std::string lower(std::string_view text);

// A line of the text that, trimmed, satisfies `test`.
template <class Test>
bool anyLine(std::string_view text, Test test) {
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(start, end - start);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.front()))) line.remove_prefix(1);
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
        if (test(line)) return true;
        start = end + 1;
    }
    return false;
}

// `part` on a line that is not a comment.
bool inCode(std::string_view text, std::string_view part);

bool isIdentifier(std::string_view text);

// What an import sets, warns and could not map; assignments come out in the field table's order.
class Mapping {
public:
    void set(std::string_view key, std::string text);
    void setNumber(std::string_view key, double value) { set(key, formatNumber(value)); }
    void setBool(std::string_view key, bool value) { set(key, value ? "true" : "false"); }
    bool has(std::string_view key) const {
        return std::any_of(set_.begin(), set_.end(), [key](const Assignment& a) { return a.key == key; });
    }
    std::optional<double> number(std::string_view key) const;
    void erase(std::string_view key) {
        std::erase_if(set_, [key](const Assignment& a) { return a.key == key; });
    }
    void unmapped(std::string key, std::string value, std::string reason) {
        // What a file gives is shown, not echoed whole: a key or value past 200 characters is cut and its length said.
        auto cut = [](std::string& text) {
            if (text.size() > 200) text = text.substr(0, 200) + "… (" + std::to_string(text.size()) + " characters)";
        };
        cut(key);
        cut(value);
        unmapped_.push_back({std::move(key), std::move(value), std::move(reason)});
    }
    bool hasUnmapped(std::string_view key) const {
        return std::any_of(unmapped_.begin(), unmapped_.end(), [key](const Unmapped& u) { return u.key == key; });
    }
    void warn(std::string message) { warnings_.push_back(std::move(message)); }
    // A value the file does not give but the mapping needs: set, and reported as needing the user's input.
    void assume(std::string_view key, std::string text, std::string why) {
        set(key, std::move(text));
        assumed_.push_back({std::string(key), std::move(why)});
    }
    // Every training import: membudget's own method, in training, following the framework.
    void training(Framework framework);
    void error(std::string message) { errors_.push_back({"import", std::move(message)}); }

    ImportResult finish(ImportFormat format) &&;

private:
    std::vector<Assignment> set_;
    std::vector<Unmapped> unmapped_;
    std::vector<std::string> warnings_;
    std::vector<Problem> errors_;
    std::vector<Problem> assumed_;
};

// ---------------------------------------------------------------------------------------------------------
// Structured documents (JSON, TOML, YAML): values by path, each marked when a mapping reads it, so that what
// no mapping read can be listed.

class Document {
public:
    explicit Document(const std::vector<JsonValue>& values);
    const JsonValue* get(std::string_view path);
    std::optional<double> number(std::string_view path);
    std::optional<bool> boolean(std::string_view path);
    std::optional<std::string> string(std::string_view path);
    // The string elements of an array (path[0], path[1], …).
    std::vector<std::string> strings(std::string_view path);
    bool present(std::string_view path) const { return byPath_.count(std::string(path)) > 0; }
    // Marks a value and everything under it as read.
    void markRead(std::string_view prefix);
    // What no mapping read, each at the highest level nothing was read from (a whole unread table is one entry),
    // unless `ignored` covers it (settings with no effect on memory), sorted by path: parsers order mappings
    // differently (insertion or sorted). First, each value a mapping asked for as a number or a boolean and could not
    // read as one ("eight", "yes", a date), with what it expects: never a silent default.
    void listUnread(Mapping& m, std::span<const std::string_view> ignored, std::string_view reason) const;

private:
    static bool under(std::string_view path, std::string_view prefix);
    static std::string parentOf(const std::string& path);
    void touch(std::string path);

    void unreadable(const JsonValue& v, std::string_view path, const char* expected);

    const std::vector<JsonValue>* values_;
    std::unordered_map<std::string, const JsonValue*> byPath_;
    std::set<std::string> touched_;
    std::vector<Unmapped> unreadable_;  // values asked for that do not read as their type, in the order asked
};

// ---------------------------------------------------------------------------------------------------------
// Words (shell scripts and commands): variables assigned literally are resolved, flags collected in order.

struct Flag {
    std::string name;   // "--tensor-model-parallel-size", "-tp"
    std::string value;  // "" for a switch
    bool hasValue = false;
    std::string unresolved;  // the first variable the value needs that the script does not set literally
    bool read = false;
    // The words after the value up to the next flag: the other values of a list flag (argparse nargs "*" or "+",
    // --recompute-modules moe_act layernorm).
    std::vector<std::string> more;
};

class Words {
public:
    // switches: flags that take no value, so that the word after them is not taken as theirs.
    Words(const std::vector<std::vector<std::string>>& lines, const std::set<std::string_view>& switches);

    // The last occurrence of any of the names (a later flag overrides an earlier one, as argparse does).
    Flag* find(std::initializer_list<std::string_view> names);
    bool has(std::initializer_list<std::string_view> names) { return find(names) != nullptr; }
    // Variables the script gives a default for but does not set (${NAME:-default}), as "NAME (default)".
    const std::set<std::string>& defaults() const { return defaults_; }
    const std::vector<std::string>& all() const { return all_; }
    std::vector<Flag>& flags() { return flags_; }
    // A variable the script assigns literally (NAME=VALUE, export NAME=VALUE), or nothing.
    std::optional<std::string> variable(const std::string& name) const {
        const auto it = env_.find(name);
        return it == env_.end() ? std::nullopt : std::optional<std::string>(it->second);
    }

    // Reports every flag no mapping read, once, unless it is ignored (no effect on memory).
    void listUnread(Mapping& m, const std::set<std::string_view>& ignored, std::string_view reason) const;

private:
    static void split(const std::string& word, const std::string& unresolved, std::vector<std::string>& out,
                      std::vector<std::string>& unresolvedOf);

    // --long flags, and the few short ones the formats have (vLLM's -tp, -pp, -dp, -q): not `[ -n … ]` tests.
    static bool looksLikeFlag(std::string_view word);

    // $NAME, ${NAME} and ${NAME:-default} replaced from the literal assignments seen so far.
    std::string resolve(const std::string& word, std::string& unresolved) const;

    static constexpr size_t kMaxExpansionBytes = 1u << 20;  // one word, its variables expanded
    static constexpr size_t kMaxExpandedBytes = 64u << 20;  // every expansion of the script together
    std::map<std::string, std::string> env_;
    mutable size_t expandedBytes_ = 0;
    mutable std::set<std::string> defaults_;
    std::vector<Flag> flags_;
    std::vector<std::string> all_;
};

// PyTorch's caching-allocator settings from PYTORCH_CUDA_ALLOC_CONF (or PYTORCH_ALLOC_CONF) as the script exports
// them: expandable_segments and max_split_size_mb (c10/cuda/CUDAAllocatorConfig.cpp parseArgs); other options unmapped.
void readAllocatorConf(Mapping& m, const Words& w);

// A flag's value as a number, or nothing (with the flag listed as unmapped when it has a value that is not one).
std::optional<double> flagNumber(Mapping& m, Flag* flag);

// A serving engine's --dtype (vLLM's and SGLang's: the activations', an unquantized model's weights' and the KV
// cache's dtype) as membudget's: auto (the checkpoint's, taken as BF16), bfloat16, float16 or half; bf16 where the
// flag is absent, the flag listed as unmapped where it names another.
std::string servingDtype(Mapping& m, Words& w);

// Sets `key` from a flag's numeric value.
bool setFromFlag(Mapping& m, Words& w, std::string_view key, std::initializer_list<std::string_view> names);

}  // namespace membudget::detail
