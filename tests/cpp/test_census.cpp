// membudget's saved-tensor model against the census of the frameworks' own code (tests/fixtures/census/*.json,
// written by tools/measure/census.py: every tensor torch.autograd saves for backward, run on the CPU under
// saved_tensors_hooks at small sizes, shared storages counted once). Per layer, the stage's extras and the loss
// must agree to the byte; the loss's backward peak to within its scalars.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"
#include "memory/ledger/tensor_names.hpp"
#include "memory/ledgers.hpp"
#include "memory/tensors.hpp"
#include "memory/training.hpp"

using nlohmann::json;
using namespace membudget;
using namespace membudget::detail;
using membudget::test::balancedMoeRun;

namespace {

// Walks a stage as the ledger does, keeping the layers apart from the stage's other tensors and the transients.
struct Split {
    double layerBytes = 0, extras = 0, lossBackward = 0, recomputed = 0;
    template <class Describe>
    void tensor(TensorKind kind, Dtype, double bytesPerCopy, double copies, const Describe&) {
        const double bytes = bytesPerCopy * copies;
        if (kind == TensorKind::layerInputCheckpoint)
            layerBytes += bytes;
        else if (kind == TensorKind::lossBackward)
            lossBackward += bytes;
        else if (kind == TensorKind::recomputedLayer || kind == TensorKind::recomputedAttentionCore)
            recomputed += bytes;
        else
            extras += bytes;
    }
    void layers(LayerGroup, LayerSpec, double bytesPerLayer, double copies) { layerBytes += bytesPerLayer * copies; }
};

// Bytes per tensor kind of a stage (the layers themselves left out).
struct ByKind {
    std::map<TensorKind, double> bytes;
    template <class Describe>
    void tensor(TensorKind kind, Dtype, double bytesPerCopy, double copies, const Describe&) {
        bytes[kind] += bytesPerCopy * copies;
    }
    void layers(LayerGroup, LayerSpec, double, double) {}
};

Config censusConfig(const json& census) {
    const json& d = census["dims"];
    const std::string framework = census["framework"];
    const std::string ckpt = census["ckpt"], loss = census["loss"];
    json config = {{"model", "custom"},
                   {"params", 0},
                   {"hidden", d["h"]},
                   {"layers", d["layers"]},
                   {"heads", d["heads"]},
                   {"kv_heads", d["kv_heads"]},
                   {"head_dim", d["head_dim"]},
                   {"ffn", d["ffn"]},
                   {"vocab", d["vocab"]},
                   {"gated_ffn", true},
                   {"tied_embeddings", false},
                   {"norm", "rmsnorm"},
                   {"bias", false},
                   {"mb", d["b"]},
                   {"seq", d["s"]},
                   {"tp", 1},
                   {"pp", 1},
                   {"dp", 1},
                   {"cp", 1},
                   {"zero", 0},
                   {"microbatches", 1},
                   {"precision", "bf16"},
                   {"attention", "flash"},
                   {"dropout", false},
                   {"method", "membudget"},
                   {"framework", framework == "torchtitan_gqa" ? "torchtitan" : framework}};
    if (ckpt.rfind("every:", 0) == 0) {
        config["ckpt"] = "full";
        config["ckpt_every"] = std::stoi(ckpt.substr(6));
    } else {
        config["ckpt"] = ckpt;
    }
    if (loss.rfind("chunked:", 0) == 0) config["loss_chunks"] = std::stoi(loss.substr(8));
    return membudget::test::configFrom(config);
}

std::vector<std::filesystem::path> censusFiles() {
    std::vector<std::filesystem::path> paths;
    for (const auto& entry : std::filesystem::directory_iterator(std::string(MEMBUDGET_FIXTURES_DIR) + "/census"))
        if (entry.path().extension() == ".json") paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end());
    return paths;
}

}  // namespace

TEST_CASE("census: every saved tensor of the frameworks' own layers and loss, to the byte", "[census]") {
    std::map<std::string, int> checked;
    for (const auto& path : censusFiles()) {
        std::ifstream in(path);
        const json census = json::parse(in);
        const std::string framework = census["framework"], ckpt = census["ckpt"];
        INFO(path.filename().string());
        // torchtitan before its native-GQA change (#2259) copied K and V to every query head (repeat_kv): where that
        // version keeps whole layers of a GQA model (no checkpointing, or every Nth layer) it differs from today's
        // torchtitan, which membudget models (torchtitan_gqa).
        const bool keepsLayers = ckpt == "none" || ckpt.rfind("every:", 0) == 0;
        if (framework == "torchtitan" && keepsLayers && census["dims"]["kv_heads"] != census["dims"]["heads"]) continue;
        const Config c = censusConfig(census);
        REQUIRE(validate(c).empty());
        const MembudgetTraining t = membudgetTraining(c);
        const MembudgetStage s = membudgetStage(c, t, 0, c.layers, 0, false);
        Split split;
        forEachStageTensor(c, t, {c.layers, 0, s.copies, s.microbatches, 0, true, true, s.checkpointed}, split);

        double layers = 0;
        for (const auto& bytes : census["per_layer_bytes_by_layer"]) layers += bytes.get<double>();
        CHECK(split.layerBytes == layers);
        CHECK(split.extras == census["stage_saved_bytes"].get<double>() + census["stage_input_bytes"].get<double>());
        // The loss's backward peak beyond what it saved: its FP32 gradients (and scalars, a few bytes).
        const double transient = census["loss_peak_bytes"].get<double>() - census["loss_saved_bytes"].get<double>();
        CHECK(split.lossBackward == Approx(transient).margin(4096));
        ++checked[framework + " " + ckpt];
    }
    // Every framework and checkpointing variant the census holds (torchtitan's GQA copies at the one size without GQA).
    int files = 0;
    for (const auto& [variant, count] : checked) files += count;
    CHECK(files >= 26);
    for (const char* variant : {"torchtitan_gqa none", "torchtitan_gqa op", "torchtitan op", "torchtitan full", "torchtitan every:2",
                                "torchtune none", "torchtune full"})
        CHECK(checked.count(variant) == 1);
}

// torchtitan with TP > 1 computes the loss under loss_parallel: DTensor's own loss ops, not aten's fused kernels
// (torch/distributed/tensor/parallel/loss.py). Not in the census (the CPU torch has no DTensor): read from the source.
TEST_CASE("torchtitan's loss_parallel holds three FP32 logit copies in its backward, and the output layer saves its gathered input",
          "[census][torchtitan]") {
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
    REQUIRE(validate(c).empty());
    auto walk = [](const Config& config) {
        const MembudgetTraining t = membudgetTraining(config);
        const MembudgetStage s = membudgetStage(config, t, 0, config.layers, 0, false);
        ByKind v;
        forEachStageTensor(config, t, {config.layers, 0, s.copies, s.microbatches, 0, true, true, s.checkpointed}, v);
        return v.bytes;
    };
    const double tokens = 16 * 8192.0, logitsPerRank = tokens * 128256 / 8;
    auto tp8 = walk(c);
    // _nll_loss_and_log_softmax_backward: (zeros_like(x) + exp(x)) * grad_output beside the saved log-probabilities.
    CHECK(tp8[TensorKind::logProbabilities] == 4 * logitsPerRank);
    CHECK(tp8[TensorKind::lossParallelBackward] == 12 * logitsPerRank);
    CHECK(tp8.count(TensorKind::lossBackward) == 0);
    // ColwiseParallel(input_layouts=Shard(1)) all-gathers the final norm's output; F.linear saves the whole of it.
    CHECK(tp8[TensorKind::outputLayerGatheredInput] == 2 * tokens * 8192);
    CHECK(tp8.count(TensorKind::outputLayerInput) == 0);
    // One GPU has no DTensor loss: aten's log_softmax backward, two FP32 copies, and the local input.
    Config one = c;
    one.tp = 1;
    one.sp = false;
    one.dp = 256;
    one.mb = 2;
    auto tp1 = walk(one);
    CHECK(tp1[TensorKind::lossBackward] == 8 * 2 * 8192.0 * 128256);
    CHECK(tp1.count(TensorKind::lossParallelBackward) == 0);
    CHECK(tp1[TensorKind::outputLayerInput] == 2 * 2 * 8192.0 * 8192);
    // torchtitan's ChunkedLossWrapper runs each chunk's loss and backward before the layers' backward: one chunk's
    // BF16 logits, FP32 log-probabilities and backward at a time, and an FP32 accumulator of the hidden states'
    // gradient; nothing of the vocabulary's size is kept past the loss.
    Config chunked = one;
    chunked.lossChunks = 8;
    auto tp1Chunked = walk(chunked);
    CHECK(tp1Chunked.count(TensorKind::logProbabilities) == 0);
    CHECK(tp1Chunked[TensorKind::chunkedLoss] == 14 * 2 * 8192.0 * 128256 / 8);
    CHECK(tp1Chunked[TensorKind::lossGradAccumulator] == 4 * 2 * 8192.0 * 8192);
    Config chunkedTp = c;
    chunkedTp.lossChunks = 8;
    CHECK(walk(chunkedTp)[TensorKind::chunkedLoss] == 18 * logitsPerRank / 8);  // under loss_parallel
    // Megatron-LM keeps the sequence-parallel shard of the output layer's input and its own fused cross-entropy.
    Config megatron = c;
    megatron.framework = Framework::megatron;
    megatron.zero = 1;
    auto mg = walk(megatron);
    CHECK(mg[TensorKind::outputLayerInput] == 2 * tokens * 8192 / 8);
    CHECK(mg.count(TensorKind::lossParallelBackward) == 0);
}

namespace {

// What the ledger lists of a MoE layer under selective recomputation: its tensors less what droppedBySelective names.
auto selectiveMoeLayer(const Config& config) {
    const MembudgetTraining t = membudgetTraining(config);
    ByKind v;
    forEachLayerTensor(config, t.x, LayerSpec{true, true, false, false, true}, v);
    std::erase_if(v.bytes, [&](const auto& kv) { return droppedBySelective(kv.first, t.x.recompute, true, config.kvLoraRank > 0); });
    return v.bytes;
}

}  // namespace

// Under full recomputation backward rebuilds one layer at a time; in a MoE model that is a MoE layer (its routed
// tokens and experts), not the dense layer the model's ffn describes.
TEST_CASE("full recomputation of a MoE model rebuilds a MoE layer in backward", "[census][moe]") {
    for (const Framework framework : {Framework::megatron, Framework::torchtitan}) {
        Config c = balancedMoeRun("mixtral-8x7b", framework, 1, Checkpointing::full);
        c.ffn = 4096;  // a narrow dense FFN the model never uses: every layer is MoE
        REQUIRE(validate(c).empty());
        const MembudgetTraining t = membudgetTraining(c);
        const MembudgetStage s = membudgetStage(c, t, 0, c.layers, 0, false);
        ByKind stage;
        forEachStageTensor(c, t, {c.layers, s.moeLayers, s.copies, s.microbatches, 0, true, true, s.checkpointed}, stage);
        REQUIRE(s.moeLayers == c.layers);
        CHECK(t.fullMoeLayerBytes > t.fullLayerBytes);
        CHECK(stage.bytes[TensorKind::recomputedLayer] == t.fullMoeLayerBytes);
    }
}

// Megatron-LM's --recompute-modules (transformer_config.py; model/recompute_modules.hpp): each module frees what its
// checkpoint rebuilds, and one layer's worth is rebuilt at a time in backward.
TEST_CASE("Megatron-LM's recompute_modules free what each module rebuilds, and one layer's worth returns in backward",
          "[census][moe][recompute]") {
    Config c = balancedMoeRun("qwen3-30b-a3b", Framework::megatron, 1, Checkpointing::selective);
    c.tp = 2;
    c.sp = true;
    c.etp = 1;
    c.dp = 4;
    const double bsh = 2 * 4096.0 / 2 * 2048, rows = 4096.0 / 2 * 8, f = 768;
    // The default, core_attn: the log-sum-exp goes; the router's BF16 input (its gate saves it) stays.
    auto core = selectiveMoeLayer(c);
    CHECK(core.count(TensorKind::softmaxLse) == 0);
    CHECK(core[TensorKind::routerInput] == bsh);
    CHECK(core[TensorKind::expertSwigluOutput] == 2 * rows * f);
    // moe_act and layernorm (Megatron-MoE-ModelZoo's Qwen3-235B on H100): the core stays, the experts' FC2 input and the
    // pre-MLP norm's output go.
    c.recomputeModules = "moe_act,layernorm";
    REQUIRE(validate(c).empty());
    auto act = selectiveMoeLayer(c);
    CHECK(act.count(TensorKind::softmaxLse) == 1);
    CHECK(act.count(TensorKind::routerInput) == 0);
    CHECK(act.count(TensorKind::expertSwigluOutput) == 0);
    CHECK(act[TensorKind::expertGateUp] == 2 * 2 * rows * f);
    // moe: the whole MoE block from its input, the router's input.
    c.recomputeModules = "moe";
    auto whole = selectiveMoeLayer(c);
    CHECK(whole[TensorKind::routerInput] == bsh);
    for (const TensorKind gone : {TensorKind::routerLogits, TensorKind::dispatchedTokens, TensorKind::expertGateUp,
                                  TensorKind::expertSwigluOutput, TensorKind::routingWeights})
        CHECK(whole.count(gone) == 0);
    // The stage keeps what the modules do not rebuild and rebuilds one layer's worth at a time.
    const MembudgetTraining t = membudgetTraining(c);
    CHECK(t.moeLayerBytes < t.fullMoeLayerBytes);
    const MembudgetStage s = membudgetStage(c, t, 0, c.layers, 0, false);
    ByKind stage;
    forEachStageTensor(c, t, {c.layers, s.moeLayers, s.copies, s.microbatches, 0, true, true, s.checkpointed}, stage);
    CHECK(stage.bytes[TensorKind::recomputedModules] == t.fullMoeLayerBytes - t.moeLayerBytes);
    // Nothing listed: nothing rebuilt, everything kept.
    c.recomputeModules = "";
    CHECK(membudgetTraining(c).moeLayerBytes == t.fullMoeLayerBytes);
    // Megatron-LM's list only: elsewhere, or outside selective, it is an error naming the key; a module it does not
    // know is named.
    c.recomputeModules = "moe";
    c.ckpt = Checkpointing::full;
    CHECK_FALSE(validate(c).empty());
    c.ckpt = Checkpointing::selective;
    c.recomputeModules = "moe,experts";
    const auto problems = validate(c);
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].field == "recompute_modules");
    CHECK(problems[0].message.find("\"moe,experts\"") != std::string::npos);
}

// torchtitan's op-level SAC of a MoE block (activation_checkpoint.py SelectiveAC, _get_default_save_ops): the block's
// input, the attention's saved mms and SDPA, the router's topk, the dispatch's and the combine's outputs, the shared
// expert's w1 and w2; not torch._grouped_mm, so the routed experts are rebuilt in backward from the saved dispatch.
// Megatron-LM's MLA (multi_latent_attention.py get_query_key_value_tensors): the normed latents its up-projections
// read, at the hidden states' SP sharding, then queries and keys of d_nope + d_rope per head and values of d_v; under
// mla_up_proj the up-projection's checkpoint keeps only its inputs, the latents.
TEST_CASE("MLA keeps its latents and its d_nope + d_rope queries and keys; mla_up_proj keeps only the latents", "[census][mla]") {
    Config c = balancedMoeRun("deepseek-v2-lite", Framework::megatron, 1, Checkpointing::selective);
    c.tp = 2;
    c.sp = true;
    c.etp = 1;
    c.dp = 4;
    c.qLoraRank = 1536;  // DeepSeek-V3's query LoRA on V2-Lite's dimensions
    REQUIRE(validate(c).empty());
    const double tokens = 4096.0, local = tokens / 2, headsRank = c.heads / 2;
    const double latents = c.qLoraRank + c.kvLoraRank, qk = c.qkNopeDim + c.qkRopeDim;
    auto kept = selectiveMoeLayer(c);
    CHECK(kept[TensorKind::queryKeyNormInput] == 2 * local * latents);
    CHECK(kept[TensorKind::queryKeyNormStatistics] == 2 * 4 * local);
    CHECK(kept[TensorKind::latentProjectionInput] == 2 * local * latents);
    CHECK(kept[TensorKind::queryAfterRope] == 2 * tokens * headsRank * qk);
    CHECK(kept[TensorKind::keyValue] == 2 * tokens * headsRank * (qk + c.vHeadDim));
    CHECK(kept.count(TensorKind::query) == 0);
    c.recomputeModules = "mla_up_proj";
    REQUIRE(validate(c).empty());
    auto upProj = selectiveMoeLayer(c);
    CHECK(upProj[TensorKind::queryKeyNormInput] == 2 * local * latents);
    for (const TensorKind gone :
         {TensorKind::queryKeyNormStatistics, TensorKind::latentProjectionInput, TensorKind::queryAfterRope, TensorKind::keyValue})
        CHECK(upProj.count(gone) == 0);
    // Without a query LoRA only the key-value latent is normed and read.
    c.qLoraRank = 0;
    c.recomputeModules = "core_attn";
    auto noLora = selectiveMoeLayer(c);
    CHECK(noLora[TensorKind::latentProjectionInput] == 2 * local * c.kvLoraRank);
    CHECK(noLora[TensorKind::queryKeyNormStatistics] == 4 * local);
}

TEST_CASE("torchtitan's op-level SAC keeps a MoE block's topk, dispatch and combine outputs, not its grouped GEMMs",
          "[census][moe][torchtitan]") {
    const Config c = balancedMoeRun("qwen3-30b-a3b", Framework::torchtitan, 4, Checkpointing::op);
    REQUIRE(validate(c).empty());
    const double tokens = 4 * 4096.0, h = 2048, k = 8;
    auto moeLayer = [](const Config& config) {
        const MembudgetTraining t = membudgetTraining(config);
        ByKind v;
        forEachLayerTensor(config, t.x, LayerSpec{true, true, true}, v);
        return v.bytes;
    };
    auto a2a = moeLayer(c);
    CHECK(a2a[TensorKind::topkOutputs] == 12 * tokens * k);
    CHECK(a2a[TensorKind::dispatchReceived] == 2 * tokens * k * h);
    CHECK(a2a[TensorKind::combineOutput] == 2 * tokens * k * h);
    for (const TensorKind rebuilt : {TensorKind::dispatchedTokens, TensorKind::expertGateUp, TensorKind::expertSwigluOutput,
                                     TensorKind::gateProjection, TensorKind::downProjection})
        CHECK(a2a.count(rebuilt) == 0);
    // DeepEP receives a token once per rank it reaches: of 128 experts over 8 ranks, a token's 8 picks miss a given
    // rank's 16 with probability C(112, 8) / C(128, 8); its combine returns this rank's tokens, not their copies.
    Config deepep = c;
    deepep.moeDispatcher = MoeDispatcher::deepep;
    double none = 1;
    for (int i = 0; i < 8; ++i) none *= (112.0 - i) / (128.0 - i);
    auto dp = moeLayer(deepep);
    CHECK(dp[TensorKind::dispatchReceived] == Approx(tokens * 8 * (1 - none) * (2 * h + 12 * k)).epsilon(1e-12));
    CHECK(dp[TensorKind::combineOutput] == 2 * tokens * h);
    // The stage keeps a MoE block's save set per layer-copy and rebuilds the rest of one block in backward.
    const MembudgetTraining t = membudgetTraining(c);
    const MembudgetStage st = membudgetStage(c, t, 0, c.layers, 0, false);
    ByKind stage;
    forEachStageTensor(c, t, {c.layers, st.moeLayers, st.copies, st.microbatches, 0, true, true, st.checkpointed}, stage);
    CHECK(stage.bytes[TensorKind::recomputedLayer] == t.fullMoeLayerBytes - t.moeLayerBytes);
    // DeepSeek's MLA runs its own mms (deepseek_v3/model.py Attention.forward). Without a query LoRA, wq, wkv_a, wkv_b,
    // wo keep wq and wkv_b, and the shared expert's w1 and w2 stay the fifth and seventh.
    Config lite = balancedMoeRun("deepseek-v2-lite", Framework::torchtitan, 2, Checkpointing::op);
    lite.mtpLayers = 0;
    REQUIRE(validate(lite).empty());
    REQUIRE(lite.qLoraRank == 0);
    const double liteTokens = 2 * 4096.0, heads = lite.heads, nope = lite.qkNopeDim, vDim = lite.vHeadDim;
    auto noLora = moeLayer(lite);
    CHECK(noLora[TensorKind::queryProjection] == 2 * liteTokens * heads * (nope + lite.qkRopeDim));
    CHECK(noLora[TensorKind::valueProjection] == 2 * liteTokens * heads * (nope + vDim));
    CHECK(noLora[TensorKind::attentionOutput] == 2 * liteTokens * heads * vDim);
    CHECK(noLora[TensorKind::sharedExpertW1] == 2 * liteTokens * lite.sharedExpertFfn);
    CHECK(noLora.count(TensorKind::sharedExpertW3) == 0);
    // With one, wq_a, wq_b, wkv_a, wkv_b, wo keep wq_a, wkv_a and wo, and the shared expert's w3 is the seventh.
    Config lora = lite;
    lora.qLoraRank = 1536;
    auto withLora = moeLayer(lora);
    CHECK(withLora[TensorKind::queryProjection] == 2 * liteTokens * 1536);
    CHECK(withLora[TensorKind::valueProjection] == 2 * liteTokens * (lite.kvLoraRank + lite.qkRopeDim));
    CHECK(withLora[TensorKind::outputProjection] == 2 * liteTokens * lite.hidden);
    CHECK(withLora[TensorKind::sharedExpertW3] == 2 * liteTokens * lite.sharedExpertFfn);
    CHECK(withLora.count(TensorKind::sharedExpertW1) == 0);
}

// torchtitan's MoE layer as its code saves it (models/common/moe.py, token_dispatcher.py; torch._grouped_mm has no
// CPU kernel in the census's torch, so this is read from the source): the gate under FP32 autocast, the eager
// SwiGLU of the grouped GEMMs, the combine's FP32 expert outputs.
TEST_CASE("torchtitan's MoE layer keeps the router's FP32 input, the SiLU output and the combine's FP32 outputs",
          "[census][torchtitan][moe]") {
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
    c.dp = 8;
    c.ep = 8;
    c.zero = 3;
    c.mb = 8;
    c.seq = 4096;
    c.microbatches = 1;
    c.ckpt = Checkpointing::full;
    c.moeForceBalance = true;  // every EP rank receives the even share
    REQUIRE(validate(c).empty());
    const double tokens = 8 * 4096.0, h = 2048, k = 8, f = 768;
    auto moeLayer = [](const Config& config) {
        const MembudgetTraining t = membudgetTraining(config);
        ByKind v;
        forEachLayerTensor(config, t.x, LayerSpec{true, true}, v);
        return v.bytes;
    };
    auto eager = selectiveMoeLayer(c);
    CHECK(eager[TensorKind::routerInputFp32] == 4 * tokens * h);
    CHECK(eager[TensorKind::routerScores] == 4 * tokens * 128);
    CHECK(eager.count(TensorKind::routerLogits) == 0);
    CHECK(eager[TensorKind::dispatchedTokens] == 2 * tokens * k * h);
    CHECK(eager[TensorKind::expertGateUp] == 2 * 2 * tokens * k * f);
    CHECK(eager[TensorKind::expertSiluOutput] == 2 * tokens * k * f);
    CHECK(eager[TensorKind::expertSwigluOutput] == 2 * tokens * k * f);
    CHECK(eager[TensorKind::combinedExpertOutputs] == 4 * tokens * k * h);
    // Dropless routing that is not forced: the busiest rank's received copies are 1.25 times the even share (the
    // assumption, model/rank.hpp kDroplessImbalance), or moe_imbalance, at most a capacity factor; the copies this
    // rank's tokens send (the combine's outputs) stay the even share.
    Config dropless = c;
    dropless.moeForceBalance = false;
    auto skewed = moeLayer(dropless);
    CHECK(skewed[TensorKind::dispatchedTokens] == 1.25 * 2 * tokens * k * h);
    CHECK(skewed[TensorKind::expertGateUp] == 1.25 * 2 * 2 * tokens * k * f);
    CHECK(skewed[TensorKind::combinedExpertOutputs] == 4 * tokens * k * h);
    dropless.moeImbalance = 2;
    CHECK(moeLayer(dropless)[TensorKind::dispatchedTokens] == 2 * 2 * tokens * k * h);
    dropless.capacityFactor = 1.5;
    CHECK(moeLayer(dropless)[TensorKind::dispatchedTokens] == 1.5 * 2 * tokens * k * h);
    // Without expert parallelism the one rank takes every copy, whatever the router does.
    dropless.ep = 1;
    CHECK(moeLayer(dropless)[TensorKind::dispatchedTokens] == 2 * tokens * k * h);
    // Compiled: the partitioner recomputes SiLU and the upcast; the BF16 outputs stay.
    Config compiled = c;
    compiled.compile = true;
    auto fused = moeLayer(compiled);
    CHECK(fused.count(TensorKind::expertSiluOutput) == 0);
    CHECK(fused[TensorKind::combinedExpertOutputs] == 2 * tokens * k * h);
    // Megatron-LM's MoE layer keeps its own router tensors and no FP32 combine.
    Config megatron = c;
    megatron.framework = Framework::megatron;
    megatron.zero = 1;
    auto mg = moeLayer(megatron);
    CHECK(mg.count(TensorKind::combinedExpertOutputs) == 0);
    CHECK(mg[TensorKind::routerLogits] > 0);
    // The combine's backward, one layer at a time: MulBackward0's FP32 incoming gradient, the outputs' gradient and
    // the scores' product, 12 B per element of every token copy.
    auto stage = [](const Config& config) {
        const MembudgetTraining t = membudgetTraining(config);
        const MembudgetStage s = membudgetStage(config, t, 0, config.layers, 0, false);
        ByKind v;
        forEachStageTensor(config, t, {config.layers, s.moeLayers, s.copies, s.microbatches, 0, true, true, s.checkpointed}, v);
        return v.bytes;
    };
    CHECK(stage(c)[TensorKind::moeCombineBackward] == 12 * tokens * k * h);
    CHECK(stage(compiled)[TensorKind::moeCombineBackward] == 4 * tokens * k * h);
    CHECK(stage(megatron).count(TensorKind::moeCombineBackward) == 0);
}

// A compiled loss (torchtune's compile: training.compile_loss; torchtitan's compile.components "loss"): the
// partitioner keeps the logits the graph takes in, not the FP32 log-probabilities the eager census saves, and its
// fused backward writes the logits' gradient at their dtype (torch 1.13 here has no torch.compile, so this is read
// from the recipes, torchtitan components/loss.py and torch/_functorch/partitioners.py).
TEST_CASE("a compiled loss keeps the logits it takes in and writes their gradient in one kernel", "[census][torchtune][torchtitan]") {
    Config c;
    applyModelPreset(c, *findModelPreset("llama-3.1-8b"));
    c.method = Method::membudget;
    c.framework = Framework::torchtune;
    c.tp = 1;
    c.pp = 1;
    c.dp = 1;
    c.zero = 0;
    c.mb = 2;
    c.seq = 4096;
    c.microbatches = 1;
    c.ckpt = Checkpointing::full;
    REQUIRE(validate(c).empty());
    auto walk = [](const Config& config) {
        const MembudgetTraining t = membudgetTraining(config);
        const MembudgetStage s = membudgetStage(config, t, 0, config.layers, 0, false);
        ByKind v;
        forEachStageTensor(config, t, {config.layers, 0, s.copies, s.microbatches, 0, true, true, s.checkpointed}, v);
        return v.bytes;
    };
    const double logits = 2 * 4096.0 * 128256;
    auto eager = walk(c);
    CHECK(eager[TensorKind::logProbabilities] == 4 * logits);
    CHECK(eager[TensorKind::lossBackward] == 8 * logits / 8);
    CHECK(eager.count(TensorKind::compiledLossLogits) == 0);
    // torchtune's chunks (8 by default): each chunk's compute_cross_entropy is compiled on its BF16 logits.
    Config compiled = c;
    compiled.compile = true;
    auto fused = walk(compiled);
    CHECK(fused[TensorKind::compiledLossLogits] == 2 * logits);
    CHECK(fused[TensorKind::compiledLossBackward] == 2 * logits / 8);
    CHECK(fused.count(TensorKind::logProbabilities) == 0);
    CHECK(fused.count(TensorKind::lossBackward) == 0);
    // Unchunked, torchtune's output is upcast first (TransformerDecoder.unembed: .float()): FP32 in, FP32 gradient.
    compiled.lossChunks = 1;
    fused = walk(compiled);
    CHECK(fused[TensorKind::compiledLossLogits] == 4 * logits);
    CHECK(fused[TensorKind::compiledLossBackward] == 4 * logits);
    // torchtitan: BF16 logits into the compiled cross_entropy_loss, which upcasts inside the graph.
    compiled.framework = Framework::torchtitan;
    compiled.lossChunks = 0;
    fused = walk(compiled);
    CHECK(fused[TensorKind::compiledLossLogits] == 2 * logits);
    CHECK(fused[TensorKind::compiledLossBackward] == 2 * logits);
    // compile_loss false (compile.components = ["model"], or torchtitan before d1f62be): the eager loss.
    compiled.compileLoss = false;
    fused = walk(compiled);
    CHECK(fused[TensorKind::logProbabilities] == 4 * logits);
    CHECK(fused[TensorKind::lossBackward] == 8 * logits);
    CHECK(fused.count(TensorKind::compiledLossLogits) == 0);
}

// What a block saves on a GPU, eager and under torch.compile (tests/fixtures/census-gpu/compile-h200.json, written
// by tools/measure/compile_census.py on an H200 with torch 2.11: census.py's torchtune and torchtitan blocks with
// CUDA's own SDPA and RMSNorm, compiled as each framework compiles them). Per layer, to the byte.
TEST_CASE("census on a GPU: torchtune's and torchtitan's blocks, eager and compiled", "[census][compile]") {
    std::ifstream in(std::string(MEMBUDGET_FIXTURES_DIR) + "/census-gpu/compile-h200.json");
    const json doc = json::parse(in);
    int checked = 0;
    for (const auto& r : doc["results"]) {
        const std::string framework = r["framework"];
        // torchtitan before #2259 (repeat_kv) is not today's torchtitan, which membudget models (torchtitan_gqa).
        if (framework == "torchtitan" || !r.contains("layer_bytes")) continue;
        const json& d = r["size"];
        INFO(framework << (r["compiled"].get<bool>() ? " compiled" : " eager"));
        const json dims = {{"b", d["b"]},     {"s", d["s"]},         {"h", d["h"]},
                           {"layers", 2},     {"heads", d["heads"]}, {"kv_heads", d["kv"]},
                           {"ffn", d["ffn"]}, {"vocab", 1024},       {"head_dim", d["h"].get<int>() / d["heads"].get<int>()}};
        Config c = censusConfig({{"dims", dims}, {"framework", framework}, {"ckpt", "none"}, {"loss", "chunked:1"}});
        c.compile = r["compiled"].get<bool>();
        REQUIRE(validate(c).empty());
        const MembudgetTraining t = membudgetTraining(c);
        // compile_census.py counts every block's input as saved; torchtune's eager RMSNorm saves its FP32 copy
        // instead (x.float(): the CPU census), so there the input is not the block's.
        double measured = r["layer_bytes"][0].get<double>();
        if (framework == "torchtune" && !c.compile) measured -= 2 * d["b"].get<double>() * d["s"].get<double>() * d["h"].get<double>();
        // SDPA's flash backward keeps its RNG state as two int64 scalars on torch 2.11 (16 B); membudget counts the
        // [2] + [] of earlier versions (24 B).
        CHECK(t.denseLayerBytes - 8 == measured);
        ++checked;
    }
    CHECK(checked == 4);
}
