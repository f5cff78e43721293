// The shared reader's classes and helpers (reader.hpp), out of line.
#include "formats/reader.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"

namespace membudget::detail {

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }
bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool inCode(std::string_view text, std::string_view part) {
    return anyLine(text, [part](std::string_view line) { return !line.empty() && line.front() != '#' && contains(line, part); });
}

bool isIdentifier(std::string_view text) {
    if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
    return std::all_of(text.begin(), text.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

void Mapping::set(std::string_view key, std::string text) {
    for (auto& a : set_)
        if (a.key == key) {
            a.text = std::move(text);
            return;
        }
    set_.push_back({std::string(key), std::move(text)});
}

std::optional<double> Mapping::number(std::string_view key) const {
    for (const auto& a : set_)
        if (a.key == key) return parseNumber(a.text);
    return std::nullopt;
}

void Mapping::training(Framework framework) {
    set("method", "membudget");
    set("framework", std::string(toString(framework)));
    set("mode", "training");
}

namespace {

const std::string* assignedText(const ImportResult& r, std::string_view key) {
    for (const auto& a : r.assignments)
        if (a.key == key) return &a.text;
    return nullptr;
}

// A script that names no model but gives a preset's architecture carries the preset's name ("GPT-3 175B", not
// "custom model"); the architecture stays the file's own.
void nameAfterPreset(ImportResult& out) {
    const std::string *model = assignedText(out, "model"), *name = assignedText(out, "name");
    if (!model || *model != "custom" || !name || !name->empty()) return;
    auto same = [&out](std::string_view key, double preset) {
        const std::string* value = assignedText(out, key);
        return value && parseNumber(*value) == preset;
    };
    auto sameOrUnset = [&out, &same](std::string_view key, double preset) { return !assignedText(out, key) || same(key, preset); };
    auto flagOrUnset = [&out](std::string_view key, bool preset) {
        const std::string* value = assignedText(out, key);
        return !value || *value == (preset ? "true" : "false");
    };
    // Every size and choice the file set must be the preset's: GPT-345M and BLOOM-560M share their width, depth and
    // heads, not their vocabulary, positions or MLP.
    for (const ModelPreset& preset : modelPresets())
        if (same("hidden", preset.hidden) && same("layers", preset.layers) && same("heads", preset.heads) &&
            sameOrUnset("ffn", preset.ffn) && sameOrUnset("kv_heads", preset.kvHeads) && sameOrUnset("experts", preset.experts) &&
            sameOrUnset("vocab", preset.vocab) && sameOrUnset("pos_emb", preset.posEmb) && flagOrUnset("gated_ffn", preset.gatedFfn)) {
            for (auto& a : out.assignments)
                if (a.key == "name") a.text = std::string(preset.label);
            return;
        }
}

// A launch file is the job: what it leaves out of the layout and batch is asked of the user, with the importer's
// own reason where it gave one (a world size not given; a global batch without dp). A config.json is a model,
// applied over the layout in use, and asks nothing.
void askWhatIsMissing(ImportResult& out) {
    if (out.format == ImportFormat::hf) return;
    for (const std::string_view key : {"dp", "microbatches", "mb", "seq"}) {
        const bool serving = out.format == ImportFormat::vllm || out.format == ImportFormat::sglang || out.format == ImportFormat::trtllm;
        if (serving && key == "microbatches") continue;  // serving has no gradient accumulation
        const bool said = std::any_of(out.assumed.begin(), out.assumed.end(), [key](const Problem& p) { return p.field == key; });
        if (assignedText(out, key) || said) continue;
        std::string why =
            out.format == ImportFormat::vllm && key == "seq"     ? "no --max-model-len: vLLM serves up to the model's context window"
            : out.format == ImportFormat::sglang && key == "seq" ? "no --context-length: SGLang serves up to the model's context window"
            : out.format == ImportFormat::trtllm && key == "seq"
                ? "no --max_seq_len: TensorRT-LLM deduces it from the model's config, its context window"
                : "the file does not say";
        const std::string askedFor = "set " + std::string(key);
        for (const auto& u : out.unmapped)
            if (u.key == key || u.reason.ends_with(askedFor) || (key == "microbatches" && u.key == "--global-batch-size")) why = u.reason;
        out.assumed.push_back({std::string(key), why});
    }
}

}  // namespace

ImportResult Mapping::finish(ImportFormat format) && {
    const auto table = fields();
    auto rank = [&table](const std::string& key) {
        for (size_t i = 0; i < table.size(); ++i)
            if (table[i].key == key) return i;
        return table.size();
    };
    std::stable_sort(set_.begin(), set_.end(), [&](const Assignment& a, const Assignment& b) { return rank(a.key) < rank(b.key); });
    ImportResult out{format, std::move(set_), std::move(unmapped_), std::move(warnings_), std::move(errors_), std::move(assumed_)};
    if (!out.ok()) {
        out.assignments.clear();
        out.assumed.clear();
        return out;
    }
    nameAfterPreset(out);
    askWhatIsMissing(out);
    return out;
}

Document::Document(const std::vector<JsonValue>& values) : values_(&values) {
    for (const auto& v : values) byPath_.emplace(v.key, &v);
}

const JsonValue* Document::get(std::string_view path) {
    const auto it = byPath_.find(std::string(path));
    if (it == byPath_.end()) return nullptr;
    touch(it->first);
    return it->second;
}

void Document::unreadable(const JsonValue& v, std::string_view path, const char* expected) {
    const std::string key(path);
    if (std::none_of(unreadable_.begin(), unreadable_.end(), [&key](const Unmapped& u) { return u.key == key; }))
        unreadable_.push_back({key, v.type == "string" || v.type == "number" || v.type == "boolean" ? v.text : "(" + v.type + ")",
                               std::string("does not read as ") + expected + ": not taken from the file"});
}

std::optional<double> Document::number(std::string_view path) {
    const JsonValue* v = get(path);
    if (!v) return std::nullopt;
    std::optional<double> n;
    if (v->type == "number" || v->type == "string") n = parseNumber(v->text);
    if (!n || !std::isfinite(*n)) {
        unreadable(*v, path, "a finite number");
        return std::nullopt;
    }
    return n;
}

std::optional<bool> Document::boolean(std::string_view path) {
    const JsonValue* v = get(path);
    if (!v) return std::nullopt;
    if (v->type == "boolean") return v->text == "true";
    if (v->type == "string") {
        const std::string t = lower(v->text);
        if (t == "true") return true;
        if (t == "false") return false;
    }
    unreadable(*v, path, "true or false");
    return std::nullopt;
}

std::optional<std::string> Document::string(std::string_view path) {
    const JsonValue* v = get(path);
    if (!v || (v->type != "string" && v->type != "number")) return std::nullopt;
    return v->text;
}

std::vector<std::string> Document::strings(std::string_view path) {
    std::vector<std::string> out;
    if (!get(path)) return out;
    for (size_t i = 0;; ++i) {
        const JsonValue* v = get(std::string(path) + "[" + std::to_string(i) + "]");
        if (!v) break;
        if (v->type == "string") out.push_back(v->text);
    }
    return out;
}

void Document::markRead(std::string_view prefix) {
    for (const auto& [path, v] : byPath_)
        if (under(path, prefix)) touch(path);
}

void Document::listUnread(Mapping& m, std::span<const std::string_view> ignored, std::string_view reason) const {
    for (const Unmapped& u : unreadable_)
        if (!m.hasUnmapped(u.key)) m.unmapped(u.key, u.value, u.reason);
    std::vector<const JsonValue*> left;
    for (const auto& v : *values_) {
        if (touched_.count(v.key)) continue;
        const std::string parent = parentOf(v.key);
        if (!parent.empty() && !touched_.count(parent)) continue;  // its parent is listed (or ignored) whole
        if (std::any_of(ignored.begin(), ignored.end(), [&v](std::string_view prefix) { return under(v.key, prefix); })) continue;
        left.push_back(&v);
    }
    std::sort(left.begin(), left.end(), [](const JsonValue* a, const JsonValue* b) { return a->key < b->key; });
    for (const JsonValue* v : left) m.unmapped(v->key, v->text, std::string(reason));
}

bool Document::under(std::string_view path, std::string_view prefix) {
    return path == prefix ||
           (startsWith(path, prefix) && path.size() > prefix.size() && (path[prefix.size()] == '.' || path[prefix.size()] == '['));
}

std::string Document::parentOf(const std::string& path) {
    const size_t cut = path.find_last_of(".[");
    return cut == std::string::npos ? std::string() : path.substr(0, cut);
}

void Document::touch(std::string path) {
    while (!path.empty() && touched_.insert(path).second) path = parentOf(path);
}

Words::Words(const std::vector<std::vector<std::string>>& lines, const std::set<std::string_view>& switches) {
    for (const auto& raw : lines) {
        std::vector<std::string> words(raw.begin(), raw.end());
        size_t i = 0;
        if (i < words.size() && (words[i] == "export" || words[i] == "local" || words[i] == "declare" || words[i] == "readonly")) ++i;
        // NAME=VALUE words before the command: assignments. A value holding flags (ARGS="--num-layers 32 …")
        // is read as words too, as bash splits it where it is expanded.
        std::vector<std::string> expanded;
        std::vector<std::string> unresolvedOf;
        while (i < words.size()) {
            const size_t eq = words[i].find('=');
            if (eq == std::string::npos || eq == 0 || !isIdentifier(std::string_view(words[i]).substr(0, eq))) break;
            const std::string name = words[i].substr(0, eq);
            std::string unresolved;
            const std::string value = resolve(words[i].substr(eq + 1), unresolved);
            if (unresolved.empty())
                env_[name] = value;
            else
                env_.erase(name);
            if (value.find("--") != std::string::npos && value.find_first_of(" \t") != std::string::npos)
                split(value, unresolved, expanded, unresolvedOf);
            ++i;
        }
        // Unquoted expansions split on blanks, and so do quoted array elements ("--fp8-format hybrid") when the
        // array is expanded unquoted, as launch scripts do.
        for (; i < words.size(); ++i) {
            std::string unresolved;
            const std::string word = resolve(words[i], unresolved);
            split(word, unresolved, expanded, unresolvedOf);
        }
        for (size_t k = 0; k < expanded.size(); ++k) {
            const std::string& word = expanded[k];
            const std::string& unresolved = unresolvedOf[k];
            all_.push_back(word);
            if (!looksLikeFlag(word)) continue;
            Flag flag;
            const size_t eq = word.find('=');
            if (word[1] == '-' && eq != std::string::npos) {
                flag.name = word.substr(0, eq);
                flag.value = word.substr(eq + 1);
                flag.hasValue = true;
                flag.unresolved = unresolved;
            } else {
                flag.name = word;
                if (!switches.count(flag.name) && k + 1 < expanded.size() && !looksLikeFlag(expanded[k + 1])) {
                    flag.value = expanded[k + 1];
                    flag.hasValue = true;
                    flag.unresolved = unresolvedOf[k + 1];
                    all_.push_back(flag.value);
                    ++k;
                    for (size_t j = k + 1; j < expanded.size() && !looksLikeFlag(expanded[j]); ++j) flag.more.push_back(expanded[j]);
                }
            }
            flags_.push_back(std::move(flag));
        }
    }
}

Flag* Words::find(std::initializer_list<std::string_view> names) {
    Flag* found = nullptr;
    for (auto& f : flags_)
        if (std::find(names.begin(), names.end(), f.name) != names.end()) {
            f.read = true;
            found = &f;
        }
    return found;
}

void Words::listUnread(Mapping& m, const std::set<std::string_view>& ignored, std::string_view reason) const {
    std::set<std::string> seen;
    for (const auto& f : flags_) {
        if (f.read || ignored.count(f.name) || !seen.insert(f.name).second) continue;
        m.unmapped(f.name, f.value, std::string(reason));
    }
    // A flag the mapping read, given again with another value: argparse keeps the last, which the import took; the
    // first may be what the script's author meant (a copied line, a variable set twice).
    std::map<std::string_view, const Flag*> first, last;
    for (const auto& f : flags_)
        if (f.read && f.hasValue) last[f.name] = &f;
    std::set<std::string_view> warned;
    for (const auto& f : flags_) {
        if (!f.read || !f.hasValue) continue;
        const auto [it, added] = first.try_emplace(f.name, &f);
        if (added || it->second->value == f.value || !warned.insert(f.name).second) continue;
        m.warn(f.name + " is given more than once with different values (" + it->second->value.substr(0, 40) + ", then " +
               f.value.substr(0, 40) + "): the last, " + last[f.name]->value.substr(0, 40) + ", is taken, as argparse takes it");
    }
}

void Words::split(const std::string& word, const std::string& unresolved, std::vector<std::string>& out,
                  std::vector<std::string>& unresolvedOf) {
    size_t start = 0;
    while (start < word.size()) {
        const size_t begin = word.find_first_not_of(" \t\n", start);
        if (begin == std::string::npos) break;
        const size_t end = std::min(word.find_first_of(" \t\n", begin), word.size());
        out.push_back(word.substr(begin, end - begin));
        unresolvedOf.push_back(unresolved);
        start = end;
    }
}

bool Words::looksLikeFlag(std::string_view word) {
    if (word.size() > 2 && word[0] == '-' && word[1] == '-') return true;
    return word == "-tp" || word == "-pp" || word == "-dp" || word == "-q" || word == "-O";
}

std::string Words::resolve(const std::string& word, std::string& unresolved) const {
    std::string out;
    for (size_t i = 0; i < word.size(); ++i) {
        if (word[i] != '$' || i + 1 >= word.size()) {
            out += word[i];
            continue;
        }
        std::string name, fallback;
        bool hasFallback = false;
        size_t end = i + 1;
        if (word[end] == '{') {
            const size_t close = word.find('}', end);
            if (close == std::string::npos) {
                out += word.substr(i);
                break;
            }
            std::string inner = word.substr(end + 1, close - end - 1);
            if (const size_t dash = inner.find(":-"); dash != std::string::npos) {
                fallback = inner.substr(dash + 2);
                hasFallback = true;
                inner = inner.substr(0, dash);
            }
            name = inner;
            end = close + 1;
        } else if (word[end] == '(') {
            if (unresolved.empty()) unresolved = word.substr(i);  // $(command) or $((arithmetic))
            out += word.substr(i);
            break;
        } else {
            while (end < word.size() && (std::isalnum(static_cast<unsigned char>(word[end])) || word[end] == '_')) ++end;
            name = word.substr(i + 1, end - i - 1);
        }
        if (const auto it = env_.find(name); it != env_.end()) {
            // Bounded by what it expands to, not the script's size: variables that double each line (A1="$A0$A0")
            // stop at kMaxExpansionBytes a word and kMaxExpandedBytes for the script, the variable then unresolved.
            if (out.size() + it->second.size() > kMaxExpansionBytes || expandedBytes_ + it->second.size() > kMaxExpandedBytes) {
                if (unresolved.empty())
                    unresolved = "$" + name + " (its expansion passes " +
                                 std::to_string(
                                     (out.size() + it->second.size() > kMaxExpansionBytes ? kMaxExpansionBytes : kMaxExpandedBytes) >> 20) +
                                 " MiB)";
                out += word.substr(i, end - i);
            } else {
                expandedBytes_ += it->second.size();
                out += it->second;
            }
        } else if (hasFallback) {
            // ${NAME:-default} with NAME set nowhere in the script: its default (the environment may set it).
            if (fallback.size() >= 2 && (fallback.front() == '"' || fallback.front() == '\'') && fallback.back() == fallback.front())
                fallback = fallback.substr(1, fallback.size() - 2);
            out += fallback;
            defaults_.insert(name + " (" + fallback + ")");
        } else {
            if (unresolved.empty()) unresolved = "$" + name;
            out += word.substr(i, end - i);
        }
        i = end - 1;
    }
    return out;
}

std::optional<double> flagNumber(Mapping& m, Flag* flag) {
    if (!flag) return std::nullopt;
    if (!flag->unresolved.empty()) {
        m.unmapped(flag->name, flag->value, "depends on " + flag->unresolved + ", which the script does not set to a literal value");
        return std::nullopt;
    }
    const auto value = parseNumber(flag->value);
    if (!value) m.unmapped(flag->name, flag->value, "not a number");
    return value;
}

std::string servingDtype(Mapping& m, Words& w) {
    Flag* dtype = w.find({"--dtype"});
    if (!dtype) return "bf16";
    if (dtype->value == "auto" || dtype->value == "bfloat16") return "bf16";
    if (dtype->value == "float16" || dtype->value == "half") return "fp16";
    m.unmapped(dtype->name, dtype->value, "not auto, bfloat16, float16 or half");
    return "bf16";
}

bool setFromFlag(Mapping& m, Words& w, std::string_view key, std::initializer_list<std::string_view> names) {
    if (const auto v = flagNumber(m, w.find(names))) {
        m.setNumber(key, *v);
        return true;
    }
    return false;
}

void readAllocatorConf(Mapping& m, const Words& w) {
    // PyTorch's defaults where the script sets neither variable, so that nothing of an earlier import stays.
    m.setBool("expandable_segments", false);
    m.setNumber("max_split_size_mb", 0);
    for (const char* name : {"PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF"}) {
        const auto conf = w.variable(name);
        if (!conf) continue;
        size_t start = 0;
        while (start <= conf->size()) {
            const size_t end = std::min(conf->find(',', start), conf->size());
            const std::string option = conf->substr(start, end - start);
            start = end + 1;
            if (option.empty()) continue;
            const size_t colon = option.find(':');
            const std::string key = option.substr(0, colon), value = colon == std::string::npos ? "" : option.substr(colon + 1);
            if (key == "expandable_segments" && (value == "True" || value == "False"))
                m.setBool("expandable_segments", value == "True");
            else if (key == "max_split_size_mb" && !value.empty() && value.find_first_not_of("0123456789") == std::string::npos &&
                     value.size() <= 9)
                m.setNumber("max_split_size_mb", std::stod(value));
            else
                m.unmapped(name, option,
                           key == "expandable_segments" || key == "max_split_size_mb" ? "expects True/False or a whole number of MiB"
                                                                                      : "an allocator option membudget does not model");
        }
    }
}

}  // namespace membudget::detail
