// The shared writer's out-of-line parts (writer.hpp).
#include "formats/writer.hpp"

#include <tuple>

#include <string>

#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

void Exporter::skipTrainingExtras(ImportFormat format) {
    const Config defaults;
    if (c_.ckptEvery != 1 && format != ImportFormat::torchtitan && format != ImportFormat::torchtune)
        skip("ckpt_every", formatNumber(c_.ckptEvery), "no such setting in this format");
    if (c_.lossChunks != 0 && format != ImportFormat::torchtune)
        skip("loss_chunks", formatNumber(c_.lossChunks), "no such setting in this format");
    if (c_.compile && format != ImportFormat::torchtitan && format != ImportFormat::torchtune)
        skip("compile", "true", "no such setting in this format");
    if (c_.compile && !c_.compileLoss && format != ImportFormat::torchtitan)
        skip("compile_loss", "false",
             format == ImportFormat::torchtune ? "torchtune's compile always compiles the loss too" : "no such setting in this format");
    if (c_.fp8AllGather && format != ImportFormat::torchtitan) skip("fp8_all_gather", "true", "no such setting in this format");
    if (c_.activationOffload && format != ImportFormat::torchtune) skip("activation_offload", "true", "no such setting in this format");
    // Triton's flash-style kernel (MPT's attn_impl triton) is no framework's setting here; each runs its own flash.
    if (c_.attention == Attention::triton) skip("attention", "triton", "no such setting in this format");
    if (c_.optimizerInBackward && format != ImportFormat::torchtune)
        skip("optimizer_in_backward", "true", "no such setting in this format");
    if (c_.offload != Offload::none && format != ImportFormat::deepspeed && format != ImportFormat::torchtitan)
        skip("offload", std::string(toString(c_.offload)), "no such setting in this format");
    if (format != ImportFormat::deepspeed)
        for (const auto& [key, value, standard] :
             {std::tuple<const char*, double, double>{"reduce_bucket_size", c_.reduceBucketSize, defaults.reduceBucketSize},
              {"sub_group_size", c_.subGroupSize, defaults.subGroupSize},
              {"stage3_prefetch_bucket_size", c_.prefetchBucketSize, defaults.prefetchBucketSize},
              {"stage3_max_live_parameters", c_.maxLiveParameters, defaults.maxLiveParameters},
              {"stage3_param_persistence_threshold", c_.persistenceThreshold, defaults.persistenceThreshold}})
            if (value != standard) skip(key, formatNumber(value), "DeepSpeed's own setting; no such setting in this format");
    // torchtune writes FP32 AdamW states as bitsandbytes' 32-bit AdamW (exportTorchtune).
    const bool torchtuneFp32States =
        format == ImportFormat::torchtune && c_.optimizerDtype == OptimizerDtype::fp32 && c_.optimizer == Optimizer::adamw;
    if (c_.optimizerDtype != defaults.optimizerDtype && !torchtuneFp32States)
        skip("optimizer_dtype", std::string(toString(c_.optimizerDtype)), "no such setting in this format");
}

std::string command(const std::vector<std::string>& lines) {
    std::string out;
    for (size_t i = 0; i < lines.size(); ++i) out += (i == 0 ? "" : "    ") + lines[i] + (i + 1 < lines.size() ? " \\\n" : "\n");
    return out;
}

std::string notes(const ExportResult& r, std::string_view comment) {
    std::string out;
    for (const auto& s : r.notExported)
        out += std::string(comment) + " not exported: " + s.key + (s.value.empty() ? "" : " = " + s.value) + " (" + s.reason + ")\n";
    return out;
}

}  // namespace membudget::detail
