#include <array>

#include "membudget/base/choices.hpp"
#include "membudget/base/units.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"

namespace membudget {

namespace {

// Architectures are each model's Hugging Face config.json; params = 0 means the count is derived, and
// tests/cpp/test_presets.cpp checks the derived count against the published total.
constexpr std::array kModels{
    ModelPreset{.id = "chapter-70b",
                .label = "70B (the chapter's generic 70B)",
                .params = 70e9,
                .hidden = 8192,
                .layers = 80,
                .heads = 64,
                .kvHeads = 8,
                .headDim = 0,
                .ffn = 28672,
                .vocab = 128256,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::chapter,
                .source = "Chapter sections 1-4: Ψ = 70e9 as the chapter writes it; h=8192, L=80, a=64 with 8 KV heads, "
                          "d_ff=28672 from its section 2 example; vocabulary (not given by the chapter) from Llama-3"},
    ModelPreset{.id = "chapter-405b",
                .label = "405B (the chapter's generic 405B)",
                .params = 405e9,
                .hidden = 16384,
                .layers = 126,
                .heads = 128,
                .kvHeads = 8,
                .headDim = 0,
                .ffn = 53248,
                .vocab = 128256,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::chapter,
                .source = "Chapter section 4 (405B, TP=8 PP=4 DP=8): Ψ = 405e9 and 126 layers as the chapter writes them; "
                          "the rest of the architecture from Llama-3.1-405B's config.json"},
    ModelPreset{.id = "llama-2-7b",
                .label = "Llama-2 7B",
                .params = 0,
                .hidden = 4096,
                .layers = 32,
                .heads = 32,
                .kvHeads = 32,
                .headDim = 0,
                .ffn = 11008,
                .vocab = 32000,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/meta-llama/Llama-2-7b-hf config.json; 6,738,415,616 parameters",
                .contextWindow = 4096},
    ModelPreset{.id = "llama-2-13b",
                .label = "Llama-2 13B",
                .params = 0,
                .hidden = 5120,
                .layers = 40,
                .heads = 40,
                .kvHeads = 40,
                .headDim = 0,
                .ffn = 13824,
                .vocab = 32000,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/meta-llama/Llama-2-13b-hf config.json; 13,015,864,320 parameters",
                .contextWindow = 4096},
    ModelPreset{.id = "llama-2-70b",
                .label = "Llama-2 70B",
                .params = 0,
                .hidden = 8192,
                .layers = 80,
                .heads = 64,
                .kvHeads = 8,
                .headDim = 0,
                .ffn = 28672,
                .vocab = 32000,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/meta-llama/Llama-2-70b-hf config.json; 68,976,648,192 parameters",
                .contextWindow = 4096},
    ModelPreset{.id = "llama-3.1-8b",
                .label = "Llama-3.1 8B",
                .params = 0,
                .hidden = 4096,
                .layers = 32,
                .heads = 32,
                .kvHeads = 8,
                .headDim = 0,
                .ffn = 14336,
                .vocab = 128256,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/meta-llama/Llama-3.1-8B config.json; 8,030,261,248 parameters",
                .contextWindow = 131072},
    ModelPreset{.id = "llama-3.1-70b",
                .label = "Llama-3.1 70B",
                .params = 0,
                .hidden = 8192,
                .layers = 80,
                .heads = 64,
                .kvHeads = 8,
                .headDim = 0,
                .ffn = 28672,
                .vocab = 128256,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/meta-llama/Llama-3.1-70B config.json; 70,553,706,496 parameters",
                .contextWindow = 131072},
    ModelPreset{.id = "llama-3.1-405b",
                .label = "Llama-3.1 405B",
                .params = 0,
                .hidden = 16384,
                .layers = 126,
                .heads = 128,
                .kvHeads = 8,
                .headDim = 0,
                .ffn = 53248,
                .vocab = 128256,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/meta-llama/Llama-3.1-405B config.json; 405,853,388,800 parameters",
                .contextWindow = 131072},
    ModelPreset{.id = "gpt-3-175b",
                .label = "GPT-3 175B",
                .params = 0,
                .hidden = 12288,
                .layers = 96,
                .heads = 96,
                .kvHeads = 96,
                .headDim = 0,
                .ffn = 49152,
                .vocab = 50257,
                .gatedFfn = false,
                .tiedEmbeddings = true,
                .norm = Norm::layernorm,
                .bias = true,
                .posEmb = 2048,
                .method = Method::membudget,
                .source = "Brown et al. 2020, Table 2.1 (n_layers 96, d_model 12288, n_heads 96, d_head 128, context 2048), "
                          "GPT-2's 50,257-token BPE vocabulary, tied embeddings, LayerNorm and biases; the derived "
                          "174,604,259,328 is what the paper rounds to 175.0B",
                .contextWindow = 2048},
    ModelPreset{.id = "mixtral-8x7b",
                .label = "Mixtral 8x7B",
                .params = 0,
                .hidden = 4096,
                .layers = 32,
                .heads = 32,
                .kvHeads = 8,
                .headDim = 0,
                .ffn = 14336,
                .vocab = 32000,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/mistralai/Mixtral-8x7B-v0.1 config.json (8 experts, top-2); 46,702,792,704 parameters",
                .experts = 8,
                .expertsPerToken = 2,
                .moeFfn = 14336,
                .sharedExpertFfn = 0,
                .contextWindow = 32768},
    ModelPreset{.id = "mixtral-8x22b",
                .label = "Mixtral 8x22B",
                .params = 0,
                .hidden = 6144,
                .layers = 56,
                .heads = 48,
                .kvHeads = 8,
                .headDim = 0,
                .ffn = 16384,
                .vocab = 32000,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/mistralai/Mixtral-8x22B-v0.1 config.json (8 experts, top-2)",
                .experts = 8,
                .expertsPerToken = 2,
                .moeFfn = 16384,
                .sharedExpertFfn = 0,
                .contextWindow = 65536},
    ModelPreset{.id = "deepseek-v3",
                .label = "DeepSeek-V3 671B",
                .params = 0,
                .hidden = 7168,
                .layers = 61,
                .heads = 128,
                .kvHeads = 128,
                .headDim = 0,
                .ffn = 18432,
                .vocab = 129280,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source =
                    "huggingface.co/deepseek-ai/DeepSeek-V3 config.json: MLA (q_lora 1536, kv_lora 512, rope 64, nope 128, v 128), "
                    "256 routed experts of 2048 + 1 shared, top-8, 3 leading dense layers, 1 multi-token-prediction layer "
                    "(num_nextn_predict_layers); 671,026,419,200 parameters in the main model (DeepSeek's 671B) and 11,610,068,224 "
                    "in the MTP module: one MoE layer of 11,507,286,272 (README_WEIGHTS.md's \"11.5B unique\") plus its 2h -> h "
                    "projection and three norms; with the checkpoint's two copies of embedding and head, 684.49B (the model page's 685B)",
                .experts = 256,
                .expertsPerToken = 8,
                .moeFfn = 2048,
                .sharedExpertFfn = 2048,
                .firstDenseLayers = 3,
                .routerBias = true,
                .kvLoraRank = 512,
                .qLoraRank = 1536,
                .qkRopeDim = 64,
                .qkNopeDim = 128,
                .vHeadDim = 128,
                .qkvBias = false,
                .sharedExpertGate = false,
                .mtpLayers = 1,
                .contextWindow = 163840},
    ModelPreset{.id = "qwen1.5-moe-a2.7b",
                .label = "Qwen1.5-MoE-A2.7B",
                .params = 0,
                .hidden = 2048,
                .layers = 24,
                .heads = 16,
                .kvHeads = 16,
                .headDim = 0,
                .ffn = 5632,
                .vocab = 151936,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/Qwen/Qwen1.5-MoE-A2.7B config.json (qwen2_moe: 60 experts of 1408, top-4, a gated shared expert "
                          "of 5632, Q/K/V biases); 14,315,784,192 parameters = the checkpoint's safetensors total_size of "
                          "28,631,568,384 bytes in BF16",
                .experts = 60,
                .expertsPerToken = 4,
                .moeFfn = 1408,
                .sharedExpertFfn = 5632,
                .firstDenseLayers = 0,
                .routerBias = false,
                .kvLoraRank = 0,
                .qLoraRank = 0,
                .qkRopeDim = 64,
                .qkNopeDim = 0,
                .vHeadDim = 0,
                .qkvBias = true,
                .sharedExpertGate = true,
                .mtpLayers = 0,
                .contextWindow = 8192},
    ModelPreset{.id = "qwen2-57b-a14b",
                .label = "Qwen2-57B-A14B",
                .params = 0,
                .hidden = 3584,
                .layers = 28,
                .heads = 28,
                .kvHeads = 4,
                .headDim = 0,
                .ffn = 18944,
                .vocab = 151936,
                .gatedFfn = true,
                .tiedEmbeddings = false,
                .norm = Norm::rmsnorm,
                .bias = false,
                .posEmb = 0,
                .method = Method::membudget,
                .source = "huggingface.co/Qwen/Qwen2-57B-A14B config.json (qwen2_moe: 64 experts of 2560, top-8, a gated shared expert "
                          "of 20480, GQA with 4 KV heads, Q/K/V biases); the tensor sum of that config",
                .experts = 64,
                .expertsPerToken = 8,
                .moeFfn = 2560,
                .sharedExpertFfn = 20480,
                .firstDenseLayers = 0,
                .routerBias = false,
                .kvLoraRank = 0,
                .qLoraRank = 0,
                .qkRopeDim = 64,
                .qkNopeDim = 0,
                .vHeadDim = 0,
                .qkvBias = true,
                .sharedExpertGate = true,
                .mtpLayers = 0},
    // Korthikanti et al. 2022, Table 3: GPT-style models (s = 2048, v = 51200) used in their evaluation.
    ModelPreset{.id = "korthikanti-22b",
                .label = "22B (Korthikanti et al. Table 3)",
                .params = 0,
                .hidden = 6144,
                .layers = 48,
                .heads = 64,
                .kvHeads = 64,
                .headDim = 0,
                .ffn = 24576,
                .vocab = 51200,
                .gatedFfn = false,
                .tiedEmbeddings = true,
                .norm = Norm::layernorm,
                .bias = true,
                .posEmb = 2048,
                .method = Method::korthikanti,
                .source = "Korthikanti et al. 2022 (arXiv 2205.05198) Table 3: 64 heads, hidden 6144, 48 layers; GPT layout, v = 51200"},
    ModelPreset{.id = "korthikanti-175b",
                .label = "175B GPT-3 (Korthikanti et al. Table 3)",
                .params = 0,
                .hidden = 12288,
                .layers = 96,
                .heads = 96,
                .kvHeads = 96,
                .headDim = 0,
                .ffn = 49152,
                .vocab = 51200,
                .gatedFfn = false,
                .tiedEmbeddings = true,
                .norm = Norm::layernorm,
                .bias = true,
                .posEmb = 2048,
                .method = Method::korthikanti,
                .source = "Korthikanti et al. 2022 Table 3: 96 heads, hidden 12288, 96 layers; GPT layout, v = 51200"},
    ModelPreset{.id = "korthikanti-530b",
                .label = "530B MT-NLG (Korthikanti et al. Table 3)",
                .params = 0,
                .hidden = 20480,
                .layers = 105,
                .heads = 128,
                .kvHeads = 128,
                .headDim = 0,
                .ffn = 81920,
                .vocab = 51200,
                .gatedFfn = false,
                .tiedEmbeddings = true,
                .norm = Norm::layernorm,
                .bias = true,
                .posEmb = 2048,
                .method = Method::korthikanti,
                .source = "Korthikanti et al. 2022 Table 3: 128 heads, hidden 20480, 105 layers; GPT layout, v = 51200"},
    ModelPreset{.id = "korthikanti-1t",
                .label = "1T (Korthikanti et al. Table 3)",
                .params = 0,
                .hidden = 25600,
                .layers = 128,
                .heads = 160,
                .kvHeads = 160,
                .headDim = 0,
                .ffn = 102400,
                .vocab = 51200,
                .gatedFfn = false,
                .tiedEmbeddings = true,
                .norm = Norm::layernorm,
                .bias = true,
                .posEmb = 2048,
                .method = Method::korthikanti,
                .source = "Korthikanti et al. 2022 Table 3: 160 heads, hidden 25600, 128 layers; GPT layout, v = 51200"},
};

// Capacities are the total memory the device reports (nvidia-smi's MiB, or the allocator's bytes), which
// is what a run can actually use; the names round it. Compute capabilities are NVIDIA's (CUDA GPUs list); the
// chapter's generic 80 GB GPU is taken as a Hopper.
constexpr double MiB = kBytesPerMiB;
// Speed figures: Stas Bekman, Machine Learning Engineering (github.com/stas00/ml-engineering at 744d01e), the dense
// "TFLOPS comparison table" (citing the vendors' pages), the BF16 "Maximum Achievable Matmul FLOPS" table (MAMF /
// peak), the memory-bandwidth table, and network/README.md's intra- and inter-node tables (per direction).
// Rated board power (tdpW), from the vendors' datasheets: A100 SXM4 400 W, H100 and H200 SXM 700 W, B200 1,000 W
// (HGX B200), MI300X 750 W, L40S 350 W, GeForce RTX 4090 450 W.
constexpr std::string_view kSpeedH100 =
    "Bekman ml-engineering: H100 SXM 989 BF16 / 1979 FP8 dense TFLOPS; BF16 MAMF 794.5 of 989 (80.3%), FP8 MAMF 1402.6 of 1979 "
    "(70.9%); HBM3 3.35 TB/s; "
    "NVLink 4 450 GB/s per direction; DGX H100 8x ConnectX-7 400 Gbps (50 GB/s per GPU)";
constexpr std::array kGpus{
    GpuPreset{"generic-80gb", "80 GB (the chapter's generic GPU)", 80e9, "Chapter section 4: \"Must be < 80 GB\", i.e. exactly 80e9 bytes",
              9.0, 989.4, 1978.9, 0.803, 3.35, 450, 50,
              "The chapter names no GPU: an H100 SXM is assumed (989.4 BF16 / 1978.9 FP8 dense TFLOP/s, NVIDIA H100 datasheet "
              "halved from its sparse figures); the rest as h100-80gb",
              0.709, 700, 132},
    GpuPreset{"a100-40gb", "NVIDIA A100 40GB", 40960 * MiB,
              "nvidia-smi on A100-SXM4-40GB, recent drivers: 40960MiB (modal-labs/modal-client PR #2797); "
              "older drivers showed 40536MiB (facebookresearch/vissl issue #422)",
              8.0, 312, 0, 0.869, 1.555, 300, 25,
              "Bekman ml-engineering: A100 SXM 312 BF16 dense TFLOPS, no FP8; BF16 MAMF 271.2 of 312 (86.9%); 40 GB HBM2 1.555 TB/s "
              "(A100 datasheet); NVLink 3 300 GB/s per direction; DGX A100 8x HDR 200 Gbps (25 GB/s per GPU)",
              0, 400, 108},
    GpuPreset{"a100-80gb", "NVIDIA A100 80GB", 81920 * MiB,
              "nvidia-smi on A100-SXM4-80GB: 81920MiB (allenai/PeerRead issue #40; modal-labs/modal-client PR #2797)", 8.0, 312, 0, 0.869,
              2.039, 300, 25,
              "Bekman ml-engineering: A100 SXM 312 BF16 dense TFLOPS, no FP8; BF16 MAMF 271.2 of 312 (86.9%); 80 GB HBM2e 2.039 TB/s "
              "(A100 datasheet); NVLink 3 300 GB/s per direction; DGX A100 8x HDR 200 Gbps (25 GB/s per GPU)",
              0, 400, 108},
    GpuPreset{"h100-80gb", "NVIDIA H100 80GB HBM3", 81559 * MiB,
              "nvidia-smi on H100 80GB HBM3 (SXM5): 81559MiB = 85,520,809,984 B (NVIDIA/nccl issue #1264; "
              "wilicc/gpu-burn issue #114; modal-labs/modal-client PR #2797)",
              9.0, 989, 1979, 0.803, 3.35, 450, 50, kSpeedH100, 0.709, 700, 132},
    GpuPreset{"h200", "NVIDIA H200 141GB", 143771 * MiB, "nvidia-smi on H200 (141 GB HBM3e): 143771MiB (sgl-project/sglang issue #3196)",
              9.0, 989, 1979, 0.803, 4.8, 450, 50,
              "Bekman ml-engineering: H200 989 BF16 / 1979 FP8 dense TFLOPS; MAMF as H100 (\"H200 is the same\"); HBM3e 4.80 TB/s; "
              "NVLink 4 450 GB/s per direction; DGX BasePOD 8x ConnectX-7 400 Gbps (50 GB/s per GPU); FP8 MAMF 1453.4 of 1979 (73.4%)",
              0.734, 700, 132},
    GpuPreset{"b200", "NVIDIA B200", 183359 * MiB, "nvidia-smi on B200: 183359MiB (NVIDIA/TensorRT-LLM issue #10278)", 10.0, 2250, 4500,
              0.776, 8.0, 900, 50,
              "Bekman ml-engineering: B200 SXM 2250 BF16 / 4500 FP8 dense TFLOPS; BF16 MAMF 1745.0 of 2250 (77.6%); HBM3e 8.00 TB/s; "
              "NVLink 5 900 GB/s per direction; DGX B200 8x ConnectX-7 400 Gbps (50 GB/s per GPU); FP8 MAMF 3432.5 of 4500 (76.3%)",
              0.763, 1000},
    GpuPreset{"mi300x", "AMD Instinct MI300X", 196592 * MiB,
              "rocm-smi --showmeminfo vram on MI300X (SPX mode): VRAM Total Memory (B) 206141652992, "
              "16 MiB under 192 GiB (ROCm/ROCm issue #4750)",
              0, 1300, 2610, 0.514, 5.3, 448, 50,
              "Bekman ml-engineering: MI300X 1300 BF16 / 2610 FP8 dense TFLOPS; BF16 MAMF 668.4 of 1300 (51.4%, TunableOp); HBM3 5.30 "
              "TB/s; xGMI 7 links x 64 GB/s = 448 GB/s all-to-all per direction; Azure ND MI300X v5 8x 400 Gb NDR (50 GB/s per GPU)",
              0, 750},
    GpuPreset{"l40s", "NVIDIA L40S", 46068 * MiB,
              "nvidia-smi on L40S: 46068MiB (modal-labs/modal-client PR #2797; akash-network/provider-configs PR #99)", 8.9, 362, 733,
              0.803, 0.864, 32, 6.25,
              "Bekman ml-engineering: L40S 362 BF16 / 733 FP8 dense TFLOPS; 864 GB/s GDDR6 (L40S datasheet); PCIe Gen4 x16 32 GB/s per "
              "direction; no MAMF published (H100's 80.3% assumed); no reference cluster: one 400 Gbps NIC per 8-GPU node "
              "(Bekman: \"a single 100-400Gbps connection\") assumed, 6.25 GB/s per GPU",
              0, 350},
    GpuPreset{"rtx-4090", "NVIDIA GeForce RTX 4090", 24564 * MiB, "nvidia-smi on GeForce RTX 4090: 24564MiB (RLinf/RLinf issue #255)", 8.9,
              165.2, 330.3, 0.803, 1.008, 31, 6.25,
              "NVIDIA Ada whitepaper v2.1 appendix A: 165.2 BF16 / 330.3 FP8 dense TFLOPS with FP32 accumulate; 1008 GB/s GDDR6X; "
              "PCIe 4 about 31 GB/s per direction, no peer-to-peer (NVIDIA/nccl issue #1127); no MAMF published (H100's 80.3% "
              "assumed); one 400 Gbps NIC per 8-GPU node assumed, 6.25 GB/s per GPU",
              0, 450},
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
    config.norm = preset.norm;
    config.bias = preset.bias;
    config.qkvBias = preset.qkvBias;
    config.sharedExpertGate = preset.sharedExpertGate;
    config.mtpLayers = preset.mtpLayers;
    config.contextWindow = preset.contextWindow;
    config.slidingWindow = preset.slidingWindow;
    config.fullAttentionEvery = preset.fullAttentionEvery;
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
    config.method = preset.method;
}

void applyGpuPreset(Config& config, const GpuPreset& preset) {
    config.gpu = std::string(preset.id);
    config.gpuGb = preset.capacityBytes / kBytesPerGB;
    config.peakTflops = preset.peakTflops;
    config.fp8Tflops = preset.fp8Tflops;
    config.matmulEfficiency = preset.matmulEfficiency;
    config.fp8MatmulEfficiency = preset.fp8MatmulEfficiency;
    config.tdpW = preset.tdpW;
    config.powerLimitW = 0;
    config.hbmTbps = preset.hbmTbps;
    config.nvlinkGbps = preset.nvlinkGbps;
    config.networkGbps = preset.networkGbps;
}

}  // namespace membudget
