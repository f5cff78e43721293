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
#include "model/pipeline_layout.hpp"
#include "model/validate_rules.hpp"

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

// Decides whether the heads fit together: KV heads group the query heads, and the head width is known.
void checkHeads(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
    if (config.kvHeads > config.heads)
        errors.push_back({"kv_heads", "kv_heads must be at most heads (" + n(config.heads) + "); got " + n(config.kvHeads)});
    else if (std::fmod(config.heads, config.kvHeads) != 0)
        errors.push_back({"kv_heads", "kv_heads must divide heads (" + n(config.heads) + "); got " + n(config.kvHeads)});
    if (config.headDim == 0 && std::fmod(config.hidden, config.heads) != 0)
        errors.push_back({"head_dim", "head_dim must be set (1 to 65,536) when hidden (" + n(config.hidden) +
                                          ") is not divisible by heads (" + n(config.heads) + ")"});
}

// Decides whether TP splits the model: whole attention heads on every rank, KV heads split or replicated evenly.
void checkTensorParallel(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
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
}

// Decides whether PP and CP split the layers and the sequence: at most one layer or token a rank, and an uneven
// split (first_stage_layers, last_stage_layers) that leaves every other stage a layer.
void checkPipelineSplit(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
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
}

// Decides whether Megatron-LM's and DeepSpeed's own switches are set only under their framework, with what they
// need.
void checkFrameworkSwitches(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
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
}

// Decides whether Megatron-LM's accounted split (split_accounts) can be laid out.
void checkSplitAccounts(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
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
}

// Decides whether a mixture of experts can be laid out: EP and ETP over the ranks of a stage, and at least one MoE
// layer.
void checkExperts(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
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
}

// Decides whether interleaving (vpp > 1) splits every stage into equal model chunks and the micro-batches into
// groups of pp; after the other pipeline rules, whose errors it reads.
void checkInterleaving(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
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
}

// Decides whether the GPU count, when given, matches the layout.
void checkGpuCount(const Config& config, std::vector<Problem>& errors) {
    const auto n = detail::groupedNumber;
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

    // Each group of rules in turn, in the order their messages have always come.
    checkHeads(config, errors);
    checkTensorParallel(config, errors);
    checkPipelineSplit(config, errors);
    checkFrameworkSwitches(config, errors);
    checkSplitAccounts(config, errors);
    checkExperts(config, errors);
    if (!config.pipelineLayout.empty()) checkPipelineLayout(config, errors);
    checkInterleaving(config, errors);
    detail::checkFrameworkBehaviours(config, errors);
    detail::checkAdapters(config, errors);
    detail::checkAttentionVariants(config, errors);
    detail::checkLinearAttention(config, errors);
    if (!config.layerPattern.empty()) detail::checkLayerPattern(config, errors);
    if (config.attnOutputGate && config.mode == Mode::training && config.linearValueHeads == 0)
        errors.push_back({"mode",
                          "mode must be inference for a gated attention output (attn_output_gate = true): the "
                          "gate's saved tensors in training are not counted"});
    detail::checkServing(config, errors);
    checkGpuCount(config, errors);
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
