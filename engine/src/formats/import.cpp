// The mapping from each framework's configuration keys to membudget's (docs/import.md), written once over what
// a parser made of the file (ImportInput), so that the CLI and the page import identically.
#include "membudget/formats/import.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <unordered_map>

#include "formats/framework_names.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "model/lora.hpp"

namespace membudget {

namespace {

using namespace detail;  // the frameworks' name tables (framework_names.hpp) and LoRA's targets
using detail::canonicalLoraTargets;
using detail::formatNumber;
using detail::parseLoraTargets;
using detail::parseNumber;

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }
bool startsWith(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

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
bool inCode(std::string_view text, std::string_view part) {
    return anyLine(text, [part](std::string_view line) { return !line.empty() && line.front() != '#' && contains(line, part); });
}

bool isIdentifier(std::string_view text) {
    if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
    return std::all_of(text.begin(), text.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// What an import sets, warns and could not map; assignments come out in the field table's order.
class Mapping {
public:
    void set(std::string_view key, std::string text) {
        for (auto& a : set_)
            if (a.key == key) {
                a.text = std::move(text);
                return;
            }
        set_.push_back({std::string(key), std::move(text)});
    }
    void setNumber(std::string_view key, double value) { set(key, formatNumber(value)); }
    void setBool(std::string_view key, bool value) { set(key, value ? "true" : "false"); }
    bool has(std::string_view key) const {
        return std::any_of(set_.begin(), set_.end(), [key](const Assignment& a) { return a.key == key; });
    }
    std::optional<double> number(std::string_view key) const {
        for (const auto& a : set_)
            if (a.key == key) return parseNumber(a.text);
        return std::nullopt;
    }
    void erase(std::string_view key) {
        std::erase_if(set_, [key](const Assignment& a) { return a.key == key; });
    }
    void unmapped(std::string key, std::string value, std::string reason) {
        unmapped_.push_back({std::move(key), std::move(value), std::move(reason)});
    }
    void warn(std::string message) { warnings_.push_back(std::move(message)); }
    // Every training import: membudget's own method, in training, following the framework.
    void training(Framework framework) {
        set("method", "membudget");
        set("framework", std::string(toString(framework)));
        set("mode", "training");
    }
    void error(std::string message) { errors_.push_back({"import", std::move(message)}); }

    ImportResult finish(ImportFormat format) && {
        const auto table = fields();
        auto rank = [&table](const std::string& key) {
            for (size_t i = 0; i < table.size(); ++i)
                if (table[i].key == key) return i;
            return table.size();
        };
        std::stable_sort(set_.begin(), set_.end(), [&](const Assignment& a, const Assignment& b) { return rank(a.key) < rank(b.key); });
        ImportResult out{format, std::move(set_), std::move(unmapped_), std::move(warnings_), std::move(errors_)};
        if (!out.ok()) out.assignments.clear();
        return out;
    }

private:
    std::vector<Assignment> set_;
    std::vector<Unmapped> unmapped_;
    std::vector<std::string> warnings_;
    std::vector<Problem> errors_;
};

// ---------------------------------------------------------------------------------------------------------
// Structured documents (JSON, TOML, YAML): values by path, each marked when a mapping reads it, so that what
// no mapping read can be listed.

class Document {
public:
    explicit Document(const std::vector<JsonValue>& values) : values_(&values) {
        for (const auto& v : values) byPath_.emplace(v.key, &v);
    }
    const JsonValue* get(std::string_view path) {
        const auto it = byPath_.find(std::string(path));
        if (it == byPath_.end()) return nullptr;
        touch(it->first);
        return it->second;
    }
    std::optional<double> number(std::string_view path) {
        const JsonValue* v = get(path);
        if (!v) return std::nullopt;
        if (v->type == "number" || v->type == "string") return parseNumber(v->text);
        return std::nullopt;
    }
    std::optional<bool> boolean(std::string_view path) {
        const JsonValue* v = get(path);
        if (!v) return std::nullopt;
        if (v->type == "boolean") return v->text == "true";
        if (v->type == "string") {
            const std::string t = lower(v->text);
            if (t == "true") return true;
            if (t == "false") return false;
        }
        return std::nullopt;
    }
    std::optional<std::string> string(std::string_view path) {
        const JsonValue* v = get(path);
        if (!v || (v->type != "string" && v->type != "number")) return std::nullopt;
        return v->text;
    }
    // The string elements of an array (path[0], path[1], …).
    std::vector<std::string> strings(std::string_view path) {
        std::vector<std::string> out;
        if (!get(path)) return out;
        for (size_t i = 0;; ++i) {
            const JsonValue* v = get(std::string(path) + "[" + std::to_string(i) + "]");
            if (!v) break;
            if (v->type == "string") out.push_back(v->text);
        }
        return out;
    }
    bool present(std::string_view path) const { return byPath_.count(std::string(path)) > 0; }
    // Marks a value and everything under it as read.
    void markRead(std::string_view prefix) {
        for (const auto& [path, v] : byPath_)
            if (under(path, prefix)) touch(path);
    }
    // What no mapping read, each at the highest level nothing was read from (a whole unread table is one entry),
    // unless `ignored` covers it (settings with no effect on memory), sorted by path: parsers order mappings
    // differently (insertion or sorted).
    void listUnread(Mapping& m, std::span<const std::string_view> ignored, std::string_view reason) const {
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

private:
    static bool under(std::string_view path, std::string_view prefix) {
        return path == prefix ||
               (startsWith(path, prefix) && path.size() > prefix.size() && (path[prefix.size()] == '.' || path[prefix.size()] == '['));
    }
    static std::string parentOf(const std::string& path) {
        const size_t cut = path.find_last_of(".[");
        return cut == std::string::npos ? std::string() : path.substr(0, cut);
    }
    void touch(std::string path) {
        while (!path.empty() && touched_.insert(path).second) path = parentOf(path);
    }

    const std::vector<JsonValue>* values_;
    std::unordered_map<std::string, const JsonValue*> byPath_;
    std::set<std::string> touched_;
};

// ---------------------------------------------------------------------------------------------------------
// Words (shell scripts and commands): variables assigned literally are resolved, flags collected in order.

struct Flag {
    std::string name;   // "--tensor-model-parallel-size", "-tp"
    std::string value;  // "" for a switch
    bool hasValue = false;
    std::string unresolved;  // the first variable the value needs that the script does not set literally
    bool read = false;
};

class Words {
public:
    // switches: flags that take no value, so that the word after them is not taken as theirs.
    Words(const std::vector<std::vector<std::string>>& lines, const std::set<std::string_view>& switches) {
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
                    }
                }
                flags_.push_back(std::move(flag));
            }
        }
    }

    // The last occurrence of any of the names (a later flag overrides an earlier one, as argparse does).
    Flag* find(std::initializer_list<std::string_view> names) {
        Flag* found = nullptr;
        for (auto& f : flags_)
            if (std::find(names.begin(), names.end(), f.name) != names.end()) {
                f.read = true;
                found = &f;
            }
        return found;
    }
    bool has(std::initializer_list<std::string_view> names) { return find(names) != nullptr; }
    // Variables the script gives a default for but does not set (${NAME:-default}), as "NAME (default)".
    const std::set<std::string>& defaults() const { return defaults_; }
    const std::vector<std::string>& all() const { return all_; }
    std::vector<Flag>& flags() { return flags_; }

    // Reports every flag no mapping read, once, unless it is ignored (no effect on memory).
    void listUnread(Mapping& m, const std::set<std::string_view>& ignored, std::string_view reason) const {
        std::set<std::string> seen;
        for (const auto& f : flags_) {
            if (f.read || ignored.count(f.name) || !seen.insert(f.name).second) continue;
            m.unmapped(f.name, f.value, std::string(reason));
        }
    }

private:
    static void split(const std::string& word, const std::string& unresolved, std::vector<std::string>& out,
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

    // --long flags, and the few short ones the formats have (vLLM's -tp, -pp, -dp, -q): not `[ -n … ]` tests.
    static bool looksLikeFlag(std::string_view word) {
        if (word.size() > 2 && word[0] == '-' && word[1] == '-') return true;
        return word == "-tp" || word == "-pp" || word == "-dp" || word == "-q" || word == "-O";
    }

    // $NAME, ${NAME} and ${NAME:-default} replaced from the literal assignments seen so far.
    std::string resolve(const std::string& word, std::string& unresolved) const {
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
                out += it->second;
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

    std::map<std::string, std::string> env_;
    mutable std::set<std::string> defaults_;
    std::vector<Flag> flags_;
    std::vector<std::string> all_;
};

// A flag's value as a number, or nothing (with the flag listed as unmapped when it has a value that is not one).
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

// Sets `key` from a flag's numeric value.
bool setFromFlag(Mapping& m, Words& w, std::string_view key, std::initializer_list<std::string_view> names) {
    if (const auto v = flagNumber(m, w.find(names))) {
        m.setNumber(key, *v);
        return true;
    }
    return false;
}

double ceilTo(double value, double multiple) { return std::ceil(value / multiple) * multiple; }

// ---------------------------------------------------------------------------------------------------------
// Megatron-LM (megatron/training/arguments.py)

const std::set<std::string_view> kMegatronSwitches{"--sequence-parallel",
                                                   "--use-distributed-optimizer",
                                                   "--use-megatron-fsdp",
                                                   "--group-query-attention",
                                                   "--swiglu",
                                                   "--squared-relu",
                                                   "--disable-bias-linear",
                                                   "--add-qkv-bias",
                                                   "--untie-embeddings-and-output-weights",
                                                   "--bf16",
                                                   "--fp16",
                                                   "--multi-latent-attention",
                                                   "--grad-reduce-in-bf16",
                                                   "--accumulate-allreduce-grads-in-fp32",
                                                   "--moe-grouped-gemm",
                                                   "--overlap-grad-reduce",
                                                   "--overlap-param-gather",
                                                   "--use-flash-attn",
                                                   "--no-masked-softmax-fusion",
                                                   "--use-mcore-models",
                                                   "--no-gradient-accumulation-fusion",
                                                   "--apply-layernorm-1p",
                                                   "--qk-layernorm",
                                                   "--moe-shared-expert-gate",
                                                   "--no-load-optim",
                                                   "--no-load-rng",
                                                   "--mock-data",
                                                   "--tp-comm-overlap",
                                                   "--fp8-param-gather",
                                                   "--moe-router-load-balancing-type-none",
                                                   "--use-rotary-position-embeddings",
                                                   "--no-position-embedding",
                                                   "--bf16-reduce",
                                                   "--distributed-timeout-minutes-none",
                                                   "--log-throughput",
                                                   "--log-timers-to-tensorboard",
                                                   "--log-memory-to-tensorboard",
                                                   "--log-validation-ppl-to-tensorboard",
                                                   "--use-dist-ckpt",
                                                   "--ckpt-fully-parallel-save",
                                                   "--ckpt-fully-parallel-load",
                                                   "--async-save",
                                                   "--no-persist-layer-norm",
                                                   "--no-bias-swiglu-fusion",
                                                   "--no-rope-fusion",
                                                   "--moe-pad-expert-input-to-capacity",
                                                   "--moe-router-pre-softmax",
                                                   "--calculate-per-token-loss",
                                                   "--use-torch-fsdp2",
                                                   "--no-create-attention-mask-in-dataloader",
                                                   "--tensorboard-queue-size-none",
                                                   "--enable-experimental",
                                                   "--standalone",
                                                   "--no-async-tensor-model-parallel-allreduce",
                                                   "--manual-gc",
                                                   "--exit-on-missing-checkpoint",
                                                   "--use-checkpoint-args",
                                                   "--no-save-optim",
                                                   "--no-save-rng",
                                                   "--check-weight-hash-across-dp-replicas-interval-none"};

// Settings that change nothing membudget models (learning rates, data, logging, checkpoints, the launcher's
// rendezvous), and flags read only on some paths (the tokenizer's files when --vocab-size is given, the
// architecture's flags without --num-layers): passed over silently.
const std::set<std::string_view> kMegatronIgnored{"--vocab-file",
                                                  "--merge-file",
                                                  "--tokenizer-type",
                                                  "--make-vocab-size-divisible-by",
                                                  "--position-embedding-type",
                                                  "--max-position-embeddings",
                                                  "--micro-batch-size",
                                                  "--kv-channels",
                                                  "--nproc_per_node",
                                                  "--nproc-per-node",
                                                  "--nnodes",
                                                  "--hidden-dropout",
                                                  "--attention-dropout",
                                                  "--untie-embeddings-and-output-weights",
                                                  "--lr",
                                                  "--min-lr",
                                                  "--lr-decay-style",
                                                  "--lr-warmup-fraction",
                                                  "--lr-warmup-iters",
                                                  "--lr-decay-iters",
                                                  "--lr-warmup-samples",
                                                  "--lr-decay-samples",
                                                  "--weight-decay",
                                                  "--clip-grad",
                                                  "--adam-beta1",
                                                  "--adam-beta2",
                                                  "--adam-eps",
                                                  "--init-method-std",
                                                  "--train-iters",
                                                  "--train-samples",
                                                  "--eval-iters",
                                                  "--eval-interval",
                                                  "--save-interval",
                                                  "--log-interval",
                                                  "--save",
                                                  "--load",
                                                  "--data-path",
                                                  "--tokenizer-model",
                                                  "--split",
                                                  "--tensorboard-dir",
                                                  "--wandb-project",
                                                  "--wandb-exp-name",
                                                  "--seed",
                                                  "--master_addr",
                                                  "--master_port",
                                                  "--master-addr",
                                                  "--master-port",
                                                  "--node_rank",
                                                  "--node-rank",
                                                  "--rdzv_id",
                                                  "--rdzv_backend",
                                                  "--rdzv_endpoint",
                                                  "--rdzv-id",
                                                  "--rdzv-backend",
                                                  "--rdzv-endpoint",
                                                  "--data-cache-path",
                                                  "--log-throughput",
                                                  "--log-timers-to-tensorboard",
                                                  "--log-memory-to-tensorboard",
                                                  "--log-validation-ppl-to-tensorboard",
                                                  "--use-dist-ckpt",
                                                  "--use-mcore-models",
                                                  "--mock-data",
                                                  "--distributed-backend",
                                                  "--timing-log-level",
                                                  "--tensorboard-log-interval",
                                                  "--log-params-norm",
                                                  "--log-num-zeros-in-grad",
                                                  "--ckpt-format",
                                                  "--dist-ckpt-strictness",
                                                  "--use-flash-attn",
                                                  "--no-masked-softmax-fusion",
                                                  "--no-gradient-accumulation-fusion",
                                                  "--overlap-grad-reduce",
                                                  "--overlap-param-gather",
                                                  "--no-load-optim",
                                                  "--no-load-rng",
                                                  "--exit-duration-in-mins",
                                                  "--exit-interval",
                                                  "--num-workers",
                                                  "--dataloader-type",
                                                  "--rotary-base",
                                                  "--rotary-percent",
                                                  "--norm-epsilon",
                                                  "--rotary-seq-len-interpolation-factor",
                                                  "--use-rope-scaling",
                                                  "--attention-softmax-in-fp32",
                                                  "--async-save",
                                                  "--ckpt-fully-parallel-save",
                                                  "--ckpt-fully-parallel-load",
                                                  "--wandb-save-dir",
                                                  "--manual-gc",
                                                  "--manual-gc-interval",
                                                  "--tensorboard-queue-size",
                                                  "--logging-level",
                                                  "--eval-samples",
                                                  "--distributed-timeout-minutes",
                                                  "--standalone",
                                                  "--max_restarts",
                                                  "--max-restarts",
                                                  "--train-data-path",
                                                  "--valid-data-path",
                                                  "--test-data-path",
                                                  "--data-args-path",
                                                  "--per-split-data-args-path",
                                                  "--moe-router-load-balancing-type",
                                                  "--moe-aux-loss-coeff",
                                                  "--moe-z-loss-coeff",
                                                  "--moe-token-dispatcher-type",
                                                  "--moe-router-score-function",
                                                  "--moe-router-topk-scaling-factor",
                                                  "--moe-router-num-groups",
                                                  "--moe-router-group-topk",
                                                  "--moe-router-bias-update-rate",
                                                  "--moe-router-enable-expert-bias",
                                                  "--moe-grouped-gemm",
                                                  "--moe-router-pre-softmax",
                                                  "--check-for-nan-in-loss-and-grad",
                                                  "--no-check-for-nan-in-loss-and-grad",
                                                  "--apply-layernorm-1p",
                                                  "--qk-layernorm",
                                                  "--exit-on-missing-checkpoint",
                                                  "--use-checkpoint-args",
                                                  "--no-save-optim",
                                                  "--no-save-rng",
                                                  "--pretrained-checkpoint",
                                                  "--finetune",
                                                  "--enable-experimental",
                                                  "--calculate-per-token-loss",
                                                  "--bf16-reduce",
                                                  "--cross-entropy-loss-fusion",
                                                  "--cross-entropy-fusion-impl",
                                                  "--no-persist-layer-norm",
                                                  "--no-bias-swiglu-fusion",
                                                  "--no-rope-fusion",
                                                  "--no-create-attention-mask-in-dataloader",
                                                  "--moe-permute-fusion",
                                                  "--moe-router-dtype",
                                                  "--moe-router-fusion"};

std::optional<double> worldSize(Mapping& m, Words& w) {
    Flag* perNode = w.find({"--nproc_per_node", "--nproc-per-node"});
    Flag* nodes = w.find({"--nnodes"});
    if (!perNode) return std::nullopt;
    const auto g = flagNumber(m, perNode);
    std::optional<double> n = 1.0;
    if (nodes) n = flagNumber(m, nodes);  // "1:4" (elastic) is not one number
    if (!g || !n) return std::nullopt;
    return *g * *n;
}

void importMegatron(Words& w, Mapping& m) {
    m.training(Framework::megatron);
    // Parallelism: Megatron-LM's defaults are 1.
    if (!setFromFlag(m, w, "tp", {"--tensor-model-parallel-size"})) m.setNumber("tp", 1);
    if (!setFromFlag(m, w, "pp", {"--pipeline-model-parallel-size"})) m.setNumber("pp", 1);
    if (!setFromFlag(m, w, "cp", {"--context-parallel-size"})) m.setNumber("cp", 1);
    if (!setFromFlag(m, w, "ep", {"--expert-model-parallel-size"})) m.setNumber("ep", 1);
    if (!setFromFlag(m, w, "etp", {"--expert-tensor-parallel-size"})) m.setNumber("etp", 0);
    m.setBool("sp", w.has({"--sequence-parallel"}));
    double zero = w.has({"--use-distributed-optimizer"}) ? 1 : 0;
    if (w.has({"--use-megatron-fsdp", "--use-torch-fsdp2"})) zero = 3;
    if (Flag* strategy = w.find({"--data-parallel-sharding-strategy"})) {
        const std::map<std::string, double> stages{{"no_shard", 0}, {"optim", 1}, {"optim_grads", 2}, {"optim_grads_params", 3}};
        if (const auto it = stages.find(strategy->value); it != stages.end())
            zero = it->second;
        else
            m.unmapped(strategy->name, strategy->value, "not one of no_shard, optim, optim_grads, optim_grads_params");
    }
    m.setNumber("zero", zero);

    // The architecture, where the script gives it.
    Flag* layersFlag = w.find({"--num-layers"});
    Flag* hiddenFlag = w.find({"--hidden-size"});
    Flag* headsFlag = w.find({"--num-attention-heads"});
    const auto layers = flagNumber(m, layersFlag);
    const auto hidden = flagNumber(m, hiddenFlag);
    const auto heads = flagNumber(m, headsFlag);
    const auto tp = m.number("tp").value_or(1);
    const auto pp = m.number("pp").value_or(1);
    const auto cp = m.number("cp").value_or(1);
    if (layersFlag || hiddenFlag || headsFlag) {
        m.set("model", "custom");
        m.set("name", "");  // a script names no model: nothing of an earlier one stays
        m.setNumber("params", 0);
        if (layers) m.setNumber("layers", *layers);
        if (hidden) m.setNumber("hidden", *hidden);
        if (heads) m.setNumber("heads", *heads);
        const bool swiglu = w.has({"--swiglu"});
        m.setBool("gated_ffn", swiglu);
        if (!setFromFlag(m, w, "ffn", {"--ffn-hidden-size"}) && hidden)
            // arguments.py: ffn_hidden_size defaults to 4h, or with SwiGLU to int(4h · 2/3 / 64) × 64.
            m.setNumber("ffn", swiglu ? std::floor(4 * *hidden * 2 / 3 / 64) * 64 : 4 * *hidden);
        if (w.has({"--group-query-attention"})) {
            if (!setFromFlag(m, w, "kv_heads", {"--num-query-groups"}))
                m.unmapped("--group-query-attention", "", "without --num-query-groups");
        } else if (heads) {
            m.setNumber("kv_heads", *heads);
        }
        if (!setFromFlag(m, w, "head_dim", {"--kv-channels"})) m.setNumber("head_dim", 0);
        const Flag* normFlag = w.find({"--normalization"});
        m.set("norm", normFlag && lower(normFlag->value) == "rmsnorm" ? "rmsnorm" : "layernorm");
        m.setBool("bias", !w.has({"--disable-bias-linear"}));
        m.setBool("qkv_bias", w.has({"--add-qkv-bias"}));
        m.setBool("tied_embeddings", !w.has({"--untie-embeddings-and-output-weights"}));
        // Positions: learned_absolute (the default) keeps a table of max_position_embeddings rows.
        const Flag* posFlag = w.find({"--position-embedding-type"});
        const bool learned =
            (!posFlag || posFlag->value == "learned_absolute") && !w.has({"--use-rotary-position-embeddings", "--no-position-embedding"});
        if (!learned) {
            m.setNumber("pos_emb", 0);
        } else if (!setFromFlag(m, w, "pos_emb", {"--max-position-embeddings"})) {
            if (const auto seq = flagNumber(m, w.find({"--seq-length"}))) m.setNumber("pos_emb", *seq);
        }
        // The vocabulary: --vocab-size, or the GPT-2 or Llama-2 tokenizer's, padded as _vocab_size_with_padding
        // pads it, to a multiple of make_vocab_size_divisible_by (128) × TP.
        double divisible = 128;
        if (const auto d = flagNumber(m, w.find({"--make-vocab-size-divisible-by"}))) divisible = *d;
        const Flag* tokenizer = w.find({"--tokenizer-type"});
        std::optional<double> vocab;
        if (Flag* size = w.find({"--vocab-size"})) {
            vocab = flagNumber(m, size);
            if (vocab && tokenizer && tokenizer->value == "NullTokenizer") *vocab += 1;  // NullTokenizer adds its EOD token
        } else if ((tokenizer && tokenizer->value == "GPT2BPETokenizer") || (!tokenizer && w.has({"--merge-file", "--vocab-file"}))) {
            vocab = 50257;  // GPT-2's BPE (a --vocab-file and --merge-file with no --tokenizer-type: older Megatron-LM's default)
        } else {
            m.unmapped(tokenizer ? "--tokenizer-type" : "vocab", tokenizer ? tokenizer->value : "",
                       "the vocabulary comes from the tokenizer's files; set vocab");
        }
        if (vocab) m.setNumber("vocab", ceilTo(*vocab, divisible * tp));
        // Mixture of experts.
        if (setFromFlag(m, w, "experts", {"--num-experts"})) {
            if (!setFromFlag(m, w, "experts_per_token", {"--moe-router-topk"})) m.setNumber("experts_per_token", 2);
            if (!setFromFlag(m, w, "moe_ffn", {"--moe-ffn-hidden-size"})) m.setNumber("moe_ffn", 0);
            if (!setFromFlag(m, w, "shared_expert_ffn", {"--moe-shared-expert-intermediate-size"})) m.setNumber("shared_expert_ffn", 0);
            m.setBool("shared_expert_gate", w.has({"--moe-shared-expert-gate"}));
            m.setNumber("moe_layer_freq", 1);
            if (Flag* freq = w.find({"--moe-layer-freq"})) {
                if (const auto f = parseNumber(freq->value); f && freq->unresolved.empty())
                    m.setNumber("moe_layer_freq", *f);
                else {
                    m.erase("moe_layer_freq");
                    m.unmapped(freq->name, freq->value,
                               "a layer pattern; membudget takes a frequency N (every N-th layer) and first_dense_layers");
                }
            }
            if (!setFromFlag(m, w, "capacity_factor", {"--moe-expert-capacity-factor"})) m.setNumber("capacity_factor", 1);
        } else {
            m.setNumber("experts", 0);
        }
        if (w.has({"--multi-latent-attention"})) {
            if (!setFromFlag(m, w, "q_lora_rank", {"--q-lora-rank"})) m.setNumber("q_lora_rank", 0);
            setFromFlag(m, w, "kv_lora_rank", {"--kv-lora-rank"});
            setFromFlag(m, w, "qk_nope_dim", {"--qk-head-dim"});
            setFromFlag(m, w, "qk_rope_dim", {"--qk-pos-emb-head-dim"});
            setFromFlag(m, w, "v_head_dim", {"--v-head-dim"});
        } else {
            m.setNumber("kv_lora_rank", 0);
        }
        if (!setFromFlag(m, w, "mtp_layers", {"--mtp-num-layers"})) m.setNumber("mtp_layers", 0);
    }

    // Pipeline layout.
    if (!setFromFlag(m, w, "first_stage_layers", {"--decoder-first-pipeline-num-layers"})) m.setNumber("first_stage_layers", 0);
    if (!setFromFlag(m, w, "last_stage_layers", {"--decoder-last-pipeline-num-layers"})) m.setNumber("last_stage_layers", 0);
    if (const auto perStage = flagNumber(m, w.find({"--num-layers-per-virtual-pipeline-stage"}))) {
        if (layers && *perStage > 0 && std::fmod(*layers / pp, *perStage) == 0)
            m.setNumber("vpp", *layers / pp / *perStage);
        else
            m.unmapped("--num-layers-per-virtual-pipeline-stage", formatNumber(*perStage), "needs --num-layers divisible by pp × this");
    } else if (!setFromFlag(m, w, "vpp", {"--num-virtual-stages-per-pipeline-rank", "--virtual-pipeline-model-parallel-size"})) {
        m.setNumber("vpp", 1);
    }

    // Batch: the world size gives DP, and the global batch the micro-batches.
    setFromFlag(m, w, "seq", {"--seq-length", "--encoder-seq-length"});
    const auto mb = flagNumber(m, w.find({"--micro-batch-size"}));
    if (mb) m.setNumber("mb", *mb);
    std::optional<double> dp;
    if (const auto world = worldSize(m, w)) {
        if (std::fmod(*world, tp * pp * cp) == 0)
            dp = *world / (tp * pp * cp);
        else
            m.unmapped("dp", formatNumber(*world) + " GPUs",
                       "the world size is not a multiple of TP × PP × CP = " + formatNumber(tp * pp * cp) + "; set dp");
    } else {
        m.unmapped("dp", "", "the script does not say how many GPUs it runs on (torchrun --nproc-per-node and --nnodes); set dp");
    }
    if (dp) m.setNumber("dp", *dp);
    if (const auto gbs = flagNumber(m, w.find({"--global-batch-size"}))) {
        if (dp && mb && std::fmod(*gbs, *mb * *dp) == 0)
            m.setNumber("microbatches", *gbs / (*mb * *dp));
        else
            m.unmapped("--global-batch-size", formatNumber(*gbs), "micro-batches = global batch / (mb × dp) needs dp and mb");
    } else if (dp && mb) {
        m.setNumber("microbatches", 1);  // the global batch defaults to mb × dp
    }

    // Memory-saving choices.
    const Flag* granularity = w.find({"--recompute-granularity"});
    m.set("ckpt", granularity && (granularity->value == "full" || granularity->value == "selective") ? granularity->value : "none");
    m.setNumber("recompute_layers", 0);
    if (granularity && granularity->value == "full") {
        const Flag* method = w.find({"--recompute-method"});
        if (method && method->value == "block")
            setFromFlag(m, w, "recompute_layers", {"--recompute-num-layers"});
        else {
            m.setNumber("recompute_layers", 0);
            if (Flag* n = w.find({"--recompute-num-layers"}); n && n->value != "1")
                m.unmapped(n->name, n->value, "uniform recomputation of groups of layers: membudget keeps every layer's input");
        }
    }
    const bool bf16 = w.has({"--bf16"}), fp16 = w.has({"--fp16"});
    const Flag* fp8 = w.find({"--fp8-format", "--fp8"});
    m.set("precision", fp8 ? "fp8" : bf16 ? "bf16" : fp16 ? "fp16" : "fp32");
    if (fp8) m.set("fp8_recipe", "te");
    // arguments.py: with --bf16 the gradients accumulate and reduce in FP32 unless --grad-reduce-in-bf16.
    const bool fp32Grads = (bf16 && !w.has({"--grad-reduce-in-bf16"})) || (fp16 && w.has({"--accumulate-allreduce-grads-in-fp32"}));
    m.setNumber("static_bytes", fp32Grads ? 18 : 16);
    const Flag* backend = w.find({"--attention-backend"});
    m.set("attention", backend && backend->value == "unfused" ? "eager" : "flash");
    const auto hiddenDropout = flagNumber(m, w.find({"--hidden-dropout"}));
    const auto attentionDropout = flagNumber(m, w.find({"--attention-dropout"}));
    m.setBool("dropout", !(hiddenDropout == 0.0 && attentionDropout == 0.0));
    if (Flag* optimizer = w.find({"--optimizer"})) {
        const std::map<std::string, std::string> known{{"adam", "adamw"}, {"sgd", "sgd"}, {"muon", "muon"}};
        if (const auto it = known.find(optimizer->value); it != known.end())
            m.set("optimizer", it->second);
        else
            m.unmapped(optimizer->name, optimizer->value, "not adam, sgd or muon");
    } else {
        m.set("optimizer", "adamw");
    }
    const bool megatron = std::any_of(w.flags().begin(), w.flags().end(), [](const Flag& f) {
        return kMegatronSwitches.count(f.name) > 0 || f.name == "--num-layers" || f.name == "--hidden-size" ||
               f.name == "--micro-batch-size" || f.name == "--tensor-model-parallel-size" || f.name == "--pipeline-model-parallel-size" ||
               f.name == "--seq-length" || f.name == "--global-batch-size" || f.name == "--num-attention-heads" ||
               f.name == "--recompute-granularity";
    });
    if (!megatron) m.error("no Megatron-LM flags (--tensor-model-parallel-size, --num-layers, --micro-batch-size, …) in the text");
    for (const auto& d : w.defaults())
        m.warn("${" + d.substr(0, d.find(' ')) + "} is set nowhere in the script: its default " + d.substr(d.find(' ') + 1) + " was used");
    w.listUnread(m, kMegatronIgnored, "not modelled by membudget");
}

// ---------------------------------------------------------------------------------------------------------
// torchtitan (torchtitan/config/job_config.py; the llama3 and deepseek_v3 flavors)

constexpr std::string_view kTorchtitanIgnored[] = {"job",
                                                   "metrics",
                                                   "checkpoint",
                                                   "lr_scheduler",
                                                   "profiling",
                                                   "comm",
                                                   "validation",
                                                   "fault_tolerance",
                                                   "experimental",
                                                   "memory_estimation",
                                                   "optimizer.lr",
                                                   "optimizer.eps",
                                                   "optimizer.weight_decay",
                                                   "optimizer.beta1",
                                                   "optimizer.beta2",
                                                   "optimizer.implementation",
                                                   "optimizer.early_step_in_backward",
                                                   "training.steps",
                                                   "training.max_norm",
                                                   "training.dataset",
                                                   "training.dataset_path",
                                                   "training.warmup_steps",
                                                   "training.seed",
                                                   "training.deterministic",
                                                   "training.gc_freq",
                                                   "model.tokenizer_path",
                                                   "model.hf_assets_path",
                                                   "model.print_after_conversion",
                                                   "model.norm_type",
                                                   "float8",
                                                   "activation_checkpoint.selective_ac_option",
                                                   "parallelism.pipeline_parallel_split_points",
                                                   "parallelism.module_fqns_per_model_part",
                                                   "parallelism.pipeline_parallel_layers_per_stage",
                                                   "parallelism.pipeline_parallel_first_stage_less_layers",
                                                   "parallelism.pipeline_parallel_last_stage_less_layers",
                                                   "parallelism.context_parallel_rotate_method",
                                                   "parallelism.fsdp_reshard_after_forward",
                                                   "parallelism.disable_loss_parallel",
                                                   "parallelism.enable_compiled_autograd",
                                                   "compile",
                                                   "quantize",
                                                   "training.local_batch_size",
                                                   "training.mixed_precision_reduce",
                                                   "activation_checkpoint.preserve_rng_state",
                                                   "activation_checkpoint.determinism_check",
                                                   "activation_checkpoint.debug",
                                                   "model.converters",
                                                   "training.global_batch_size"};

void importTorchtitan(Document& d, Mapping& m) {
    m.training(Framework::torchtitan);
    const auto name = d.string("model.name");
    const auto flavor = d.string("model.flavor");
    if (name && flavor) {
        const auto* found = std::find_if(std::begin(kTorchtitanFlavors), std::end(kTorchtitanFlavors),
                                         [&](const TorchtitanFlavor& f) { return f.name == *name && f.flavor == *flavor; });
        if (found != std::end(kTorchtitanFlavors))
            m.set("model", std::string(found->preset));
        else
            m.unmapped("model.flavor", *name + " " + *flavor, "no preset for this model and flavor; import its config.json");
    }
    const double tp = d.number("parallelism.tensor_parallel_degree").value_or(1);
    const double pp = d.number("parallelism.pipeline_parallel_degree").value_or(1);
    const double cp = d.number("parallelism.context_parallel_degree").value_or(1);
    const double ep = d.number("parallelism.expert_parallel_degree").value_or(1);
    m.setNumber("tp", tp);
    m.setNumber("pp", pp);
    m.setNumber("cp", cp);
    m.setNumber("ep", ep);
    const double shard = d.number("parallelism.data_parallel_shard_degree").value_or(-1);
    const double replicate = d.number("parallelism.data_parallel_replicate_degree").value_or(1);
    std::optional<double> dp;
    if (shard == -1)
        m.unmapped("parallelism.data_parallel_shard_degree", "-1",
                   "-1 takes the GPUs the other degrees leave, and the file does not say how many GPUs; set dp");
    else
        dp = shard * replicate;
    if (dp) m.setNumber("dp", *dp);
    m.setNumber("zero", shard == 1 ? 0 : 3);  // FSDP2 wherever the shard degree is not 1, else DDP (replicate)
    m.setBool("sp", tp > 1);                  // torchtitan's TP plan shards the norms' regions (SequenceParallel)

    const auto local = d.number("training.local_batch_size") ? d.number("training.local_batch_size") : d.number("training.batch_size");
    const auto global = d.number("training.global_batch_size");
    if (pp > 1) {
        const double mb = d.number("parallelism.pipeline_parallel_microbatch_size").value_or(1);
        m.setNumber("mb", mb);
        if (local && std::fmod(*local, mb) == 0) m.setNumber("microbatches", *local / mb);
        // The schedules with several stages per rank (Interleaved1F1B, InterleavedZeroBubble, ZBVZeroBubble) make two.
        const auto schedule = d.string("parallelism.pipeline_parallel_schedule").value_or("1F1B");
        m.setNumber("vpp", schedule == "1F1B" || schedule == "GPipe" ? 1 : 2);
    } else {
        if (local) m.setNumber("mb", *local);
        if (local && dp && global && *global > 0) {
            if (std::fmod(*global, *local * *dp) == 0)
                m.setNumber("microbatches", *global / (*local * *dp));
            else
                m.unmapped("training.global_batch_size", formatNumber(*global), "not a multiple of local_batch_size × dp");
        } else {
            m.setNumber("microbatches", 1);
        }
        m.setNumber("vpp", 1);
    }
    if (const auto seq = d.number("training.seq_len")) m.setNumber("seq", *seq);
    const auto mode = d.string("activation_checkpoint.mode").value_or("selective");
    const auto option = d.string("activation_checkpoint.selective_ac_option").value_or("2");
    m.setNumber("ckpt_every", 1);
    if (mode == "none") {
        m.set("ckpt", "none");
    } else if (mode == "full") {
        m.set("ckpt", "full");
    } else if (mode == "selective" && option == "op") {
        m.set("ckpt", "op");
    } else if (mode == "selective" && parseNumber(option)) {
        m.set("ckpt", "full");
        m.setNumber("ckpt_every", *parseNumber(option));
    } else {
        m.unmapped("activation_checkpoint.mode", mode, "not none, full or selective (op or a layer interval)");
    }
    // compile.components (newer torchtitan) says what is compiled: the model's blocks, the loss, or both.
    bool compiled = d.boolean("compile.enable").value_or(false) || d.boolean("training.compile").value_or(false);
    if (compiled && d.present("compile.components")) {
        const auto components = d.strings("compile.components");
        if (std::find(components.begin(), components.end(), "model") == components.end()) {
            compiled = false;
            m.unmapped("compile.components", components.empty() ? "" : components.front(),
                       "only the loss is compiled; membudget's compile is the model's blocks");
        }
    }
    m.setBool("compile", compiled);
    const auto converters = d.strings("model.converters");
    const bool float8 = std::find(converters.begin(), converters.end(), "float8") != converters.end() ||
                        std::find(converters.begin(), converters.end(), "quantize.linear.float8") != converters.end() ||
                        d.boolean("float8.enable_float8_linear").value_or(false);
    const auto param = d.string("training.mixed_precision_param").value_or("bfloat16");
    m.set("precision", float8 ? "fp8" : param == "float32" ? "fp32" : "bf16");
    if (float8) m.set("fp8_recipe", "torchao");
    if (const auto optimizer = d.string("optimizer.name")) {
        if (*optimizer == "AdamW" || *optimizer == "Adam")
            m.set("optimizer", "adamw");
        else
            m.unmapped("optimizer.name", *optimizer, "not AdamW or Adam");
    } else {
        m.set("optimizer", "adamw");
    }
    if (d.boolean("training.enable_cpu_offload").value_or(false)) m.set("offload", "all");
    d.markRead("float8.enable_fsdp_float8_all_gather");
    d.listUnread(m, kTorchtitanIgnored, "not modelled by membudget");
}

// ---------------------------------------------------------------------------------------------------------
// torchtune (recipes/configs/*.yaml; recipes/full_finetune_*.py)

constexpr std::string_view kTorchtuneIgnored[] = {"output_dir",
                                                  "checkpointer",
                                                  "tokenizer._component_",
                                                  "tokenizer.path",
                                                  "tokenizer.max_seq_len",
                                                  "dataset",
                                                  "seed",
                                                  "shuffle",
                                                  "lr_scheduler",
                                                  "epochs",
                                                  "max_steps_per_epoch",
                                                  "log_every_n_steps",
                                                  "log_peak_memory_stats",
                                                  "metric_logger",
                                                  "profiler",
                                                  "device",
                                                  "resume_from_checkpoint",
                                                  "clip_grad_norm",
                                                  "optimizer.lr",
                                                  "optimizer.weight_decay",
                                                  "optimizer.betas",
                                                  "optimizer.eps",
                                                  "optimizer.fused",
                                                  "optimizer.foreach",
                                                  "save_adapter_weights_only",
                                                  "custom_sharded_layers",
                                                  "log_level",
                                                  "run_val_every_n_steps",
                                                  "dataset_val",
                                                  "batch_size_val",
                                                  "tokenizer.prompt_template",
                                                  "tokenizer.merges_file",
                                                  "tokenizer.special_tokens_path",
                                                  "fsdp_reshard_after_forward",
                                                  "model._component_",
                                                  "loss._component_",
                                                  "loss.num_output_chunks",
                                                  "optimizer._component_",
                                                  "cudnn_deterministic_mode",
                                                  "val_every_n_steps",
                                                  "model",
                                                  "gradient_accumulation_steps",
                                                  "batch_size",
                                                  "recipe",
                                                  "config",
                                                  "nproc_per_node",
                                                  "nnodes",
                                                  "ac_mode",
                                                  "ac_option",
                                                  "tensor_parallel_dim",
                                                  "tensor_parallel_plan",
                                                  "data_parallel_shard_dim",
                                                  "data_parallel_replicate_dim",
                                                  "parallelize_plan"};

void importTorchtune(Document& d, Mapping& m, std::optional<double> world) {
    m.training(Framework::torchtune);
    if (auto component = d.string("model._component_")) {
        // LoRA and QLoRA builders (lora_llama3_1_8b, qlora_llama3_1_8b) wrap the base builder of the same name.
        const size_t dot = component->rfind('.');
        const std::string builder = dot == std::string::npos ? *component : component->substr(dot + 1);
        if (builder.starts_with("lora_") || builder.starts_with("qlora_")) {
            const bool quantized = builder.starts_with("qlora_");
            m.set("finetune", quantized ? "qlora" : "lora");
            *component = component->substr(0, dot + 1) + builder.substr(quantized ? 6 : 5);
            if (const auto rank = d.number("model.lora_rank")) m.setNumber("lora_rank", *rank);
            std::string targets;
            for (const auto& module : d.strings("model.lora_attn_modules")) {
                const auto* known = std::find_if(std::begin(kTorchtuneLoraModules), std::end(kTorchtuneLoraModules),
                                                 [&module](const TorchtuneLoraModule& t) { return t.module == module; });
                if (known != std::end(kTorchtuneLoraModules))
                    targets += (targets.empty() ? "" : ",") + std::string(known->target);
                else
                    m.unmapped("model.lora_attn_modules", module, "not q_proj, k_proj, v_proj or output_proj");
            }
            if (d.boolean("model.apply_lora_to_mlp").value_or(false)) targets += (targets.empty() ? "" : ",") + std::string("mlp");
            if (d.boolean("model.apply_lora_to_output").value_or(false)) targets += (targets.empty() ? "" : ",") + std::string("output");
            if (!targets.empty()) m.set("lora_targets", canonicalLoraTargets(parseLoraTargets(targets)));
            const auto dropout = d.number("model.lora_dropout");
            m.setBool("lora_dropout", dropout.value_or(0) > 0);
            m.set("lora_dtype", "auto");
        } else {
            m.set("finetune", "full");
        }
        const auto* preset = std::find_if(std::begin(kTorchtuneBuilders), std::end(kTorchtuneBuilders),
                                          [&](const TorchtuneBuilder& b) { return b.component == *component; });
        const auto* architecture = std::find_if(std::begin(kTorchtuneArchitectures), std::end(kTorchtuneArchitectures),
                                                [&](const TorchtuneArchitecture& a) { return a.component == *component; });
        if (preset != std::end(kTorchtuneBuilders) && !preset->preset.empty()) {
            m.set("model", std::string(preset->preset));
            if (contains(*component, "llama3.llama3_") || contains(*component, "llama3_3"))
                m.warn(*component + " has the architecture of the " + std::string(preset->preset) + " preset (only RoPE scaling differs)");
        } else if (architecture != std::end(kTorchtuneArchitectures)) {
            const TorchtuneArchitecture& a = *architecture;
            m.set("model", "custom");
            m.set("name", std::string(a.name));
            m.setNumber("params", 0);
            m.setNumber("layers", a.layers);
            m.setNumber("hidden", a.hidden);
            m.setNumber("heads", a.heads);
            m.setNumber("kv_heads", a.kvHeads);
            m.setNumber("head_dim", 0);
            m.setNumber("ffn", a.ffn);
            m.setNumber("vocab", a.vocab);
            m.setBool("gated_ffn", true);
            m.setBool("tied_embeddings", true);
            m.set("norm", "rmsnorm");
            m.setBool("bias", false);
            m.setBool("qkv_bias", false);
            m.setNumber("pos_emb", 0);
            m.setNumber("experts", 0);
            m.setNumber("kv_lora_rank", 0);
            m.setNumber("mtp_layers", 0);
        } else {
            m.unmapped("model._component_", *component, "no preset for this model builder; import its config.json");
        }
    }
    m.setNumber("tp", d.number("tensor_parallel_dim").value_or(1));
    m.setNumber("pp", 1);
    m.setNumber("cp", 1);
    m.setNumber("ep", 1);
    m.setNumber("vpp", 1);
    const double tp = m.number("tp").value_or(1);
    double dp = 1;
    if (world && std::fmod(*world, tp) == 0)
        dp = *world / tp;
    else
        m.warn("the recipe does not say how many GPUs it runs on (tune run --nproc_per_node); dp is 1, set it");
    m.setNumber("dp", dp);
    m.setNumber("zero", dp > 1 ? 3 : 0);  // the distributed recipes shard with FSDP2; the single-device ones do not
    m.setBool("sp", tp > 1);
    if (const auto b = d.number("batch_size")) m.setNumber("mb", *b);
    m.setNumber("microbatches", d.number("gradient_accumulation_steps").value_or(1));
    if (const auto seq = d.number("tokenizer.max_seq_len"))
        m.setNumber("seq", *seq);
    else
        m.unmapped("tokenizer.max_seq_len", "", "samples are padded to the longest in each batch; set seq");
    // full_finetune_distributed.py _setup_model: enable_activation_checkpointing wraps every layer only when
    // ac_mode is unset; ac_mode (selective: every ac_option-th layer) applies only when it is False.
    const bool enabled = d.boolean("enable_activation_checkpointing").value_or(false);
    const auto acMode = d.string("ac_mode");
    const auto acOption = d.string("ac_option");
    m.setNumber("ckpt_every", 1);
    if (enabled && !acMode) {
        m.set("ckpt", "full");
    } else if (!enabled && acMode) {
        if (*acMode == "full") {
            m.set("ckpt", "full");
        } else if (*acMode == "selective" && acOption && *acOption == "op") {
            m.set("ckpt", "op");
        } else if (*acMode == "selective" && acOption && parseNumber(*acOption)) {
            m.set("ckpt", "full");
            m.setNumber("ckpt_every", *parseNumber(*acOption));
        } else {
            m.set("ckpt", "none");
            m.unmapped("ac_mode", *acMode, "not full, or selective with op or a layer interval");
        }
    } else {
        m.set("ckpt", "none");
        if (enabled && acMode)
            m.warn("enable_activation_checkpointing with ac_mode set: the recipe applies neither, so nothing is checkpointed");
    }
    m.setBool("activation_offload", d.boolean("enable_activation_offloading").value_or(false));
    m.setBool("optimizer_in_backward", d.boolean("optimizer_in_bwd").value_or(false));
    m.setBool("compile", d.boolean("compile").value_or(false));
    const auto dtype = d.string("dtype").value_or("bf16");
    if (dtype == "bf16" || dtype == "fp32")
        m.set("precision", dtype);
    else
        m.unmapped("dtype", dtype, "not bf16 or fp32");
    m.setBool("master_weights", false);
    if (const auto optimizer = d.string("optimizer._component_")) {
        if (contains(*optimizer, "8bit"))
            m.set("optimizer", "adamw_8bit");
        else if (contains(*optimizer, "AdamW") || contains(*optimizer, "Adam"))
            m.set("optimizer", "adamw");
        else if (contains(*optimizer, "SGD"))
            m.set("optimizer", "sgd");
        else
            m.unmapped("optimizer._component_", *optimizer, "not AdamW, 8-bit AdamW or SGD");
    }
    if (const auto loss = d.string("loss._component_")) {
        if (contains(*loss, "CEWithChunkedOutputLoss"))
            m.setNumber("loss_chunks", d.number("loss.num_output_chunks").value_or(8));
        else if (contains(*loss, "CrossEntropyLoss") && !contains(*loss, "Linear"))
            m.setNumber("loss_chunks", 1);
        else
            m.unmapped("loss._component_", *loss, "a fused linear cross-entropy is not modelled");
    }
    if (d.boolean("fsdp_cpu_offload").value_or(false))
        m.unmapped("fsdp_cpu_offload", "true", "FSDP's CPU offload of parameters and gradients is not modelled for torchtune");
    d.listUnread(m, kTorchtuneIgnored, "not modelled by membudget");
}

// A `tune run [--nproc_per_node N] RECIPE --config NAME key=value …` command as a document of its overrides.
std::vector<JsonValue> torchtuneOverrides(Words& w, std::optional<double>& world) {
    std::vector<JsonValue> values;
    for (const std::string& word : w.all()) {
        const size_t eq = word.find('=');
        if (word.empty() || word[0] == '-' || eq == std::string::npos || eq == 0) continue;
        const std::string key = word.substr(0, eq), text = word.substr(eq + 1);
        const std::string l = lower(text);
        if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
            // A list override (model.lora_attn_modules=[q_proj,v_proj]): the list and its elements.
            std::vector<std::string> items;
            size_t start = 1;
            while (start < text.size() - 1) {
                size_t end = text.find(',', start);
                if (end == std::string::npos || end > text.size() - 1) end = text.size() - 1;
                std::string item = text.substr(start, end - start);
                std::erase_if(item, [](char ch) { return ch == ' ' || ch == '\'' || ch == '"'; });
                if (!item.empty()) items.push_back(item);
                start = end + 1;
            }
            values.push_back({key, "array", items.empty() ? "" : items.front()});
            for (size_t i = 0; i < items.size(); ++i) values.push_back({key + "[" + std::to_string(i) + "]", "string", items[i]});
            continue;
        }
        const std::string type = parseNumber(text) ? "number" : (l == "true" || l == "false") ? "boolean" : "string";
        values.push_back({key, type, type == "boolean" ? l : text});
    }
    Mapping scratch;
    if (Flag* f = w.find({"--nproc_per_node", "--nproc-per-node"})) {
        if (const auto g = flagNumber(scratch, f)) {
            double nodes = 1;
            if (Flag* n = w.find({"--nnodes"}))
                if (const auto v = parseNumber(n->value)) nodes = *v;
            world = *g * nodes;
        }
    }
    w.find({"--config"});
    return values;
}

// ---------------------------------------------------------------------------------------------------------
// DeepSpeed (deepspeed/runtime/config.py, zero/config.py)

constexpr std::string_view kDeepspeedIgnored[] = {"optimizer.params",
                                                  "scheduler",
                                                  "steps_per_print",
                                                  "wall_clock_breakdown",
                                                  "gradient_clipping",
                                                  "tensorboard",
                                                  "wandb",
                                                  "csv_monitor",
                                                  "flops_profiler",
                                                  "zero_allow_untested_optimizer",
                                                  "prescale_gradients",
                                                  "fp16.loss_scale",
                                                  "fp16.loss_scale_window",
                                                  "fp16.initial_scale_power",
                                                  "fp16.hysteresis",
                                                  "fp16.min_loss_scale",
                                                  "fp16.auto_cast",
                                                  "bf16.immediate_grad_update",
                                                  "zero_optimization.contiguous_gradients",
                                                  "zero_optimization.overlap_comm",
                                                  "zero_optimization.reduce_scatter",
                                                  "zero_optimization.allgather_partitions",
                                                  "zero_optimization.round_robin_gradients",
                                                  "zero_optimization.offload_optimizer.pin_memory",
                                                  "zero_optimization.offload_param.pin_memory",
                                                  "zero_optimization.offload_optimizer.nvme_path",
                                                  "zero_optimization.offload_param.nvme_path",
                                                  "zero_optimization.offload_optimizer.buffer_count",
                                                  "zero_optimization.offload_optimizer.fast_init",
                                                  "zero_optimization.stage3_gather_16bit_weights_on_model_save",
                                                  "zero_optimization.stage3_gather_fp16_weights_on_model_save",
                                                  "zero_optimization.elastic_checkpoint",
                                                  "zero_optimization.load_from_fp32_weights",
                                                  "activation_checkpointing",
                                                  "comms_logger",
                                                  "communication_data_type",
                                                  "data_types",
                                                  "dump_state",
                                                  "amp.opt_level",
                                                  "train_batch_size",
                                                  "gradient_accumulation_steps",
                                                  "train_micro_batch_size_per_gpu",
                                                  "zero_optimization.stage",
                                                  "bf16.enabled",
                                                  "fp16.enabled",
                                                  "optimizer.type",
                                                  "zero_optimization.offload_optimizer.device",
                                                  "zero_optimization.offload_param.device",
                                                  "gradient_predivide_factor",
                                                  "zero_force_ds_cpu_optimizer",
                                                  "memory_breakdown",
                                                  "sparse_gradients"};

void importDeepspeed(Document& d, Mapping& m) {
    m.training(Framework::deepspeed);
    // AutoTP (tensor_parallel.autotp_size) shards the model's linears over TP ranks; no pipeline or context parallelism.
    const double tp = d.number("tensor_parallel.autotp_size").value_or(1);
    m.setNumber("tp", tp);
    m.setNumber("pp", 1);
    m.setNumber("cp", 1);
    m.setNumber("ep", 1);
    m.setNumber("vpp", 1);
    m.setBool("sp", false);
    // "auto": the HF Trainer integration fills these in from its own arguments.
    auto numberOrAuto = [&](std::string_view path) -> std::optional<double> {
        const JsonValue* v = d.get(path);
        if (!v) return std::nullopt;
        if (v->type == "string" && v->text == "auto") {
            m.unmapped(std::string(path), "auto", "filled in by the Hugging Face Trainer from its own arguments; set it here");
            return std::nullopt;
        }
        const auto n = d.number(path);
        if (!n) m.unmapped(std::string(path), v->text, "not a number");
        return n;
    };
    const auto stage = numberOrAuto("zero_optimization.stage");
    m.setNumber("zero", stage.value_or(0));
    const auto optimizerDevice = d.string("zero_optimization.offload_optimizer.device").value_or("none");
    const auto paramDevice = d.string("zero_optimization.offload_param.device").value_or("none");
    m.set("offload", paramDevice == "cpu" || paramDevice == "nvme"           ? "all"
                     : optimizerDevice == "cpu" || optimizerDevice == "nvme" ? "optimizer"
                                                                             : "none");
    const auto boolOrAuto = [&](std::string_view path) {
        const JsonValue* v = d.get(path);
        if (v && v->type == "string" && v->text == "auto") {
            m.unmapped(std::string(path), "auto", "filled in by the Hugging Face Trainer from its own arguments; set precision");
            return false;
        }
        return d.boolean(path).value_or(false);
    };
    const auto isAuto = [&](std::string_view path) { return d.string(path) == std::optional<std::string>("auto"); };
    const bool bf16 = boolOrAuto("bf16.enabled") || boolOrAuto("bfloat16.enabled");
    const bool fp16 = boolOrAuto("fp16.enabled");
    if (bf16 || fp16 || !(isAuto("bf16.enabled") || isAuto("fp16.enabled"))) m.set("precision", bf16 ? "bf16" : fp16 ? "fp16" : "fp32");
    const auto mb = numberOrAuto("train_micro_batch_size_per_gpu");
    const auto gas = numberOrAuto("gradient_accumulation_steps");
    const auto total = numberOrAuto("train_batch_size");
    if (mb) m.setNumber("mb", *mb);
    if (gas || !d.present("gradient_accumulation_steps")) m.setNumber("microbatches", gas.value_or(1));
    if (total && mb) {
        const double perStep = *mb * gas.value_or(1);
        if (std::fmod(*total, perStep) == 0)
            m.setNumber("dp", *total / perStep);
        else
            m.unmapped("train_batch_size", formatNumber(*total),
                       "not a multiple of train_micro_batch_size_per_gpu × gradient_accumulation_steps");
    } else if (total) {
        m.unmapped("train_batch_size", formatNumber(*total), "needs train_micro_batch_size_per_gpu to give the data-parallel size; set dp");
    } else if (!d.present("train_batch_size")) {
        m.unmapped("dp", "", "train_batch_size and train_micro_batch_size_per_gpu give the data-parallel size; set dp");
    }
    // DeepSpeed's activation_checkpointing section configures the checkpointing the model code calls.
    const bool checkpointing = d.present("activation_checkpointing");
    m.set("ckpt", checkpointing ? "full" : "none");
    if (checkpointing)
        m.warn("activation_checkpointing configures deepspeed.checkpointing, which the model code must call: ckpt full assumed");
    if (const auto type = d.string("optimizer.type")) {
        const std::string t = lower(*type);
        if (t == "adam" || t == "adamw" || t == "fusedadam" || t == "cpuadam")
            m.set("optimizer", "adamw");
        else
            m.unmapped("optimizer.type", *type, "not Adam or AdamW");
    }
    if (!d.present("zero_optimization") && !d.present("train_micro_batch_size_per_gpu") && !d.present("train_batch_size"))
        m.error("not a DeepSpeed config: none of zero_optimization, train_batch_size, train_micro_batch_size_per_gpu");
    m.warn("a DeepSpeed config does not name the model: choose it (model, or --hf-config)");
    d.listUnread(m, kDeepspeedIgnored, "not modelled by membudget (it uses DeepSpeed's defaults)");
}

// ---------------------------------------------------------------------------------------------------------
// vLLM (vllm/engine/arg_utils.py EngineArgs)

const std::set<std::string_view> kVllmSwitches{"--enable-expert-parallel",
                                               "--enforce-eager",
                                               "--trust-remote-code",
                                               "--enable-prefix-caching",
                                               "--no-enable-prefix-caching",
                                               "--enable-chunked-prefill",
                                               "--disable-log-requests",
                                               "--disable-log-stats",
                                               "--enable-auto-tool-choice",
                                               "--async-scheduling",
                                               "--enable-lora",
                                               "--enable-eplb",
                                               "--enable-dbo",
                                               "--headless",
                                               "--disable-custom-all-reduce"};

const std::set<std::string_view> kVllmIgnored{"--config",
                                              "--host",
                                              "--port",
                                              "--api-key",
                                              "--served-model-name",
                                              "--trust-remote-code",
                                              "--disable-log-requests",
                                              "--disable-log-stats",
                                              "--enable-prefix-caching",
                                              "--no-enable-prefix-caching",
                                              "--chat-template",
                                              "--tool-call-parser",
                                              "--enable-auto-tool-choice",
                                              "--reasoning-parser",
                                              "--seed",
                                              "--uvicorn-log-level",
                                              "--tokenizer",
                                              "--tokenizer-mode",
                                              "--revision",
                                              "--download-dir",
                                              "--load-format",
                                              "--generation-config",
                                              "--enable-chunked-prefill",
                                              "--async-scheduling",
                                              "--data-parallel-address",
                                              "--data-parallel-rpc-port",
                                              "--data-parallel-size-local",
                                              "--data-parallel-start-rank",
                                              "--api-server-count",
                                              "--headless",
                                              "--root-path",
                                              "--ssl-keyfile",
                                              "--ssl-certfile",
                                              "--max-log-len",
                                              "--response-role",
                                              "--lora-modules",
                                              "--enable-log-requests",
                                              "--distributed-executor-backend",
                                              "--limit-mm-per-prompt",
                                              "--override-generation-config",
                                              "--speculative-config",
                                              "--hf-overrides",
                                              "--tokenizer-pool-size",
                                              "--max-seq-len-to-capture",
                                              "--disable-custom-all-reduce",
                                              "--enable-eplb",
                                              "--enable-dbo",
                                              "--compilation-config",
                                              "-O",
                                              "--kv-transfer-config",
                                              "--model-impl",
                                              "--scheduling-policy"};

void importVllm(Words& w, Mapping& m) {
    m.set("mode", "inference");
    m.set("method", "membudget");
    // `vllm serve MODEL` (the first word after serve that is not a flag), or --model MODEL.
    std::optional<std::string> model;
    const auto& all = w.all();
    for (size_t i = 0; i + 1 < all.size(); ++i)
        if (all[i] == "serve" && !all[i + 1].empty() && all[i + 1][0] != '-') {
            model = all[i + 1];
            break;
        }
    if (Flag* f = w.find({"--model"})) model = f->value;
    if (model) {
        const std::string id = lower(*model);
        const auto* found =
            std::find_if(std::begin(kHubModels), std::end(kHubModels), [&id](const HubModel& h) { return lower(h.id) == id; });
        if (found != std::end(kHubModels))
            m.set("model", std::string(found->preset));
        else
            m.unmapped("model", *model, "not a preset; import its config.json (format hf) for the architecture");
    }
    const double tp = setFromFlag(m, w, "tp", {"--tensor-parallel-size", "-tp"}) ? m.number("tp").value_or(1) : (m.setNumber("tp", 1), 1.0);
    if (!setFromFlag(m, w, "pp", {"--pipeline-parallel-size", "-pp"})) m.setNumber("pp", 1);
    const double dp = setFromFlag(m, w, "dp", {"--data-parallel-size", "-dp"}) ? m.number("dp").value_or(1) : (m.setNumber("dp", 1), 1.0);
    m.setNumber("cp", 1);
    // --enable-expert-parallel spreads the experts over TP × DP ranks (vLLM's FusedMoEParallelConfig).
    m.setNumber("ep", w.has({"--enable-expert-parallel"}) ? tp * dp : 1);
    setFromFlag(m, w, "seq", {"--max-model-len"});
    if (!setFromFlag(m, w, "mb", {"--max-num-seqs"})) {
        m.setNumber("mb", 256);
        m.warn("--max-num-seqs not given: vLLM's default (256 in most versions and GPUs) assumed");
    }
    setFromFlag(m, w, "workspace_tokens", {"--max-num-batched-tokens"});
    // --dtype is the activations' (and an unquantized model's weights' and the KV cache's) dtype.
    std::string dtypeText = "bf16";
    if (Flag* dtype = w.find({"--dtype"})) {
        const std::map<std::string, std::string> known{{"auto", "bf16"}, {"bfloat16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"}};
        if (const auto it = known.find(dtype->value); it != known.end())
            dtypeText = it->second;
        else
            m.unmapped(dtype->name, dtype->value, "not auto, bfloat16 or float16");
    }
    std::string weights = dtypeText;
    if (Flag* quantization = w.find({"--quantization", "-q"})) {
        const std::string q = quantization->value;
        if (q == "fp8" || q == "fbgemm_fp8" || q == "modelopt")
            weights = "fp8";
        else if (q == "awq" || q == "gptq" || q == "awq_marlin" || q == "gptq_marlin" || q == "bitsandbytes")
            weights = "int4";
        else
            m.unmapped(quantization->name, q, "the weights' bit width depends on the checkpoint; set weight_dtype");
    }
    m.set("weight_dtype", weights);
    std::string kv = dtypeText;
    if (Flag* cache = w.find({"--kv-cache-dtype"})) {
        if (startsWith(cache->value, "fp8"))
            kv = "fp8";
        else if (cache->value != "auto")
            m.unmapped(cache->name, cache->value, "not auto or fp8");
    }
    m.set("kv_dtype", kv);
    double utilization = 0.9;
    if (const auto u = flagNumber(m, w.find({"--gpu-memory-utilization"}))) utilization = *u;
    m.setNumber("headroom", std::round((1 - utilization) * 1e6) / 1e6);
    if (w.has({"--enforce-eager"})) m.setNumber("cuda_graphs_gb", 0);
    const bool vllm = model || std::any_of(w.flags().begin(), w.flags().end(), [](const Flag& f) {
                          return f.name == "--tensor-parallel-size" || f.name == "--max-model-len" || f.name == "--max-num-seqs" ||
                                 f.name == "--gpu-memory-utilization";
                      });
    if (!vllm) m.error("no vllm serve command and no vLLM flags (--model, --tensor-parallel-size, --max-model-len, …) in the text");
    w.listUnread(m, kVllmIgnored, "not modelled by membudget");
}

// ---------------------------------------------------------------------------------------------------------
// Hugging Face config.json: the mapping that exists (hf_import.cpp), as assignments of the architecture.

void importHf(const ImportInput& input, Mapping& m) {
    std::vector<HfValue> top;
    for (const auto& v : input.values)
        if (v.key.find('.') == std::string::npos && v.key.find('[') == std::string::npos) top.push_back(v);
    const HfImport imported = importHfFields(input.rootType, top, Config{});
    for (const auto& e : imported.errors) m.error(e.message);
    for (const auto& n : imported.notices) m.warn(n.message);
    if (!imported.errors.empty()) return;
    for (const FieldSpec& field : fields())
        if (field.group == "model" || field.key == "method") m.set(field.key, fieldText(imported.config, field));
}

}  // namespace

std::optional<ImportFormat> detectImportFormat(std::string_view text) {
    std::string_view t = text;
    if (startsWith(t, "\xEF\xBB\xBF")) t.remove_prefix(3);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    if (t.empty()) return std::nullopt;
    if (t.front() == '{') {
        for (std::string_view key :
             {"\"zero_optimization\"", "\"train_micro_batch_size_per_gpu\"", "\"train_batch_size\"", "\"gradient_accumulation_steps\""})
            if (contains(t, key)) return ImportFormat::deepspeed;
        for (std::string_view key : {"\"model_type\"", "\"architectures\"", "\"hidden_size\"", "\"n_embd\"", "\"num_hidden_layers\""})
            if (contains(t, key)) return ImportFormat::hf;
        return std::nullopt;
    }
    if (inCode(t, "vllm serve") || inCode(t, "vllm.entrypoints") || inCode(t, "--tensor-parallel-size") || inCode(t, "--max-model-len"))
        return ImportFormat::vllm;
    if (inCode(t, "tune run")) return ImportFormat::torchtune;
    for (std::string_view flag : {"--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--num-layers", "--micro-batch-size",
                                  "--num-attention-heads", "pretrain_gpt"})
        if (inCode(t, flag)) return ImportFormat::megatron;
    if (anyLine(t, [](std::string_view line) {
            return line.size() > 2 && line.front() == '[' && line.back() == ']' && line.find('=') == std::string_view::npos;
        }))
        return ImportFormat::torchtitan;
    if (contains(t, "_component_") || anyLine(t, [](std::string_view line) {
            const size_t colon = line.find(':');
            return colon != std::string_view::npos && colon > 0 && isIdentifier(line.substr(0, colon));
        }))
        return ImportFormat::torchtune;
    return std::nullopt;
}

std::string unrecognisedImport(std::string_view subject) {
    return std::string(subject) +
           " is not a configuration membudget can read: expected a Megatron-LM script, a torchtitan TOML, a torchtune YAML or tune run "
           "command, a DeepSpeed JSON, a config.json or a vllm serve command (name its format)";
}

ImportSyntax importSyntax(ImportFormat format, std::string_view text) {
    switch (format) {
        case ImportFormat::megatron:
        case ImportFormat::vllm:
            return ImportSyntax::words;
        case ImportFormat::torchtitan:
            return ImportSyntax::toml;
        case ImportFormat::deepspeed:
        case ImportFormat::hf:
            return ImportSyntax::json;
        case ImportFormat::torchtune:
            // A `tune run` command, or overrides (key=value words) and no YAML mapping.
            if (inCode(text, "tune run")) return ImportSyntax::words;
            if (!anyLine(text,
                         [](std::string_view line) {
                             return !line.empty() && line.front() != '#' && line.find(": ") != std::string_view::npos;
                         }) &&
                !anyLine(text, [](std::string_view line) { return !line.empty() && line.back() == ':'; }) && contains(text, "="))
                return ImportSyntax::words;
            return ImportSyntax::yaml;
    }
    return ImportSyntax::json;
}

ImportResult importConfig(const ImportInput& input) {
    Mapping m;
    const ImportFormat format = input.format;
    const std::string name(toString(format));
    // (A config.json that is not JSON is named by the Hugging Face mapping itself, as --hf-config names it.)
    if (!input.error.empty() && format != ImportFormat::hf) {
        m.error("not " +
                std::string(format == ImportFormat::torchtitan  ? "TOML"
                            : format == ImportFormat::torchtune ? "YAML"
                                                                : "JSON") +
                " (" + name + "): " + input.error);
        return std::move(m).finish(format);
    }
    switch (format) {
        case ImportFormat::megatron: {
            Words w(input.lines, kMegatronSwitches);
            importMegatron(w, m);
            break;
        }
        case ImportFormat::vllm: {
            Words w(input.lines, kVllmSwitches);
            importVllm(w, m);
            break;
        }
        case ImportFormat::torchtune: {
            if (!input.lines.empty()) {
                Words w(input.lines, {});
                std::optional<double> world;
                const std::vector<JsonValue> values = torchtuneOverrides(w, world);
                if (values.empty() && !world) {
                    m.error("no tune run command and no key=value overrides in the text");
                    break;
                }
                Document d(values);
                importTorchtune(d, m, world);
                break;
            }
            if (input.rootType != "object") {
                m.error("a torchtune config is a YAML mapping; got " + jsonTypeWords(input.rootType));
                break;
            }
            Document d(input.values);
            importTorchtune(d, m, std::nullopt);
            break;
        }
        case ImportFormat::torchtitan:
        case ImportFormat::deepspeed: {
            if (input.rootType != "object") {
                m.error(std::string(format == ImportFormat::torchtitan ? "a torchtitan job config is a TOML document"
                                                                       : "a DeepSpeed config is a JSON object") +
                        "; got " + jsonTypeWords(input.rootType));
                break;
            }
            Document d(input.values);
            if (format == ImportFormat::torchtitan) {
                if (!d.present("parallelism") && !d.present("training") && !d.present("model"))
                    m.error("not a torchtitan job config: no [model], [training] or [parallelism] table");
                else
                    importTorchtitan(d, m);
            } else {
                importDeepspeed(d, m);
            }
            break;
        }
        case ImportFormat::hf:
            importHf(input, m);
            break;
    }
    return std::move(m).finish(format);
}

}  // namespace membudget
