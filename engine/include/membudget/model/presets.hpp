// Model and GPU presets. Each one fills fields of Config; explicit keys override what it sets.
#pragma once

#include <span>
#include <string_view>

#include "membudget/base/choices.hpp"
#include "membudget/base/record.hpp"
#include "membudget/model/config.hpp"

namespace membudget {

struct ModelPreset {
    std::string_view id;
    std::string_view label;
    // The picker's group (Llama, Qwen, ...; the chapter's and papers' examples together).
    std::string_view family;
    double params;  // 0: derived from the architecture (the published count, checked in tests)
    double hidden, layers, heads, kvHeads, headDim, ffn, vocab;
    bool gatedFfn, tiedEmbeddings;
    Norm norm;
    bool bias;
    double posEmb;
    Method method;  // the chapter's examples use method=chapter, real models membudget's own
    std::string_view source;
    double experts = 0, expertsPerToken = 2, moeFfn = 0, sharedExpertFfn = 0;
    double firstDenseLayers = 0;
    bool routerBias = false;
    double kvLoraRank = 0, qLoraRank = 0, qkRopeDim = 64, qkNopeDim = 0, vHeadDim = 0;
    double indexHeads = 0, indexHeadDim = 128;  // DeepSeek-V3.2's sparse-attention indexer (0 heads: none)
    // Gated DeltaNet linear attention (Qwen3-Next; 0 value heads: none) and the gated full-attention output.
    double linearKeyHeads = 16, linearValueHeads = 0, linearKeyDim = 128, linearValueDim = 128, linearConvKernel = 4;
    bool attnOutputGate = false;
    bool qkvBias = false, sharedExpertGate = false;
    double mtpLayers = 0;
    // The context window (config.json max_position_embeddings; GPT-3: the paper's n_ctx), tokens; 0: not stated.
    double contextWindow = 0;
    // Sliding-window attention: the window (tokens; 0: none) and the period of full-attention layers.
    double slidingWindow = 0;
    double fullAttentionEvery = 0;
    double attentionChunk = 0;
    // Norms beyond Llama's two per layer: on the queries and keys, and after attention and the MLP.
    QkNorm qkNorm = QkNorm::none;
    bool postNorms = false;
    bool attentionSinks = false;
    // The biases and norms of the older layouts (GPT-J, Phi-2, BLOOM, Falcon), which no preset has yet.
    bool attentionBias = false, mlpBias = false, outputBias = false, sharedNorm = false, embeddingNorm = false;
    double visionParams = 0;  // a multimodal model's vision tower
    // The checkpoint's expert format (gpt-oss: MXFP4); a preset always sets it, so none is inherited.
    ExpertWeights expertWeightDtype = ExpertWeights::same;
    // The format the checkpoint stores the linear layers' weights in (DeepSeek-V3: FP8 with 128 x 128 block
    // scales), what vLLM loads it as; like the expert format a preset always sets it.
    WeightDtype weightDtype = WeightDtype::bf16;
    double moeLayerFreq = 1;  // with first_dense_layers, every Nth layer MoE (Llama 4 Maverick: 2)
    // A hybrid stack of one-mixer blocks (Nemotron-H) and its Mamba-2 mixers; empty: uniform layers.
    std::string_view layerPattern = "";
    double mambaHeads = 128, mambaHeadDim = 64, mambaState = 128, mambaGroups = 8, mambaConvKernel = 4;
    bool mambaConvBias = true;
    StateDtype mambaStateDtype = StateDtype::fp32;
};

// `membudget presets`'s models and the page's picker (which leaves the source out: docs/presets.md has it).
extern const RecordTable kModelPresetRecord;

struct GpuPreset {
    std::string_view id;
    std::string_view label;
    double capacityBytes;  // what the device reports as total memory, not the marketing figure
    std::string_view source;
    // CUDA compute capability (9.0 for Hopper); 0 for a GPU that is not NVIDIA's. It sizes the cuBLAS and
    // Transformer Engine workspaces, which PyTorch and TE choose by architecture.
    double computeCapability = 0;
    // Speed (the step-time estimate, docs/planner.md): dense peaks, the fraction of the BF16 peak a large GEMM
    // reaches, memory bandwidth, and per-GPU, per-direction link bandwidths inside a node and between nodes.
    double peakTflops = 0, fp8Tflops = 0, matmulEfficiency = 0, hbmTbps = 0, nvlinkGbps = 0, networkGbps = 0;
    std::string_view speedSource = "";
    double fp8MatmulEfficiency = 0;  // the FP8 MAMF over the FP8 peak; 0: the BF16 fraction (none published)
    double tdpW = 0;                 // rated board power, W (the vendor's datasheet)
    // Streaming multiprocessors, for the GEMMs' wave quantization (Bekman, ML Engineering: A100 108, H100 and H200
    // 132); 0 where no count is published, and no quantization is applied.
    double sms = 0;
};
extern const RecordTable kGpuPresetRecord;

std::span<const ModelPreset> modelPresets();
std::span<const GpuPreset> gpuPresets();
const ModelPreset* findModelPreset(std::string_view id);
const GpuPreset* findGpuPreset(std::string_view id);

void applyModelPreset(Config& config, const ModelPreset& preset);
void applyGpuPreset(Config& config, const GpuPreset& preset);

}  // namespace membudget
