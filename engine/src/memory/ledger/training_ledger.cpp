// method=membudget in training, as the ledger shows it: every line's formula, substituted expression and note,
// and the tensor sub-ledger, over the numbers of training.cpp (the same walk, a describing visitor).
#include "memory/ledger/training_ledger.hpp"

#include <algorithm>
#include <cmath>

#include "base/expr.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/units.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "memory/ledger/tensor_names.hpp"
#include "memory/ledgers.hpp"
#include "memory/static_terms.hpp"
#include "memory/tensors.hpp"
#include "memory/training.hpp"
#include "model/lora.hpp"
#include "model/rank.hpp"

namespace membudget::detail {

namespace {

std::string dtypeText(const Config& c, Dtype dtype) {
    switch (dtype) {
        case Dtype::activation:
            return c.precision == Precision::fp32 ? "fp32" : c.precision == Precision::fp16 ? "fp16" : "bf16";
        case Dtype::fp32:
            return "fp32";
        case Dtype::fp8:
            return "fp8";
        case Dtype::uint8:
            return "uint8";
        case Dtype::int64:
            return "int64";
        case Dtype::mixed:
            break;
    }
    return "mixed";
}

// The describing visitor: the ledger's tensor sub-ledger, each layer group expanded into its tensors, and the
// activations line's substituted text: one term per group of layer-copies (and per kept layer input), the
// stage's other tensors summed into one term.
struct DescribeStage {
    const Config& c;
    const Dims& x;
    std::vector<Tensor> tensors;
    std::string prefix;
    double groupCopies = 1;
    bool inGroup = false, selectiveGroup = false, moeGroup = false;
    Terms groups;
    double extras = 0;

    template <class Describe>
    void tensor(TensorKind kind, Dtype dtype, double bytesPerCopy, double copies, const Describe& describe) {
        add(kind, dtype, bytesPerCopy, copies, describe());
    }
    // The work of tensor() once, not once per tensor kind's describing lambda (14 copies in the page's module).
    [[gnu::noinline]] void add(TensorKind kind, Dtype dtype, double bytesPerCopy, double copies, TensorText text) {
        // A layer under selective recomputation lists what it keeps (its bytes, LayerBytes::selective, say the same).
        if (selectiveGroup && droppedBySelective(kind, x.recompute, moeGroup, c.kvLoraRank > 0)) return;
        std::string name = prefix + std::string(tensorName(kind));
        std::string type = kind == TensorKind::mtpLogits ? dtypeText(c, Dtype::activation) + " + fp32" : dtypeText(c, dtype);
        const double n = copies * groupCopies;
        tensors.push_back(
            {std::move(name), std::move(text.shape), std::move(type), bytesPerCopy, n, bytesPerCopy * n, std::move(text.sharding)});
        if (inGroup) return;
        if (kind == TensorKind::layerInputCheckpoint)
            groups.add("", fill("# × #", {copies, bytesPerCopy}), copies * bytesPerCopy);
        else
            extras += bytesPerCopy * copies;
    }
    void layers(LayerGroup group, LayerSpec spec, double bytesPerLayer, double copies) {
        groups.add("", fill("# × #", {copies, bytesPerLayer}), copies * bytesPerLayer);
        prefix = group == LayerGroup::moe ? "MoE layer: " : group == LayerGroup::mtp ? "MTP layer: " : "";
        groupCopies = copies;
        inGroup = true;
        selectiveGroup = spec.selective;
        moeGroup = spec.moe;
        if (spec.inputOnly)
            tensor(TensorKind::layerInputCheckpoint, Dtype::activation, activationBytes(c) * x.b * x.sRank * x.h / x.spDivisor, 1, [this] {
                return TensorText{"[b, " + seqShape(c, true) + ", h]", "sharded by SP over TP"};
            });
        else
            forEachLayerTensor(c, x, spec, *this);
        inGroup = selectiveGroup = false;
        prefix.clear();
        groupCopies = 1;
    }
    std::string expression() const {
        Terms all = groups;
        all.add("", exprNumber(extras), extras);
        return all.wholeBytes();
    }
};

// What the caching allocator reserves for a set of live blocks (c10/cuda/CUDACachingAllocator.cpp): each request
// rounds up to 512 B (round_size); requests up to 1 MiB share 2 MiB segments of the small pool, those under 10 MiB
// share 20 MiB segments (kLargeBuffer), larger ones get a segment of their own rounded up to 2 MiB (kRoundLarge).
// With expandable_segments the pools grow in place, in 2 MiB (small) and 20 MiB (large) pages.
struct Reserve {
    static constexpr double MiB = kBytesPerMiB;
    double small = 0, medium = 0, large = 0, allocated = 0;
    void add(double bytes, double count) {
        if (bytes <= 0 || count <= 0) return;
        const double block = std::max(512.0, std::ceil(bytes / 512) * 512);
        allocated += block * count;
        if (block <= MiB)
            small += block * count;
        else if (block < 10 * MiB)
            medium += block * count;
        else
            large += std::ceil(block / (2 * MiB)) * 2 * MiB * count;
    }
    double reserved(bool expandable) const {
        const double smallSegments = std::ceil(small / (2 * MiB)) * 2 * MiB;
        if (expandable) return smallSegments + std::ceil((medium + large) / (20 * MiB)) * 20 * MiB;
        return smallSegments + std::ceil(medium / (20 * MiB)) * 20 * MiB + large;
    }
};

// The describing visitor of the static terms (static_terms.hpp): each line's terms and note in the walk's order,
// the optimizer step's temporary only when the step is the stage's peak.
struct DescribeStatic {
    bool stepPeaks;
    bool gradientsPending;  // the peak is the backward's start: no gradient shard allocated yet
    Terms terms[kStaticLines];
    Terms step;
    std::string notes[kStaticLines];
    template <class Describe>
    void term(StaticLine line, Hold hold, double bytes, const Describe& describe) {
        if (bytes == 0 || (hold == Hold::step && !stepPeaks)) return;
        if (gradientsPending && hold == Hold::stored && line == StaticLine::gradients) return;
        add(line, hold, bytes, describe());
    }
    // The work of term() once, not once per term's describing lambda.
    [[gnu::noinline]] void add(StaticLine line, Hold hold, double bytes, TermText text) {
        if (hold == Hold::step)
            step.add(text.symbol, wholeBytes(std::move(text.substituted), bytes), std::ceil(bytes));
        else
            terms[static_cast<int>(line)].add(text.symbol, std::move(text.substituted), bytes);
    }
    template <class Text>
    void note(StaticLine line, Hold hold, const Text& text) {
        if (hold != Hold::step || stepPeaks) notes[static_cast<int>(line)] += text();
    }
    // The three lines: parameters and gradients are whole bytes as a sum; the optimizer's stored states and the
    // step's temporary are each whole bytes.
    void addLines(const MembudgetStage& sn, std::vector<Line>& lines) {
        const Terms& parameters = terms[static_cast<int>(StaticLine::parameters)];
        const Terms& gradients = terms[static_cast<int>(StaticLine::gradients)];
        const Terms& states = terms[static_cast<int>(StaticLine::optimizer)];
        Terms optimizer;
        optimizer.add(states.formula(), states.wholeBytes(), sn.optimizer);
        optimizer.add(step.formula(), step.text(), step.value());
        lines.push_back({LineId::parameters, "Parameters", parameters.formula(), parameters.wholeBytes(), sn.parameters,
                         std::move(notes[static_cast<int>(StaticLine::parameters)]), Method::membudget});
        std::string gradientsNote = std::move(notes[static_cast<int>(StaticLine::gradients)]);
        if (gradientsPending)
            gradientsNote += "; at this peak, the backward's start (the loss's backward), none of the " + n(sn.storedGradients) +
                             " bytes of gradient shards is allocated yet: they are made during backward and freed after the step "
                             "(zero_grad(set_to_none=True)), and the step runs one backward";
        else if (sn.backwardEndPeaks)
            gradientsNote +=
                "; made during backward (zero_grad(set_to_none=True) frees them after the step): this peak is the "
                "backward's end, when all of them are allocated";
        lines.push_back({LineId::gradients, "Gradients", gradients.formula(), gradients.wholeBytes(), sn.gradientsAtPeak,
                         std::move(gradientsNote), Method::membudget});
        lines.push_back({LineId::optimizer, "Optimizer", optimizer.formula(), optimizer.text(), sn.optimizerAtPeak,
                         std::move(notes[static_cast<int>(StaticLine::optimizer)]), Method::membudget});
    }
};

// What the activations line says of a MoE stack's routing: the busiest EP rank's share of the routed tokens and where
// it comes from (model/rank.hpp moeImbalance; docs/frameworks.md, "Routing balance").
std::string routingNote(const Config& c) {
    if (c.experts == 0 || c.ep <= 1) return "";
    const double f = moeImbalance(c);
    if (c.moeForceBalance) return "; routing forced even over the EP ranks";
    const std::string why = c.moeImbalance > 0 ? "moe_imbalance" : "assumed for dropless routing: set moe_imbalance";
    return "; the busiest EP rank receives " + n(f) + " × an even share of the tokens (" +
           (c.capacityFactor > 0 && f == std::max(1.0, c.capacityFactor) ? "capped by capacity_factor" : why) + ")";
}

// What selective recomputation rebuilds, as the activations line says it: the attention core, or Megatron-LM's modules.
std::string selectiveNote(const RecomputeModules& modules) {
    std::string listed = canonicalRecomputeModules(modules);
    if (listed == "core_attn") return "Selective recomputation: attention core rebuilt in backward";
    if (listed.empty()) return "Selective recomputation of no module (recompute_modules empty): nothing rebuilt";
    std::replace(listed.begin(), listed.end(), ',', ' ');
    return "Selective recomputation: modules " + listed + " rebuilt in backward";
}

// The activations line: the saved tensors' terms, or nothing when the optimizer step is the stage's peak.
Line activationsLine(const Config& c, const MembudgetStage& sn, const DescribeStage& describe, double stage) {
    const std::string inFlight = n(sn.copies) + " layer-copies (" + n(sn.layers) + " layers, " + n(sn.microbatches) + " micro-batch" +
                                 (sn.microbatches == 1 ? "" : "es") + " in flight) on stage " + n(stage) + " of " + n(c.pp);
    if (sn.stepPeaks)
        return {LineId::activations,
                "Activations",
                "0 (freed before the optimizer step)",
                "0",
                sn.activations,
                "Freed before the optimizer step, which is this stage's peak (" + n(sn.activationsDuringBackward) +
                    " bytes during forward/backward: " + inFlight + ")",
                Method::membudget};
    if (sn.backwardEndPeaks)
        return {LineId::activations,
                "Activations",
                "the first layer's tensors (its backward runs last)",
                wholeBytes(n(sn.backwardEndActivations), sn.backwardEndActivations),
                sn.activations,
                "The peak is the backward's end, when every gradient is allocated: the first layer's saved tensors" +
                    std::string(c.ckpt == Checkpointing::full ? " (its input and the layer rebuilt)" : "") + " remain of the " +
                    n(sn.activationsDuringBackward) + " bytes saved in forward (" + inFlight + ")",
                Method::membudget};
    return {LineId::activations,
            "Activations",
            "Σ saved tensors of a layer × layer-copies in flight + stage extras",
            describe.expression(),
            sn.activations,
            std::string(c.ckpt == Checkpointing::full        ? "Full recomputation: layer inputs kept, one layer rebuilt in backward"
                        : c.ckpt == Checkpointing::selective ? selectiveNote(describe.x.recompute)
                        : c.ckpt == Checkpointing::op ? "Op-level selective checkpointing: each block's save list kept, the rest rebuilt"
                                                      : "No recomputation") +
                "; " + (describe.x.flash ? "FlashAttention (no s × s scores)" : "eager attention (s × s probabilities kept)") + "; " +
                inFlight + routingNote(c) + "; see the tensor sub-ledger",
            Method::membudget};
}

// The allocator at a stage's peak: the static memory as the buffers it is allocated in, every saved tensor of the
// activations, the workspaces; FSDP2's all-gather outputs are allocated on their own stream, whose pool keeps the
// segments of the two blocks in flight after they are copied out (FSDP2 _fsdp_collectives.py foreach_all_gather:
// all_gather_copy_in_stream). Fragmentation across the step's phases is not modelled.
//
// With max_split_size_mb, a freed block of that size or more is never split and serves only a request within
// max_non_split_rounding_size (20 MiB) of its own size (CUDACachingAllocator.cpp get_free_block); the allocator frees
// its cache only when cudaMalloc fails (alloc_block → release_cached_blocks, then retry). Where the step frees and
// makes tensors that large, each size the step meets keeps its own blocks, and the reserve grows towards all the
// memory the allocator can take (an H200 run of a dropless MoE stack, tools/measure/moe_alloc.py: 139 GiB reserved
// for 31 GiB allocated, and 96 to 138 GiB with balanced routing). So the reserve is then bounded by the GPU only.
bool oversizeBlocks(const Config& c, const std::vector<Tensor>& tensors) {
    if (c.maxSplitSizeMb <= 0) return false;
    const double threshold = c.maxSplitSizeMb * kBytesPerMiB;
    return std::any_of(tensors.begin(), tensors.end(), [threshold](const Tensor& t) { return t.bytesPerCopy >= threshold; });
}

double reservedBytes(const Config& c, const MembudgetTraining& t, const MembudgetStage& sn, const std::vector<Tensor>& tensors) {
    if (oversizeBlocks(c, tensors))  // the GPU less what lives outside the caching allocator
        return std::max(0.0, gigabytesToBytes(c.gpuGb) - gigabytesToBytes(c.buffersGb) - gigabytesToBytes(c.contextGb) -
                                 deepepBufferBytes(c) - asyncTpWorkspaceBytes(c));
    Reserve r;
    r.add(sn.parameters - sn.gatheredParams, 1);
    r.add(sn.gatheredParams, 1);
    r.add(sn.gradientsAtPeak, 1);
    r.add(sn.optimizerAtPeak, 1);
    if (sn.backwardEndPeaks)
        r.add(sn.backwardEndActivations, 1);
    else if (!sn.stepPeaks)
        for (const Tensor& tensor : tensors) r.add(tensor.bytesPerCopy, tensor.copies);
    r.add(cublasWorkspaceBytes(c), 2);
    r.add(teWorkspaceBytes(c), 1 + teGroupedGemmWorkspaces(c));
    Reserve allGatherPool;
    if (t.gathering == Gathering::fsdp2Layers || t.gathering == Gathering::fsdp2Stage)
        allGatherPool.add(t.rates.compute * sn.gatheredLayer - (t.rates.compute - 1) * sn.gatheredLayerFp8, 2);
    return r.reserved(c.expandableSegments) + allGatherPool.reserved(c.expandableSegments);
}

// Host memory per node for what was offloaded: the optimizer (and parameters) of every GPU in it, each GPU's shard
// as large as the largest stage's. ZeRO-Offload (Ren et al. 2021 §4) keeps, per GPU's shard, the optimizer states,
// the FP32 master weights and the FP32 gradients the CPU step reads; ZeRO-Infinity / FSDP offload adds the
// parameters.
void addCpuLines(const Config& c, const MembudgetTraining& t, double shardParams, MethodOutput& out) {
    auto cpuLine = [&](LineId id, std::string label, std::string rateName, double rate, std::string note) {
        const double raw = c.gpusPerNode * shardParams * rate;
        out.cpuLines.push_back({id, std::move(label), "GPUs per node × P_shard × " + rateName,
                                wholeBytes(fill("# × # × #", {c.gpusPerNode, shardParams, rate}), raw), std::ceil(raw), std::move(note),
                                Method::membudget});
    };
    cpuLine(LineId::cpuOptimizer, "Optimizer states", "states", t.rates.statesHidden, t.rates.describe);
    cpuLine(LineId::cpuMaster, t.rates.master == 2 ? "BF16 master weights" : "FP32 master weights", n(t.rates.master), t.rates.master,
            "the weights the CPU optimizer updates");
    cpuLine(LineId::cpuGradients, "FP32 gradients", "4", 4, "gradients copied to the CPU for its optimizer step (ZeRO-Offload)");
    if (t.offloadParameters)
        cpuLine(LineId::cpuParameters, "Parameters", "weight bytes", t.rates.weight,
                "parameters offloaded with ZeRO-3 (ZeRO-Infinity, FSDP CPU offload)");
    for (const auto& line : out.cpuLines) out.cpuBytesPerNode += line.bytes;
}

void addWarnings(const Config& c, MethodOutput& out) {
    if (c.asyncTp && c.framework != Framework::torchtitan)
        out.warnings.push_back(
            {"async_tp", "async_tp is torchtitan's AsyncTP; for " + std::string(toString(c.framework)) +
                             " its workspace is not counted (Megatron-LM's --tp-comm-overlap userbuffers are not modelled)"});
    if (c.precision == Precision::fp16 && !c.masterWeights)
        out.warnings.push_back(
            {"master_weights", "FP16 training without FP32 master weights loses small updates; mixed precision keeps them"});
    if (c.mtpLayers > 0 && c.pp > 1)
        out.warnings.push_back({"mtp_layers",
                                "the multi-token-prediction layers all sit on the last stage; Megatron-LM lets you move "
                                "layers off it (last_stage_layers) to balance"});
    if (c.offload == Offload::all && c.zero < 3)
        out.warnings.push_back({"offload", "offload = all (parameters too) needs ZeRO-3 (zero = 3); only the optimizer is offloaded"});
}

}  // namespace

Line workspaceLine(const Config& c) {
    const double bytes = workspaceBytes(c), deepep = deepepBufferBytes(c), asyncTp = asyncTpWorkspaceBytes(c);
    const double perHandle = cublasWorkspaceBytes(c), transformerEngine = teWorkspaceBytes(c), grouped = teGroupedGemmWorkspaces(c);
    const bool te = transformerEngine > 0, hopper = perHandle == 32 * kBytesPerMiB;
    std::string symbol = te ? "2 × cuBLAS workspace + Transformer Engine workspace" : "2 × cuBLAS workspace";
    std::string expression = te ? fill("2 × # + #", {perHandle, transformerEngine}) : fill("2 × #", {perHandle});
    if (grouped > 0) {
        symbol += " × (1 + grouped-GEMM streams)";
        expression += fill(" × (1 + #)", {grouped});
    }
    if (deepep > 0) {
        symbol += " + DeepEP buffer";
        expression += fill(" + #", {deepep});
    }
    if (asyncTp > 0) {
        symbol += " + AsyncTP workspace";
        expression += fill(" + #", {asyncTp});
    }
    return {LineId::workspace,
            "Workspaces",
            symbol,
            expression,
            bytes,
            std::string("PyTorch's cuBLAS workspace, one per handle of the forward and the backward thread (") +
                (hopper ? "32 MiB on Hopper and newer" : "8,519,680 B before Hopper") + ", CublasHandlePool.cpp)" +
                (te ? std::string(", and Transformer Engine's GEMM workspace (") + (hopper ? "32 MiB + 1 KiB" : "4 MiB") + ")" : "") +
                (grouped > 0 ? ", and one more per compute stream for the experts' grouped GEMMs (TE GroupedLinear under "
                               "--moe-grouped-gemm, gemm.py get_cublas_workspace)"
                             : "") +
                "; inside the caching allocator, so allocator counters see it" +
                (deepep > 0 ? c.framework == Framework::megatron
                                  ? "; and DeepEP's Buffer for the flex dispatcher (its NVLink and RDMA size hints for " +
                                        n(c.ep * expertTensorParallel(c)) + " ranks, fused_a2a.py), outside the allocator"
                                  : "; and DeepEP's ElasticBuffer (a slot per token of " + n(c.ep) +
                                        " EP ranks, get_buffer_size_hint), outside the allocator"
                            : "") +
                (asyncTp > 0 ? "; and AsyncTP's symmetric-memory workspace (two BF16 output chunks of the fused matmul + reduce-scatter, "
                               "get_symm_mem_workspace), outside the allocator"
                             : ""),
            Method::membudget};
}

MethodOutput membudgetMethod(const Config& c, double psi) { return membudgetMethod(c, psi, true); }

MethodOutput membudgetMethod(const Config& c, double psi, bool atPeakPhase) {
    (void)psi;  // membudget counts every tensor of the architecture itself
    MethodOutput out;
    const MembudgetTraining t = membudgetTraining(c);
    const std::vector<double> layers = stageLayers(c);
    double cpuShardParams = 0;  // the largest per-GPU optimizer shard, for the host memory of offloading
    bool oversize = false;      // a stage frees and makes blocks of max_split_size_mb or more
    double firstLayerOfStage = 0;
    for (double i = 0; i < c.pp; ++i) {
        StageOutput stage;
        stage.index = i;
        stage.layers = layers[static_cast<size_t>(i)];
        const bool first = i == 0, last = i == c.pp - 1;
        const MembudgetStage sn = membudgetStage(c, t, i, stage.layers, firstLayerOfStage, atPeakPhase);
        firstLayerOfStage += stage.layers;
        cpuShardParams = std::max(cpuShardParams, sn.stageParams / sn.optimizerShard + sn.expertParams / sn.expertOptimizerShard);

        // The static lines from their terms, the activations and the tensor sub-ledger from the same walks as sn.
        DescribeStatic statics{sn.stepPeaks, sn.gradientsPending};
        forEachStaticTerm(c, t, sn, first, last, statics);
        statics.addLines(sn, stage.lines);
        DescribeStage describe{c, t.x};
        forEachStageTensor(c, t, {stage.layers, sn.moeLayers, sn.copies, sn.microbatches, sn.mtpLayers, first, last, sn.checkpointed},
                           describe);
        stage.lines.push_back(activationsLine(c, sn, describe, i));
        stage.inFlightMicrobatches = sn.microbatches;
        stage.phases = {{StepPhase::forwardBackward, sn.forwardBackward}, {StepPhase::optimizerStep, sn.step}};
        stage.peakPhase = sn.step > sn.forwardBackward ? StepPhase::optimizerStep : StepPhase::forwardBackward;
        stage.reservedBytes = reservedBytes(c, t, sn, describe.tensors);
        oversize = oversize || oversizeBlocks(c, describe.tensors);
        stage.tensors = std::move(describe.tensors);
        out.stages.push_back(std::move(stage));
    }
    if (t.offloadOptimizer || t.offloadParameters) addCpuLines(c, t, cpuShardParams, out);
    addWarnings(c, out);
    if (oversize)
        out.warnings.push_back({"max_split_size_mb", "max_split_size_mb = " + n(c.maxSplitSizeMb) +
                                                         ": the step frees and makes tensors that large, which the allocator never "
                                                         "splits and reuses only for sizes within 20 MiB; reserved can grow to the "
                                                         "whole GPU (the verdict is on what is allocated)"});
    return out;
}

std::string membudgetDifference(LineId line) {
    const bool staticLine = line == LineId::parameters || line == LineId::gradients || line == LineId::optimizer;
    return staticLine ? "every parameter tensor of the stage: the embedding on the first stage, the output layer on the last, "
                        "KV heads replicated when TP > kv_heads, norms not split"
                      : "every saved tensor of the actual layer: GQA's smaller K and V, SwiGLU's three FFN tensors, "
                        "FlashAttention or eager scores, and the logits on the last stage";
}

}  // namespace membudget::detail
