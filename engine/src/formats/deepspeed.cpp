// DeepSpeed (deepspeed/runtime/config.py, zero/config.py): a JSON config read into membudget's keys over the
// shared reader, and a configuration written back as one over the shared writer.
#include "formats/deepspeed.hpp"

#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "formats/reader.hpp"
#include "formats/writer.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

constexpr std::string_view kDeepspeedIgnored[] = {"optimizer.params",
                                                  "scheduler",
                                                  "steps_per_print",
                                                  "wall_clock_breakdown",
                                                  "gradient_clipping",
                                                  "tensorboard",
                                                  "wandb",
                                                  "csv_monitor",
                                                  "flops_profiler",
                                                  "zero_allow_untested_optimizer",
                                                  "prescale_gradients",
                                                  "fp16.loss_scale",
                                                  "fp16.loss_scale_window",
                                                  "fp16.initial_scale_power",
                                                  "fp16.hysteresis",
                                                  "fp16.min_loss_scale",
                                                  "fp16.auto_cast",
                                                  "bf16.immediate_grad_update",
                                                  "zero_optimization.contiguous_gradients",
                                                  "zero_optimization.overlap_comm",
                                                  "zero_optimization.reduce_scatter",
                                                  "zero_optimization.allgather_partitions",
                                                  "zero_optimization.round_robin_gradients",
                                                  "zero_optimization.offload_optimizer.pin_memory",
                                                  "zero_optimization.offload_param.pin_memory",
                                                  "zero_optimization.offload_optimizer.nvme_path",
                                                  "zero_optimization.offload_param.nvme_path",
                                                  "zero_optimization.offload_optimizer.buffer_count",
                                                  "zero_optimization.offload_optimizer.fast_init",
                                                  "zero_optimization.stage3_gather_16bit_weights_on_model_save",
                                                  "zero_optimization.stage3_gather_fp16_weights_on_model_save",
                                                  "zero_optimization.elastic_checkpoint",
                                                  "zero_optimization.load_from_fp32_weights",
                                                  "activation_checkpointing",
                                                  "comms_logger",
                                                  "communication_data_type",
                                                  "data_types",
                                                  "dump_state",
                                                  "amp.opt_level",
                                                  "train_batch_size",
                                                  "gradient_accumulation_steps",
                                                  "train_micro_batch_size_per_gpu",
                                                  "zero_optimization.stage",
                                                  "bf16.enabled",
                                                  "fp16.enabled",
                                                  "optimizer.type",
                                                  "zero_optimization.offload_optimizer.device",
                                                  "zero_optimization.offload_param.device",
                                                  "gradient_predivide_factor",
                                                  "zero_force_ds_cpu_optimizer",
                                                  "memory_breakdown",
                                                  "sparse_gradients"};

namespace {

// A config's values, where "auto" means the HF Trainer integration fills them in from its own arguments.
struct AutoValues {
    Document& d;
    Mapping& m;

    // A number, or nothing: "auto" and what is not a number listed as unmapped.
    std::optional<double> numberOrAuto(std::string_view path) {
        const JsonValue* v = d.get(path);
        if (!v) return std::nullopt;
        if (v->type == "string" && v->text == "auto") {
            m.unmapped(std::string(path), "auto", "filled in by the Hugging Face Trainer from its own arguments; set it here");
            return std::nullopt;
        }
        const auto n = d.number(path);
        if (!n) m.unmapped(std::string(path), v->text, "not a number");
        return n;
    }
    // A switch, false for "auto" (listed as unmapped) or where absent.
    bool boolOrAuto(std::string_view path) {
        const JsonValue* v = d.get(path);
        if (v && v->type == "string" && v->text == "auto") {
            m.unmapped(std::string(path), "auto", "filled in by the Hugging Face Trainer from its own arguments; set precision");
            return false;
        }
        return d.boolean(path).value_or(false);
    }
    bool isAuto(std::string_view path) { return d.string(path) == std::optional<std::string>("auto"); }
};

// The training precision, the dtypes of the master weights and the optimizer's states, and autocast.
void readPrecision(AutoValues& a) {
    Mapping& m = a.m;
    const bool bf16 = a.boolOrAuto("bf16.enabled") || a.boolOrAuto("bfloat16.enabled");
    const bool fp16 = a.boolOrAuto("fp16.enabled");
    if (bf16 || fp16 || !(a.isAuto("bf16.enabled") || a.isAuto("fp16.enabled"))) m.set("precision", bf16 ? "bf16" : fp16 ? "fp16" : "fp32");
    // DeepSpeed's BF16 options (runtime/bf16_optimizer.py; ZeRO-3 with bf16_master_weights_and_grads): the master
    // weights and gradients kept in BF16 instead of an FP32 copy, the optimizer states in BF16. Always set, so that
    // a previous configuration's choice does not survive the import.
    m.set("master_weights", bf16 && a.boolOrAuto("bf16.bf16_master_weights_and_grads") ? "false" : "true");
    m.set("optimizer_dtype", bf16 && a.boolOrAuto("bf16.bf16_optimizer_states") ? "bf16" : "auto");
    // torch_autocast (runtime/torch_autocast.py): the forward under torch.autocast; always set, as above.
    const bool autocast = (bf16 || fp16) && a.boolOrAuto("torch_autocast.enabled");
    m.setBool("autocast", autocast);
    if (const auto dtype = a.d.string("torch_autocast.dtype");
        dtype && autocast && *dtype != (bf16 ? "torch.bfloat16" : "torch.float16") && *dtype != (bf16 ? "bfloat16" : "float16"))
        m.unmapped("torch_autocast.dtype", *dtype, "membudget's autocast lowers to the training precision's type");
}

// The batch: the micro-batch, the micro-batches of a step, and DP from the global batch.
void readBatch(AutoValues& a) {
    Mapping& m = a.m;
    const auto mb = a.numberOrAuto("train_micro_batch_size_per_gpu");
    const auto gas = a.numberOrAuto("gradient_accumulation_steps");
    const auto total = a.numberOrAuto("train_batch_size");
    if (mb) m.setNumber("mb", *mb);
    if (gas || !a.d.present("gradient_accumulation_steps")) m.setNumber("microbatches", gas.value_or(1));
    if (total && mb) {
        const double perStep = *mb * gas.value_or(1);
        if (std::fmod(*total, perStep) == 0)
            m.setNumber("dp", *total / perStep);
        else
            m.unmapped("train_batch_size", formatNumber(*total),
                       "not a multiple of train_micro_batch_size_per_gpu × gradient_accumulation_steps");
    } else if (total) {
        m.unmapped("train_batch_size", formatNumber(*total), "needs train_micro_batch_size_per_gpu to give the data-parallel size; set dp");
    } else if (!a.d.present("train_batch_size")) {
        m.unmapped("dp", "", "train_batch_size and train_micro_batch_size_per_gpu give the data-parallel size; set dp");
    }
}

// DeepSpeed's own buffers (zero/config.py): each set, to the file's value or DeepSpeed's default, so that no
// earlier configuration's survives; "auto" (reduce and prefetch buckets) is the HF Trainer's hidden-size rule,
// 0 here (integrations/deepspeed.py trainer_config_finalize: hidden², 0.9 × hidden²).
void readBuffers(AutoValues& a) {
    Mapping& m = a.m;
    const Config defaults;
    for (const auto& [path, key, value, hfAuto] :
         {std::tuple<std::string_view, std::string_view, double, bool>{"zero_optimization.reduce_bucket_size", "reduce_bucket_size",
                                                                       defaults.reduceBucketSize, true},
          {"zero_optimization.sub_group_size", "sub_group_size", defaults.subGroupSize, false},
          {"zero_optimization.stage3_prefetch_bucket_size", "stage3_prefetch_bucket_size", defaults.prefetchBucketSize, true},
          {"zero_optimization.stage3_max_live_parameters", "stage3_max_live_parameters", defaults.maxLiveParameters, false}}) {
        if (hfAuto && a.isAuto(path))
            m.setNumber(key, 0);
        else if (const auto n = a.numberOrAuto(path))
            m.setNumber(key, *n);
        else
            m.setNumber(key, value);
    }
    // stage3_param_persistence_threshold (default 1e5): "auto" is the HF Trainer's 10 × hidden_size, which the file
    // cannot say; below any matrix either way, so DeepSpeed's default is taken and said.
    const std::string_view persistence = "zero_optimization.stage3_param_persistence_threshold";
    if (a.isAuto(persistence)) {
        m.setNumber("stage3_param_persistence_threshold", defaults.persistenceThreshold);
        m.warn("stage3_param_persistence_threshold auto (10 × hidden): 1e5 taken");
    } else {
        m.setNumber("stage3_param_persistence_threshold", a.numberOrAuto(persistence).value_or(defaults.persistenceThreshold));
    }
}

}  // namespace

void importDeepspeed(Document& d, Mapping& m) {
    m.training(Framework::deepspeed);
    // AutoTP (tensor_parallel.autotp_size) shards the model's linears over TP ranks; no pipeline or context parallelism.
    const double tp = d.number("tensor_parallel.autotp_size").value_or(1);
    m.setNumber("tp", tp);
    m.setNumber("pp", 1);
    m.setNumber("cp", 1);
    m.setNumber("ep", 1);
    m.setNumber("vpp", 1);
    m.setBool("sp", false);
    AutoValues a{d, m};
    const auto stage = a.numberOrAuto("zero_optimization.stage");
    m.setNumber("zero", stage.value_or(0));
    const auto optimizerDevice = d.string("zero_optimization.offload_optimizer.device").value_or("none");
    const auto paramDevice = d.string("zero_optimization.offload_param.device").value_or("none");
    m.set("offload", paramDevice == "cpu" || paramDevice == "nvme"           ? "all"
                     : optimizerDevice == "cpu" || optimizerDevice == "nvme" ? "optimizer"
                                                                             : "none");
    readPrecision(a);
    readBatch(a);
    readBuffers(a);
    // DeepSpeed's activation_checkpointing section configures the checkpointing the model code calls.
    const bool checkpointing = d.present("activation_checkpointing");
    m.set("ckpt", checkpointing ? "full" : "none");
    if (checkpointing)
        m.warn("activation_checkpointing configures deepspeed.checkpointing, which the model code must call: ckpt full assumed");
    if (const auto type = d.string("optimizer.type")) {
        const std::string t = lower(*type);
        if (t == "adam" || t == "adamw" || t == "fusedadam" || t == "cpuadam")
            m.set("optimizer", "adamw");
        else
            m.unmapped("optimizer.type", *type, "not Adam or AdamW");
    }
    if (!d.present("zero_optimization") && !d.present("train_micro_batch_size_per_gpu") && !d.present("train_batch_size"))
        m.error("not a DeepSpeed config: none of zero_optimization, train_batch_size, train_micro_batch_size_per_gpu");
    m.warn("a DeepSpeed config does not name the model: choose it (model, or --hf-config)");
    d.listUnread(m, kDeepspeedIgnored, "not modelled by membudget (it uses DeepSpeed's defaults)");
}

ExportResult exportDeepspeed(const Config& c) {
    Exporter e(c);
    e.skipTrainingExtras(ImportFormat::deepspeed);
    for (const auto& [key, value] : {std::pair<std::string, double>{"pp", c.pp}, {"cp", c.cp}, {"ep", c.ep}, {"vpp", c.vpp}})
        if (value > 1) e.skip(key, formatNumber(value), "a DeepSpeed ZeRO config has no pipeline, context or expert parallelism");
    if (c.sp) e.skip("sp", "true", "a DeepSpeed ZeRO config has no sequence parallelism");
    Text j;
    j << "{\n  \"train_batch_size\": " << formatNumber(c.mb * c.microbatches * c.dp)
      << ",\n  \"train_micro_batch_size_per_gpu\": " << formatNumber(c.mb)
      << ",\n  \"gradient_accumulation_steps\": " << formatNumber(c.microbatches) << ",\n";
    if (c.precision == Precision::bf16 || c.precision == Precision::fp8) j << "  \"bf16\": {\"enabled\": true},\n";
    if (c.precision == Precision::fp16) j << "  \"fp16\": {\"enabled\": true},\n";
    if (c.precision == Precision::fp8) e.skip("precision", "fp8", "DeepSpeed trains in bf16, fp16 or fp32; written as bf16");
    if (c.tp > 1) j << "  \"tensor_parallel\": {\"autotp_size\": " << formatNumber(c.tp) << "},\n";
    j << "  \"zero_optimization\": {\"stage\": " << formatNumber(c.zero);
    if (c.offload != Offload::none) j << ", \"offload_optimizer\": {\"device\": \"cpu\"}";
    if (c.offload == Offload::all) j << ", \"offload_param\": {\"device\": \"cpu\"}";
    // DeepSpeed's buffers where they are not its defaults (0: the HF Trainer's "auto").
    const Config defaults;
    for (const auto& [key, value, standard] :
         {std::tuple<std::string_view, double, double>{"reduce_bucket_size", c.reduceBucketSize, defaults.reduceBucketSize},
          {"sub_group_size", c.subGroupSize, defaults.subGroupSize},
          {"stage3_prefetch_bucket_size", c.prefetchBucketSize, defaults.prefetchBucketSize},
          {"stage3_max_live_parameters", c.maxLiveParameters, defaults.maxLiveParameters}})
        if (value != standard) j << ", \"" << key << "\": " << (value == 0 ? std::string("\"auto\"") : formatNumber(value));
    if (c.persistenceThreshold != defaults.persistenceThreshold)
        j << ", \"stage3_param_persistence_threshold\": " << formatNumber(c.persistenceThreshold);
    j << "},\n";
    if (c.ckpt != Checkpointing::none)
        j << "  \"activation_checkpointing\": {\"partition_activations\": false, \"contiguous_memory_optimization\": false},\n";
    if (c.ckpt == Checkpointing::selective || c.ckpt == Checkpointing::op)
        e.skip("ckpt", std::string(toString(c.ckpt)), "DeepSpeed checkpoints what the model code wraps; written as full");
    if (c.optimizer != Optimizer::adamw) e.skip("optimizer", std::string(toString(c.optimizer)), "written for AdamW");
    j << "  \"optimizer\": {\"type\": \"AdamW\"}\n}\n";
    ExportResult r = std::move(e.result());
    r.text = j.str();
    return r;
}

}  // namespace membudget::detail
