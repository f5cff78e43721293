// How the frameworks name membudget's things: torchtitan's model flavors, torchtune's model builders and recipe
// configs, Hugging Face Hub ids (vLLM, SGLang, TensorRT-LLM), torchtune's LoRA module names. One table each, read by
// the framework's file (torchtitan.cpp, torchtune.cpp, vllm.cpp, sglang.cpp, trtllm.cpp) both ways: on import (name →
// membudget) and on export (membudget → the first name listed for it). Internal.
#pragma once

#include <string_view>

namespace membudget::detail {

// torchtitan's --model.name and --model.flavor (torchtitan/models/llama3/__init__.py, deepseek_v3/__init__.py).
struct TorchtitanFlavor {
    std::string_view name, flavor, preset;
};
inline constexpr TorchtitanFlavor kTorchtitanFlavors[] = {{"llama3", "8B", "llama-3.1-8b"},
                                                          {"llama3", "70B", "llama-3.1-70b"},
                                                          {"llama3", "405B", "llama-3.1-405b"},
                                                          {"deepseek_v3", "16B", "deepseek-v2-lite"},
                                                          {"deepseek_v3", "671B", "deepseek-v3"}};

// torchtune's model builders (torchtune/models/*/_model_builders.py) and the recipe config written for each on
// export ("" where the builder is only read: Llama 3 and 3.3 share their 3.1 counterparts' architecture, and
// Mistral 7B has no preset).
struct TorchtuneBuilder {
    std::string_view component, preset, config;
};
inline constexpr TorchtuneBuilder kTorchtuneBuilders[] = {
    {"torchtune.models.llama3_1.llama3_1_8b", "llama-3.1-8b", "llama3_1/8B_full"},
    {"torchtune.models.llama3_1.llama3_1_70b", "llama-3.1-70b", "llama3_1/70B_full"},
    {"torchtune.models.llama3_1.llama3_1_405b", "llama-3.1-405b", "llama3_1/405B_full"},
    {"torchtune.models.llama2.llama2_7b", "llama-2-7b", "llama2/7B_full"},
    {"torchtune.models.llama2.llama2_13b", "llama-2-13b", "llama2/13B_full"},
    {"torchtune.models.llama2.llama2_70b", "llama-2-70b", "llama2/70B_full"},
    {"torchtune.models.llama3.llama3_8b", "llama-3.1-8b", ""},
    {"torchtune.models.llama3.llama3_70b", "llama-3.1-70b", ""},
    {"torchtune.models.llama3_3.llama3_3_70b", "llama-3.1-70b", ""},
    {"torchtune.models.mistral.mistral_7b", "", ""},
};

// Llama 3.2's text models have no preset: their architecture (torchtune/models/llama3_2/_model_builders.py).
struct TorchtuneArchitecture {
    std::string_view component, name, config;
    double layers, hidden, heads, kvHeads, ffn, vocab;
};
inline constexpr TorchtuneArchitecture kTorchtuneArchitectures[] = {
    {"torchtune.models.llama3_2.llama3_2_1b", "Llama-3.2-1B", "llama3_2/1B_full", 16, 2048, 32, 8, 8192, 128256},
    {"torchtune.models.llama3_2.llama3_2_3b", "Llama-3.2-3B", "llama3_2/3B_full", 28, 3072, 24, 8, 8192, 128256},
};

// torchtune's lora_attn_modules names for the attention matrices.
struct TorchtuneLoraModule {
    std::string_view target, module;
};
inline constexpr TorchtuneLoraModule kTorchtuneLoraModules[] = {{"q", "q_proj"}, {"k", "k_proj"}, {"v", "v_proj"}, {"o", "output_proj"}};

// Hugging Face Hub ids of the presets (compared without case on import; the first listed is exported).
struct HubModel {
    std::string_view id, preset;
};
inline constexpr HubModel kHubModels[] = {
    {"meta-llama/Llama-2-7b-hf", "llama-2-7b"},
    {"meta-llama/Llama-2-7b-chat-hf", "llama-2-7b"},
    {"meta-llama/Llama-2-13b-hf", "llama-2-13b"},
    {"meta-llama/Llama-2-13b-chat-hf", "llama-2-13b"},
    {"meta-llama/Llama-2-70b-hf", "llama-2-70b"},
    {"meta-llama/Llama-2-70b-chat-hf", "llama-2-70b"},
    {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
    {"meta-llama/Llama-3.1-8B", "llama-3.1-8b"},
    {"meta-llama/Meta-Llama-3.1-8B", "llama-3.1-8b"},
    {"meta-llama/Meta-Llama-3.1-8B-Instruct", "llama-3.1-8b"},
    {"meta-llama/Meta-Llama-3-8B", "llama-3.1-8b"},
    {"meta-llama/Meta-Llama-3-8B-Instruct", "llama-3.1-8b"},
    {"meta-llama/Llama-3.1-70B-Instruct", "llama-3.1-70b"},
    {"meta-llama/Llama-3.1-70B", "llama-3.1-70b"},
    {"meta-llama/Meta-Llama-3.1-70B", "llama-3.1-70b"},
    {"meta-llama/Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b"},
    {"meta-llama/Llama-3.3-70B-Instruct", "llama-3.1-70b"},
    {"meta-llama/Meta-Llama-3-70B-Instruct", "llama-3.1-70b"},
    {"meta-llama/Llama-3.1-405B-Instruct", "llama-3.1-405b"},
    {"meta-llama/Llama-3.1-405B", "llama-3.1-405b"},
    {"meta-llama/Meta-Llama-3.1-405B-Instruct", "llama-3.1-405b"},
    {"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
    {"mistralai/Mixtral-8x7B-v0.1", "mixtral-8x7b"},
    {"mistralai/Mixtral-8x22B-Instruct-v0.1", "mixtral-8x22b"},
    {"mistralai/Mixtral-8x22B-v0.1", "mixtral-8x22b"},
    {"deepseek-ai/DeepSeek-V3", "deepseek-v3"},
    {"deepseek-ai/DeepSeek-V3-0324", "deepseek-v3"},
    {"deepseek-ai/DeepSeek-V3-Base", "deepseek-v3"},
    {"deepseek-ai/DeepSeek-R1", "deepseek-v3"},
    {"deepseek-ai/DeepSeek-R1-0528", "deepseek-v3"},
    {"Qwen/Qwen1.5-MoE-A2.7B-Chat", "qwen1.5-moe-a2.7b"},
    {"Qwen/Qwen1.5-MoE-A2.7B", "qwen1.5-moe-a2.7b"},
    {"Qwen/Qwen2-57B-A14B-Instruct", "qwen2-57b-a14b"},
    {"Qwen/Qwen2-57B-A14B", "qwen2-57b-a14b"},
};

// A preset's Hub id, what an export writes: the first listed for it; empty where none is.
constexpr std::string_view hubIdOf(std::string_view preset) {
    for (const auto& h : kHubModels)
        if (h.preset == preset) return h.id;
    return {};
}

// The preset a Hub id names, compared without case (`lowerId` already lower case); empty where none does.
inline std::string_view presetOfHubId(std::string_view lowerId) {
    for (const auto& h : kHubModels) {
        if (h.id.size() != lowerId.size()) continue;
        bool same = true;
        for (size_t i = 0; i < lowerId.size() && same; ++i)
            same = (h.id[i] >= 'A' && h.id[i] <= 'Z' ? static_cast<char>(h.id[i] - 'A' + 'a') : h.id[i]) == lowerId[i];
        if (same) return h.preset;
    }
    return {};
}

}  // namespace membudget::detail
