// mode=inference: the KV cache as vLLM sizes it, weights at their type, and the capacity answers.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/io/json.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/time/serving.hpp"
#include "model/rank.hpp"

using namespace membudget;
using membudget::test::fixture;

namespace {

double line(const Result& r, const std::string& id) {
    for (const auto& l : r.lines)
        if (toString(l.id) == id) return l.bytes;
    FAIL("no line " << id);
    return 0;
}

// One GPU serving a preset's model (or, with "custom", the default architecture).
Config inference(std::string_view model = "custom") {
    Config c;
    if (const auto* preset = findModelPreset(model)) applyModelPreset(c, *preset);
    c.model = std::string(model);
    c.method = Method::membudget;
    c.mode = Mode::inference;
    c.framework = Framework::vllm;
    c.params = 0;
    c.tp = c.pp = c.dp = 1;
    return c;
}

// A hybrid model's config.json from hf-configs.json's inference cases (its raw text where it holds Python's bare
// constants), imported over one H200 and checked against the case's expectations.
Config importedOnH200(const std::string& name) {
    const nlohmann::json& k = test::hfCase(name, "inference_cases");
    Config base = inference();
    base.gpu = "h200";
    base.tp = 1;
    const HfImport read = importHfConfig(k.contains("text") ? k["text"].get<std::string>() : k["config"].dump(), base);
    REQUIRE(read.errors.empty());
    CHECK(read.notices.size() == k["notices"].size());
    test::checkHfExpect(read.config, k["expect"]);
    return read.config;
}

}  // namespace

TEST_CASE("inference: the KV cache equals vLLM's for every fixture case", "[inference]") {
    const auto& cases = fixture("vllm-kv")["cases"];
    REQUIRE(cases.size() >= 10);
    for (const auto& k : cases) {
        INFO(k["model"].get<std::string>() << " TP " << k["tensor_parallel_size"] << " " << k["kv_cache_dtype"]);
        Config c = inference();
        c.layers = k["num_layers"];
        c.kvHeads = k["total_num_kv_heads"];
        c.heads = std::max(c.kvHeads, 32.0);
        c.headDim = k["head_size"];
        c.hidden = 4096;
        c.tp = k["tensor_parallel_size"];
        c.kvDtype = k["kv_dtype_bytes"].get<int>() == 1 ? KvDtype::fp8 : KvDtype::bf16;
        c.kvBlock = k["block_size"];
        if (k.contains("mla")) {
            c.kvLoraRank = k["mla"]["kv_lora_rank"];
            c.qkRopeDim = k["mla"]["qk_rope_head_dim"];
            c.heads = c.kvHeads = 128;
            c.headDim = 128;
            c.hidden = 7168;
        }
        c.mb = static_cast<double>(k["seq_lens"].size());
        c.seq = k["seq_lens"][0];
        const Result r = evaluate(c);
        REQUIRE(r.ok());
        CHECK(line(r, "kv_cache") == k["kv_bytes_per_gpu"].get<double>());
    }
}

TEST_CASE("inference: weights at their type, INT4 with group scales", "[inference]") {
    Config c = inference("llama-3.1-8b");
    const double linear = 32.0 * (4096.0 * 4096 * 2 + 2 * 4096.0 * 1024 + 3 * 4096.0 * 14336);
    const double rest = 8030261248.0 - linear;
    CHECK(line(evaluate(c), "parameters") == 2 * 8030261248.0);
    c.weightDtype = WeightDtype::fp8;
    // FP8 with one FP32 scale per 128 x 128 block (vLLM's Fp8LinearMethod, block-quantized checkpoints).
    CHECK(line(evaluate(c), "parameters") == Approx(linear * (1 + 4.0 / (128 * 128)) + 2 * rest));
    c.weightDtype = WeightDtype::int4;
    c.quantGroup = 128;
    CHECK(line(evaluate(c), "parameters") == linear * (0.5 + 2.5 / 128) + 2 * rest);
}

TEST_CASE("inference: the most sequences and the longest context that fit are the edges of fitting", "[inference]") {
    Config c = inference("llama-3.1-70b");
    c.tp = 4;
    c.gpuGb = 81559.0 * 1048576 / 1e9;
    c.mb = 16;
    c.seq = 8192;
    const Result r = evaluate(c);
    REQUIRE(r.ok());
    REQUIRE(r.maxSequences > 0);
    Config edge = c;
    edge.mb = r.maxSequences;
    CHECK(evaluate(edge).totalBytes <= r.usableBytes);
    edge.mb = r.maxSequences + 1;
    CHECK(evaluate(edge).totalBytes > r.usableBytes);
    edge = c;
    edge.seq = r.maxContextTokens;
    CHECK(evaluate(edge).totalBytes <= r.usableBytes);
    edge.seq = r.maxContextTokens + c.kvBlock;
    CHECK(evaluate(edge).totalBytes > r.usableBytes);
}

TEST_CASE("inference: only membudget models it, and the other keys are checked", "[inference]") {
    Config c = inference();
    c.method = Method::megatron;
    const Result r = evaluate(c);
    REQUIRE_FALSE(r.ok());
    CHECK(r.errors[0].field == "method");
    CHECK(r.errors[0].message.find("method must be membudget in inference mode") != std::string::npos);
    c = inference();
    c.kvDtype = invalidChoice<KvDtype>();
    CHECK(evaluate(c).errors[0].message == "kv_dtype must be one of bf16, fp16 or fp8; got an unknown value");
    c = inference();
    c.kvBlock = 0;
    CHECK(evaluate(c).errors[0].field == "kv_block");
}

TEST_CASE("inference is capped by the model's context window", "[inference][context]") {
    Config c;
    applyModelPreset(c, *findModelPreset("mixtral-8x7b"));
    CHECK(c.contextWindow == 32768);  // config.json max_position_embeddings
    c.mode = Mode::inference;
    c.framework = Framework::vllm;
    c.method = Method::membudget;
    c.gpu = "h200";
    applyGpuPreset(c, *findGpuPreset("h200"));
    c.tp = 2;
    c.dp = 1;
    c.seq = 4096;
    Result r = evaluate(c);
    REQUIRE(r.ok());
    // Memory alone would allow far more (401,168 tokens on one H200 pair); vLLM serves up to the window.
    CHECK(r.maxContextTokens == 32768);
    Config unbounded = c;
    unbounded.contextWindow = 0;
    CHECK(evaluate(unbounded).maxContextTokens > 32768);
    c.seq = 32769;
    CHECK_FALSE(evaluate(c).ok());
    CHECK(evaluate(c).errors.front().field == "seq");
    // Training may run beyond the window (long-context extension): not refused.
    c.mode = Mode::training;
    c.framework = Framework::megatron;
    c.seq = 65536;
    CHECK(validate(c).empty());
}

// vLLM's profiling run (gpu_model_runner.profile_run): the dummy forward of max_num_batched_tokens, then on the
// last stage the sampler over min(max_num_seqs, T) requests × the full vocabulary at 14 B each (BF16 logits, their
// FP32 copy, FP32 probabilities, FP32 exponential noise) beside the forward's output hidden states.
TEST_CASE("inference: the workspace is vLLM's profiling peak, the sampler's on the last stage", "[inference]") {
    Config c = inference("llama-3.1-8b");
    c.mb = 1024;
    c.seq = 8192;
    c.workspaceTokens = 8192;
    const double T = 8192, h = 4096, V = 128256, r = 1024;
    const double sampler = T * h * 2 + 2 * r * h * 2 + r * V * 14;
    const double forward = T * (4 * h + 6 * 14336);
    REQUIRE(sampler > forward);
    CHECK(line(evaluate(c), "activations") == sampler);
    // The sampler is the same on every TP rank: vLLM gathers the full vocabulary's logits.
    c.tp = 2;
    CHECK(line(evaluate(c), "activations") == sampler);
    // Fewer requests than the forward's tokens: the forward's peak wins.
    c.tp = 1;
    c.mb = 64;
    CHECK(line(evaluate(c), "activations") == std::max(forward, T * h * 2 + 2 * 64 * h * 2 + 64 * V * 14));
    // Two stages: the first has no sampler; the second adds the hidden state and residual it receives.
    c.mb = 1024;
    c.pp = 2;
    const Result two = evaluate(c);
    REQUIRE(two.ok());
    REQUIRE(two.stages.size() == 2);
    CHECK(test::stageLine(two, two.stages[0], "activations") == forward);
    CHECK(test::stageLine(two, two.stages[1], "activations") == 2 * T * h * 2 + sampler);
}

// vLLM kv_cache_interface.py: FullAttentionSpec keeps cdiv(max_model_len, block) pages per request,
// SlidingWindowSpec cdiv(min(W − 1 + max_num_batched_tokens, max_model_len), block) + 1.
TEST_CASE("inference: sliding-window layers keep the window, the prefill chunk and one block (vLLM's SlidingWindowSpec)",
          "[inference][sliding]") {
    Config c = inference();
    c.params = 0;
    c.hidden = 2560;
    c.layers = 34;
    c.heads = 8;
    c.kvHeads = 4;
    c.headDim = 256;
    c.ffn = 10240;
    c.vocab = 262208;
    c.mb = 3;
    c.seq = 32768;
    c.workspaceTokens = 8192;
    auto vllm = [&c](double full, double sliding) {
        const double page = 2 * c.kvBlock * c.kvHeads * 256 * 2;  // AttentionSpec.page_size_bytes, BF16, TP 1
        const double fullPages = std::ceil(c.seq / c.kvBlock);
        const double slidingPages = std::ceil(std::min(c.slidingWindow - 1 + c.workspaceTokens, c.seq) / c.kvBlock) + 1;
        return c.mb * page * (full * fullPages + sliding * slidingPages);
    };
    const double everyToken = line(evaluate(c), "kv_cache");
    CHECK(everyToken == vllm(34, 0));
    // Gemma 3: a 1,024-token window, every sixth layer full: layers 6, 12, …, 30 of 34.
    c.slidingWindow = 1024;
    c.fullAttentionEvery = 6;
    CHECK(line(evaluate(c), "kv_cache") == vllm(5, 29));
    // Every layer sliding (Mistral-7B-v0.1), and a window longer than the sequence: one block more than full.
    c.fullAttentionEvery = 0;
    CHECK(line(evaluate(c), "kv_cache") == vllm(0, 34));
    c.slidingWindow = 65536;
    CHECK(line(evaluate(c), "kv_cache") == everyToken + c.mb * 34 * 2 * c.kvBlock * c.kvHeads * 256 * 2);
    // Split over two stages, the full layers fall where they are: 17 + 17 layers hold 2 and 3 of them.
    c.slidingWindow = 1024;
    c.fullAttentionEvery = 6;
    c.pp = 2;
    const Result split = evaluate(c);
    REQUIRE(split.stages.size() == 2);
    CHECK(split.stages[0].lineBytes[1] + split.stages[1].lineBytes[1] == vllm(5, 29));
    // MLA has no sliding window in vLLM, and a full-attention period needs a window.
    Config mla = c;
    mla.kvLoraRank = 512;
    CHECK_FALSE(validate(mla).empty());
    Config period = inference();
    period.fullAttentionEvery = 2;
    REQUIRE_FALSE(validate(period).empty());
    CHECK(validate(period)[0].field == "full_attention_every");
}

TEST_CASE("inference: gpt-oss's MXFP4 experts are the tensors vLLM's Mxfp4MoEMethod creates", "[inference][mxfp4]") {
    // gpt-oss-20b's architecture (its config.json in tests/fixtures/hf-configs.json), on TP ranks of 1 and 2.
    Config c = inference();
    c.hidden = 2880;
    c.layers = 24;
    c.heads = 64;
    c.kvHeads = 8;
    c.headDim = 64;
    c.ffn = 2880;
    c.vocab = 201088;
    c.experts = 32;
    c.expertsPerToken = 4;
    c.bias = true;
    c.routerBias = true;
    c.attentionSinks = true;
    c.gpu = "h100-80gb";
    CHECK(evaluate(c).parameterCount == 20914757184.0);
    c.expertWeightDtype = ExpertWeights::mxfp4;
    for (const double tp : {1.0, 2.0}) {
        INFO("TP " << tp);
        c.tp = tp;
        // The tensors of one rank as vLLM creates them: experts split by TP (no --enable-expert-parallel), their
        // intermediate size padded to a multiple of 64 (1,440 -> 1,472 at TP 2); w13 [E, 2I, h/2] and w2
        // [E, h, I/2] of uint8 pairs, their uint8 scales per 32, the biases FP32 after loading; the rest BF16:
        // attention split by heads with its row-parallel o_proj bias whole, the sinks split by heads, norms and
        // router whole, embedding and head split by the vocabulary.
        const double E = 32, h = 2880, I = std::ceil(2880 / tp / 64) * 64;
        const double experts = E * (2 * I * h / 2 + 2 * I * h / 32 + 2 * I * 4 + h * I / 2 + h * I / 32 + h * 4);
        const double attention = h * 4096 / tp + 2 * h * 512 / tp + 4096 / tp * h + (4096 + 2 * 512) / tp + h + 64 / tp;
        const double layer = attention + 2 * h + h * E + E;
        const double bf16 = 24 * layer + 2 * 201088 * h / tp + h;
        CHECK(line(evaluate(c), "parameters") == Approx(experts * 24 + 2 * bf16).epsilon(1e-15));
    }
}

TEST_CASE("inference: chunked local layers keep one chunk and the prefill tokens (vLLM's ChunkedLocalAttentionSpec)",
          "[inference][chunked]") {
    // Llama-4-Scout's attention: 40 heads, 8 KV heads of 128, a chunk of 8,192 tokens, every 4th layer NoPE and full.
    Config c = inference();
    c.hidden = 5120;
    c.layers = 48;
    c.heads = 40;
    c.kvHeads = 8;
    c.headDim = 128;
    c.ffn = 16384;
    c.vocab = 202048;
    c.attentionChunk = 8192;
    c.fullAttentionEvery = 4;
    c.mb = 2;
    c.workspaceTokens = 8192;
    c.gpu = "h200";
    auto vllm = [&c] {
        const double page = 2 * c.kvBlock * c.kvHeads * 128 * 2;  // AttentionSpec.page_size_bytes, BF16, TP 1
        const double fullPages = std::ceil(c.seq / c.kvBlock);
        const double chunkPages = std::ceil(std::min(c.attentionChunk + c.workspaceTokens, c.seq) / c.kvBlock);  // cdiv
        return c.mb * page * (12 * fullPages + 36 * chunkPages);
    };
    for (const double seq : {4096.0, 131072.0}) {
        INFO("seq " << seq);
        c.seq = seq;
        CHECK(line(evaluate(c), "kv_cache") == vllm());
    }
    // A layer either slides or attends within its chunk; a full-attention period needs one of them.
    Config both = c;
    both.slidingWindow = 4096;
    REQUIRE_FALSE(validate(both).empty());
    CHECK(validate(both)[0].field == "attention_chunk");
    Config alone = c;
    alone.attentionChunk = 0;
    REQUIRE_FALSE(validate(alone).empty());
    CHECK(validate(alone)[0].field == "full_attention_every");
}

TEST_CASE("inference: DeepSeek-V3.2's indexer keeps a key per token and its weights on every rank (vLLM's Indexer)",
          "[inference][indexer]") {
    // DeepSeek-V3.2's config.json (tests/fixtures/hf-configs.json), served at TP 8 on H200s.
    Config base = inference();
    base.gpu = "h200";
    base.tp = 8;
    Config c = importHfConfig(test::hfCase("DeepSeek-V3.2")["config"].dump(), base).config;
    c.mode = Mode::inference;
    c.framework = Framework::vllm;
    c.mb = 4;
    Config without = c;
    without.indexHeads = 0;
    for (const double seq : {4096.0, 65536.0}) {
        INFO("seq " << seq);
        c.seq = without.seq = seq;
        // vLLM's page of each: MLAAttentionSpec(head_size 576, BF16) and DeepseekV32IndexerCache's
        // MLAAttentionSpec(head_size 128 + 128 // 128 × 4, uint8), one head, the same pages per sequence.
        const double pages = std::ceil(seq / c.kvBlock);
        CHECK(line(evaluate(c), "kv_cache") == 61 * c.mb * pages * c.kvBlock * (576 * 2 + 132));
        CHECK(line(evaluate(c), "kv_cache") - line(evaluate(without), "kv_cache") == 61 * c.mb * pages * c.kvBlock * 132);
    }
    // The weights: wq_b in the checkpoint's FP8 (with its block scales), wk + weights_proj and k_norm in BF16, all
    // whole on each of the 8 ranks.
    const double fp8 = 1 + 4.0 / 16384;
    const double perLayer = 1536.0 * 64 * 128 * fp8 + (7168.0 * (128 + 64) + 2 * 128) * 2;
    CHECK(line(evaluate(c), "parameters") - line(evaluate(without), "parameters") == Approx(61 * perLayer).epsilon(1e-12));
    // The indexer reads MLA's query latent.
    Config plain = c;
    plain.qLoraRank = 0;
    REQUIRE_FALSE(validate(plain).empty());
    CHECK(validate(plain)[0].field == "index_heads");
}

TEST_CASE("inference: Qwen3-Next's Gated DeltaNet layers keep a state per sequence, as vLLM's hybrid allocator pages it",
          "[inference][linear]") {
    Config c = importedOnH200("Qwen3-Next");
    c.mb = 8;
    for (const double tp : {1.0, 2.0}) {
        for (const double seq : {4096.0, 131072.0}) {
            INFO("TP " << tp << ", seq " << seq);
            c.tp = tp;
            c.seq = seq;
            // vLLM: MambaStateShapeCalculator.gated_delta_net_state_shape (conv (2·16·128 + 32·128)/TP × 3, temporal
            // 32/TP × 128 × 128, BF16), the attention block grown to the smallest multiple of 16 whose page holds a
            // state, and a page per sequence in each of the 36 linear layers, ⌈s/block⌉ in each of the 12 full ones.
            const double state = ((2 * 16 * 128 + 32 * 128) / tp * 3 + 32 / tp * 128 * 128) * 2;
            const double tokenPage = 2 * std::max(1.0, 2 / tp) * 256 * 2;
            const double block = 16 * std::ceil(state / (16 * tokenPage));
            CHECK(line(evaluate(c), "kv_cache") == c.mb * block * tokenPage * (12 * std::ceil(seq / block) + 36));
        }
    }
    // In training, its layers' saved tensors are not modelled: refused, never counted as full attention.
    Config training = c;
    training.mode = Mode::training;
    REQUIRE_FALSE(validate(training).empty());
    CHECK(validate(training)[0].field == "mode");
}

TEST_CASE("inference: Nemotron-H's Mamba-2 blocks keep a state per sequence, paged beside its attention layers' KV cache",
          "[inference][mamba]") {
    Config c = importedOnH200("Nemotron-H");
    c.mb = 8;
    for (const double tp : {1.0, 2.0, 8.0}) {
        for (const double seq : {4096.0, 8192.0}) {
            INFO("TP " << tp << ", seq " << seq);
            c.tp = tp;
            c.seq = seq;
            REQUIRE(validate(c).empty());
            // vLLM: MambaStateShapeCalculator.mamba2_state_shape (conv (8192 + 2·8·128)/TP × 3 BF16, SSM 128/TP × 64 ×
            // 128 in float32, NemotronHForCausalLMConfig's default), the attention block grown to the smallest multiple
            // of 16 whose page (2 · max(1, 8/TP) · 128 · 2 B a token) holds a state, a page per sequence in each of the
            // 24 Mamba layers and ⌈s/block⌉ in each of the 4 attention layers; the MLP blocks keep nothing.
            const double state = (8192.0 + 2 * 8 * 128) / tp * 3 * 2 + 128 / tp * 64 * 128 * 4;
            const double tokenPage = 2 * std::max(1.0, 8 / tp) * 128 * 2;
            const double block = 16 * std::ceil(state / (16 * tokenPage));
            CHECK(line(evaluate(c), "kv_cache") == c.mb * block * tokenPage * (4 * std::ceil(seq / block) + 24));
        }
    }
    // The weights on TP 8: every block's matrices split, the embedding and output vocab-parallel, the norms whole.
    c.tp = 8;
    // (one KV head of 128 on each of the 8 ranks)
    const double linear =
        (24 * (4096.0 * (2 * 8192 + 2 * 8 * 128 + 128) + 8192.0 * 4096) + 4 * 2 * 4096.0 * 4096 + 24 * 2 * 4096.0 * 21504) / 8 +
        4 * 2 * 4096.0 * 128;
    const double rest = 24 * ((8192.0 + 2048) / 8 * 5 + 3 * 128 / 8 + 8192 / 8) + 52 * 4096 + 2 * 131072.0 * 4096 / 8 + 4096;
    CHECK(line(evaluate(c), "parameters") == linear * 2 + rest * 2);
    // A pattern's blocks are its layers; one it cannot say is refused by name, and training is not modelled.
    Config moe = c;
    moe.layerPattern[1] = 'E';
    CHECK(test::refusedAt(moe) == "layer_pattern");
    Config shorter = c;
    shorter.layers = 50;
    CHECK(test::refusedAt(shorter) == "layer_pattern");
    Config training = c;
    training.mode = Mode::training;
    CHECK(test::refusedAt(training) == "mode");
}

TEST_CASE("SGLang's data-parallel attention: the attention whole on each GPU, a group's requests in its cache",
          "[inference][dp-attention]") {
    // DeepSeek-V3 on 8 GPUs at TP 8 with --dp-size 8 --enable-dp-attention: each GPU is an attention group of one.
    Config tp8 = inference("deepseek-v3");
    tp8.framework = Framework::sglang;
    tp8.gpu = "h200";
    applyGpuPreset(tp8, *findGpuPreset("h200"));
    tp8.tp = 8, tp8.mb = 64, tp8.seq = 4096;
    tp8.weightDtype = WeightDtype::fp8;
    Config dpa = tp8;
    dpa.attentionDp = 8;
    REQUIRE(validate(dpa).empty());
    const Result a = evaluate(tp8), b = evaluate(dpa);
    REQUIRE(a.ok());
    REQUIRE(b.ok());
    // MLA's latent is whole on every rank either way: a group caches its 8 requests, not all 64.
    CHECK(line(b, "kv_cache") == Approx(line(a, "kv_cache") / 8));
    // The attention's matrices are those of TP 1, the MLP's and the experts' those of TP 8 (rank parameters): the
    // weights grow by the attention's 7/8 that TP 8 split away, and the embedding's.
    Config tp1 = tp8;
    tp1.tp = 1;
    const double attentionTp1 = detail::rankParams(tp1, detail::dimsOf(tp1), true).attentionLinear;
    const detail::RankParams p8 = detail::rankParams(tp8, detail::dimsOf(tp8), true),
                             pd = detail::rankParams(dpa, detail::dimsOf(dpa), true);
    CHECK(pd.attentionLinear == Approx(attentionTp1));
    CHECK(pd.layerLinear - pd.attentionLinear == Approx(p8.layerLinear - p8.attentionLinear));
    CHECK(pd.moeLayerExperts == p8.moeLayerExperts);
    CHECK(pd.output == p8.output);
    CHECK(pd.embedding == Approx(8 * p8.embedding));
    CHECK(line(b, "parameters") > line(a, "parameters"));
    // Eight times the requests fit in what the cache has left.
    CHECK(b.maxSequences > 4 * a.maxSequences);
    // Its speed: each GPU reads its group's cache, not every request's.
    const ServingTime sa = estimateServingTimeValue(tp8), sb = estimateServingTimeValue(dpa);
    CHECK(sb.decodeSeconds[static_cast<size_t>(DecodePart::kvCache)] ==
          Approx(sa.decodeSeconds[static_cast<size_t>(DecodePart::kvCache)] / 8));
    CHECK(sb.decodeSeconds[static_cast<size_t>(DecodePart::weights)] > sa.decodeSeconds[static_cast<size_t>(DecodePart::weights)]);
    // Only SGLang has it, in groups that divide TP, without PP.
    Config bad = dpa;
    bad.framework = Framework::vllm;
    CHECK(validate(bad).front().field == "attention_dp");
    bad = dpa;
    bad.attentionDp = 3;
    CHECK(validate(bad).front().field == "attention_dp");
}
