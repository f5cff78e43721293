// DeepSpeed's estimate_zero2/zero3_model_states_mem_needs as a ledger method and a planner kernel.
#include "memory/sources/deepspeed.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "base/expr.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/memory/sources.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledger/training_ledger.hpp"
#include "memory/ledgers.hpp"
#include "memory/sources/published.hpp"
#include "memory/training.hpp"

namespace membudget::detail {

namespace {

// DeepSpeed's view of the data-parallel group: GPUs per node and nodes.
struct DeepspeedNodes {
    double gpusPerNode, nodes;
};

// Decides the node count DeepSpeed's estimator is given: dp within one node, or dp over gpus_per_node (fractional,
// with a warning, where it does not divide).
DeepspeedNodes deepspeedNodes(const Config& c, MethodOutput& out) {
    double gpusPerNode = c.gpusPerNode, nodes = c.dp / c.gpusPerNode;
    if (c.dp < c.gpusPerNode) {
        gpusPerNode = c.dp;
        nodes = 1;
    } else if (std::fmod(c.dp, c.gpusPerNode) != 0) {
        out.warnings.push_back({"gpus_per_node", "dp (" + n(c.dp) + ") is not a multiple of gpus_per_node (" + n(c.gpusPerNode) +
                                                     "): DeepSpeed's node count is fractional here"});
    }
    return {gpusPerNode, nodes};
}

// Decides the CPU column's expression, term for term as the estimator computes it (additional_buffer_factor 1.5).
std::string deepspeedCpuText(const Config& c, double P, double largest, const DeepspeedNodes& at, double G) {
    const double gpusPerNode = at.gpusPerNode, nodes = at.nodes;
    const bool offloadOptimizer = c.offload != Offload::none, offloadParams = c.offload == Offload::all;
    if (c.zero >= 3) {
        const double states = offloadParams ? 18 : 16;
        if (!offloadOptimizer)
            return c.zeroInit ? fill("# × 4 × # × 1.5", {largest, gpusPerNode}) : fill("# × 4 × # × 1.5", {P, gpusPerNode});
        return c.zeroInit ? fill("# × # × (1 / #) × 1.5", {P, states, nodes})
                          : fill("# × max(4 × #, # × (1 / #)) × 1.5", {P, gpusPerNode, states, nodes});
    }
    return offloadOptimizer ? fill("# × max(4 × #, 16) × 1.5", {P, G}) : fill("# × 4 × # × 1.5", {P, gpusPerNode});
}

// DeepSpeed's one GPU figure as lines: each line's bytes, formula and substituted text, and the whole formula.
struct DeepspeedSplit {
    double parameters = 0, gradients = 0, optimizer = 0;
    std::string formula, parametersFormula = "0", gradientsFormula = "0", optimizerFormula = "0";
    std::string parametersText = "0", gradientsText = "0", optimizerText = "0";
};

// Decides how DeepSpeed's one GPU figure splits into lines whose sum is exactly that figure, each with its expression.
DeepspeedSplit deepspeedSplit(const Config& c, double P, double largest, double G) {
    const bool offloadOptimizer = c.offload != Offload::none, offloadParams = c.offload == Offload::all;
    DeepspeedSplit s;
    const std::string partitionedText = fill("⌊18 × # / #⌋ − 6 × # / #", {P, G, P, G});
    if (c.zero >= 3) {
        const double gathered = 2 * largest;  // fp16 params and fp16 grads of the largest layer: 4L in all
        if (offloadOptimizer && offloadParams) {
            s.parameters = s.gradients = gathered;
            s.parametersText = s.gradientsText = fill("2 × #", {largest});
            s.parametersFormula = s.gradientsFormula = "2L";
            s.formula = "4L";
        } else if (offloadOptimizer) {
            s.parameters = gathered + std::trunc(2 * P / G);
            s.gradients = gathered;
            s.parametersText = fill("2 × # + ⌊2 × # / #⌋", {largest, P, G});
            s.gradientsText = fill("2 × #", {largest});
            s.parametersFormula = "2L + int(2P / G)";
            s.gradientsFormula = "2L";
            s.formula = "4L + int(2P / G)";
        } else {
            s.parameters = gathered + 2 * P / G;
            s.gradients = gathered + 4 * P / G;
            s.optimizer = std::trunc(18 * P / G) - 6 * P / G;
            s.parametersText = fill("2 × # + 2 × # / #", {largest, P, G});
            s.gradientsText = fill("2 × # + 4 × # / #", {largest, P, G});
            s.optimizerText = partitionedText;
            s.parametersFormula = "2L + 2P / G";
            s.gradientsFormula = "2L + 4P / G";
            s.optimizerFormula = "int(18P / G) − 6P / G";
            s.formula = "4L + int(18P / G)";
        }
    } else {
        s.parameters = 2 * P;
        s.parametersText = fill("2 × #", {P});
        s.parametersFormula = "2P";
        s.formula = "2P";
        if (!offloadOptimizer) {
            s.gradients = 6 * P / G;
            s.optimizer = std::trunc(18 * P / G) - 6 * P / G;
            s.gradientsText = fill("6 × # / #", {P, G});
            s.optimizerText = partitionedText;
            s.gradientsFormula = "6P / G";
            s.optimizerFormula = "int(18P / G) − 6P / G";
            s.formula = "2P + int(18P / G)";
        }
    }
    return s;
}

}  // namespace

// DeepSpeed's estimate_zero2/zero3_model_states_mem_needs, for one model-parallel shard.
MethodOutput deepspeedMethod(const Config& c, double psi) {
    MethodOutput base = membudgetMethod(c, psi, false);
    MethodOutput out;
    const double P = psi / (c.tp * c.pp);
    // DeepSpeed's largest layer is the largest module's own parameters: the embedding or output layer
    // (V × h), an MLP matrix (h × d_ff) or the query projection.
    const double headDim = headDimOf(c);
    const double largest = std::max({c.vocab * c.hidden, c.hidden * c.ffn, c.hidden * c.heads * headDim}) / c.tp;
    const DeepspeedNodes at = deepspeedNodes(c, out);
    const double gpusPerNode = at.gpusPerNode, nodes = at.nodes;
    const double G = gpusPerNode * nodes;
    const bool offloadOptimizer = c.offload != Offload::none, offloadParams = c.offload == Offload::all;
    const bool zero3 = c.zero >= 3;
    const auto estimate = zero3 ? sources::deepspeedZero3(P, largest, gpusPerNode, nodes, offloadOptimizer, offloadParams, c.zeroInit)
                                : sources::deepspeedZero2(P, gpusPerNode, nodes, offloadOptimizer);
    out.cpuBytesPerNode = estimate.cpuBytesPerNode;
    out.cpuLines.push_back({LineId::cpuModelStates, "Model states (DeepSpeed)",
                            zero3 ? "estimate_zero3 CPU column" : "estimate_zero2 CPU column",
                            "⌊" + deepspeedCpuText(c, P, largest, at, G) + "⌋", estimate.cpuBytesPerNode,
                            "DeepSpeed's CPU memory per node for " + n(gpusPerNode) + " GPUs per node and " + n(nodes) +
                                " nodes, additional_buffer_factor 1.5 (it prints bytes / 2^30 as \"GB\")",
                            Method::deepspeed});
    const DeepspeedSplit split = deepspeedSplit(c, P, largest, G);
    const std::string values = "P = " + n(std::round(P)) + ", G = " + n(G) + (zero3 ? ", L = " + n(std::round(largest)) : "");
    const std::string estimator = zero3 ? "estimate_zero3_model_states_mem_needs" : "estimate_zero2_model_states_mem_needs";
    for (const auto& membudgetStage : base.stages) {
        StageOutput stage;
        stage.index = membudgetStage.index;
        stage.layers = membudgetStage.layers;
        stage.inFlightMicrobatches = membudgetStage.inFlightMicrobatches;
        const std::string note = "DeepSpeed " + estimator + ": GPU bytes " + split.formula + " (" + values + "), split into lines";
        stage.lines.push_back({LineId::parameters, "Parameters", split.parametersFormula, split.parametersText, split.parameters,
                               note + "; fp16 parameters", Method::deepspeed});
        stage.lines.push_back({LineId::gradients, "Gradients", split.gradientsFormula, split.gradientsText, split.gradients,
                               note + "; fp16 and fp32 gradients", Method::deepspeed});
        stage.lines.push_back({LineId::optimizer, "Optimizer", split.optimizerFormula, split.optimizerText, split.optimizer,
                               offloadOptimizer ? note + "; optimizer states in CPU memory" : note + "; fp32 params and Adam states",
                               Method::deepspeed});
        stage.lines.push_back(filledIn(lineOf(membudgetStage, LineId::activations), "DeepSpeed's estimator (model states only)"));
        out.stages.push_back(std::move(stage));
    }
    if (c.zero < 2)
        out.warnings.push_back({"zero", "DeepSpeed has estimators for ZeRO-2 and ZeRO-3 only; ZeRO-2's is used for zero = " + n(c.zero)});
    if (c.tp * c.pp > 1)
        out.warnings.push_back(
            {"method", "DeepSpeed's estimators assume pure data parallelism; P is taken per model-parallel shard, Ψ / (TP × PP)"});
    out.warnings.push_back({"method",
                            "DeepSpeed prints bytes / 2^30 as \"GB\"; users measured far more than its offload estimates "
                            "(DeepSpeed issue #4527: 0.49 \"GB\" estimated, 14.3 GiB measured), since it leaves out activations, "
                            "buffers and the allocator"});
    return out;
}

PeakBytes deepspeedTrainingPeak(const Config& c, double psi, std::span<const StageSpan> stages) {
    const MembudgetTraining t = membudgetTraining(c);
    const double P = psi / (c.tp * c.pp);
    const double largest = std::max({c.vocab * c.hidden, c.hidden * c.ffn, c.hidden * c.heads * headDimOf(c)}) / c.tp;
    const double gpusPerNode = c.dp < c.gpusPerNode ? c.dp : c.gpusPerNode, nodes = c.dp < c.gpusPerNode ? 1 : c.dp / c.gpusPerNode;
    const double G = gpusPerNode * nodes;
    const bool offloadOptimizer = c.offload != Offload::none, offloadParams = c.offload == Offload::all;
    double parameters = 0, gradients = 0, optimizer = 0;
    if (c.zero >= 3) {
        const double gathered = 2 * largest;
        if (offloadOptimizer && offloadParams) {
            parameters = gradients = gathered;
        } else if (offloadOptimizer) {
            parameters = gathered + std::trunc(2 * P / G);
            gradients = gathered;
        } else {
            parameters = gathered + 2 * P / G;
            gradients = gathered + 4 * P / G;
            optimizer = std::trunc(18 * P / G) - 6 * P / G;
        }
    } else {
        parameters = 2 * P;
        if (!offloadOptimizer) {
            gradients = 6 * P / G;
            optimizer = std::trunc(18 * P / G) - 6 * P / G;
        }
    }
    return peakOver(c, stages, [&](const StageSpan& stage) {
        const MembudgetStage sn = membudgetStage(c, t, stage.index, stage.layers, stage.firstLayer, false);
        return StaticAndActivations{parameters, gradients, optimizer, sn.activations};
    });
}

std::string deepspeedDifference(LineId line) {
    if (line == LineId::parameters)
        return "fp16 parameters kept whole under ZeRO-2; ZeRO-3 gathers the largest layer (4L with its gradients)";
    if (line == LineId::gradients) return "6 bytes of gradients per parameter (fp16 + fp32), partitioned over the DP group";
    if (line == LineId::optimizer) return "fp32 parameters and Adam states (12 bytes) partitioned, the total truncated to whole bytes";
    return "not in DeepSpeed's estimator (membudget's estimate)";
}

}  // namespace membudget::detail
