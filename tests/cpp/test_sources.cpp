// The published estimators against numbers their sources produced (tests/fixtures/megatron.json,
// deepspeed.json, zero.json, korthikanti.json).
#include <catch2/catch.hpp>
#include <cmath>

#include "fixtures.hpp"
#include "membudget/memory/sources.hpp"

using namespace membudget::sources;
using membudget::test::fixture;

namespace {

double relativeError(double got, double want) { return want == 0 ? std::fabs(got) : std::fabs(got - want) / std::fabs(want); }

template <typename T>
T orDefault(const nlohmann::json& value, T fallback) {
    return value.is_null() ? fallback : value.get<T>();
}

}  // namespace

MegatronArgs megatronArgsFrom(const nlohmann::json& a, const nlohmann::json& numMicrobatches) {
    MegatronArgs x;
    x.hiddenSize = a["hidden_size"];
    x.numAttentionHeads = a["num_attention_heads"];
    x.kvChannels = a["kv_channels"];
    x.ffnHiddenSize = a["ffn_hidden_size"];
    x.numLayers = a["num_layers"];
    x.paddedVocabSize = a["padded_vocab_size"];
    x.seqLength = a["seq_length"];
    x.microBatchSize = a["micro_batch_size"];
    x.groupQueryAttention = a["group_query_attention"];
    x.numQueryGroups = orDefault<double>(a["num_query_groups"], 0);
    x.swiglu = a["swiglu"];
    x.rmsNorm = a["normalization"] == "RMSNorm";
    x.untieEmbeddingsAndOutputWeights = a["untie_embeddings_and_output_weights"];
    x.tensorParallel = a["tensor_model_parallel_size"];
    x.pipelineParallel = a["pipeline_model_parallel_size"];
    if (!a["virtual_pipeline_model_parallel_size"].is_null()) x.virtualPipeline = a["virtual_pipeline_model_parallel_size"].get<double>();
    x.dataParallel = a["data_parallel_size"];
    x.useDistributedOptimizer = a["use_distributed_optimizer"];
    x.sequenceParallel = a["sequence_parallel"];
    x.recomputeSelective = a["recompute_granularity"] == "selective";
    if (!numMicrobatches.is_null()) x.numMicrobatches = numMicrobatches.get<double>();
    if (a["multi_latent_attention"].get<bool>()) {
        x.multiLatentAttention = true;
        if (!a["q_lora_rank"].is_null()) x.qLoraRank = a["q_lora_rank"].get<double>();
        x.kvLoraRank = a["kv_lora_rank"];
        x.qkHeadDim = a["qk_head_dim"];
        x.qkPosEmbHeadDim = a["qk_pos_emb_head_dim"];
        x.vHeadDim = a["v_head_dim"];
    }
    if (!a["num_experts"].is_null()) {
        x.numExperts = a["num_experts"].get<double>();
        x.moeFfnHiddenSize = a["moe_ffn_hidden_size"];
        if (a["moe_layer_freq"].is_array()) {
            // k zeros then ones: the first k layers dense, every layer after them MoE.
            for (const auto& flag : a["moe_layer_freq"])
                if (flag.get<int>() == 0) x.firstDenseLayers += 1;
            x.moeLayerFreq = 1;
        } else {
            x.moeLayerFreq = a["moe_layer_freq"];
        }
        x.sharedExpertFfn = orDefault<double>(a["moe_shared_expert_intermediate_size"], 0);
        x.expertParallel = a["expert_model_parallel_size"];
        x.expertTensorParallel = a["expert_tensor_parallel_size"];
        x.worldSize = a["world_size"];
        x.addBiasLinear = a["add_bias_linear"];
        x.sharedExpertGate = a["moe_shared_expert_gate"];
    }
    x.mtpNumLayers = orDefault<double>(a["mtp_num_layers"], 0);
    return x;
}

TEST_CASE("Megatron-LM's estimator: weights and optimizer, activations, both formulas", "[sources][megatron]") {
    const auto& cases = fixture("megatron")["cases"];
    REQUIRE(cases.size() >= 10);
    for (const auto& c : cases) {
        INFO(c["name"].get<std::string>());
        const MegatronArgs x = megatronArgsFrom(c["args"], c["num_microbatches"]);
        CHECK(relativeError(megatronWeights(x).bytes(), c["weight_and_optimizer_bytes"]) < 1e-9);
        CHECK(relativeError(megatronActivationBytesWithSp(x), c["activation_sp_formula_bytes"]) < 1e-9);
        CHECK(relativeError(megatronActivationBytesWithoutSp(x), c["activation_without_sp_formula_bytes"]) < 1e-9);
        CHECK(relativeError(megatronActivationBytes(x), c["activation_bytes"]) < 1e-9);
    }
}

TEST_CASE("DeepSpeed's ZeRO-2 and ZeRO-3 estimators, every option row", "[sources][deepspeed]") {
    const auto& ds = fixture("deepspeed");
    REQUIRE(ds["zero2"].size() >= 10);
    REQUIRE(ds["zero3"].size() >= 10);
    for (const auto& c : ds["zero2"]) {
        const auto& in = c["inputs"];
        INFO("zero2 " << c["model"].get<std::string>() << " " << in.dump());
        for (const auto& row : c["options"]) {
            const auto now = deepspeedZero2(in["total_params"], in["num_gpus_per_node"], in["num_nodes"], row["cpu_offload"],
                                            in["additional_buffer_factor"]);
            const auto before = deepspeedZero2BeforePr5099(in["total_params"], in["num_gpus_per_node"], in["num_nodes"], row["cpu_offload"],
                                                           in["additional_buffer_factor"]);
            CHECK(now.gpuBytesPerGpu == row["gpu_bytes_per_gpu"].get<double>());
            CHECK(now.cpuBytesPerNode == row["cpu_bytes_per_node"].get<double>());
            CHECK(before.gpuBytesPerGpu == row["gpu_bytes_per_gpu_pre_pr5099"].get<double>());
        }
    }
    for (const auto& c : ds["zero3"]) {
        const auto& in = c["inputs"];
        INFO("zero3 " << c["model"].get<std::string>() << " " << in.dump());
        for (const auto& row : c["options"]) {
            const auto got =
                deepspeedZero3(in["total_params"], in["largest_layer_params"], in["num_gpus_per_node"], in["num_nodes"], row["cpu_offload"],
                               row["cpu_offload_params"], row["zero_init"], in["additional_buffer_factor"]);
            CHECK(got.gpuBytesPerGpu == row["gpu_bytes_per_gpu"].get<double>());
            CHECK(got.cpuBytesPerNode == row["cpu_bytes_per_node"].get<double>());
        }
    }
}

TEST_CASE("the ZeRO paper's model states: Figure 1's 7.5B on 64 GPUs and all of Table 1", "[sources][zero]") {
    const auto& z = fixture("zero");
    const auto& fig = z["figure1"];
    for (int stage = 0; stage <= 3; ++stage) {
        const double gb = zeroPaperModelStates(stage, fig["psi"], fig["dp"]).total() / 1e9;
        const double printed = fig["printed_gb"][std::to_string(stage)];
        INFO("stage " << stage << ": " << gb << " GB, printed " << printed);
        CHECK(std::fabs(gb - printed) < 0.05 * (printed < 10 ? 1 : 2));  // the text rounds to 3 figures
    }
    for (const auto& cell : z["table1"]) {
        const double gb = zeroPaperModelStates(cell["stage"], cell["psi"], cell["dp"]).total() / 1e9;
        const double printed = cell["printed_gb"];
        INFO(cell.dump() << " → " << gb);
        // Printed to a few figures, some large cells truncated rather than rounded: allow one unit of
        // the last printed digit.
        const std::string text = cell["printed_gb"].dump();
        const size_t point = text.find('.');
        const double unit = point == std::string::npos ? 1 : std::pow(10.0, -static_cast<double>(text.size() - point - 1));
        CHECK(std::fabs(gb - printed) <= unit);
    }
}

TEST_CASE("Korthikanti et al.: Table 2 per-layer formulas, the pipeline factors and Appendix B", "[sources][korthikanti]") {
    const auto& k = fixture("korthikanti");
    // Table 3's 175B (GPT-3) model, s = 2048, b = 1, t = 8.
    const double s = 2048, b = 1, h = 12288, a = 96, t = 8, sbh = s * b * h;
    CHECK(korthikantiLayerBytes(s, b, h, a, 1, false, Recompute::none) == sbh * (34 + 5 * a * s / h));
    CHECK(korthikantiLayerBytes(s, b, h, a, t, false, Recompute::none) == sbh * (10 + 24 / t + 5 * a * s / (h * t)));
    CHECK(korthikantiLayerBytes(s, b, h, a, t, true, Recompute::none) == sbh * (34 / t + 5 * a * s / (h * t)));
    CHECK(korthikantiLayerBytes(s, b, h, a, t, false, Recompute::selective) == sbh * (10 + 24 / t));
    CHECK(korthikantiLayerBytes(s, b, h, a, t, true, Recompute::selective) == sbh * (34 / t));
    CHECK(korthikantiLayerBytes(s, b, h, a, t, true, Recompute::full) == sbh * 2);
    CHECK(k["table2"]["rows"].size() == 6);
    CHECK(korthikantiInterleaveFactor(8, 3) == 1 + 7.0 / 24);
    // Appendix B: for the 530B model "sbhp = 2.73 GB", which is GiB.
    const auto& appendix = k["appendix_b"];
    // korthikantiEmbeddingBytes is the 1-byte dropout mask, sbhp/t; the tensor itself has 2 bytes an element.
    const double sbhp = 2 * korthikantiEmbeddingBytes(appendix["s"], appendix["b"], appendix["h"], appendix["p"], 1);
    CHECK(sbhp == appendix["bytes"].get<double>());
    CHECK(std::round(sbhp / std::pow(2.0, 30) * 100) / 100 == 2.73);
    // §4.3 output terms: 4sbh/t · (1 + v/h) with v = 51200.
    CHECK(korthikantiOutputBytes(s, b, h, 51200, t) == 4 * sbh / t * (1 + 51200 / h));
}
