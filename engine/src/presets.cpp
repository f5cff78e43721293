#include "membudget/presets.hpp"

#include <array>

namespace membudget {

namespace {

// Architectures are each model's Hugging Face config.json; params = 0 means the count is derived, and
// tests/cpp/test_presets.cpp checks the derived count against the published total.
constexpr std::array kModels{
    ModelPreset{"chapter-70b", "70B (the chapter's generic 70B)", 70e9, 8192, 80, 64, 8, 0, 28672, 128256, true,
                false, "rmsnorm", false, 0, "chapter",
                "Chapter sections 1-4: Ψ = 70e9 as the chapter writes it; h=8192, L=80, a=64 with 8 KV heads, "
                "d_ff=28672 from its section 2 example; vocabulary (not given by the chapter) from Llama-3"},
    ModelPreset{"chapter-405b", "405B (the chapter's generic 405B)", 405e9, 16384, 126, 128, 8, 0, 53248, 128256,
                true, false, "rmsnorm", false, 0, "chapter",
                "Chapter section 4 (405B, TP=8 PP=4 DP=8): Ψ = 405e9 and 126 layers as the chapter writes them; "
                "the rest of the architecture from Llama-3.1-405B's config.json"},
    ModelPreset{"llama-2-7b", "Llama-2 7B", 0, 4096, 32, 32, 32, 0, 11008, 32000, true, false, "rmsnorm", false, 0, "membudget",
                "huggingface.co/meta-llama/Llama-2-7b-hf config.json; 6,738,415,616 parameters"},
    ModelPreset{"llama-2-13b", "Llama-2 13B", 0, 5120, 40, 40, 40, 0, 13824, 32000, true, false, "rmsnorm", false, 0, "membudget",
                "huggingface.co/meta-llama/Llama-2-13b-hf config.json; 13,015,864,320 parameters"},
    ModelPreset{"llama-2-70b", "Llama-2 70B", 0, 8192, 80, 64, 8, 0, 28672, 32000, true, false, "rmsnorm", false, 0, "membudget",
                "huggingface.co/meta-llama/Llama-2-70b-hf config.json; 68,976,648,192 parameters"},
    ModelPreset{"llama-3.1-8b", "Llama-3.1 8B", 0, 4096, 32, 32, 8, 0, 14336, 128256, true, false, "rmsnorm", false,
                0, "membudget", "huggingface.co/meta-llama/Llama-3.1-8B config.json; 8,030,261,248 parameters"},
    ModelPreset{"llama-3.1-70b", "Llama-3.1 70B", 0, 8192, 80, 64, 8, 0, 28672, 128256, true, false, "rmsnorm",
                false, 0, "membudget",
                "huggingface.co/meta-llama/Llama-3.1-70B config.json; 70,553,706,496 parameters"},
    ModelPreset{"llama-3.1-405b", "Llama-3.1 405B", 0, 16384, 126, 128, 8, 0, 53248, 128256, true, false, "rmsnorm",
                false, 0, "membudget",
                "huggingface.co/meta-llama/Llama-3.1-405B config.json; 405,853,388,800 parameters"},
    ModelPreset{"gpt-3-175b", "GPT-3 175B", 0, 12288, 96, 96, 96, 0, 49152, 50257, false, true, "layernorm", true,
                2048, "membudget",
                "Brown et al. 2020, Table 2.1 (n_layers 96, d_model 12288, n_heads 96, d_head 128, context 2048), "
                "GPT-2's 50,257-token BPE vocabulary, tied embeddings, LayerNorm and biases; the derived "
                "174,604,259,328 is what the paper rounds to 175.0B"},
    ModelPreset{"mixtral-8x7b", "Mixtral 8x7B", 0, 4096, 32, 32, 8, 0, 14336, 32000, true, false, "rmsnorm", false, 0,
                "membudget", "huggingface.co/mistralai/Mixtral-8x7B-v0.1 config.json (8 experts, top-2); 46,702,792,704 parameters",
                8, 2, 14336, 0},
    ModelPreset{"mixtral-8x22b", "Mixtral 8x22B", 0, 6144, 56, 48, 8, 0, 16384, 32000, true, false, "rmsnorm", false, 0,
                "membudget", "huggingface.co/mistralai/Mixtral-8x22B-v0.1 config.json (8 experts, top-2)", 8, 2, 16384, 0},
    ModelPreset{"deepseek-v3", "DeepSeek-V3 671B", 0, 7168, 61, 128, 128, 0, 18432, 129280, true, false, "rmsnorm", false, 0,
                "membudget",
                "huggingface.co/deepseek-ai/DeepSeek-V3 config.json: MLA (q_lora 1536, kv_lora 512, rope 64, nope 128, v 128), "
                "256 routed experts of 2048 + 1 shared, top-8, 3 leading dense layers, 1 multi-token-prediction layer "
                "(num_nextn_predict_layers); 671,026,419,200 parameters in the main model (DeepSeek's 671B) and 11,610,068,224 "
                "in the MTP module: one MoE layer of 11,507,286,272 (README_WEIGHTS.md's \"11.5B unique\") plus its 2h -> h "
                "projection and three norms; with the checkpoint's two copies of embedding and head, 684.49B (the model page's 685B)",
                256, 8, 2048, 2048, 3, true, 512, 1536, 64, 128, 128, false, false, 1},
    ModelPreset{"qwen1.5-moe-a2.7b", "Qwen1.5-MoE-A2.7B", 0, 2048, 24, 16, 16, 0, 5632, 151936, true, false, "rmsnorm", false, 0,
                "membudget",
                "huggingface.co/Qwen/Qwen1.5-MoE-A2.7B config.json (qwen2_moe: 60 experts of 1408, top-4, a gated shared expert "
                "of 5632, Q/K/V biases); 14,315,784,192 parameters = the checkpoint's safetensors total_size of "
                "28,631,568,384 bytes in BF16",
                60, 4, 1408, 5632, 0, false, 0, 0, 64, 0, 0, true, true, 0},
    ModelPreset{"qwen2-57b-a14b", "Qwen2-57B-A14B", 0, 3584, 28, 28, 4, 0, 18944, 151936, true, false, "rmsnorm", false, 0,
                "membudget",
                "huggingface.co/Qwen/Qwen2-57B-A14B config.json (qwen2_moe: 64 experts of 2560, top-8, a gated shared expert "
                "of 20480, GQA with 4 KV heads, Q/K/V biases); the tensor sum of that config",
                64, 8, 2560, 20480, 0, false, 0, 0, 64, 0, 0, true, true, 0},
    // Korthikanti et al. 2022, Table 3: GPT-style models (s = 2048, v = 51200) used in their evaluation.
    ModelPreset{"korthikanti-22b", "22B (Korthikanti et al. Table 3)", 0, 6144, 48, 64, 64, 0, 24576, 51200, false, true,
                "layernorm", true, 2048, "korthikanti",
                "Korthikanti et al. 2022 (arXiv 2205.05198) Table 3: 64 heads, hidden 6144, 48 layers; GPT layout, v = 51200"},
    ModelPreset{"korthikanti-175b", "175B GPT-3 (Korthikanti et al. Table 3)", 0, 12288, 96, 96, 96, 0, 49152, 51200, false,
                true, "layernorm", true, 2048, "korthikanti",
                "Korthikanti et al. 2022 Table 3: 96 heads, hidden 12288, 96 layers; GPT layout, v = 51200"},
    ModelPreset{"korthikanti-530b", "530B MT-NLG (Korthikanti et al. Table 3)", 0, 20480, 105, 128, 128, 0, 81920, 51200,
                false, true, "layernorm", true, 2048, "korthikanti",
                "Korthikanti et al. 2022 Table 3: 128 heads, hidden 20480, 105 layers; GPT layout, v = 51200"},
    ModelPreset{"korthikanti-1t", "1T (Korthikanti et al. Table 3)", 0, 25600, 128, 160, 160, 0, 102400, 51200, false, true,
                "layernorm", true, 2048, "korthikanti",
                "Korthikanti et al. 2022 Table 3: 160 heads, hidden 25600, 128 layers; GPT layout, v = 51200"},
};

// Capacities are the total memory the device reports (nvidia-smi's MiB, or the allocator's bytes), which
// is what a run can actually use; the names round it.
constexpr double MiB = kBytesPerMiB;
constexpr std::array kGpus{
    GpuPreset{"generic-80gb", "80 GB (the chapter's generic GPU)", 80e9,
              "Chapter section 4: \"Must be < 80 GB\", i.e. exactly 80e9 bytes"},
    GpuPreset{"a100-40gb", "NVIDIA A100 40GB", 40960 * MiB,
              "nvidia-smi on A100-SXM4-40GB, recent drivers: 40960MiB (modal-labs/modal-client PR #2797); "
              "older drivers showed 40536MiB (facebookresearch/vissl issue #422)"},
    GpuPreset{"a100-80gb", "NVIDIA A100 80GB", 81920 * MiB,
              "nvidia-smi on A100-SXM4-80GB: 81920MiB (allenai/PeerRead issue #40; modal-labs/modal-client PR #2797)"},
    GpuPreset{"h100-80gb", "NVIDIA H100 80GB HBM3", 81559 * MiB,
              "nvidia-smi on H100 80GB HBM3 (SXM5): 81559MiB = 85,520,809,984 B (NVIDIA/nccl issue #1264; "
              "wilicc/gpu-burn issue #114; modal-labs/modal-client PR #2797)"},
    GpuPreset{"h200", "NVIDIA H200 141GB", 143771 * MiB, "nvidia-smi on H200 (141 GB HBM3e): 143771MiB (sgl-project/sglang issue #3196)"},
    GpuPreset{"b200", "NVIDIA B200", 183359 * MiB, "nvidia-smi on B200: 183359MiB (NVIDIA/TensorRT-LLM issue #10278)"},
    GpuPreset{"mi300x", "AMD Instinct MI300X", 196592 * MiB,
              "rocm-smi --showmeminfo vram on MI300X (SPX mode): VRAM Total Memory (B) 206141652992, "
              "16 MiB under 192 GiB (ROCm/ROCm issue #4750)"},
    GpuPreset{"l40s", "NVIDIA L40S", 46068 * MiB, "nvidia-smi on L40S: 46068MiB (modal-labs/modal-client PR #2797; akash-network/provider-configs PR #99)"},
    GpuPreset{"rtx-4090", "NVIDIA GeForce RTX 4090", 24564 * MiB, "nvidia-smi on GeForce RTX 4090: 24564MiB (RLinf/RLinf issue #255)"},
};

}  // namespace

std::span<const ModelPreset> modelPresets() { return kModels; }
std::span<const GpuPreset> gpuPresets() { return kGpus; }

const ModelPreset* findModelPreset(std::string_view id) {
    for (const auto& preset : kModels)
        if (preset.id == id) return &preset;
    return nullptr;
}

const GpuPreset* findGpuPreset(std::string_view id) {
    for (const auto& preset : kGpus)
        if (preset.id == id) return &preset;
    return nullptr;
}

void applyModelPreset(Config& config, const ModelPreset& preset) {
    config.model = std::string(preset.id);
    config.name.clear();
    config.params = preset.params;
    config.hidden = preset.hidden;
    config.layers = preset.layers;
    config.heads = preset.heads;
    config.kvHeads = preset.kvHeads;
    config.headDim = preset.headDim;
    config.ffn = preset.ffn;
    config.vocab = preset.vocab;
    config.gatedFfn = preset.gatedFfn;
    config.tiedEmbeddings = preset.tiedEmbeddings;
    config.norm = std::string(preset.norm);
    config.bias = preset.bias;
    config.qkvBias = preset.qkvBias;
    config.sharedExpertGate = preset.sharedExpertGate;
    config.mtpLayers = preset.mtpLayers;
    config.experts = preset.experts;
    config.expertsPerToken = preset.expertsPerToken;
    config.moeFfn = preset.moeFfn;
    config.sharedExpertFfn = preset.sharedExpertFfn;
    config.moeLayerFreq = 1;
    config.firstDenseLayers = preset.firstDenseLayers;
    config.routerBias = preset.routerBias;
    config.kvLoraRank = preset.kvLoraRank;
    config.qLoraRank = preset.qLoraRank;
    config.qkRopeDim = preset.qkRopeDim;
    config.qkNopeDim = preset.qkNopeDim;
    config.vHeadDim = preset.vHeadDim;
    config.posEmb = preset.posEmb;
    config.method = std::string(preset.method);
}

void applyGpuPreset(Config& config, const GpuPreset& preset) {
    config.gpu = std::string(preset.id);
    config.gpuGb = preset.capacityBytes / kBytesPerGB;
}

}  // namespace membudget
