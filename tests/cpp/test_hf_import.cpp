// Importing a Hugging Face config.json: the fields it fills, the counts they give, and what it names.
#include <algorithm>
#include <catch2/catch.hpp>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/formats/hf.hpp"
#include "membudget/io/json.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "membudget/model/query.hpp"
#include "membudget/model/validate.hpp"

using namespace membudget;
using membudget::test::fixture;

TEST_CASE("Hugging Face config.json: Llama, Mistral, Qwen2, GPT-2, GPT-NeoX, Mixtral", "[hf]") {
    for (const auto& c : fixture("hf-configs")["cases"]) {
        INFO(c["name"].get<std::string>());
        // TP 1 divides every model's heads; the default TP 8 does not divide GPT-2's 12 or Qwen2-7B's 28.
        Config base;
        base.tp = 1;
        // `text` where the file is not JSON as written (Python's bare Infinity and NaN).
        const HfImport imported = importHfConfig(c.contains("text") ? c["text"].get<std::string>() : c["config"].dump(), base);
        CHECK(imported.errors.empty());
        test::checkHfExpect(imported.config, c["expect"]);
        std::vector<std::string> noticed;
        for (const auto& n : imported.notices) noticed.push_back(n.field);
        CHECK(noticed == c["notices"].get<std::vector<std::string>>());
        CHECK(imported.config.method == Method::membudget);
        CHECK(evaluate(imported.config).ok());
    }
}

TEST_CASE("Hugging Face config.json: what cannot be read is named, and the base is kept", "[hf]") {
    for (const auto& c : fixture("hf-configs")["bad"]) {
        INFO(c["name"].get<std::string>());
        Config base;
        base.tp = 4;
        const HfImport imported = importHfConfig(c["text"].get<std::string>(), base);
        REQUIRE_FALSE(imported.errors.empty());
        CHECK(imported.errors[0].field == c["error_field"].get<std::string>());
        CHECK(imported.config == base);
    }
}

TEST_CASE("Hugging Face config.json: a TP the model cannot use does not refuse the import; evaluation names it", "[hf][validate]") {
    const auto cases = fixture("hf-configs")["cases"];
    const auto gpt2 = std::find_if(cases.begin(), cases.end(), [](const auto& c) { return c["name"] == "GPT-2 (124M)"; });
    REQUIRE(gpt2 != cases.end());
    const HfImport imported = importHfConfig((*gpt2)["config"].dump());  // the default TP 8; GPT-2 has 12 heads
    CHECK(imported.errors.empty());
    CHECK(imported.config.hidden == 768);
    const auto errors = evaluate(imported.config).errors;
    REQUIRE(errors.size() == 1);
    CHECK(errors[0].field == "tp");
    CHECK(errors[0].message ==
          "tp must divide heads (12), so that each TP rank holds whole attention heads; got 8; this model allows tp = 1, 2, 3, 4, 6, 12");
    // A size JSON.parse reads as Infinity (the page's route) is refused at its field, never turned into 0.
    const std::vector<HfValue> values{{"hidden_size", "number", "Infinity"},
                                      {"num_hidden_layers", "number", "12"},
                                      {"num_attention_heads", "number", "12"},
                                      {"intermediate_size", "number", "3072"},
                                      {"vocab_size", "number", "50257"}};
    const HfImport infinite = importHfFields("object", values);
    REQUIRE_FALSE(infinite.errors.empty());
    CHECK(infinite.errors[0].field == "hidden");
    CHECK(infinite.errors[0].message == "hidden_size must be a finite number to set hidden; got Infinity");
}

TEST_CASE("importing A then B gives exactly what importing B alone gives, for every pair of fixture configs", "[hf][properties]") {
    std::vector<std::string> texts;
    for (const auto& c : fixture("hf-configs")["cases"])
        if (c.contains("config")) texts.push_back(c["config"].dump());
    Config base;
    base.tp = 1;
    int pairs = 0;
    for (const auto& a : texts)
        for (const auto& b : texts) {
            const HfImport first = importHfConfig(a, base);
            REQUIRE(first.errors.empty());
            const HfImport chained = importHfConfig(b, first.config), alone = importHfConfig(b, base);
            REQUIRE(alone.errors.empty());
            INFO(a.substr(0, 80) << " then " << b.substr(0, 80));
            CHECK(chained.config == alone.config);
            CHECK(evaluate(chained.config).activeParameterCount == evaluate(alone.config).activeParameterCount);
            ++pairs;
        }
    CHECK(pairs >= 49);
    // From a preset too: DeepSeek-V3's top-8, MLA and MTP do not leak into a Mixtral config without them.
    const ParsedConfig preset = applyAssignments(std::vector<Assignment>{{"model", "deepseek-v3"}, {"tp", "1"}});
    const std::string mixtral = R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
        "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 32000, "num_local_experts": 8})";
    const HfImport fromDeepseek = importHfConfig(mixtral, preset.config), fromDefault = importHfConfig(mixtral, base);
    CHECK(fromDeepseek.config == fromDefault.config);
    CHECK(fromDeepseek.config.kvLoraRank == 0);
    CHECK(fromDeepseek.config.mtpLayers == 0);
    CHECK(evaluate(fromDeepseek.config).activeParameterCount < 13e9);  // top-2 of 8 (Config's default top-k), not top-8
}

TEST_CASE("an imported model keeps its name: header, link, JSON and Markdown exports", "[hf]") {
    Config base;
    base.tp = 1;
    const std::string llama = R"({"_name_or_path": "meta-llama/Llama-3.1-8B", "architectures": ["LlamaForCausalLM"], "model_type": "llama",
        "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "intermediate_size": 14336,
        "vocab_size": 128256})";
    const HfImport imported = importHfConfig(llama, base);
    REQUIRE(imported.errors.empty());
    CHECK(imported.config.name == "meta-llama/Llama-3.1-8B");
    CHECK(encodeQuery(imported.config).find("name=meta-llama%2FLlama-3.1-8B") != std::string::npos);
    CHECK(decodeQuery(encodeQuery(imported.config)).config == imported.config);
    // Without _name_or_path, the class name; control characters never reach the name.
    const HfImport classOnly =
        importHfConfig(R"({"architectures": ["Qwen2\u001b]0;x\u0007ForCausalLM"], "hidden_size": 64, "num_hidden_layers": 2,
        "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 100})",
                       base);
    REQUIRE(classOnly.errors.empty());
    CHECK(classOnly.config.name == "Qwen2]0;xForCausalLM");
    // A preset clears a custom name.
    CHECK(applyAssignments(std::vector<Assignment>{{"model", "llama-3.1-8b"}}, imported.config).config.name.empty());
    // A name with a control character typed into a link is refused, naming the field.
    const ParsedConfig bad = decodeQuery("name=a%1Bb");
    REQUIRE_FALSE(bad.problems.empty());
    CHECK(bad.problems[0].field == "name");
    CHECK(bad.problems[0].message.find("control character") != std::string::npos);
    Config typed;
    typed.name = std::string(101, 'x');
    CHECK(validate(typed).at(0).field == "name");
}

TEST_CASE("a TP the imported model cannot use names the TP values it can", "[hf][validate]") {
    Config base;  // TP 8
    const std::string gpt2 = R"({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12, "vocab_size": 50257})";
    const HfImport imported = importHfConfig(gpt2, base);
    REQUIRE(imported.errors.empty());
    const auto errors = validate(imported.config);
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].field == "tp");
    CHECK(errors[0].message.find("this model allows tp = 1, 2, 3, 4, 6, 12") != std::string::npos);
    CHECK(validTensorParallel(imported.config) == std::vector<double>{1, 2, 3, 4, 6, 12});
}

TEST_CASE("MoE fields are checked against each other", "[validate]") {
    Config c;
    c.model = "custom";
    c.experts = 8;
    c.firstDenseLayers = c.layers;
    CHECK(validate(c).at(0).field == "first_dense_layers");
    c.firstDenseLayers = 0;
    c.sharedExpertGate = true;
    CHECK(validate(c).at(0).field == "shared_expert_gate");
    c = Config{};
    c.firstDenseLayers = 2;  // a dense model
    CHECK(validate(c).at(0).field == "first_dense_layers");
}

TEST_CASE("a model_type is read with its own rules; one without rules is refused by name, never read as a Llama", "[hf]") {
    const std::string sizes = R"("hidden_size": 768, "num_hidden_layers": 12, "num_attention_heads": 12, "intermediate_size": 3072,
        "ffn_dim": 3072, "vocab_size": 50272, "max_position_embeddings": 2048)";
    Config base;
    base.tp = 1;
    // No rules: the message names the type and the types that have them; the base is kept.
    for (const std::string type : {"t5", "jamba", "gpt_bigcode", "some_future_model"}) {
        INFO(type);
        const HfImport refused = importHfConfig(R"({"model_type": ")" + type + "\", " + sizes + "}", base);
        REQUIRE(refused.errors.size() == 1);
        CHECK(refused.errors[0].field == "hf_config");
        CHECK(refused.errors[0].message.find("model_type \"" + type + "\" has no architecture rules") != std::string::npos);
        CHECK(refused.errors[0].message.find("llama, llama4_text, mistral") != std::string::npos);
        CHECK(refused.config == base);
    }
    // The same sizes under llama and opt are two architectures: OPT's learned positions (2,048 + 2 rows), biases,
    // LayerNorm and a two-matrix ReLU MLP (modeling_opt.py), against Llama's rotary, RMSNorm, gated MLP.
    const HfImport llama = importHfConfig(R"({"model_type": "llama", )" + sizes + "}", base);
    const HfImport opt = importHfConfig(R"({"model_type": "opt", )" + sizes + "}", base);
    REQUIRE(llama.errors.empty());
    REQUIRE(opt.errors.empty());
    CHECK(opt.config.posEmb == 2050);
    CHECK(opt.config.contextWindow == 2048);
    CHECK_FALSE(opt.config.gatedFfn);
    CHECK(opt.config.bias);
    CHECK(opt.config.norm == Norm::layernorm);
    CHECK(llama.config.gatedFfn);
    CHECK(llama.config.posEmb == 0);
    CHECK(evaluate(opt.config).parameterCount == 125239296);
    // No model_type: read by its keys, and the notice says which shape was assumed.
    const HfImport unnamed = importHfConfig("{" + sizes + "}", base);
    REQUIRE(unnamed.errors.empty());
    REQUIRE_FALSE(unnamed.notices.empty());
    CHECK(unnamed.notices[0].field == "model_type");
    CHECK(unnamed.notices[0].message.find("Llama-shaped") != std::string::npos);
}

TEST_CASE("JSON as Python's json.dump writes it: bare Infinity and NaN are read as strings, nothing inside strings changes",
          "[hf][import]") {
    const FlatJson flat = flattenJson(R"({"limit": [0.0, Infinity], "floor":-Infinity, "x" : NaN, "name": "Infinity, NaN", "NaNa": 1})");
    REQUIRE(flat.rootType == "object");
    auto at = [&flat](const std::string& key) {
        for (const auto& v : flat.values)
            if (v.key == key) return v.type + ":" + v.text;
        return std::string("missing");
    };
    CHECK(at("limit[1]") == "string:Infinity");
    CHECK(at("floor") == "string:-Infinity");
    CHECK(at("x") == "string:NaN");
    CHECK(at("name") == "string:Infinity, NaN");
    CHECK(at("NaNa") == "number:1");
    // A word that only starts like one stays invalid JSON.
    CHECK(flattenJson(R"({"x": Infinityx})").rootType == "invalid");
    CHECK(flattenJson(R"({"x": 1 NaN})").rootType == "invalid");
}

// The attention pattern read from a config.json sizes the KV cache as vLLM does (FullAttentionSpec and
// SlidingWindowSpec.max_memory_usage_bytes), at two sequence lengths.
TEST_CASE("Hugging Face config.json: a sliding-window model's KV cache is vLLM's at two lengths", "[hf][inference][sliding]") {
    int checked = 0;
    for (const auto& c : fixture("hf-configs")["cases"]) {
        if (!c["expect"].contains("sliding_window") || c["expect"]["sliding_window"].get<double>() == 0) continue;
        INFO(c["name"].get<std::string>());
        Config base;
        base.tp = 1;
        HfImport imported = importHfConfig(c["config"].dump(), base);
        REQUIRE(imported.errors.empty());
        Config m = imported.config;
        m.mode = Mode::inference;
        m.framework = Framework::vllm;
        m.mb = 2;
        const double window = m.slidingWindow, every = m.fullAttentionEvery, layers = m.layers;
        const double full = every > 0 ? std::floor(layers / every) : 0;
        const double headDim = m.headDim > 0 ? m.headDim : m.hidden / m.heads;
        for (const double seq : {2048.0, std::min(32768.0, m.contextWindow > 0 ? m.contextWindow : 32768.0)}) {
            m.seq = seq;
            const double page = 2 * 16 * m.kvHeads * headDim * 2;
            const double want =
                m.mb * page * (full * std::ceil(seq / 16) + (layers - full) * (std::ceil(std::min(window - 1 + 8192, seq) / 16) + 1));
            const Result r = evaluate(m);
            REQUIRE(r.ok());
            double kv = 0;
            for (const auto& l : r.lines)
                if (l.id == LineId::kvCache) kv = l.bytes;
            CHECK(kv == want);
        }
        ++checked;
    }
    CHECK(checked >= 4);
}

TEST_CASE("Hugging Face config.json: compressed-tensors' packed weights are read from config_groups", "[hf][quant]") {
    // Llama-3.1-8B with the quantization_config llm-compressor writes for W4A16 (pack-quantized, one scheme per
    // group of targets; compressed-tensors QuantizationScheme), at several group sizes and strategies.
    const nlohmann::json& llama = test::hfCase("Llama-3.1-8B");
    auto scheme = [](double bits, const char* strategy, double groupSize) {
        nlohmann::json weights = {{"num_bits", bits}, {"strategy", strategy}, {"symmetric", true}, {"type", "int"}, {"dynamic", false}};
        weights["group_size"] = groupSize > 0 ? nlohmann::json(groupSize) : nlohmann::json(nullptr);
        return nlohmann::json{{"targets", {"Linear"}}, {"weights", weights}, {"input_activations", nullptr}};
    };
    auto imported = [&](const nlohmann::json& groups) {
        nlohmann::json config = llama["config"];
        config["quantization_config"] = {
            {"quant_method", "compressed-tensors"}, {"format", "pack-quantized"}, {"ignore", {"lm_head"}}, {"config_groups", groups}};
        return importHfConfig(config.dump(), Config{});
    };
    for (const double size : {32.0, 64.0, 128.0}) {
        INFO("group_size " << size);
        const HfImport read = imported({{"group_0", scheme(4, "group", size)}});
        CHECK(read.errors.empty());
        CHECK(read.config.weightDtype == WeightDtype::int4);
        CHECK(read.config.quantGroup == size);
    }
    // Per channel: one scale per output row, as GPTQ's group_size -1 is read.
    CHECK(imported({{"group_0", scheme(4, "channel", 0)}}).config.quantGroup == 8192);
    // Two schemes: the one with more bytes, so that nothing is under-counted.
    const HfImport mixed = imported({{"group_0", scheme(4, "group", 128)}, {"group_1", scheme(4, "group", 32)}});
    CHECK(mixed.config.quantGroup == 32);
    CHECK(imported({{"group_0", scheme(4, "group", 128)}, {"group_1", scheme(8, "channel", 0)}}).config.weightDtype == WeightDtype::int8);
    // No group size stated: 128, said.
    const HfImport unstated = imported(nlohmann::json::object());
    CHECK(unstated.config.quantGroup == 128);
    CHECK(std::any_of(unstated.notices.begin(), unstated.notices.end(),
                      [](const Problem& p) { return p.message.find("128 assumed") != std::string::npos; }));
}

TEST_CASE("Hugging Face config.json: Qwen-MoE's decoder_sparse_step places the MoE layers as transformers does", "[hf][moe]") {
    // Qwen2MoeDecoderLayer: layer i has experts when (i + 1) % decoder_sparse_step == 0 (and i is not in
    // mlp_only_layers). Qwen1.5-MoE-A2.7B's config.json at steps 1 to 4.
    const nlohmann::json& qwen = test::hfCase("Qwen1.5-MoE");
    for (const int step : {1, 2, 3, 4}) {
        INFO("decoder_sparse_step " << step);
        nlohmann::json config = qwen["config"];
        config["decoder_sparse_step"] = step;
        const HfImport read = importHfConfig(config.dump(), Config{});
        REQUIRE(read.errors.empty());
        double moe = 0;
        for (int layer = 0; layer < read.config.layers; ++layer) {
            CHECK(isMoeLayer(read.config, layer) == ((layer + 1) % step == 0));
            moe += (layer + 1) % step == 0 ? 1 : 0;
        }
        CHECK(moeLayerCount(read.config) == moe);
    }
    // Layers it lists as dense are named, not silently counted as what they are not.
    nlohmann::json config = qwen["config"];
    config["mlp_only_layers"] = {0, 5};
    const HfImport listed = importHfConfig(config.dump(), Config{});
    CHECK(std::any_of(listed.notices.begin(), listed.notices.end(), [](const Problem& p) { return p.field == "mlp_only_layers"; }));
}
