// Which matrices carry LoRA adapters: the typed set behind lora_targets, parsed from its text once per
// configuration (dimsOf: Dims::adapted) and at the boundaries (validation, the importers and exporters), never
// in a layer walk. Internal.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace membudget::detail {

struct LoraTargets {
    bool q = false, k = false, v = false, o = false, gate = false, up = false, down = false, output = false;
    bool attention() const { return q || k || v || o; }
    bool mlp() const { return gate || up || down; }
};

// The targets as written (comma-separated, aliases expanded); `bad` names the first word that is not one.
inline LoraTargets parseLoraTargets(std::string_view text, std::string* bad = nullptr) {
    LoraTargets t;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view word = text.substr(start, end - start);
        while (!word.empty() && word.front() == ' ') word.remove_prefix(1);
        while (!word.empty() && word.back() == ' ') word.remove_suffix(1);
        if (word == "q")
            t.q = true;
        else if (word == "k")
            t.k = true;
        else if (word == "v")
            t.v = true;
        else if (word == "o")
            t.o = true;
        else if (word == "gate")
            t.gate = true;
        else if (word == "up")
            t.up = true;
        else if (word == "down")
            t.down = true;
        else if (word == "output")
            t.output = true;
        else if (word == "attention")
            t.q = t.k = t.v = t.o = true;
        else if (word == "mlp")
            t.gate = t.up = t.down = true;
        else if (word == "all_linear")
            t.q = t.k = t.v = t.o = t.gate = t.up = t.down = true;
        else if (bad && bad->empty())
            *bad = std::string(word);
        start = end + 1;
    }
    return t;
}

// The targets as one canonical list (q,k,v,o,gate,up,down,output order), as imports write them.
inline std::string canonicalLoraTargets(const LoraTargets& t) {
    std::string out;
    for (const auto& [on, name] :
         {std::pair{t.q, "q"}, {t.k, "k"}, {t.v, "v"}, {t.o, "o"}, {t.gate, "gate"}, {t.up, "up"}, {t.down, "down"}, {t.output, "output"}})
        if (on) out += std::string(out.empty() ? "" : ",") + name;
    return out;
}

}  // namespace membudget::detail
