// The configuration: one flat record whose keys are the same in JSON, CLI flags and URL queries. The field
// table (membudget/model/fields.hpp) is the single description of it that validation, the CLI, the query
// codec and the page's form are generated from.
#pragma once

#include <string>

#include "membudget/base/choices.hpp"

namespace membudget {

// Integer fields are held as double so that the same record crosses into JavaScript unchanged; the
// validator checks they are integral. Choices are enums (membudget/base/choices.hpp), their ids only at the
// boundaries; model and gpu are preset ids, and name is free text.
// Member initialisers are the chapter's 70B example (section 4): TP=8, PP=1, DP=32, b=1, s=4096, full
// checkpointing, an 80 GB GPU. A test checks they equal the `chapter-70b` and `generic-80gb` presets.
struct Config {
    // model
    std::string model = "chapter-70b";
    std::string name;      // a custom or imported model's own name (config.json's _name_or_path); "" for a preset
    double params = 70e9;  // Ψ; 0 derives it from the architecture
    double hidden = 8192;
    double layers = 80;
    double heads = 64;
    double kvHeads = 8;
    double headDim = 0;  // 0 means hidden / heads
    double ffn = 28672;
    double vocab = 128256;
    bool gatedFfn = true;
    bool tiedEmbeddings = false;
    Norm norm = Norm::rmsnorm;
    bool bias = false;
    bool qkvBias = false;        // biases on Q, K, V only (Qwen2)
    bool attentionBias = false;  // biases on Q, K, V and the output projection, not the MLP (Llama's attention_bias)
    bool mlpBias = false;        // biases on the MLP's projections, not attention (GPT-J, Llama's mlp_bias)
    bool outputBias = false;     // a bias on the output layer (GPT-J's and Phi-2's lm_head)
    // One input norm per layer that attention and the MLP both read (the parallel blocks of GPT-J, Phi-1/2 and the
    // first Falcons), where a sequential layer has two.
    bool sharedNorm = false;
    bool embeddingNorm = false;  // a LayerNorm on the embeddings before the first layer (BLOOM's word_embeddings_layernorm)
    QkNorm qkNorm = QkNorm::none;
    bool postNorms = false;       // a norm after attention and after the MLP too, four per layer (Gemma 2/3, GLM-4)
    bool attentionSinks = false;  // a learned sink logit per head in every layer (gpt-oss)
    double posEmb = 0;            // rows of a learned absolute position embedding; 0 for rotary
    // A multimodal model's vision tower and projector (vision_config), held with the embedding on the first stage, whole
    // on every TP rank; 0: none, or not counted.
    double visionParams = 0;
    double contextWindow = 0;  // the model's context window (max_position_embeddings), tokens; 0: not stated
    // Sliding-window attention (Mistral-7B-v0.1, Phi-3, Gemma 2/3): the tokens a sliding layer attends to (0: every
    // layer attends to all), and with one, every full_attention_every-th layer attending to all (0: none does).
    double slidingWindow = 0;
    double fullAttentionEvery = 0;
    // Chunked local attention (Llama 4's attention_chunk_size): a local layer attends within its chunk of C tokens;
    // with full_attention_every, every Nth layer attends to all (Llama 4's NoPE layers, every 4th).
    double attentionChunk = 0;
    // mixture of experts (experts = 0: dense)
    double experts = 0;
    double expertsPerToken = 2;
    double moeFfn = 0;           // 0: ffn
    double sharedExpertFfn = 0;  // 0: no shared expert
    double moeLayerFreq = 1;     // from first_dense_layers on, every moe_layer_freq-th layer is MoE
    double firstDenseLayers = 0;
    bool routerBias = false;        // a per-expert router bias (DeepSeek-V3's e_score_correction_bias)
    bool sharedExpertGate = false;  // a sigmoid gate h -> 1 on the shared expert's output (Qwen2-MoE)
    double mtpLayers = 0;           // multi-token-prediction layers (DeepSeek-V3: 1), on the last stage
    // Routing balance (docs/frameworks.md, "Routing balance"): Megatron-LM's --moe-expert-capacity-factor (0: dropless,
    // its default), a run that forces balanced routing, and the busiest EP rank's received tokens over an even split.
    double capacityFactor = 0;
    bool moeForceBalance = false;
    double moeImbalance = 0;                                // 0: 1 when forced, else kDroplessImbalance, at most the capacity factor
    MoeDispatcher moeDispatcher = MoeDispatcher::alltoall;  // moe_dispatcher: all-to-all, or DeepEP and its buffer
    // multi-head latent attention (kv_lora_rank = 0: standard attention)
    double kvLoraRank = 0;
    double qLoraRank = 0;   // 0: a full-rank query projection
    double qkRopeDim = 64;  // decoupled rotary dimension of Q and K
    double qkNopeDim = 0;   // 0: head_dim
    double vHeadDim = 0;    // 0: head_dim
    // DeepSeek-V3.2's sparse-attention indexer in every layer (index_n_heads, index_head_dim; 0 heads: none): its
    // own query, key and weight projections, replicated on TP ranks, and a key cache per token in inference.
    double indexHeads = 0;
    double indexHeadDim = 128;
    // Gated DeltaNet linear attention (Qwen3-Next): with linear_value_heads > 0 every layer that is not a
    // full-attention layer (every full_attention_every-th; 0: none) is a linear-attention layer, which keeps a fixed
    // state per sequence instead of tokens. Heads and their widths as transformers' Qwen3NextGatedDeltaNet takes them.
    double linearKeyHeads = 16;
    double linearValueHeads = 0;
    double linearKeyDim = 128;
    double linearValueDim = 128;
    double linearConvKernel = 4;
    bool attnOutputGate = false;  // the full-attention layers' query projection also gives a gate (Qwen3-Next)
    // A hybrid stack of one-mixer blocks (Nemotron-H's hybrid_override_pattern), one character a layer: M a Mamba-2
    // mixer, * attention, - an MLP, each behind its own norm. Empty: every layer is attention and an MLP.
    std::string layerPattern;
    // The Mamba-2 mixers of M blocks (transformers' NemotronHMamba2Mixer, NemotronHConfig's defaults): mamba_heads ×
    // mamba_head_dim channels, B and C of mamba_state in mamba_groups groups, a depthwise convolution of
    // mamba_conv_kernel; vLLM keeps a conv state in the model's dtype and an SSM state in mamba_state_dtype.
    double mambaHeads = 128;
    double mambaHeadDim = 64;
    double mambaState = 128;
    double mambaGroups = 8;
    double mambaConvKernel = 4;
    bool mambaConvBias = true;
    StateDtype mambaStateDtype = StateDtype::fp32;
    // parallelism
    double tp = 8;
    double pp = 1;
    double dp = 32;
    double cp = 1;
    bool sp = false;
    bool asyncTp = false;  // async_tp: torchtitan's AsyncTP and its symmetric-memory workspace
    double zero = 1;
    // Megatron-LM's --overlap-grad-reduce and --overlap-param-gather (off by default in arguments.py): the gradient
    // reduce-scatter runs in buckets during the last backward, the parameter all-gather during the next forward.
    bool overlapGradReduce = false;
    bool overlapParamGather = false;
    // Megatron-LM's --overlap-moe-expert-parallel-comm (Megatron-Bridge's moe_a2a_overlap): the combined 1F1B
    // schedule runs one micro-batch's forward beside another's backward, each MoE all-to-all beside the other's compute.
    bool overlapMoeComm = false;
    double gpus = 0;  // 0 means TP × PP × CP × DP
    double ep = 1;    // expert parallel
    double etp = 0;   // expert tensor parallel; 0 means TP
    double vpp = 1;   // virtual pipeline stages (interleaved 1F1B) per rank
    // Megatron-LM's --pipeline-model-parallel-layout: the layers of each virtual stage, e.g. "Et*8|(t*8|)*6t*5mL"
    // (model/pipeline_layout.hpp); empty: the split first_stage_layers, last_stage_layers and split_accounts give.
    std::string pipelineLayout;
    double firstStageLayers = 0;  // 0: an even split
    double lastStageLayers = 0;
    // Megatron-LM's even split that counts the embedding and/or the loss as a layer: (layers + accounted) / pp a
    // stage, one layer fewer on the stage that holds each (transformer_block.py get_num_layers_to_build).
    SplitAccounts splitAccounts = SplitAccounts::none;
    // training
    double mb = 1;
    double seq = 4096;
    Checkpointing ckpt = Checkpointing::full;
    double ckptEvery = 1;        // checkpoint every Nth layer (torchtitan selective_ac_option = N; 1: every layer)
    double recomputeLayers = 0;  // Megatron-LM recompute_num_layers (recompute_method block); 0: every layer
    // Megatron-LM's --recompute-modules under ckpt selective (model/recompute_modules.hpp), comma-separated; the other
    // frameworks' selective recomputation is the attention core's.
    std::string recomputeModules = "core_attn";
    double microbatches = 32;
    double staticBytes = 16;
    ActFormula actFormula = ActFormula::table;
    Attention attention = Attention::flash;
    bool dropout = false;
    Optimizer optimizer = Optimizer::adamw;  // adamw, adamw_8bit, adafactor, sgd, muon (method membudget)
    Precision precision = Precision::bf16;   // bf16, fp16, fp8, fp32 (method membudget)
    bool masterWeights = true;
    OptimizerDtype optimizerDtype = OptimizerDtype::automatic;
    bool optimizerInBackward = false;  // each gradient freed right after its parameter's step (torchtune)
    Fp8Recipe fp8Recipe = Fp8Recipe::te;
    // Fine-tuning (docs/frameworks.md, "Fine-tuning"): frozen base weights and trained low-rank adapters.
    Finetune finetune = Finetune::full;
    double loraRank = 16;
    std::string loraTargets = "q,v";  // q,k,v,o,gate,up,down,output or attention, mlp, all_linear
    bool loraDropout = false;
    LoraDtype loraDtype = LoraDtype::automatic;
    double lossChunks = 0;            // the loss in chunks of the sequence (torchtune num_output_chunks); 0: the framework's
    bool activationOffload = false;   // layer inputs kept on the CPU (torchtune enable_activation_offloading)
    bool compile = false;             // torch.compile of each block
    bool autocast = false;            // torch.autocast over BF16/FP16 parameters (DeepSpeed torch_autocast)
    bool compileLoss = true;          // with compile, the loss too (torchtitan compile.components "loss"; torchtune)
    bool fp8AllGather = false;        // FSDP2 gathers torchao Float8 weights in FP8 (float8.enable_fsdp_float8_all_gather)
    bool expandableSegments = false;  // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
    double maxSplitSizeMb = 0;        // PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:N (0: not set)
    // hardware
    std::string gpu = "generic-80gb";
    double gpuGb = 80;
    double buffersGb = 2;
    double contextGb = 1;
    double headroom = 0.10;
    double gpusPerNode = 8;
    // speed (the step-time estimate): the GPU preset's, or the user's for another GPU
    double peakTflops = 989.4;           // dense BF16 tensor-core peak, TFLOP/s
    double fp8Tflops = 1978.9;           // dense FP8 peak, TFLOP/s; 0: no FP8 tensor cores (FP8 runs at the BF16 rate)
    double matmulEfficiency = 0.803;     // the fraction of the BF16 peak a large GEMM reaches (MAMF)
    double fp8MatmulEfficiency = 0.709;  // the same for FP8 GEMMs; 0: matmul_efficiency
    double tdpW = 700;                   // the GPU's rated power, W
    double powerLimitW = 0;              // a lower power cap (nvidia-smi -pl), W; 0: the rated power
    double hbmTbps = 3.35;               // memory bandwidth, TB/s
    double nvlinkGbps = 450;             // GPU-to-GPU inside a node, per direction, GB/s
    double networkGbps = 50;             // per GPU between nodes, per direction, GB/s
    // the run: what training on a token budget takes at the estimated speed (0: not set, no run figures)
    double trainTokens = 0;           // tokens the whole run trains on (15e12 for 15T)
    double gpuHourUsd = 0;            // the price of one GPU-hour, US dollars
    Offload offload = Offload::none;  // ZeRO-Offload: none, optimizer, all (optimizer and parameters)
    bool zeroInit = true;             // DeepSpeed zero.Init: parameters partitioned as they are created
    // DeepSpeed's own buffers (deepspeed/runtime/zero/config.py defaults), elements; 0 where it means the HF Trainer's
    // "auto" (integrations/deepspeed.py: hidden² and 0.9 × hidden²).
    double reduceBucketSize = 5e8;      // zero_optimization.reduce_bucket_size: the gradient reduce bucket
    double subGroupSize = 1e9;          // zero_optimization.sub_group_size: the optimizer steps one sub group at a time
    double prefetchBucketSize = 5e7;    // stage3_prefetch_bucket_size: parameters gathered ahead of use
    double maxLiveParameters = 1e9;     // stage3_max_live_parameters: the most gathered at once
    double persistenceThreshold = 1e5;  // stage3_param_persistence_threshold: smaller parameters stay gathered
    // inference (mode = inference: mb is the number of concurrent sequences, seq the tokens of each)
    Mode mode = Mode::training;
    WeightDtype weightDtype = WeightDtype::bf16;
    ExpertWeights expertWeightDtype = ExpertWeights::same;
    KvDtype kvDtype = KvDtype::bf16;
    double quantGroup = 128;        // INT4 weights: input channels per scale/zero group (AWQ, GPTQ)
    double kvBlock = 16;            // tokens per KV-cache block (vLLM's block_size); 1 = no rounding
    double workspaceTokens = 8192;  // tokens in one forward pass (vLLM's max_num_batched_tokens)
    double cudaGraphsGb = 0;
    // The serving workload (docs/inference.md, "Serving speed"): each request's prompt and generated tokens; 0: the
    // other's complement in seq, or half of seq each when neither is set.
    double inputTokens = 0;
    double outputTokens = 0;
    // A serving benchmark (docs/inference.md, "Under a benchmark"): the requests it sends (0: no benchmark, the steady
    // state), their Poisson rate over the deployment (0: all at once), and the lengths' spread (each drawn uniformly from
    // ratio × nominal to nominal; 1: fixed). mb is its maximum concurrency per replica.
    double numPrompts = 0;
    double requestRate = 0;
    double lengthRangeRatio = 1;
    double schedulerRecvInterval = 1;  // SGLang's --scheduler-recv-interval: decode passes between reads of new requests
    bool enforceEager = false;         // no CUDA graphs (vLLM --enforce-eager, SGLang --disable-cuda-graph)
    // SGLang's data-parallel attention (--enable-dp-attention --dp-size D): D attention groups of tp / D GPUs inside
    // the TP group, each with its own requests and KV cache; the MLP and the experts stay over all tp GPUs.
    double attentionDp = 1;
    // CUDA graphs for decode: the largest batch captured (0: the engine's own, vLLM 512, SGLang by the GPU's memory,
    // TensorRT-LLM 128), and, under TensorRT-LLM, whether a batch is padded to the next captured size (its
    // cuda_graph_config.enable_padding, off by default: a batch of a size not captured runs eagerly).
    double cudaGraphMaxBatch = 0;
    bool cudaGraphPadding = false;
    // TensorRT-LLM's enable_chunked_prefill (off by default there: a prompt is prefilled whole in one pass, and one longer
    // than max_num_tokens is refused); vLLM and SGLang always chunk prompts to workspace_tokens.
    bool chunkedPrefill = false;
    // method
    Method method = Method::chapter;
    Framework framework = Framework::megatron;

    bool operator==(const Config&) const = default;
};

}  // namespace membudget
