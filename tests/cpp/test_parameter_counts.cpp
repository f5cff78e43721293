// Every parameter is somewhere: summed over the pipeline stages and over the TP/EP shards, what the ledger
// holds is the model's parameter count (derivedParameterCount, an independent formula), for every preset and
// imported config.json, in training and in inference, dense, MoE and MLA alike.
#include <catch2/catch.hpp>
#include <cmath>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/io/json.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

using namespace membudget;
using membudget::test::fixture;

namespace {

double lineBytes(const Result& r, const std::string& id) {
    for (const auto& l : r.lines)
        if (toString(l.id) == id) return l.bytes;
    return -1;
}

std::vector<Config> architectures() {
    std::vector<Config> out;
    for (const auto& preset : modelPresets()) {
        Config c;
        applyModelPreset(c, preset);
        c.params = 0;
        c.method = Method::membudget;
        c.expertWeightDtype = ExpertWeights::same;  // two bytes a weight, whatever the checkpoint stores
        out.push_back(c);
    }
    for (const auto& k : fixture("hf-configs")["cases"]) {
        const HfImport imported = importHfConfig(k.contains("text") ? k["text"].get<std::string>() : k["config"].dump());
        if (!imported.errors.empty()) continue;
        // The weights at two bytes each, whatever format the checkpoint stores (FP8, MXFP4 experts).
        Config c = imported.config;
        c.weightDtype = WeightDtype::bf16;
        c.expertWeightDtype = ExpertWeights::same;
        out.push_back(c);
    }
    return out;
}

// Layouts a model allows: TP dividing the heads (and compatible with the KV heads), PP up to 4, EP dividing
// the experts.
std::vector<Config> layouts(const Config& base, const std::string& mode) {
    std::vector<Config> out;
    for (double tp : {1, 2, 4, 8})
        for (double pp : {1, 2, 3, 4})
            for (double ep : {1, 2, 8}) {
                Config c = base;
                c.mode = membudget::test::choice<membudget::Mode>(mode);
                if (c.mode == membudget::Mode::inference) c.framework = membudget::Framework::vllm;
                c.tp = tp, c.pp = pp, c.ep = base.experts != 0 ? ep : 1;
                c.dp = 8;
                c.zero = 0;
                c.precision = Precision::bf16;
                c.weightDtype = WeightDtype::bf16;
                c.microbatches = 8;
                if (validate(c).empty()) out.push_back(c);
            }
    return out;
}

}  // namespace

TEST_CASE("weights summed over stages and shards are the model's parameter count, training and inference", "[parameters]") {
    int checked = 0, moe = 0;
    for (const Config& arch : architectures())
        for (const std::string mode : {"training", "inference"})
            for (const Config& c : layouts(arch, mode)) {
                INFO(c.model << " " << mode << " " << encodeQuery(c));
                const Result r = evaluate(c);
                REQUIRE(r.ok());
                Config withoutMtp = c;
                if (mode == "inference") withoutMtp.mtpLayers = 0;
                const double count = derivedParameterCount(withoutMtp);
                double model = 0;
                for (const auto& stage : r.stages) {
                    model += stage.modelParameters;
                    // BF16 weights, no ZeRO sharding, no FP8 copies: two bytes per parameter this GPU holds.
                    CHECK(test::stageLine(r, stage, "parameters") == Approx(2 * stage.parametersPerGpu).epsilon(1e-12));
                    CHECK(stage.parametersPerGpu >= stage.modelParameters / (c.tp * c.ep * (c.experts != 0 ? c.tp : 1)) * (1 - 1e-12));
                    // One rank of each kind holds everything but the copies a stage keeps of shared weights.
                    if (c.tp == 1 && c.ep == 1 && (c.pp == 1 || (!c.tiedEmbeddings && c.mtpLayers == 0)))
                        CHECK(stage.parametersPerGpu == Approx(stage.modelParameters).epsilon(1e-12));
                }
                CHECK(model == Approx(count).epsilon(1e-12));
                CHECK(r.parameterCount == Approx(count).epsilon(1e-12));
                ++checked;
                moe += c.experts != 0;
            }
    CHECK(checked > 300);
    CHECK(moe > 50);
}

TEST_CASE("TP shards the matrices and replicates the norms and row-parallel biases", "[parameters]") {
    // Dense presets and imported config.json files without KV replication, MLA or linear attention: TP ranks
    // together hold the model once plus (TP − 1) copies of what each keeps whole.
    int checked = 0;
    for (Config c : architectures()) {
        if (c.experts != 0 || c.kvLoraRank != 0 || c.linearValueHeads != 0) continue;
        c.tp = 8;
        c.pp = 1;
        c.mode = Mode::training;
        if (!validate(c).empty() || c.kvHeads < c.tp) continue;
        INFO(c.model << " " << c.name);
        const Result r = evaluate(c);
        const double norm = c.norm == Norm::layernorm ? 2 * c.hidden : c.hidden;
        // The block norms (one with a shared norm, two more with post-norms), the query/key norms and the
        // attention-output and FC2 biases; the embedding's norm (BLOOM).
        const double headDim = c.headDim != 0 ? c.headDim : c.hidden / c.heads;
        const double queryKeyNorms = c.qkNorm == QkNorm::perHead     ? 2 * headDim
                                     : c.qkNorm == QkNorm::fullWidth ? (c.heads + c.kvHeads) * headDim
                                                                     : 0;
        const double blockNorms = (c.sharedNorm ? 1 : 2) + (c.postNorms ? 2 : 0);
        const double rowBiases = (c.bias || c.attentionBias ? c.hidden : 0) + (c.bias || c.mlpBias ? c.hidden : 0);
        const double replicatedPerLayer = blockNorms * norm + queryKeyNorms + rowBiases;
        const double replicated =
            c.layers * replicatedPerLayer + norm + c.posEmb * c.hidden + (c.embeddingNorm ? norm : 0) + c.visionParams;
        const Stage& stage = r.stages[0];
        CHECK(stage.parametersPerGpu * c.tp - stage.modelParameters == Approx((c.tp - 1) * replicated).epsilon(1e-12));
        ++checked;
    }
    CHECK(checked > 30);
}

TEST_CASE("inference holds every routed expert of a MoE model", "[parameters][inference]") {
    // Mixtral-8x7B in BF16 on one GPU: all 46,702,792,704 parameters, 2 bytes each.
    Config c;
    applyModelPreset(c, *findModelPreset("mixtral-8x7b"));
    c.mode = Mode::inference;
    c.framework = Framework::vllm;
    c.tp = c.pp = c.dp = 1;
    CHECK(lineBytes(evaluate(c), "parameters") == 2 * 46702792704.0);
    // Expert parallelism (vLLM --enable-expert-parallel: EP = TP × DP, experts whole) splits the experts, not the rest.
    Config ep = c;
    ep.tp = 2;
    ep.dp = 4;
    ep.ep = 8;
    ep.etp = 1;
    Config tpOnly = ep;
    tpOnly.ep = 1;
    tpOnly.etp = 0;  // experts split by TP, as vLLM does without expert parallelism
    const Result split = evaluate(ep), byTp = evaluate(tpOnly);
    REQUIRE(split.ok());
    REQUIRE(byTp.ok());
    const double expertsPerLayer = 8 * 3 * 4096.0 * 14336;
    CHECK(split.stages[0].parametersPerGpu - byTp.stages[0].parametersPerGpu == 32 * (expertsPerLayer / 8 - expertsPerLayer / 2));
    CHECK(split.stages[0].modelParameters == byTp.stages[0].modelParameters);
}
