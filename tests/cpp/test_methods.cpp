// The methods through the ledger: a Config mapped onto each source reproduces the source's numbers,
// membudget's tensor model agrees with Korthikanti et al. where their assumptions coincide, and the
// stages, phases and comparison hold together.
#include <array>
#include <catch2/catch.hpp>
#include <cmath>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/memory/methods.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/memory/sources.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"

using namespace membudget;
using membudget::test::fixture;

namespace {

double relativeError(double got, double want) { return want == 0 ? std::fabs(got) : std::fabs(got - want) / std::fabs(want); }

double line(const Result& r, const std::string& id) {
    for (const auto& l : r.lines)
        if (toString(l.id) == id) return l.bytes;
    FAIL("no line " << id);
    return 0;
}

// A line's bytes by id, 0 where the result has no such line.
double line(const Result& r, LineId id) {
    for (const auto& l : r.lines)
        if (l.id == id) return l.bytes;
    return 0;
}

const membudget::Line& lineOf(const Result& r, const std::string& id) {
    for (const auto& l : r.lines)
        if (toString(l.id) == id) return l;
    FAIL("no line " << id);
    return r.lines.front();
}

double modelStates(const Result& r) { return line(r, "parameters") + line(r, "gradients") + line(r, "optimizer"); }

// A model preset's architecture (and its method, membudget) on top of the defaults.
Config preset(std::string_view id) {
    Config config;
    applyModelPreset(config, *findModelPreset(id));
    return config;
}

// Llama-3.1-8B under DeepSpeed ZeRO-3 on 8 GPUs, one micro-batch of `seq` tokens.
Config deepspeedZero3Llama8b(double seq, Checkpointing ckpt) {
    Config c = preset("llama-3.1-8b");
    c.method = Method::membudget;
    c.framework = Framework::deepspeed;
    c.zero = 3;
    c.tp = 1;
    c.dp = 8;
    c.mb = 1;
    c.seq = seq;
    c.microbatches = 1;
    c.ckpt = ckpt;
    return c;
}

}  // namespace

TEST_CASE("method megatron: a Config reproduces Megatron-LM's own numbers", "[methods][megatron]") {
    int checked = 0;
    for (const auto& c : fixture("megatron")["cases"]) {
        const auto& a = c["args"];
        INFO(c["name"].get<std::string>());
        Config config;
        config.method = Method::megatron;
        config.params = 0;
        config.hidden = a["hidden_size"];
        config.heads = a["num_attention_heads"];
        config.kvHeads = a["group_query_attention"].get<bool>() ? a["num_query_groups"].get<double>() : config.heads;
        config.headDim = a["kv_channels"];
        config.ffn = a["ffn_hidden_size"];
        config.layers = a["num_layers"];
        config.vocab = a["padded_vocab_size"];
        config.gatedFfn = a["swiglu"];
        config.tiedEmbeddings = !a["untie_embeddings_and_output_weights"].get<bool>();
        config.norm = a["normalization"] == "RMSNorm" ? Norm::rmsnorm : Norm::layernorm;
        config.tp = a["tensor_model_parallel_size"];
        config.pp = a["pipeline_model_parallel_size"];
        config.vpp = a["virtual_pipeline_model_parallel_size"].is_null() ? 1.0 : a["virtual_pipeline_model_parallel_size"].get<double>();
        config.dp = a["data_parallel_size"];
        config.cp = a.value("context_parallel_size", 1.0);
        config.zero = a["use_distributed_optimizer"].get<bool>() ? 1 : 0;
        config.sp = a["sequence_parallel"];
        const auto& granularity = a["recompute_granularity"];
        config.ckpt = granularity.is_null() ? Checkpointing::none : membudget::test::choice<Checkpointing>(granularity.get<std::string>());
        config.mb = a["micro_batch_size"];
        config.seq = a["seq_length"];
        // Megatron-LM without a micro-batch count applies no discount, as with m >= PP.
        config.microbatches = c["num_microbatches"].is_null() ? config.pp : c["num_microbatches"].get<double>();
        if (a["multi_latent_attention"].get<bool>()) {
            config.kvLoraRank = a["kv_lora_rank"];
            config.qLoraRank = a["q_lora_rank"].is_null() ? 0.0 : a["q_lora_rank"].get<double>();
            config.qkNopeDim = a["qk_head_dim"];
            config.qkRopeDim = a["qk_pos_emb_head_dim"];
            config.vHeadDim = a["v_head_dim"];
        }
        if (!a["num_experts"].is_null()) {
            config.experts = a["num_experts"];
            config.moeFfn = a["moe_ffn_hidden_size"];
            config.expertsPerToken = a["moe_router_topk"];
            if (a["moe_layer_freq"].is_array()) {
                config.firstDenseLayers = 0;
                for (const auto& flag : a["moe_layer_freq"])
                    if (flag.get<int>() == 0) config.firstDenseLayers += 1;
                config.moeLayerFreq = 1;
            } else {
                config.moeLayerFreq = a["moe_layer_freq"];
            }
            config.sharedExpertFfn =
                a["moe_shared_expert_intermediate_size"].is_null() ? 0.0 : a["moe_shared_expert_intermediate_size"].get<double>();
            config.ep = a["expert_model_parallel_size"];
            config.etp = a["expert_tensor_parallel_size"];
            config.routerBias = a["add_bias_linear"];
            config.sharedExpertGate = a["moe_shared_expert_gate"];
        }
        config.mtpLayers = a["mtp_num_layers"].is_null() ? 0.0 : a["mtp_num_layers"].get<double>();
        const Result r = evaluate(config);
        REQUIRE(r.ok());
        CHECK(relativeError(modelStates(r), c["weight_and_optimizer_bytes"]) < 1e-9);
        CHECK(relativeError(line(r, "activations"), c["activation_bytes"]) < 1e-9);
        for (const auto& l : r.lines)
            if (toString(l.id) != "buffers" && toString(l.id) != "cuda_context") CHECK(l.origin == membudget::Method::megatron);
        ++checked;
    }
    CHECK(checked >= 10);
}

TEST_CASE("method deepspeed: ZeRO-2 rows through the ledger, GPU and CPU", "[methods][deepspeed]") {
    int checked = 0;
    for (const auto& c : fixture("deepspeed")["zero2"]) {
        const auto& in = c["inputs"];
        if (in["additional_buffer_factor"].get<double>() != 1.5 || in["total_params"].get<double>() < 1e6) continue;
        for (const auto& row : c["options"]) {
            INFO(c["model"].get<std::string>() << " " << in.dump() << " offload " << row["cpu_offload"]);
            Config config;
            config.method = Method::deepspeed;
            config.params = in["total_params"];
            config.tp = config.pp = 1;
            config.gpusPerNode = in["num_gpus_per_node"];
            config.dp = in["num_gpus_per_node"].get<double>() * in["num_nodes"].get<double>();
            config.zero = 2;
            config.offload = row["cpu_offload"].get<bool>() ? Offload::optimizer : Offload::none;
            const Result r = evaluate(config);
            REQUIRE(r.ok());
            CHECK(modelStates(r) == row["gpu_bytes_per_gpu"].get<double>());
            CHECK(r.cpuBytesPerNode == row["cpu_bytes_per_node"].get<double>());
            ++checked;
        }
    }
    CHECK(checked >= 10);
}

TEST_CASE("method zero: Figure 1's 7.5B model on 64 GPUs", "[methods][zero]") {
    const double expected[] = {120e9, 31.40625e9, 16.640625e9, 1.875e9};
    for (int stage = 0; stage <= 3; ++stage) {
        Config config;
        config.method = Method::zero;
        config.params = 7.5e9;
        config.tp = config.pp = 1;
        config.dp = 64;
        config.zero = stage;
        const Result r = evaluate(config);
        REQUIRE(r.ok());
        CHECK(modelStates(r) == expected[stage]);
        CHECK(r.lines[3].origin == membudget::Method::membudget);  // activations: not in the paper
    }
}

TEST_CASE("method korthikanti: Table 3's GPT-3 on TP=8, PP=8 with SP and selective recomputation", "[methods][korthikanti]") {
    Config config;
    config.method = Method::korthikanti;
    config.model = "gpt-3-175b";
    config.params = 0;
    config.hidden = 12288;
    config.heads = config.kvHeads = 96;
    config.layers = 96;
    config.ffn = 4 * 12288;
    config.vocab = 51200;
    config.gatedFfn = false;
    config.norm = Norm::layernorm;
    config.tp = 8;
    config.pp = 8;
    config.dp = 1;
    config.sp = true;
    config.ckpt = Checkpointing::selective;
    config.mb = 1;
    config.seq = 2048;
    config.microbatches = 64;
    const Result r = evaluate(config);
    REQUIRE(r.ok());
    const double s = 2048, b = 1, h = 12288, t = 8, L = 96, p = 8;
    // §4.3: the first stage holds (sbhL/t)(34 + p/L): L layers' worth plus p embedding-dropout masks.
    CHECK(r.peakStage == 0);
    const double stage0 = r.stages[0].lineBytes[3];
    CHECK(relativeError(stage0, s * b * h * L / t * (34 + p / L)) < 1e-12);
    // The last stage holds one micro-batch of its 12 layers plus the output terms.
    CHECK(relativeError(r.stages[7].lineBytes[3], s * b * h * 34 / t * 12 + sources::korthikantiOutputBytes(s, b, h, 51200, t)) < 1e-12);
}

TEST_CASE("method membudget: a GPT layer with eager attention and dropout is Korthikanti's 34sbh + 5as²b", "[methods][membudget]") {
    Config config;
    config.method = Method::membudget;
    config.hidden = 4096;
    config.heads = config.kvHeads = 32;
    config.ffn = 4 * 4096;
    config.layers = 4;
    config.gatedFfn = false;
    config.norm = Norm::layernorm;
    config.attention = Attention::eager;
    config.dropout = true;
    config.tp = config.pp = config.dp = 1;
    config.zero = 0;
    config.ckpt = Checkpointing::none;
    config.mb = 2;
    config.seq = 2048;
    const Result r = evaluate(config);
    REQUIRE(r.ok());
    double perLayer = 0;
    for (const auto& t : r.tensors)
        if (t.copies == 4) perLayer += t.bytesPerCopy;  // the layer tensors, 4 layers × 1 micro-batch
    const double s = 2048, b = 2, h = 4096, a = 32;
    // LayerNorm's fp32 mean and rstd (8 bytes a token, two norms) are the only addition.
    CHECK(perLayer == s * b * h * 34 + 5 * a * s * s * b + 16 * b * s);
}

TEST_CASE("method membudget: GQA, SwiGLU and FlashAttention change the tensors as they should", "[methods][membudget]") {
    Config config = preset("llama-3.1-8b");
    config.tp = 1;
    config.pp = 1;
    config.dp = 8;
    config.ckpt = Checkpointing::none;
    config.seq = 8192;
    auto tensor = [](const Result& r, const std::string& name) {
        for (const auto& t : r.tensors)
            if (t.name == name) return t;
        FAIL("no tensor " << name);
        return Tensor{};
    };
    const Result flash = evaluate(config);
    const double bs = 8192;
    CHECK(tensor(flash, "key and value").bytesPerCopy == 4 * bs * 8 * 128);  // 8 KV heads, not 32
    CHECK(tensor(flash, "gate and up projections (SwiGLU input)").bytesPerCopy == 4 * bs * 14336);
    CHECK(tensor(flash, "softmax log-sum-exp (FlashAttention)").bytesPerCopy == 4 * 32 * bs);
    config.attention = Attention::eager;
    const Result eager = evaluate(config);
    CHECK(tensor(eager, "attention probabilities (softmax output)").bytesPerCopy == 2 * 32 * bs * bs);
    CHECK(line(eager, "activations") > line(flash, "activations"));
    // TP = 16 > 8 KV heads: each rank keeps one whole KV head.
    config.attention = Attention::flash;
    config.tp = 16;
    config.heads = 32;
    CHECK(tensor(evaluate(config), "key and value").bytesPerCopy == 4 * bs * 1 * 128);
}

TEST_CASE("stages: uneven splits, the embedding on the first, the logits on the last, the peak decides", "[methods][stages]") {
    Config config = preset("llama-3.1-8b");
    config.tp = 1;
    config.pp = 4;
    config.dp = 8;
    config.microbatches = 16;
    CHECK(stageLayers(config) == std::vector<double>{8, 8, 8, 8});
    config.firstStageLayers = 6;
    config.lastStageLayers = 7;
    CHECK(stageLayers(config) == std::vector<double>{6, 10, 9, 7});
    config.firstStageLayers = config.lastStageLayers = 0;
    config.layers = 30;
    CHECK(stageLayers(config) == std::vector<double>{7, 8, 8, 7});
    config.layers = 32;
    const Result r = evaluate(config);
    REQUIRE(r.ok());
    REQUIRE(r.stages.size() == 4);
    double peak = 0;
    for (const auto& s : r.stages) peak = std::max(peak, s.totalBytes);
    CHECK(r.totalBytes == peak);
    CHECK(r.stages[static_cast<size_t>(r.peakStage)].totalBytes == peak);
    // In-flight micro-batches fall from PP on the first stage to 1 on the last.
    CHECK(r.stages[0].inFlightMicrobatches == 4);
    CHECK(r.stages[3].inFlightMicrobatches == 1);
    // Stage 0 carries the embedding: more parameters than a middle stage.
    CHECK(r.stages[0].lineBytes[0] > r.stages[1].lineBytes[0]);
    CHECK(r.stages[3].lineBytes[0] > r.stages[1].lineBytes[0]);  // the output layer
    config.firstStageLayers = 30;
    config.lastStageLayers = 5;
    CHECK_FALSE(evaluate(config).ok());
}

TEST_CASE("phases: with BF16 gradients and tiny activations the optimizer step is the peak", "[methods][membudget]") {
    Config config;
    config.method = Method::membudget;
    config.params = 0;
    config.tp = 8;
    config.dp = 1;
    config.zero = 0;
    config.staticBytes = 16;
    config.ckpt = Checkpointing::full;
    config.seq = 128;
    const Result r = evaluate(config);
    REQUIRE(r.ok());
    REQUIRE(r.phases.size() == 2);
    CHECK(r.peakPhase == membudget::StepPhase::optimizerStep);
    CHECK(line(r, "activations") == 0);
    CHECK(r.totalBytes == std::max(r.phases[0].totalBytes, r.phases[1].totalBytes));
}

TEST_CASE("phases: gradients made in backward peak at the backward's start or its end", "[methods][membudget]") {
    // torchtitan, torchtune and accelerate free .grad after each step (zero_grad(set_to_none=True)); with one
    // backward per step the loss's backward runs before any gradient exists (the H200 runs of
    // tools/measure/hf_peak.py: tests/fixtures/measured/hf-*-h200.json).
    Config config = preset("llama-3.2-1b");
    config.framework = Framework::torchtune;
    config.tp = config.pp = config.dp = 1;
    config.zero = 0;
    config.mb = 4;
    config.seq = 2048;
    config.ckpt = Checkpointing::none;
    config.microbatches = 1;
    const Result start = evaluate(config);
    REQUIRE(start.ok());
    CHECK(line(start, "gradients") == 0);
    CHECK(lineOf(start, "gradients").note.find("backward's start") != std::string::npos);

    // Gradient accumulation: the second micro-batch's forward runs with the first one's gradients.
    Config accumulating = config;
    accumulating.microbatches = 2;
    const Result held = evaluate(accumulating);
    REQUIRE(held.ok());
    CHECK(line(held, "gradients") > 0);
    CHECK(start.totalBytes == held.totalBytes - line(held, "gradients"));
    // Megatron-LM's grad buffer is allocated for good.
    Config megatron = config;
    megatron.framework = Framework::megatron;
    CHECK(line(evaluate(megatron), "gradients") > 0);

    // Full checkpointing with short sequences: the end of backward, every gradient and the first layer rebuilt.
    config.ckpt = accumulating.ckpt = Checkpointing::full;
    config.seq = accumulating.seq = 128;
    config.mb = accumulating.mb = 1;
    const Result end = evaluate(config);
    const Result whole = evaluate(accumulating);
    REQUIRE(end.ok());
    REQUIRE(whole.ok());
    CHECK(line(end, "gradients") == line(whole, "gradients"));
    CHECK(line(end, "activations") < line(whole, "activations"));
    CHECK(lineOf(end, "activations").note.find("backward's end") != std::string::npos);
    CHECK(end.totalBytes < whole.totalBytes);
}

TEST_CASE("compare: every method, the source's own figure, and a reason for each line", "[methods][compare]") {
    Config config;
    config.model = "llama-3.1-70b";
    config.tp = 8;
    config.pp = 2;
    config.dp = 16;
    config.sp = true;
    config.ckpt = Checkpointing::selective;
    const auto columns = compareMethods(config);
    REQUIRE(columns.size() == 6);
    for (const auto& column : columns) {
        INFO(column.method);
        REQUIRE(column.result.ok());
        double own = 0;
        for (const auto& l : column.result.lines) {
            if (l.origin == column.method) own += l.bytes;
            CHECK_FALSE(differenceReason(column.method, l.id).empty());
        }
        CHECK(column.sourceBytes == own);
        CHECK(column.sourceBytes > 0);
    }
}

TEST_CASE("method membudget: bytes per parameter by optimizer and precision", "[methods][membudget][optimizers]") {
    Config config = preset("llama-3.1-8b");
    config.tp = config.pp = config.dp = 1;
    config.zero = 0;
    const double P = 8030261248.0, hidden = 6979321856.0, embedding = 1050673152.0, vectors = 266240.0;
    REQUIRE(hidden + embedding + vectors == P);
    auto lines = [&](const std::string& optimizer, const std::string& precision) {
        Config c = config;
        c.optimizer = membudget::test::choice<membudget::Optimizer>(optimizer);
        c.precision = membudget::test::choice<membudget::Precision>(precision);
        Result r = evaluate(c);
        REQUIRE(r.ok());
        r.lines[2].bytes =
            r.phases.size() == 2 && r.peakPhase == membudget::StepPhase::optimizerStep ? r.lines[2].bytes - 4 * P : r.lines[2].bytes;
        return std::array<double, 3>{r.lines[0].bytes, r.lines[1].bytes, r.lines[2].bytes};
    };
    CHECK(lines("adamw", "bf16") == std::array<double, 3>{2 * P, 2 * P, 12 * P});
    CHECK(lines("sgd", "bf16")[2] == 8 * P);
    CHECK(lines("adamw_8bit", "bf16")[2] == 4 * P + (2 + 8.0 / 2048) * P);
    CHECK(lines("muon", "bf16")[2] == 4 * P + 4 * hidden + 8 * (embedding + vectors));
    CHECK(relativeError(lines("adafactor", "bf16")[2], 4 * P + 4 * (1 / 4096.0 + 1 / 14336.0) * (hidden + embedding) + 4 * vectors) <
          1e-12);
    // FP32 training: no master copy, FP32 gradients; FP8: cached FP8 copies of the linear weights.
    CHECK(lines("adamw", "fp32") == std::array<double, 3>{4 * P, 4 * P, 8 * P});
    CHECK(lines("adamw", "fp8")[0] == 2 * P + hidden);
    config.masterWeights = false;
    CHECK(lines("adamw", "bf16")[2] == 8 * P);
    // accelerate: mixed precision keeps FP32 parameters and gradients and autocast's BF16 copy of each weight; with
    // master_weights off the model is loaded in BF16 and trained as it is: 2 + 2 B, and torch AdamW's m and v in
    // the parameters' dtype (zeros_like), no autocast copy, no FP32 anything.
    config.framework = membudget::Framework::hfAccelerate;
    config.masterWeights = true;
    config.ckpt = Checkpointing::none;  // a checkpointed layer keeps no autocast copy (autocast's cache is cleared)
    CHECK(lines("adamw", "bf16") == std::array<double, 3>{4 * P + 2 * P, 4 * P, 8 * P});
    config.ckpt = Checkpointing::full;
    const double layer = hidden / 32 + 2 * 4096.0;                     // one layer's matrices and its two norms
    CHECK(lines("adamw", "bf16")[0] == 4 * P + 2 * (P - 31 * layer));  // the embedding, the final norm, one layer
    config.masterWeights = false;
    CHECK(lines("adamw", "bf16") == std::array<double, 3>{2 * P, 2 * P, 4 * P});
}

TEST_CASE("method membudget: Mixtral's experts split by EP, totals and active parameters", "[methods][membudget][moe]") {
    Config config = preset("mixtral-8x7b");
    config.tp = 1;
    config.etp = 1;
    config.ep = 8;
    config.dp = 8;
    config.zero = 0;
    const Result r = evaluate(config);
    REQUIRE(r.ok());
    CHECK(r.parameterCount == 46702792704.0);
    // Top-2 of 8 experts: 12,879,921,152 parameters per token (the router of all 8 counts).
    const double expertPerLayer = 3.0 * 4096 * 14336;
    CHECK(r.activeParameterCount == 46702792704.0 - 32 * 6 * expertPerLayer);
    // One expert per EP rank per layer; everything else whole (TP = 1).
    const double nonExpert = 46702792704.0 - 32 * 8 * expertPerLayer;
    CHECK(line(r, "parameters") == 2 * (nonExpert + 32 * expertPerLayer));
    config.ep = 4;
    config.experts = 6;
    CHECK_FALSE(evaluate(config).ok());  // EP must divide the experts
}

TEST_CASE("offload: a CPU ledger per node next to the GPU ledger", "[methods][offload]") {
    Config config = preset("llama-3.1-8b");
    config.tp = 1;
    config.dp = 8;
    config.gpusPerNode = 8;
    config.zero = 3;
    config.offload = Offload::all;
    const Result r = evaluate(config);
    REQUIRE(r.ok());
    REQUIRE(r.cpuLines.size() == 4);
    double sum = 0;
    for (const auto& l : r.cpuLines) sum += l.bytes;
    CHECK(sum == r.cpuBytesPerNode);
    // 8 GPUs' shards of 4 + 4 + 8 (master, gradients, m and v) + 2 (parameters) bytes a parameter: 18 in all.
    CHECK(r.cpuLines[0].bytes == 2 * r.cpuLines[1].bytes);
    CHECK(r.cpuLines[1].bytes == r.cpuLines[2].bytes);
    CHECK(r.cpuLines[3].bytes * 2 == r.cpuLines[1].bytes);
    CHECK(line(r, "optimizer") == 0);
    config.offload = Offload::none;
    CHECK(evaluate(config).cpuLines.empty());
    config.method = Method::deepspeed;
    config.offload = Offload::optimizer;
    const Result ds = evaluate(config);
    REQUIRE(ds.cpuLines.size() == 1);
    CHECK(ds.cpuLines[0].bytes == ds.cpuBytesPerNode);
    CHECK(ds.cpuLines[0].origin == membudget::Method::deepspeed);
}

TEST_CASE("FP8: GEMM inputs saved in FP8, the rest of the layer in BF16", "[methods][fp8]") {
    Config config = preset("llama-3.1-8b");
    config.tp = 1;
    config.dp = 8;
    config.ckpt = Checkpointing::none;
    const Result bf16 = evaluate(config);
    config.precision = Precision::fp8;
    const Result fp8 = evaluate(config);
    REQUIRE(bf16.ok());
    REQUIRE(fp8.ok());
    const double b = config.mb, s = config.seq, h = config.hidden, f = config.ffn;
    // Per layer: the QKV and FC1 inputs (2bsh each) and the FC2 input (2bsf) halve; FlashAttention keeps its
    // BF16 output and the output projection adds an FP8 copy (bsh).
    const double savedPerLayer = (2 * b * s * h + 2 * b * s * h + 2 * b * s * f) / 2 - b * s * h;
    CHECK(line(bf16, "activations") - line(fp8, "activations") == config.layers * savedPerLayer);
    int fp8Tensors = 0;
    for (const auto& t : fp8.tensors) fp8Tensors += t.dtype == "fp8" ? 1 : 0;
    CHECK(fp8Tensors == 4);
    // Eager attention reads the probabilities, not the output, in backward: the output itself goes FP8.
    config.attention = Attention::eager;
    const Result eager = evaluate(config);
    config.precision = Precision::bf16;
    const Result eagerBf16 = evaluate(config);
    CHECK(line(eagerBf16, "activations") - line(eager, "activations") == config.layers * (savedPerLayer + 2 * b * s * h));
}

TEST_CASE("a gated shared expert counts its weight and its output", "[methods][moe]") {
    Config config = preset("qwen1.5-moe-a2.7b");
    config.tp = 1;
    config.dp = 8;
    config.ckpt = Checkpointing::none;
    const Result gated = evaluate(config);
    config.sharedExpertGate = false;
    const Result plain = evaluate(config);
    REQUIRE(gated.ok());
    // The gate's weight (h per layer, 18 bytes a parameter before sharding) and its [b, s, 1] output per layer.
    CHECK(line(gated, "parameters") - line(plain, "parameters") == 2 * config.layers * config.hidden);
    CHECK(line(gated, "activations") - line(plain, "activations") == config.layers * 2 * config.mb * config.seq);
}

TEST_CASE("stages: torchtitan's own split over pp × vpp virtual stages (generate_llm_fqn_per_model_part)", "[methods][stages]") {
    Config config = preset("llama-3.1-8b");
    config.method = Method::membudget;
    config.framework = Framework::torchtitan;
    config.zero = 3;
    config.tp = 1;
    config.dp = 8;
    config.pp = 4;
    config.microbatches = 8;
    // The embedding and the output each count as a layer: 34 effective layers over 4 stages (9, 9, 8, 8).
    CHECK(stageLayers(config) == std::vector<double>{8, 9, 8, 7});
    Config big = preset("llama-3.1-405b");
    big.method = Method::membudget;
    big.framework = Framework::torchtitan;
    big.zero = 3;
    big.tp = 8;
    big.dp = 8;
    big.pp = 8;
    big.microbatches = 8;
    CHECK(stageLayers(big) == std::vector<double>{15, 16, 16, 16, 16, 16, 16, 15});
    // Interleaved: 16 virtual stages (7, 8 × 14, 7) in loop placement; a rank's 15 or 16 layers need not divide by vpp.
    big.vpp = 2;
    CHECK(stageLayers(big) == std::vector<double>{15, 16, 16, 16, 16, 16, 16, 15});
    CHECK(validate(big).empty());
    big.vpp = 3;  // 24 virtual stages of 6 × 8 then 5 × 16, less the embedding's and the output's
    CHECK(stageLayers(big) == std::vector<double>{15, 16, 16, 16, 16, 16, 16, 15});
    CHECK(validate(big).empty());
    // Megatron-LM asserts that vpp divides each rank's layers.
    big.framework = Framework::megatron;
    big.zero = 1;
    big.vpp = 2;
    big.firstStageLayers = 15;
    big.lastStageLayers = 15;
    const auto errors = validate(big);
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].field == "vpp");
}

TEST_CASE("DeepSpeed ZeRO-3 keeps its own buffers: the reduce bucket, the gathered module and prefetch, one sub group at the step",
          "[methods][deepspeed]") {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-8b"));
    applyGpuPreset(c, *findGpuPreset("h100-80gb"));
    c.method = Method::membudget;
    c.framework = Framework::deepspeed;
    c.tp = 1;
    c.dp = 8;
    c.zero = 3;
    c.precision = Precision::bf16;
    c.ckpt = Checkpointing::full;
    const Result base = evaluate(c);
    REQUIRE(base.ok());
    auto phase = [](const Result& r, StepPhase name) {
        for (const auto& p : r.phases)
            if (p.name == name) return p.totalBytes;
        return 0.0;
    };
    // stage3.py _setup_for_real_optimizer: one reduce bucket of reduce_bucket_size elements in BF16.
    Config bucket = c;
    bucket.reduceBucketSize = 1e8;
    CHECK(line(base, LineId::gradients) - line(evaluate(bucket), LineId::gradients) == 2 * (5e8 - 1e8));
    // The HF Trainer's "auto" (0): hidden².
    bucket.reduceBucketSize = 0;
    CHECK(line(base, LineId::gradients) - line(evaluate(bucket), LineId::gradients) == 2 * (5e8 - 4096.0 * 4096));
    // fetch_sub_module: min(prefetch bucket, max live) elements gathered ahead, in BF16.
    Config prefetch = c;
    prefetch.prefetchBucketSize = 2e8;
    CHECK(line(evaluate(prefetch), LineId::parameters) - line(base, LineId::parameters) == 2 * (2e8 - 5e7));
    prefetch.maxLiveParameters = 1e8;
    CHECK(line(evaluate(prefetch), LineId::parameters) - line(base, LineId::parameters) == 2 * (1e8 - 5e7));
    // The step converts one sub group at a time, 2 + 4 bytes per element, never more than the shard.
    const double shard = base.stages[0].parametersPerGpu / c.dp;  // the rank's ZeRO shard of the stage's parameters
    REQUIRE(shard > 0);
    Config small = c;
    small.subGroupSize = 1e8;
    const double stepDelta = phase(base, StepPhase::optimizerStep) - phase(evaluate(small), StepPhase::optimizerStep);
    CHECK(stepDelta == Approx(6 * (std::min(1e9, shard) - 1e8)).epsilon(1e-9));
    // Another framework's ZeRO-3 keeps none of them.
    Config megatron = c;
    megatron.framework = Framework::megatron;
    Config megatronBucket = megatron;
    megatronBucket.reduceBucketSize = 1e8;
    megatronBucket.subGroupSize = 1e8;
    megatronBucket.prefetchBucketSize = 2e8;
    CHECK(evaluate(megatron).totalBytes == evaluate(megatronBucket).totalBytes);
}

TEST_CASE("DeepSpeed's bf16_master_weights_and_grads keeps a BF16 master copy: 10 bytes per parameter, not 8", "[methods][deepspeed]") {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-8b"));
    applyGpuPreset(c, *findGpuPreset("h100-80gb"));
    c.method = Method::membudget;
    c.framework = Framework::deepspeed;
    c.tp = 1;
    c.dp = 4;
    c.zero = 3;
    c.precision = Precision::bf16;
    c.ckpt = Checkpointing::full;
    auto stepPhase = [](const Result& r) {
        for (const auto& p : r.phases)
            if (p.name == StepPhase::optimizerStep) return p.totalBytes;
        return 0.0;
    };
    const Result fp32Master = evaluate(c);
    Config bf16 = c;
    bf16.masterWeights = false;                  // bf16.bf16_master_weights_and_grads
    bf16.optimizerDtype = OptimizerDtype::bf16;  // bf16.bf16_optimizer_states
    const Result bf16Master = evaluate(bf16);
    REQUIRE(fp32Master.ok());
    REQUIRE(bf16Master.ok());
    const double shard = fp32Master.stages[0].parametersPerGpu / c.dp;
    // stage3.py _create_fp32_partitions clones the shard in the master's dtype: 4 + 8 B (FP32 master, m, v) become
    // 2 + 4 B. DeepSpeedExamples training/bf16_master_weight measures exactly these 6 B per parameter (9.57 GB on
    // 1.714e9 parameters per GPU); a master that reused the parameter shard would save 8.
    CHECK(line(fp32Master, LineId::optimizer) - line(bf16Master, LineId::optimizer) == Approx(6 * shard).epsilon(1e-6));
    CHECK(line(bf16Master, LineId::optimizer) == Approx(6 * shard).epsilon(1e-6));
    auto note = [](const Result& r, LineId id) {
        for (const auto& l : r.lines)
            if (l.id == id) return l.note;
        return std::string();
    };
    CHECK_THAT(note(bf16Master, LineId::optimizer), Catch::Contains("BF16 master weights"));
    // The step makes each sub group's gradient the master's dtype: FP32 adds 4 B per element, BF16 nothing beyond
    // the flattened copy.
    const double fp32Step = stepPhase(fp32Master) - line(fp32Master, LineId::parameters) - line(fp32Master, LineId::gradients) -
                            line(fp32Master, LineId::optimizer);
    const double bf16Step = stepPhase(bf16Master) - line(bf16Master, LineId::parameters) - line(bf16Master, LineId::gradients) -
                            line(bf16Master, LineId::optimizer);
    CHECK(fp32Step - bf16Step == Approx(4 * std::min(1e9, shard)).epsilon(1e-6));
    // Megatron-LM without master weights keeps none.
    Config megatron = bf16;
    megatron.framework = Framework::megatron;
    CHECK_THAT(note(evaluate(megatron), LineId::optimizer), Catch::Contains("No master copy"));
}

TEST_CASE("DeepEP's communication buffer: torchtitan's ElasticBuffer and Megatron-LM's legacy Buffer, outside the allocator",
          "[methods][moe]") {
    Config c;
    c.method = Method::membudget;
    c.framework = Framework::torchtitan;
    c.layers = 48;
    c.hidden = 2048;
    c.heads = 32;
    c.kvHeads = 4;
    c.headDim = 128;
    c.ffn = 6144;
    c.vocab = 151936;
    c.params = 0;
    c.experts = 128;
    c.expertsPerToken = 8;
    c.moeFfn = 768;
    c.tp = 1;
    c.pp = 1;
    c.dp = 64;
    c.ep = 8;
    c.zero = 3;
    c.mb = 8;
    c.seq = 4096;
    c.microbatches = 1;
    c.ckpt = Checkpointing::full;
    c.moeForceBalance = true;  // the same routing weights on the sent and the received copies
    REQUIRE(validate(c).empty());
    const Result alltoall = evaluate(c);
    Config deepep = c;
    deepep.moeDispatcher = MoeDispatcher::deepep;
    const Result withBuffer = evaluate(deepep);
    REQUIRE(withBuffer.ok());
    // calculate_buffer_size on one NVLink domain: a dispatch slot (2h + align16(8k + 4(1 + k)) = 4,208 B) per token of
    // each of the 8 ranks beats a combine slot (2h + 8k) per token of min(8, k); 32,768 tokens; 2 MiB aligned.
    const double tokens = 8 * 4096.0;
    const double expected = std::ceil(8 * tokens * 4208 / (2 * 1048576.0)) * 2 * 1048576.0;
    CHECK(line(withBuffer, LineId::workspace) - line(alltoall, LineId::workspace) == expected);
    CHECK(withBuffer.totalBytes - alltoall.totalBytes == expected);
    // Outside PyTorch's caching allocator: the reserved model leaves it out.
    CHECK(withBuffer.reservedBytes == alltoall.reservedBytes);
    // Across 4 nodes the scale-up receive buffer holds every node's tokens: more than on one.
    Config nodes = deepep;
    nodes.ep = 32;
    CHECK(line(evaluate(nodes), LineId::workspace) - line(alltoall, LineId::workspace) > 4 * expected);
    // Megatron-LM's flex dispatcher, 8 ranks: the NVLink hint of DeepEP's recommended config (10 channels × 8 peers ×
    // 256 tokens × (2h + 8 + 128 × 16) B plus the channels' counters).
    Config megatron = deepep;
    megatron.framework = Framework::megatron;
    megatron.zero = 1;
    Config megatronA2a = megatron;
    megatronA2a.moeDispatcher = MoeDispatcher::alltoall;
    const double nvl = std::ceil((10 * 8 * (2 + 3) * 4 + 10 * 8 * 256 * (4096 + 8 + 2048)) / 128.0) * 128;
    CHECK(line(evaluate(megatron), LineId::workspace) - line(evaluate(megatronA2a), LineId::workspace) == nvl);
    // A dense model or one EP rank has no buffer.
    Config one = deepep;
    one.ep = 1;
    Config onePlain = one;
    onePlain.moeDispatcher = MoeDispatcher::alltoall;
    CHECK(evaluate(one).totalBytes == evaluate(onePlain).totalBytes);
}

TEST_CASE("Megatron-LM MoE: Transformer Engine's grouped GEMMs keep one workspace per compute stream", "[methods][megatron]") {
    const Config c = membudget::test::balancedMoeRun("qwen3-30b-a3b", Framework::megatron, 1, Checkpointing::full);
    REQUIRE(validate(c).empty());
    // get_cublas_workspace(grouped_gemm=True): tex.get_num_cublas_streams() = 4 workspaces of 32 MiB + 1 KiB on
    // Hopper, beside PyTorch's two cuBLAS handles (32 MiB) and TE's own one, all inside the caching allocator.
    const double te = 32 * 1048576.0 + 1024;
    const Result moe = evaluate(c);
    REQUIRE(moe.ok());
    CHECK(line(moe, LineId::workspace) == 2 * 32 * 1048576.0 + 5 * te);
    // A dense model runs no grouped GEMM; torchtitan's experts run torch._grouped_mm, not TE.
    Config dense = c;
    dense.experts = 0;
    dense.ep = 1;
    CHECK(line(evaluate(dense), LineId::workspace) == 2 * 32 * 1048576.0 + te);
    Config titan = c;
    titan.framework = Framework::torchtitan;
    titan.zero = 3;
    CHECK(line(evaluate(titan), LineId::workspace) == 2 * 32 * 1048576.0);
    // Before Hopper each TE workspace is 4 MiB and PyTorch's :4096:2:16:8 = 8,519,680 B.
    Config ampere = c;
    ampere.gpu = "a100-80gb";
    CHECK(line(evaluate(ampere), LineId::workspace) == 2 * 8519680.0 + 5 * 4 * 1048576.0);
}

TEST_CASE("AsyncTP's symmetric-memory workspace: two BF16 output chunks of the rank's sequence shard, outside the allocator",
          "[methods][torchtitan]") {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-70b"));
    c.method = Method::membudget;
    c.framework = Framework::torchtitan;
    c.zero = 3;
    c.tp = 8;
    c.dp = 32;
    c.sp = true;
    c.mb = 16;
    c.seq = 8192;
    c.microbatches = 1;
    c.ckpt = Checkpointing::full;
    Config async = c;
    async.asyncTp = true;
    const Result plain = evaluate(c), overlapped = evaluate(async);
    REQUIRE(overlapped.ok());
    // _pipelined_produce_and_all2all: two chunks of [b·s/TP, h] BF16 (537 MB for 16 × 8192 tokens on 8 ranks).
    CHECK(line(overlapped, LineId::workspace) - line(plain, LineId::workspace) == 2 * 2 * (16 * 8192.0 / 8) * 8192);
    CHECK(overlapped.reservedBytes == plain.reservedBytes);
    // One TP rank has nothing to overlap; another framework is told it is not counted.
    Config one = async;
    one.tp = 1;
    one.sp = false;
    one.dp = 256;
    one.mb = 2;
    Config onePlain = one;
    onePlain.asyncTp = false;
    CHECK(evaluate(one).totalBytes == evaluate(onePlain).totalBytes);
    Config megatron = async;
    megatron.framework = Framework::megatron;
    megatron.zero = 1;
    const Result mg = evaluate(megatron);
    CHECK(std::any_of(mg.warnings.begin(), mg.warnings.end(), [](const auto& w) { return w.field == "async_tp"; }));
}

// torchao's FP8 all-gather (float8/fsdp_utils.py WeightWithDynamicFloat8CastTensor): FSDP2 gathers each Float8Linear
// weight in FP8, so a gathered layer's matrices take 1 B, not 2; under PP the whole stage stays gathered, in FP8.
TEST_CASE("fp8_all_gather: FSDP2 holds the gathered Float8 linear weights in FP8", "[methods][torchtitan][fp8]") {
    Config c = preset("llama-3.1-405b");
    c.method = Method::membudget;
    c.framework = Framework::torchtitan;
    c.precision = Precision::fp8;
    c.fp8Recipe = Fp8Recipe::torchao;
    c.tp = 1;
    c.zero = 3;
    c.dp = 512;
    c.mb = 1;
    c.seq = 8192;
    c.microbatches = 1;
    c.ckpt = Checkpointing::full;
    Config gathered = c;
    gathered.fp8AllGather = true;
    // The first stage's parameters line (the peak stage may move when a line shrinks).
    auto parameters = [](const Result& r) { return test::stageLine(r, r.stages[0], "parameters"); };
    const Result bf16 = evaluate(c), fp8 = evaluate(gathered);
    REQUIRE(fp8.ok());
    // One 405B layer's matrices: q and o (h × h), k and v (h × 1024), gate, up and down (h × 53,248); two blocks
    // gathered (the one computing and the one prefetched), each matrix 1 B less.
    const double layerLinear = 2 * 16384.0 * 16384 + 2 * 16384.0 * 1024 + 3 * 16384.0 * 53248;
    CHECK(parameters(bf16) - parameters(fp8) == Approx(2 * layerLinear).margin(2));
    CHECK(fp8.reservedBytes < bf16.reservedBytes);
    // Pipeline stages keep every layer gathered (reshard_after_forward = not pp_enabled): each matrix at 1 B.
    c.pp = gathered.pp = 8;
    c.dp = gathered.dp = 64;
    c.microbatches = gathered.microbatches = 8;
    const Result stageBf16 = evaluate(c), stageFp8 = evaluate(gathered);
    REQUIRE(stageFp8.ok());
    CHECK(parameters(stageBf16) - parameters(stageFp8) == Approx(stageFp8.stages[0].layers * layerLinear).margin(2));
    // It needs torchao's Float8 and FSDP.
    Config bad = gathered;
    bad.precision = Precision::bf16;
    const Result refused = evaluate(bad);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.errors[0].field == "fp8_all_gather");
}

// DeepSpeed ZeRO-3 keeps every tensor of at most stage3_param_persistence_threshold elements gathered after its
// first use (parameter_offload.py mark_persistent_parameters; release_sub_module skips ds_persist parameters).
TEST_CASE("DeepSpeed's persistent parameters: tensors under the threshold stay gathered on every GPU", "[methods][deepspeed]") {
    Config c = deepspeedZero3Llama8b(4096, Checkpointing::full);
    auto parameters = [](Config config, double threshold) {
        config.persistenceThreshold = threshold;
        return line(evaluate(config), "parameters");
    };
    const double none = parameters(c, 0);
    // DeepSpeed's default 1e5: the norms' weights (two per layer and the final one), in BF16.
    CHECK(parameters(c, 1e5) - none == 2 * (32 * 2 * 4096.0 + 4096));
    // 1e8: every layer's matrices too (the largest, 4096 × 14,336, is 58.7 M), not the 525 M embedding or output.
    const double layer = 4096.0 * 4096 * 2 + 2 * 4096.0 * 1024 + 3 * 4096.0 * 14336 + 2 * 4096;
    CHECK(parameters(c, 1e8) - none == 2 * (32 * layer + 4096));
    // Other frameworks have no such setting.
    c.framework = Framework::torchtitan;
    CHECK(parameters(c, 1e8) == parameters(c, 0));
}

// Without zero.Init, F.linear is PyTorch's own: mm/addmm save weight.t(), a view of the gathered storage, and
// DeepSpeed's release (free_param: param.data = torch.empty(0)) cannot free it; every weight a layer saved stays
// until that layer's backward. zero.Init's zero3_linear_wrap saves the Parameter, whose data the release empties.
TEST_CASE("DeepSpeed ZeRO-3 without zero.Init: the weights autograd saved stay gathered until backward", "[methods][deepspeed]") {
    Config c = deepspeedZero3Llama8b(2048, Checkpointing::none);
    auto saved = [](Config config) {
        double bytes = 0;
        for (const auto& t : evaluate(config).tensors)
            if (t.name.find("zero.Init") != std::string::npos) bytes += t.bytes;
        return bytes;
    };
    c.zeroInit = true;
    CHECK(saved(c) == 0);
    c.zeroInit = false;
    // 32 layers' matrices + the untied output layer, in BF16; not the embedding, not the norms (saved as the leaf
    // parameters themselves, which the release empties).
    const double matrices = 4096.0 * 4096 * 2 + 2 * 4096.0 * 1024 + 3 * 4096.0 * 14336;
    CHECK(saved(c) == 2 * (32 * matrices + 128256.0 * 4096));
    // A checkpointed layer saves nothing in its forward: only the output layer's matrix stays.
    c.ckpt = Checkpointing::full;
    CHECK(saved(c) == 2 * 128256.0 * 4096);
    // FSDP2 frameworks release by resharding the storage itself: nothing of the kind.
    c.framework = Framework::torchtitan;
    c.ckpt = Checkpointing::none;
    CHECK(saved(c) == 0);
}

TEST_CASE("max_split_size_mb: blocks that large make the reserve bounded by the GPU only, and say so", "[methods][allocator]") {
    // CUDACachingAllocator get_free_block: a freed block of max_split_size or more serves only requests within 20 MiB
    // of its size; the cache is freed only when cudaMalloc fails (tools/measure/moe_alloc.py on an H200: 139 GiB
    // reserved for 31 GiB allocated).
    Config config = preset("llama-3.1-8b");
    config.framework = Framework::torchtitan;
    config.tp = config.pp = 1;
    config.dp = 8;
    config.zero = 3;
    config.mb = 2;
    config.seq = 8192;
    config.gpu = "h100-80gb";
    config.gpuGb = 85.520809984;
    const Result plain = evaluate(config);
    REQUIRE(plain.ok());
    config.maxSplitSizeMb = 128;
    const Result split = evaluate(config);
    REQUIRE(split.ok());
    CHECK(split.totalBytes == plain.totalBytes);  // the verdict is on what is allocated
    CHECK(split.reservedBytes == std::ceil(85.520809984e9) - 2e9 - 1e9);
    CHECK(std::any_of(split.warnings.begin(), split.warnings.end(), [](const auto& w) { return w.field == "max_split_size_mb"; }));
    // No block of the step reaches 20,000 MiB (the largest, the loss's backward, is 15.7 GiB): nothing changes.
    config.maxSplitSizeMb = 20000;
    const Result large = evaluate(config);
    CHECK(large.reservedBytes == plain.reservedBytes);
    CHECK(std::none_of(large.warnings.begin(), large.warnings.end(), [](const auto& w) { return w.field == "max_split_size_mb"; }));
    // PyTorch refuses 20 MiB or less (CUDAAllocatorConfig parseArgs: "must be > 20").
    config.maxSplitSizeMb = 20;
    CHECK(membudget::test::refusedAt(config) == "max_split_size_mb");
}
