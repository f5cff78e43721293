// The layer shape of each family of Hugging Face config.json (transformers' modeling_<type>.py): its sizes, heads,
// MLP, positions, norms and biases by the family's own spellings (importHfFields, formats/hf.cpp, reads the rest).
#include <initializer_list>
#include <string>

#include "formats/hf.hpp"
#include "membudget/base/text.hpp"

namespace membudget::detail {

namespace {

using Names = std::initializer_list<const char*>;

// What the LayerNorm decoders with a plain MLP (OPT, Falcon, GPT-2, GPT-J, Phi-1/2, BLOOM) share: their sizes by
// their own spellings, every head of hidden / heads (whatever the previous model's head_dim was), no gate, no
// Q/K/V-only biases; the MLP 4h wide where the file leaves its width out.
std::optional<double> classic(HfReader& r, Names hiddenNames, Names layerNames, Names headNames, Names ffnNames, bool everyHead) {
    const auto hidden = r.number(hiddenNames, "hidden", true);
    r.number(layerNames, "layers", true);
    const auto heads = r.number(headNames, "heads", true);
    if (everyHead && heads) r.set("kv_heads", formatNumber(*heads));
    r.set("head_dim", "0");
    if (!r.number(ffnNames, "ffn", false) && hidden) r.set("ffn", formatNumber(4 * *hidden));
    r.number({"vocab_size"}, "vocab", true);
    r.flag("gated_ffn", false);
    r.set("norm", "layernorm");
    r.flag("qkv_bias", false);
    return heads;
}

// Rotary or ALiBi positions (no parameters) and the window the file states, else `fallback` (its config class's).
void unlearnedPositions(HfReader& r, Names windowNames, const char* fallback) {
    r.set("pos_emb", "0");
    if (!r.number(windowNames, "context_window", false)) r.set("context_window", fallback);
}

void readOpt(HfReader& r) {
    // modeling_opt.py: OPTLearnedPositionalEmbedding holds max_position_embeddings + 2 rows (its offset of 2);
    // q/k/v/out_proj and fc1/fc2 carry biases (enable_bias); LayerNorms; a ReLU fc1 → fc2 MLP; lm_head tied.
    classic(r, {"hidden_size"}, {"num_hidden_layers"}, {"num_attention_heads"}, {"ffn_dim"}, true);
    if (const auto window = r.number({"max_position_embeddings"}, "context_window", false))
        r.set("pos_emb", formatNumber(*window + 2));
    else
        r.out.errors.push_back({"pos_emb", "config.json has no max_position_embeddings for OPT's learned positions"});
    r.flag("tied_embeddings", r.boolean("tie_word_embeddings", true));
    r.flag("bias", r.boolean("enable_bias", true));
    const auto* projection = r.find("word_embed_proj_dim");
    const auto* hiddenSize = r.find("hidden_size");
    if (projection && hiddenSize && projection->text != hiddenSize->text)
        r.out.notices.push_back(
            {"word_embed_proj_dim", "word_embed_proj_dim " + projection->text +
                                        " is not hidden_size: the embedding is counted at hidden_size "
                                        "and project_in/project_out are left out (an over-count where the projection is narrower)"});
}

void readFalcon(HfReader& r) {
    // modeling_falcon.py (FalconConfig's defaults where the file leaves a key out): fused query_key_value of
    // num_kv_heads (new_decoder_architecture), one (multi_query) or every head; dense_h_to_4h and dense_4h_to_h
    // of ffn_hidden_size (4h) with GELU, no gate; biases only with `bias`; LayerNorms; lm_head tied.
    const auto heads = classic(r, {"hidden_size", "n_embed"}, {"num_hidden_layers", "n_layer"}, {"num_attention_heads", "n_head"},
                               {"ffn_hidden_size"}, false);
    const bool newArchitecture = r.boolean("new_decoder_architecture", false);
    if (!(newArchitecture && r.number({"num_kv_heads"}, "kv_heads", false)) && heads)
        r.set("kv_heads", r.boolean("multi_query", true) && !newArchitecture ? "1" : formatNumber(*heads));
    unlearnedPositions(r, {"max_position_embeddings"}, "2048");
    r.flag("tied_embeddings", r.boolean("tie_word_embeddings", true));
    r.flag("bias", r.boolean("bias", false));
    // FalconDecoderLayer: the parallel block of the first Falcons (parallel_attn) has one input_layernorm;
    // new_decoder_architecture has ln_attn and ln_mlp unless num_ln_in_parallel_attn is 1.
    const auto* lnCount = r.find("num_ln_in_parallel_attn");
    const double parallelNorms = lnCount && lnCount->type == "number" ? HfReader::numberOf(*lnCount) : 2;
    r.flag("shared_norm", newArchitecture ? parallelNorms == 1 : r.boolean("parallel_attn", true));
}

void readGptjOrPhi(HfReader& r, bool phi) {
    // modeling_gptj.py and modeling_phi.py (their configs' defaults): one input norm (ln_1, input_layernorm) that
    // attention and the MLP read in parallel; an untied lm_head with a bias; rotary positions (rotary_dim,
    // partial_rotary_factor). GPT-J's q/k/v/out_proj have no biases and its fc_in/fc_out do; Phi's all do.
    const auto heads = classic(r, {"n_embd", "hidden_size"}, {"n_layer", "num_hidden_layers"}, {"n_head", "num_attention_heads"},
                               {"n_inner", "intermediate_size"}, false);
    if (!r.number({"num_key_value_heads"}, "kv_heads", false) && heads) r.set("kv_heads", formatNumber(*heads));
    unlearnedPositions(r, {"n_positions", "max_position_embeddings"}, "2048");
    r.flag("tied_embeddings", r.boolean("tie_word_embeddings", false));
    r.flag("bias", phi);
    r.flag("mlp_bias", !phi);
    r.flag("output_bias", true);
    r.flag("shared_norm", true);
    if (phi && r.boolean("qk_layernorm", false))
        r.out.notices.push_back({"qk_layernorm",
                                 "qk_layernorm: Phi's query and key LayerNorms are counted as RMSNorms, their 2 × head_dim "
                                 "biases per layer left out"});
}

void readBloom(HfReader& r) {
    // modeling_bloom.py (BloomConfig's attribute_map: n_embed, n_layer, n_head): word_embeddings and their
    // LayerNorm, fused query_key_value and dense with biases, dense_h_to_4h/dense_4h_to_h (4h, GELU) with biases,
    // two LayerNorms a layer, ln_f, lm_head tied; ALiBi with no fixed window, the training length where stated.
    classic(r, {"hidden_size", "n_embed"}, {"n_layer", "num_hidden_layers"}, {"num_attention_heads", "n_head"}, {}, true);
    unlearnedPositions(r, {"seq_length"}, "0");
    r.flag("tied_embeddings", r.boolean("tie_word_embeddings", true));
    r.flag("bias", true);
    r.flag("embedding_norm", true);
}

void readChatglm(HfReader& r) {
    // THUDM's modeling_chatglm.py (ChatGLMConfig): word_embeddings of padded_vocab_size; a fused query_key_value
    // of every head plus 2 × multi_query_group_num key/value heads of kv_channels, biased when add_bias_linear or
    // add_qkv_bias; dense, dense_h_to_4h (2 × ffn_hidden_size, SwiGLU) and dense_4h_to_h biased only with
    // add_bias_linear; RMSNorm (rmsnorm) or LayerNorm, two a layer; final_layernorm; an untied output_layer.
    r.number({"hidden_size"}, "hidden", true);
    r.number({"num_layers", "num_hidden_layers"}, "layers", true);
    const auto heads = r.number({"num_attention_heads"}, "heads", true);
    if (!(r.boolean("multi_query_attention", false) && r.number({"multi_query_group_num"}, "kv_heads", false)) && heads)
        r.set("kv_heads", formatNumber(*heads));
    if (!r.number({"kv_channels"}, "head_dim", false)) r.set("head_dim", "0");
    r.number({"ffn_hidden_size"}, "ffn", true);
    r.number({"padded_vocab_size", "vocab_size"}, "vocab", true);
    unlearnedPositions(r, {"seq_length"}, "0");
    r.flag("gated_ffn", true);
    r.flag("tied_embeddings", r.boolean("tie_word_embeddings", false));
    r.set("norm", r.boolean("rmsnorm", true) ? "rmsnorm" : "layernorm");
    const bool linearBias = r.boolean("add_bias_linear", false);
    r.flag("bias", linearBias);
    r.flag("qkv_bias", !linearBias && r.boolean("add_qkv_bias", false));
    if (!r.boolean("post_layer_norm", true))
        r.out.notices.push_back({"post_layer_norm", "post_layer_norm false: the model has no final norm; membudget counts one"});
    if (const auto* bits = r.find("quantization_bit"); bits && bits->type == "number" && HfReader::numberOf(*bits) != 0)
        r.out.notices.push_back({"quantization_bit", "quantization_bit: ChatGLM's own INT" + bits->text +
                                                         " quantization is not read; the weights are counted at the checkpoint's dtype"});
}

void readGpt2(HfReader& r) {
    classic(r, {"n_embd"}, {"n_layer"}, {"n_head"}, {"n_inner"}, true);
    if (r.number({"n_positions", "n_ctx"}, "pos_emb", false))
        r.number({"n_positions", "n_ctx"}, "context_window", false);
    else
        r.set("context_window", "0");
    r.flag("tied_embeddings", r.boolean("tie_word_embeddings", true));
    r.flag("bias", true);
}

// The Llama-shaped decoders (and GPT-NeoX): RMSNorm, a gated MLP, rotary positions, each type's biases.
void readDecoder(HfReader& r, const std::string& type, bool neox, bool listed) {
    r.number({"hidden_size", "d_model"}, "hidden", true);
    r.number({"num_hidden_layers", "num_layers", "n_layers"}, "layers", type != "nemotron_h");  // Nemotron-H: its pattern's length
    const auto heads = r.number({"num_attention_heads", "n_heads"}, "heads", true);
    if (!r.number({"num_key_value_heads", "num_kv_heads"}, "kv_heads", false) && heads)
        r.set("kv_heads", r.boolean("multi_query", false) ? "1" : formatNumber(*heads));
    if (!r.number({"head_dim"}, "head_dim", false)) r.set("head_dim", "0");
    // Llama 4: the dense layers' MLP is intermediate_size_mlp; intermediate_size is each expert's.
    r.number(type == "llama4_text" ? Names{"intermediate_size_mlp", "intermediate_size"} : Names{"intermediate_size", "ffn_dim"}, "ffn",
             true);
    r.number({"vocab_size"}, "vocab", true);
    r.set("pos_emb", "0");  // rotary embeddings: no parameters
    // The window vLLM serves up to (max_model_len defaults to it); never the previous model's.
    if (!r.number({"max_position_embeddings", "max_sequence_length", "seq_length"}, "context_window", false)) r.set("context_window", "0");
    const std::string act = r.text("hidden_act", r.text("hidden_activation", "silu"));
    // Every Llama-family type listed gates its MLP (gate_proj, or Phi-3's fused gate_up_proj); without a
    // model_type the activation tells.
    r.flag("gated_ffn", !neox && (listed || act == "silu" || act == "swiglu" || act.rfind("gelu_pytorch_tanh", 0) == 0));
    r.flag("tied_embeddings", r.boolean("tie_word_embeddings", !neox));
    r.set("norm", neox ? "layernorm" : "rmsnorm");
    // attention_bias puts biases on q/k/v and o_proj (LlamaAttention, Qwen3, Gemma, OLMo 2); GLM-4's o_proj has
    // none (Glm4Attention: bias=False), so there it is the Q/K/V biases alone. mlp_bias: gate/up/down_proj.
    const bool attentionBias = r.boolean("attention_bias", false), mlpBias = r.boolean("mlp_bias", false);
    const bool glm = type == "glm4" || type == "glm4_moe";
    r.flag("bias", neox || (attentionBias && mlpBias && !glm));
    r.flag("qkv_bias", type.starts_with("qwen2") || (glm && attentionBias));
    r.flag("attention_bias", attentionBias && !mlpBias && !glm);
    r.flag("mlp_bias", mlpBias && (!attentionBias || glm));
    if (type == "gpt_oss") {
        // modeling_gpt_oss.py: q/k/v/o biases (attention_bias), biases on every expert (gate_up_proj_bias,
        // down_proj_bias) and the router (nn.Linear with bias), and a learned sink logit per head.
        r.flag("bias", attentionBias);
        r.flag("qkv_bias", false);
        r.flag("attention_bias", false);
        r.flag("mlp_bias", false);
    }
}

}  // namespace

void readFamilyShape(HfReader& r, HfFamily family, const std::string& type, bool listed) {
    if (family == HfFamily::opt)
        readOpt(r);
    else if (family == HfFamily::falcon)
        readFalcon(r);
    else if (family == HfFamily::gptj || family == HfFamily::phi)
        readGptjOrPhi(r, family == HfFamily::phi);
    else if (family == HfFamily::bloom)
        readBloom(r);
    else if (family == HfFamily::chatglm)
        readChatglm(r);
    else if (family == HfFamily::gpt2)
        readGpt2(r);
    else
        readDecoder(r, type, family == HfFamily::neox, listed);
}

}  // namespace membudget::detail
