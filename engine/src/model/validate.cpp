// validate(): every range and consistency error of a configuration, each naming its field and the allowed range.
#include "membudget/model/validate.hpp"

#include <algorithm>
#include <cmath>

#include "membudget/base/choices.hpp"
#include "membudget/base/problem.hpp"
#include "membudget/base/text.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/fields.hpp"
#include "model/lora.hpp"
#include "model/pipeline_layout.hpp"

namespace membudget {

using detail::quoted;

namespace {

// Megatron-LM's custom layout (PipelineParallelLayerLayout.__init__ and validate_layer_layout): PP × VPP virtual
// stages, the embedding first and the loss last, each once, every layer once; the MTP layers where membudget counts
// them (the last pipeline rank); and not beside the other ways of splitting the layers.
void checkPipelineLayout(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
    const std::string key = "pipeline_layout";
    if (config.framework != Framework::megatron) {
        errors.push_back({key, "pipeline_layout is Megatron-LM's --pipeline-model-parallel-layout; framework must be megatron"});
        return;
    }
    if (config.firstStageLayers != 0 || config.lastStageLayers != 0 || config.splitAccounts != SplitAccounts::none) {
        errors.push_back({key,
                          "pipeline_layout places every layer itself: first_stage_layers, last_stage_layers and split_accounts "
                          "must be unset (0, 0, none) beside it"});
        return;
    }
    const detail::ParsedLayout& layout = detail::parsePipelineLayout(config.pipelineLayout);
    if (!layout.error.empty()) {
        errors.push_back({key, "pipeline_layout " + layout.error});
        return;
    }
    const double stages = static_cast<double>(layout.chunks.size());
    if (std::fmod(stages, config.pp) != 0) {
        errors.push_back({key, "pipeline_layout must have a multiple of pp (" + n(config.pp) + ") stages split by |; got " + n(stages)});
        return;
    }
    if (stages / config.pp != config.vpp) {
        errors.push_back({"vpp", "vpp must be pipeline_layout's stages ÷ pp (" + n(stages) + " ÷ " + n(config.pp) + " = " +
                                     n(stages / config.pp) + "); got " + n(config.vpp)});
        return;
    }
    double embedding = 0, loss = 0, decoder = 0, mtp = 0, mtpOffLast = 0;
    for (size_t v = 0; v < layout.chunks.size(); ++v) {
        const detail::LayoutChunk& chunk = layout.chunks[v];
        embedding += chunk.embedding;
        loss += chunk.loss;
        decoder += chunk.decoder;
        mtp += chunk.mtp;
        if (std::fmod(static_cast<double>(v), config.pp) != config.pp - 1) mtpOffLast += chunk.mtp;
    }
    if (embedding != 1 || layout.first != 'E' || loss != 1 || layout.last != 'L' || decoder != config.layers || mtp != config.mtpLayers ||
        mtpOffLast != 0)
        errors.push_back({key, "pipeline_layout must begin with E and end with L, each once, and place every layer (t × " +
                                   n(config.layers) + ") and MTP layer (m × " + n(config.mtpLayers) +
                                   ", on the last rank's stages) once; got E × " + n(embedding) + ", L × " + n(loss) + ", t × " +
                                   n(decoder) + ", m × " + n(mtp) + " (" + n(mtpOffLast) + " off the last rank)" +
                                   (layout.first != 'E' ? ", not E first" : "") + (layout.last != 'L' ? ", not L last" : "")});
}

// A hybrid stack (layer_pattern): one known character a layer, as many as layers, beside nothing else that changes
// what a layer is; the Mamba-2 heads split over TP as vLLM's MambaMixer2 splits them.
void checkLayerPattern(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
    const std::string& pattern = config.layerPattern;
    const size_t bad = pattern.find_first_not_of("M*-");
    if (bad != std::string::npos) {
        errors.push_back({"layer_pattern", "layer_pattern must hold M (Mamba-2), * (attention) and - (MLP) only" +
                                               std::string(pattern[bad] == 'E' ? " (E, a MoE block, is not modelled yet)" : "") + "; got " +
                                               (static_cast<unsigned char>(pattern[bad]) < 0x80 ? quoted(std::string(1, pattern[bad]))
                                                                                                : std::string("a non-ASCII character")) +
                                               " at layer " + n(static_cast<double>(bad))});
        return;
    }
    if (static_cast<double>(pattern.size()) != config.layers)
        errors.push_back({"layer_pattern", "layer_pattern must have one character per layer (layers = " + n(config.layers) + "); got " +
                                               n(static_cast<double>(pattern.size()))});
    if (config.experts != 0 || config.kvLoraRank != 0 || config.slidingWindow != 0 || config.attentionChunk != 0 ||
        config.linearValueHeads != 0 || config.mtpLayers != 0)
        errors.push_back({"layer_pattern",
                          "a layer pattern is modelled with plain attention and MLP blocks only (experts, kv_lora_rank, sliding_window, "
                          "attention_chunk, linear_value_heads and mtp_layers 0)"});
    if (pattern.find('M') != std::string::npos) {
        if (std::fmod(config.mambaHeads, config.tp) != 0)
            errors.push_back({"tp", "tp must divide mamba_heads (" + n(config.mambaHeads) +
                                        "): vLLM splits the Mamba-2 heads over TP; got " + n(config.tp)});
        if (std::fmod(config.mambaGroups, config.tp) != 0 && config.mambaGroups != 1)
            errors.push_back({"tp", "tp must divide mamba_groups (" + n(config.mambaGroups) +
                                        ") unless there is one group, which vLLM replicates; got " + n(config.tp)});
    }
    // What a Mamba or one-mixer block saves for backward is not modelled.
    if (config.mode == Mode::training)
        errors.push_back({"mode", "mode must be inference for a layer pattern (layer_pattern = " + quoted(pattern.substr(0, 16)) +
                                      (pattern.size() > 16 ? "…" : "") +
                                      "): what its blocks save in training is not modelled, and would not be counted as "
                                      "transformer layers silently"});
}

}  // namespace

std::vector<Problem> validateRanges(const Config& config) {
    std::vector<Problem> errors;
    for (const auto& field : fields()) {
        const std::string key(field.key);
        if (field.kind == FieldKind::integer || field.kind == FieldKind::number) {
            const double v = config.*std::get<double Config::*>(field.member);
            if (!inFieldRange(field, v))
                errors.push_back({key, key + " must be " + describeRange(field) + "; got " +
                                           (std::isfinite(v) ? detail::formatNumber(v) : std::string("a non-finite value"))});
        } else if (field.kind == FieldKind::choice) {
            // An enum holds only its own values, except one set directly from JavaScript with an unknown id.
            const std::string_view v = choiceText(config, field);
            const auto choices = field.choices();
            if (std::find(choices.begin(), choices.end(), v) == choices.end())
                errors.push_back(
                    {key, key + " must be " + describeRange(field) + "; got " + (v.empty() ? std::string("an unknown value") : quoted(v))});
        } else if (field.kind == FieldKind::text) {
            if (const auto problem = fieldTextProblem(field, config.*std::get<std::string Config::*>(field.member)))
                errors.push_back({key, *problem});
        }
    }
    return errors;
}

std::vector<Problem> validate(const Config& config) {
    std::vector<Problem> errors = validateRanges(config);
    if (!errors.empty()) return errors;  // the consistency checks below assume every field is in range

    const auto n = detail::groupedNumber;
    if (config.kvHeads > config.heads)
        errors.push_back({"kv_heads", "kv_heads must be at most heads (" + n(config.heads) + "); got " + n(config.kvHeads)});
    else if (std::fmod(config.heads, config.kvHeads) != 0)
        errors.push_back({"kv_heads", "kv_heads must divide heads (" + n(config.heads) + "); got " + n(config.kvHeads)});
    if (config.headDim == 0 && std::fmod(config.hidden, config.heads) != 0)
        errors.push_back({"head_dim", "head_dim must be set (1 to 65,536) when hidden (" + n(config.hidden) +
                                          ") is not divisible by heads (" + n(config.heads) + ")"});
    // The TP sizes this model allows, named in every TP error so that a user (and the page) can pick one.
    const auto validTp = [&config, &n] {
        std::string list;
        for (double tp : validTensorParallel(config)) list += (list.empty() ? "" : ", ") + n(tp);
        return "; this model allows tp = " + list;
    };
    if (config.tp > config.heads)
        errors.push_back({"tp", "tp must be at most heads (" + n(config.heads) + "); got " + n(config.tp) + validTp()});
    // Megatron-LM and vLLM both refuse a TP group that would split an attention head: every rank holds whole heads.
    else if (std::fmod(config.heads, config.tp) != 0)
        errors.push_back({"tp", "tp must divide heads (" + n(config.heads) + "), so that each TP rank holds whole attention heads; got " +
                                    n(config.tp) + validTp()});
    // KV heads are split over TP ranks, or each replicated on tp / kv_heads ranks (vLLM); anything else cannot be laid out.
    else if (config.kvLoraRank == 0 && std::fmod(config.kvHeads, config.tp) != 0 && std::fmod(config.tp, config.kvHeads) != 0)
        errors.push_back({"tp", "tp must divide kv_heads (" + n(config.kvHeads) +
                                    ") or be a multiple of it, so that KV heads are "
                                    "split or replicated evenly; got " +
                                    n(config.tp) + validTp()});
    if (config.pp > config.layers) errors.push_back({"pp", "pp must be at most layers (" + n(config.layers) + "); got " + n(config.pp)});
    if (config.cp > config.seq) errors.push_back({"cp", "cp must be at most seq (" + n(config.seq) + "); got " + n(config.cp)});
    if (config.pp == 1 && (config.firstStageLayers != 0 || config.lastStageLayers != 0)) {
        const std::string key = config.firstStageLayers != 0 ? "first_stage_layers" : "last_stage_layers";
        errors.push_back({key, key + " needs pp > 1 (it sets an uneven pipeline split); got " + key + " = " +
                                   n(config.firstStageLayers != 0 ? config.firstStageLayers : config.lastStageLayers) + " with pp = 1"});
    } else if (config.firstStageLayers + config.lastStageLayers > config.layers)
        errors.push_back({"first_stage_layers", "first_stage_layers + last_stage_layers must be at most layers (" + n(config.layers) +
                                                    "); got " + n(config.firstStageLayers) + " + " + n(config.lastStageLayers)});
    else if (config.pp == 2 && config.firstStageLayers != 0 && config.lastStageLayers != 0 &&
             config.firstStageLayers + config.lastStageLayers != config.layers)
        errors.push_back(
            {"last_stage_layers", "with pp = 2, first_stage_layers + last_stage_layers must equal layers (" + n(config.layers) + ")"});
    else if (config.pp >= 2 && config.layers - config.firstStageLayers - config.lastStageLayers <
                                   config.pp - 2 + (config.firstStageLayers == 0) + (config.lastStageLayers == 0)) {
        const std::string key = config.firstStageLayers != 0 ? "first_stage_layers" : "last_stage_layers";
        const double otherStages = config.pp - (config.firstStageLayers != 0) - (config.lastStageLayers != 0);
        errors.push_back({key, "first_stage_layers + last_stage_layers must be at most " + n(config.layers - otherStages) + " (layers " +
                                   n(config.layers) + ", and a layer for each other pipeline stage); got " + n(config.firstStageLayers) +
                                   " + " + n(config.lastStageLayers)});
    }
    // Megatron-LM's overlap switches; the other frameworks overlap as they ship (PyTorch DDP and FSDP reduce during
    // backward and prefetch their gathers), which the step time takes without a switch.
    for (const auto& [on, key] :
         {std::pair{config.overlapGradReduce, "overlap_grad_reduce"}, std::pair{config.overlapParamGather, "overlap_param_gather"},
          std::pair{config.overlapMoeComm, "overlap_moe_comm"}})
        if (on && config.framework != Framework::megatron)
            errors.push_back({key, std::string(key) + " is Megatron-LM's switch; framework must be megatron"});
    if (config.autocast && config.framework != Framework::deepspeed)
        errors.push_back({"autocast",
                          "autocast is DeepSpeed's torch_autocast (accelerate's mixed precision is its own); framework must "
                          "be deepspeed"});
    else if (config.autocast && config.precision == Precision::fp32)
        errors.push_back({"autocast", "autocast lowers FP32 work to BF16 or FP16; precision must be bf16 or fp16"});
    if (config.overlapParamGather && config.zero < 1)
        errors.push_back({"overlap_param_gather", "overlap_param_gather needs zero ≥ 1 (the distributed optimizer); got zero = 0"});
    // Megatron-LM's checks for the EP all-to-all overlap (transformer_config.py, overlap_moe_expert_parallel_comm).
    if (config.overlapMoeComm && config.framework == Framework::megatron) {
        if (config.experts == 0 || config.ep <= 1)
            errors.push_back({"overlap_moe_comm", "overlap_moe_comm needs expert parallelism (experts > 0 and ep > 1); got ep = " +
                                                      n(config.experts == 0 ? 1 : config.ep)});
        else if (config.ckpt == Checkpointing::full)
            errors.push_back({"overlap_moe_comm",
                              "overlap_moe_comm needs ckpt other than full (Megatron-LM: \"disable full "
                              "recomputation when enabling overlap_moe_expert_parallel_comm\"); got ckpt = full"});
        else if (config.pp > 1 && config.vpp <= 1)
            errors.push_back({"overlap_moe_comm", "overlap_moe_comm with pp > 1 needs interleaving (vpp > 1); got pp = " + n(config.pp) +
                                                      ", vpp = " + n(config.vpp)});
    }
    if (config.splitAccounts != SplitAccounts::none) {
        // Megatron-LM's accounted split: its own option (TransformerConfig refuses it beside the first and last stages'
        // layer counts), over at least two stages, with layers + the accounted embedding and loss divisible by pp.
        const double accounted = config.splitAccounts == SplitAccounts::both ? 2 : 1;
        const std::string accounts = " (split_accounts = " + std::string(toString(config.splitAccounts)) + ")";
        if (config.framework != Framework::megatron)
            errors.push_back({"split_accounts", "split_accounts is Megatron-LM's option; framework must be megatron" + accounts});
        else if (config.pp == 1)
            errors.push_back({"split_accounts", "split_accounts needs pp > 1" + accounts});
        else if (config.firstStageLayers != 0 || config.lastStageLayers != 0)
            errors.push_back({"split_accounts", "split_accounts must be none beside first/last_stage_layers" + accounts});
        else if (std::fmod(config.layers + accounted, config.pp) != 0)
            errors.push_back({"split_accounts", "split_accounts: layers + " + n(accounted) + " accounted (" + n(config.layers + accounted) +
                                                    ") must be divisible by pp (" + n(config.pp) + ")" + accounts});
    }
    if (config.experts != 0) {
        const double etp = config.etp != 0 ? config.etp : config.tp;
        if (std::fmod(config.experts, config.ep) != 0)
            errors.push_back({"ep", "ep must divide experts (" + n(config.experts) + "); got " + n(config.ep)});
        else if (std::fmod(config.tp * config.cp * config.dp, etp * config.ep) != 0)
            errors.push_back({"ep", "EP × ETP (" + n(config.ep * etp) + ") must divide TP × CP × DP (" +
                                        n(config.tp * config.cp * config.dp) + "), the ranks that share a pipeline stage"});
        if (config.expertsPerToken > config.experts)
            errors.push_back({"experts_per_token",
                              "experts_per_token must be at most experts (" + n(config.experts) + "); got " + n(config.expertsPerToken)});
        // A MoE model has at least one MoE layer: the first after the leading dense ones.
        if (config.firstDenseLayers >= config.layers)
            errors.push_back({"first_dense_layers", "first_dense_layers must be less than layers (" + n(config.layers) +
                                                        ") when experts > 0, or no layer is a MoE layer; got " +
                                                        n(config.firstDenseLayers)});
        if (config.sharedExpertGate && config.sharedExpertFfn == 0)
            errors.push_back(
                {"shared_expert_gate", "shared_expert_gate needs a shared expert (shared_expert_ffn > 0); got shared_expert_ffn = 0"});
    }
    if (!config.pipelineLayout.empty()) checkPipelineLayout(config, errors);
    if (config.vpp > 1 && config.pp == 1)
        errors.push_back({"vpp", "vpp (virtual pipeline stages) needs pp > 1; got vpp = " + n(config.vpp) + " with pp = 1"});
    else if (config.vpp > 1 && config.pipelineLayout.empty() && std::none_of(errors.begin(), errors.end(), [](const Problem& p) {
                 return p.field == "pp" || p.field == "first_stage_layers" || p.field == "last_stage_layers" || p.field == "split_accounts";
             })) {
        // Megatron-LM splits each stage's layers into vpp equal model chunks (the split above is valid); torchtitan
        // cuts pp × vpp virtual stages of its own and a rank's layers need not divide (architecture.cpp).
        auto perStage = stageLayers(config);
        // Megatron-LM splits an accounted stage's layers and its embedding or loss into vpp chunks
        // (get_num_layers_to_build): the chunk that holds them has one layer fewer.
        if (config.splitAccounts == SplitAccounts::embedding || config.splitAccounts == SplitAccounts::both) perStage.front() += 1;
        if (config.splitAccounts == SplitAccounts::loss || config.splitAccounts == SplitAccounts::both) perStage.back() += 1;
        const bool ownSplit = config.framework == Framework::torchtitan && config.firstStageLayers == 0 && config.lastStageLayers == 0;
        if (const auto odd =
                ownSplit ? perStage.end()
                         : std::find_if(perStage.begin(), perStage.end(), [&config](double l) { return std::fmod(l, config.vpp) != 0; });
            odd != perStage.end())
            errors.push_back({"vpp", "vpp must divide the layers of every pipeline stage (stage " +
                                         n(static_cast<double>(odd - perStage.begin())) + " has " + n(*odd) + "); got " + n(config.vpp)});
        // Megatron-LM's interleaved schedule runs the micro-batches in groups of pp.
        if (config.mode == Mode::training && std::fmod(config.microbatches, config.pp) != 0)
            errors.push_back({"microbatches", "microbatches must be a multiple of pp (" + n(config.pp) +
                                                  ") with interleaving (vpp > 1); got " + n(config.microbatches)});
    }
    // Framework behaviours, each where the framework has it (docs/frameworks.md).
    const std::string frameworkName(toString(config.framework));
    const bool fsdpFramework = shardsAllOrNothing(config.framework);
    if (fsdpFramework && config.mode == Mode::training && config.zero != 0 && config.zero != 3)
        errors.push_back(
            {"zero", "zero must be 0 (replicated) or 3 (FSDP2's fully_shard) with framework " + frameworkName + "; got " + n(config.zero)});
    if (config.ckpt == Checkpointing::op) {
        if (config.framework != Framework::torchtitan)
            errors.push_back({"ckpt", "ckpt = op is torchtitan's op-level selective checkpointing: it needs framework torchtitan; got " +
                                          frameworkName});
        else if (config.experts != 0 || config.mtpLayers != 0 || config.bias || config.attentionBias || config.mlpBias ||
                 config.attention != Attention::flash)
            errors.push_back({"ckpt",
                              "ckpt = op is modelled for dense models without biases or MTP layers, with flash attention "
                              "(torchtitan's Llama); use full or none here"});
    }
    if (config.ckptEvery > 1 && config.ckpt != Checkpointing::full)
        errors.push_back({"ckpt_every",
                          "ckpt_every (every Nth layer checkpointed) needs ckpt = full; got ckpt = " + std::string(toString(config.ckpt))});
    if (config.recomputeLayers > 0 && config.ckpt != Checkpointing::full)
        errors.push_back({"recompute_layers", "recompute_layers (Megatron-LM's block recomputation) needs ckpt = full; got ckpt = " +
                                                  std::string(toString(config.ckpt))});
    if (config.recomputeLayers > 0 && config.ckptEvery > 1)
        errors.push_back({"recompute_layers",
                          "give recompute_layers (the first N layers of each stage) or ckpt_every (every Nth "
                          "layer), not both"});
    if (config.optimizerInBackward && config.mode == Mode::training && (config.microbatches != 1 || config.pp != 1))
        errors.push_back({"optimizer_in_backward",
                          "optimizer_in_backward applies each gradient as soon as it is computed, so it needs one micro-batch per "
                          "step and no pipeline (microbatches = 1, pp = 1); got microbatches = " +
                              n(config.microbatches) + ", pp = " + n(config.pp)});
    if (config.activationOffload && (config.framework != Framework::torchtune || config.ckpt != Checkpointing::full))
        errors.push_back({"activation_offload",
                          "activation_offload is torchtune's offloading of the checkpointed layers' inputs: it "
                          "needs framework torchtune and ckpt = full"});
    if (config.fp8AllGather && (config.precision != Precision::fp8 || config.fp8Recipe != Fp8Recipe::torchao || config.zero < 3 ||
                                config.framework == Framework::megatron || config.framework == Framework::deepspeed))
        errors.push_back({"fp8_all_gather", "fp8_all_gather needs precision fp8, fp8_recipe torchao, zero 3 and an FSDP2 framework"});
    if (config.compile && config.framework == Framework::megatron)
        errors.push_back({"compile",
                          "compile (torch.compile of each block) applies to the PyTorch frameworks; Megatron-LM runs "
                          "Transformer Engine's fused modules: choose another framework or compile = false"});
    // LoRA and QLoRA (detail/lora.hpp): what the base can be and which matrices it has.
    if (config.finetune != Finetune::full) {
        const std::string mode(toString(config.finetune));
        if (config.method != Method::membudget || config.mode != Mode::training)
            errors.push_back({"finetune", "finetune = " + mode + " is modelled by method membudget in training; got method " +
                                              std::string(toString(config.method)) + ", mode " + std::string(toString(config.mode))});
        if (config.finetune == Finetune::qlora && config.framework == Framework::megatron && config.method == Method::membudget)
            errors.push_back({"framework",
                              "finetune = qlora (bitsandbytes' NF4 base) has no Megatron-LM path: choose framework torchtune or "
                              "hf_accelerate; got megatron"});
        if (config.finetune == Finetune::qlora && config.precision != Precision::bf16 && config.precision != Precision::fp16)
            errors.push_back({"finetune",
                              "finetune = qlora stores the base in NF4 and computes in BF16 or FP16: it needs precision bf16 "
                              "or fp16; got " +
                                  std::string(toString(config.precision))});
        std::string bad;
        const detail::LoraTargets targets = detail::parseLoraTargets(config.loraTargets, &bad);
        const bool any = targets.attention() || targets.mlp() || targets.output;
        if (!bad.empty() || !any)
            errors.push_back({"lora_targets",
                              "lora_targets must list q, k, v, o, gate, up, down, output, attention, mlp or all_linear, "
                              "comma-separated; got " +
                                  quoted(config.loraTargets)});
        else if (targets.gate && !config.gatedFfn && std::string_view(config.loraTargets).find("gate") != std::string_view::npos)
            errors.push_back({"lora_targets", "lora_targets lists gate, but the model's MLP has no gate (gated_ffn = false)"});
        else if (targets.attention() && config.kvLoraRank > 0)
            errors.push_back({"lora_targets", "adapters on MLA's attention (kv_lora_rank > 0) are not modelled; target mlp or output"});
        // The rank cannot exceed the smaller side of a matrix it adapts.
        const double headDim = config.headDim > 0 ? config.headDim : config.hidden / config.heads;
        double smallest = 1e300;
        if (targets.q || targets.o) smallest = std::min({smallest, config.hidden, config.heads * headDim});
        if (targets.k || targets.v) smallest = std::min({smallest, config.hidden, config.kvHeads * headDim});
        if (targets.mlp())
            smallest = std::min({smallest, config.hidden, config.experts > 0 && config.moeFfn > 0 ? config.moeFfn : config.ffn});
        if (targets.output) smallest = std::min({smallest, config.hidden, config.vocab});
        if (any && bad.empty() && config.loraRank > smallest)
            errors.push_back({"lora_rank", "lora_rank must be at most " + n(smallest) +
                                               ", the smaller side of the smallest matrix it adapts; got " + n(config.loraRank)});
    }
    if (config.experts == 0 && config.firstDenseLayers != 0)
        errors.push_back({"first_dense_layers", "first_dense_layers needs a mixture-of-experts model (experts > 0); got " +
                                                    n(config.firstDenseLayers) + " with experts = 0"});
    // vLLM refuses a max_model_len beyond the model's window (max_position_embeddings) unless told to override it.
    // vLLM's SlidingWindowSpec: "MLA is not supported for sliding window".
    if (config.slidingWindow > 0 && config.kvLoraRank != 0)
        errors.push_back({"sliding_window", "sliding_window must be 0 with multi-head latent attention (kv_lora_rank = " +
                                                n(config.kvLoraRank) + "): vLLM has no sliding window for MLA"});
    // MLA normalises its latents (q_a_layernorm, kv_a_layernorm, counted with it), not the per-head queries and keys.
    if (config.qkNorm != QkNorm::none && config.kvLoraRank != 0)
        errors.push_back({"qk_norm", "qk_norm must be none with multi-head latent attention (kv_lora_rank = " + n(config.kvLoraRank) +
                                         "), whose latent norms are counted with it; got " + std::string(toString(config.qkNorm))});
    // The indexer reads MLA's query latent (vLLM's Indexer.wq_b takes q_lora_rank inputs).
    if (config.indexHeads > 0 && (config.kvLoraRank == 0 || config.qLoraRank == 0))
        errors.push_back({"index_heads",
                          "index_heads needs multi-head latent attention with a query latent (kv_lora_rank > 0 and "
                          "q_lora_rank > 0), which the indexer reads (DeepSeek-V3.2); got " +
                              n(config.indexHeads) + " with kv_lora_rank = " + n(config.kvLoraRank) +
                              ", q_lora_rank = " + n(config.qLoraRank)});
    if (config.attentionChunk > 0 && config.slidingWindow > 0)
        errors.push_back(
            {"attention_chunk", "attention_chunk must be 0 with a sliding window (sliding_window = " + n(config.slidingWindow) +
                                    "): a local layer either slides or attends within its chunk; got " + n(config.attentionChunk)});
    if (config.attentionChunk > 0 && config.kvLoraRank != 0)
        errors.push_back({"attention_chunk", "attention_chunk must be 0 with multi-head latent attention (kv_lora_rank = " +
                                                 n(config.kvLoraRank) + "); got " + n(config.attentionChunk)});
    if (config.slidingWindow == 0 && config.attentionChunk == 0 && config.linearValueHeads == 0 && config.fullAttentionEvery != 0)
        errors.push_back({"full_attention_every",
                          "full_attention_every must be 0 without a sliding window, an attention chunk or linear attention "
                          "(sliding_window = 0, attention_chunk = 0, linear_value_heads = 0); got " +
                              n(config.fullAttentionEvery)});
    if (config.linearValueHeads > 0) {
        // Gated DeltaNet (Qwen3-Next): the value heads group the key heads, and vLLM splits both over TP.
        if (std::fmod(config.linearValueHeads, config.linearKeyHeads) != 0)
            errors.push_back({"linear_value_heads", "linear_value_heads must be a multiple of linear_key_heads (" +
                                                        n(config.linearKeyHeads) + "); got " + n(config.linearValueHeads)});
        else if (std::fmod(config.linearKeyHeads, config.tp) != 0)
            errors.push_back({"tp", "tp must divide linear_key_heads (" + n(config.linearKeyHeads) +
                                        ") and linear_value_heads: vLLM splits the linear-attention heads over TP; got " + n(config.tp)});
        if (config.slidingWindow > 0 || config.attentionChunk > 0 || config.kvLoraRank > 0)
            errors.push_back({"linear_value_heads",
                              "linear attention (linear_value_heads > 0) is modelled beside full attention only, not with a "
                              "sliding window, an attention chunk or MLA; got linear_value_heads = " +
                                  n(config.linearValueHeads)});
        // What a linear-attention layer saves for backward (the chunked delta rule's states) is not modelled yet.
        // (The gated output's saved tensors neither: attn_output_gate is refused in training below.)
        // At the mode, the user's choice: a config.json with linear attention still imports.
        if (config.mode == Mode::training)
            errors.push_back(
                {"mode", "mode must be inference for linear attention (Gated DeltaNet, linear_value_heads = " + n(config.linearValueHeads) +
                             "): what its layers save in training is not modelled, and "
                             "would not be counted as full attention silently"});
    }
    if (!config.layerPattern.empty()) checkLayerPattern(config, errors);
    if (config.attnOutputGate && config.mode == Mode::training && config.linearValueHeads == 0)
        errors.push_back({"mode",
                          "mode must be inference for a gated attention output (attn_output_gate = true): the "
                          "gate's saved tensors in training are not counted"});
    if (config.mode == Mode::inference && config.contextWindow > 0 && config.seq > config.contextWindow)
        errors.push_back({"seq", "seq must be at most the model's context window (context_window = " + n(config.contextWindow) +
                                     ") in inference; got " + n(config.seq)});
    if (config.mode == Mode::inference && config.inputTokens + config.outputTokens > config.seq)
        errors.push_back({config.outputTokens > 0 ? "output_tokens" : "input_tokens",
                          "input_tokens + output_tokens must be at most seq (" + n(config.seq) +
                              ", the longest request served, vLLM's max_model_len); got " + n(config.inputTokens) + " + " +
                              n(config.outputTokens)});
    if (config.mode == Mode::inference && config.inputTokens == 0 && config.outputTokens >= config.seq)
        errors.push_back(
            {"output_tokens", "output_tokens must be below seq (" + n(config.seq) + ") to leave a prompt; got " + n(config.outputTokens)});
    if (config.mode == Mode::inference && config.outputTokens == 0 && config.inputTokens >= config.seq)
        errors.push_back({"input_tokens",
                          "input_tokens must be below seq (" + n(config.seq) + ") to leave an output token; got " + n(config.inputTokens)});
    if (config.mode == Mode::inference && config.method == Method::membudget && !servesInference(config.framework))
        errors.push_back({"framework", "framework must be vllm or sglang in inference mode (the serving engine); got " +
                                           std::string(toString(config.framework))});
    if (config.mode == Mode::training && servesInference(config.framework))
        errors.push_back({"framework", "framework must be megatron, torchtitan, torchtune, deepspeed or hf_accelerate in training mode (" +
                                           std::string(toString(config.framework)) + " serves: mode inference); got " +
                                           std::string(toString(config.framework))});
    if (config.mode == Mode::inference && config.method != Method::membudget)
        errors.push_back({"method", "method must be membudget in inference mode (the other sources model training); got " +
                                        quoted(toString(config.method))});
    // The GPU count, when given, is a constraint on the layout (assignments make DP follow it where it divides).
    const double modelParallel = config.tp * config.pp * config.cp;
    if (config.gpus != 0 && std::fmod(config.gpus, modelParallel) != 0) {
        const double below = std::floor(config.gpus / modelParallel) * modelParallel, above = below + modelParallel;
        errors.push_back({"gpus", "gpus must be a multiple of TP × PP × CP = " + n(modelParallel) + "; got " + n(config.gpus) + " (" +
                                      (below > 0 ? n(below) + " or " : "") + n(above) +
                                      " would be; or change TP, PP or CP, or set gpus = 0 to count the layout's GPUs)"});
    } else if (config.gpus != 0 && config.dp * modelParallel != config.gpus) {
        errors.push_back({"dp", "dp must be gpus / (TP × PP × CP) = " + n(config.gpus) + " / " + n(modelParallel) + " = " +
                                    n(config.gpus / modelParallel) + "; got " + n(config.dp) + " (" + n(config.dp * modelParallel) +
                                    " GPUs; set gpus = 0 to count the layout's GPUs)"});
    }
    return errors;
}

std::vector<double> validTensorParallel(const Config& config) {
    std::vector<double> out;
    const double limit = std::min(config.heads, findField("tp")->max);
    for (double tp = 1; tp <= limit; ++tp)
        if (std::fmod(config.heads, tp) == 0 &&
            (config.kvLoraRank != 0 || std::fmod(config.kvHeads, tp) == 0 || std::fmod(tp, config.kvHeads) == 0))
            out.push_back(tp);
    return out;
}

}  // namespace membudget
