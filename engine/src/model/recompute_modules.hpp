// Which modules Megatron-LM's selective recomputation rebuilds in backward: the typed set behind recompute_modules
// (--recompute-modules), parsed from its text once per configuration (fillDims: Dims::recompute) and at the
// boundaries (validation, the importer and exporter), never in a layer walk. Internal.
//
// megatron/core/transformer/transformer_config.py TransformerConfig.recompute_modules (core_v0.15.0): "core_attn",
// "mlp", "moe" and "shared_experts" use normal checkpointing (the module's input kept, its insides rebuilt);
// "moe_act", "layernorm" and "mla_up_proj" use output-discarding checkpointing (the output's storage freed after its
// consumer ran, rebuilt before that consumer's backward). Only under --recompute-granularity selective; default
// ["core_attn"].
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace membudget::detail {

struct RecomputeModules {
    bool coreAttn = false, mlp = false, moe = false, sharedExperts = false, moeAct = false, layernorm = false, mlaUpProj = false;
    bool any() const { return coreAttn || mlp || moe || sharedExperts || moeAct || layernorm || mlaUpProj; }
};

// The modules as written (comma- or blank-separated, as the flag's list is); `bad` names the first word that is not one.
inline RecomputeModules parseRecomputeModules(std::string_view text, std::string* bad = nullptr) {
    RecomputeModules m;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find_first_of(", ", start);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view word = text.substr(start, end - start);
        start = end + 1;
        if (word.empty()) continue;
        if (word == "core_attn")
            m.coreAttn = true;
        else if (word == "mlp")
            m.mlp = true;
        else if (word == "moe")
            m.moe = true;
        else if (word == "shared_experts")
            m.sharedExperts = true;
        else if (word == "moe_act")
            m.moeAct = true;
        else if (word == "layernorm")
            m.layernorm = true;
        else if (word == "mla_up_proj")
            m.mlaUpProj = true;
        else if (bad && bad->empty())
            *bad = std::string(word);
    }
    return m;
}

// The modules as one canonical list, in Megatron-LM's documented order, as the importer writes them.
inline std::string canonicalRecomputeModules(const RecomputeModules& m) {
    std::string out;
    for (const auto& [on, name] : {std::pair{m.coreAttn, "core_attn"},
                                   {m.moeAct, "moe_act"},
                                   {m.layernorm, "layernorm"},
                                   {m.mlaUpProj, "mla_up_proj"},
                                   {m.mlp, "mlp"},
                                   {m.moe, "moe"},
                                   {m.sharedExperts, "shared_experts"}})
        if (on) out += std::string(out.empty() ? "" : ",") + name;
    return out;
}

}  // namespace membudget::detail
