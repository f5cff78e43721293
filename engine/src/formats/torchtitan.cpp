// torchtitan (torchtitan/config/job_config.py; the llama3 and deepseek_v3 flavors): a TOML job config read into
// membudget's keys over the shared reader, and a configuration written back as one over the shared writer.
#include "formats/torchtitan.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <string>

#include "formats/framework_names.hpp"
#include "formats/reader.hpp"
#include "formats/writer.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/base/text.hpp"
#include "membudget/formats/format_types.hpp"
#include "membudget/model/config.hpp"

namespace membudget::detail {

constexpr std::string_view kTorchtitanIgnored[] = {"job",
                                                   "metrics",
                                                   "checkpoint",
                                                   "lr_scheduler",
                                                   "profiling",
                                                   "comm",
                                                   "validation",
                                                   "fault_tolerance",
                                                   "experimental",
                                                   "memory_estimation",
                                                   "optimizer.lr",
                                                   "optimizer.eps",
                                                   "optimizer.weight_decay",
                                                   "optimizer.beta1",
                                                   "optimizer.beta2",
                                                   "optimizer.implementation",
                                                   "optimizer.early_step_in_backward",
                                                   "training.steps",
                                                   "training.max_norm",
                                                   "training.dataset",
                                                   "training.dataset_path",
                                                   "training.warmup_steps",
                                                   "training.seed",
                                                   "training.deterministic",
                                                   "training.gc_freq",
                                                   "model.tokenizer_path",
                                                   "model.hf_assets_path",
                                                   "model.print_after_conversion",
                                                   "model.norm_type",
                                                   "float8",
                                                   "activation_checkpoint.selective_ac_option",
                                                   "parallelism.pipeline_parallel_split_points",
                                                   "parallelism.module_fqns_per_model_part",
                                                   "parallelism.pipeline_parallel_layers_per_stage",
                                                   "parallelism.pipeline_parallel_first_stage_less_layers",
                                                   "parallelism.pipeline_parallel_last_stage_less_layers",
                                                   "parallelism.context_parallel_rotate_method",
                                                   "parallelism.fsdp_reshard_after_forward",
                                                   "parallelism.disable_loss_parallel",
                                                   "parallelism.enable_compiled_autograd",
                                                   "compile",
                                                   "quantize",
                                                   "training.local_batch_size",
                                                   "training.mixed_precision_reduce",
                                                   "activation_checkpoint.preserve_rng_state",
                                                   "activation_checkpoint.determinism_check",
                                                   "activation_checkpoint.debug",
                                                   "model.converters",
                                                   "training.global_batch_size"};

namespace {

// The parallel degrees the file states, and DP where they give it.
struct Degrees {
    double tp, pp, cp, ep, shard;
    std::optional<double> dp;
};

// The model: a preset by its name and flavor.
void readModel(Document& d, Mapping& m) {
    const auto name = d.string("model.name");
    const auto flavor = d.string("model.flavor");
    if (name && flavor) {
        const auto* found = std::find_if(std::begin(kTorchtitanFlavors), std::end(kTorchtitanFlavors),
                                         [&](const TorchtitanFlavor& f) { return f.name == *name && f.flavor == *flavor; });
        if (found != std::end(kTorchtitanFlavors)) {
            m.set("model", std::string(found->preset));
            // torchtitan's flavors build no multi-token-prediction layer unless asked (deepseek_v3/__init__.py
            // num_mtp_layers: int = 0), where the Hugging Face preset has DeepSeek-V3's one.
            m.setNumber("mtp_layers", 0);
        } else
            m.unmapped("model.flavor", *name + " " + *flavor, "no preset for this model and flavor; import its config.json");
    }
}

// [parallelism] expert_parallel_comm_backend (torchtitan config/configs.py until the token dispatchers moved
// into the model config): "standard" all-to-all, or DeepEP's buffer.
void readDispatcher(Document& d, Mapping& m, double ep) {
    if (const auto backend = d.string("parallelism.expert_parallel_comm_backend")) {
        if (*backend == "deepep")
            m.set("moe_dispatcher", "deepep");
        else if (*backend == "standard")
            m.set("moe_dispatcher", "alltoall");
        else {
            m.set("moe_dispatcher", "alltoall");
            m.unmapped("parallelism.expert_parallel_comm_backend", *backend, "only DeepEP's buffer is modelled; computed as alltoall");
        }
    } else if (ep > 1) {
        m.set("moe_dispatcher", "alltoall");  // experts over EP ranks through all-to-all: an earlier DeepEP does not survive
    }
    // [debug] moe_force_load_balance: round-robin routing (moe.py _debug_force_load_balance_routing); torchtitan has no
    // capacity factor, its routing is dropless.
    if (const auto forced = d.boolean("debug.moe_force_load_balance")) m.setBool("moe_force_balance", *forced);
}

// The layout: the parallel degrees, and FSDP2 or DDP.
Degrees readLayout(Document& d, Mapping& m) {
    Degrees g{};
    g.tp = d.number("parallelism.tensor_parallel_degree").value_or(1);
    g.pp = d.number("parallelism.pipeline_parallel_degree").value_or(1);
    g.cp = d.number("parallelism.context_parallel_degree").value_or(1);
    g.ep = d.number("parallelism.expert_parallel_degree").value_or(1);
    m.setNumber("tp", g.tp);
    m.setNumber("pp", g.pp);
    m.setNumber("cp", g.cp);
    m.setNumber("ep", g.ep);
    m.setBool("async_tp", d.boolean("parallelism.enable_async_tensor_parallel").value_or(false));
    readDispatcher(d, m, g.ep);
    g.shard = d.number("parallelism.data_parallel_shard_degree").value_or(-1);
    const double replicate = d.number("parallelism.data_parallel_replicate_degree").value_or(1);
    if (g.shard == -1)
        m.unmapped("parallelism.data_parallel_shard_degree", "-1",
                   "-1 takes the GPUs the other degrees leave, and the file does not say how many GPUs; set dp");
    else
        g.dp = g.shard * replicate;
    if (g.dp) m.setNumber("dp", *g.dp);
    // FSDP2 wherever the shard degree is not 1 or CP splits the sequence (ParallelDims.fsdp_enabled: dp_shard_enabled
    // or cp_enabled: the parameters are sharded over dp_shard × cp), else DDP (replicate).
    const bool fsdp = g.shard != 1 || g.cp > 1;
    m.setNumber("zero", fsdp ? 3 : 0);
    m.setBool("sp", g.tp > 1);  // torchtitan's TP plan shards the norms' regions (SequenceParallel)
    return g;
}

// The batch: the micro-batch, the micro-batches of a step and the pipeline's stages per rank.
void readBatch(Document& d, Mapping& m, const Degrees& g) {
    const auto local = d.number("training.local_batch_size") ? d.number("training.local_batch_size") : d.number("training.batch_size");
    const auto global = d.number("training.global_batch_size");
    if (g.pp > 1) {
        const double mb = d.number("parallelism.pipeline_parallel_microbatch_size").value_or(1);
        m.setNumber("mb", mb);
        if (local && std::fmod(*local, mb) == 0) m.setNumber("microbatches", *local / mb);
        // The schedules with several stages per rank (Interleaved1F1B, InterleavedZeroBubble, ZBVZeroBubble) make two.
        const auto schedule = d.string("parallelism.pipeline_parallel_schedule").value_or("1F1B");
        m.setNumber("vpp", schedule == "1F1B" || schedule == "GPipe" ? 1 : 2);
    } else {
        if (local) m.setNumber("mb", *local);
        if (local && g.dp && global && *global > 0) {
            if (std::fmod(*global, *local * *g.dp) == 0)
                m.setNumber("microbatches", *global / (*local * *g.dp));
            else
                m.unmapped("training.global_batch_size", formatNumber(*global), "not a multiple of local_batch_size × dp");
        } else {
            m.setNumber("microbatches", 1);
        }
        m.setNumber("vpp", 1);
    }
}

// Activation checkpointing: none, full, or selective by op or by a layer interval.
void readCheckpointing(Document& d, Mapping& m) {
    const auto mode = d.string("activation_checkpoint.mode").value_or("selective");
    const auto option = d.string("activation_checkpoint.selective_ac_option").value_or("2");
    m.setNumber("ckpt_every", 1);
    if (mode == "none") {
        m.set("ckpt", "none");
    } else if (mode == "full") {
        m.set("ckpt", "full");
    } else if (mode == "selective" && option == "op") {
        m.set("ckpt", "op");
    } else if (mode == "selective" && parseNumber(option)) {
        m.set("ckpt", "full");
        m.setNumber("ckpt_every", *parseNumber(option));
    } else {
        m.unmapped("activation_checkpoint.mode", mode, "not none, full or selective (op or a layer interval)");
    }
}

// compile.components (newer torchtitan) says what is compiled: the model's blocks, the loss, or both.
void readCompile(Document& d, Mapping& m) {
    bool compiled = d.boolean("compile.enable").value_or(false) || d.boolean("training.compile").value_or(false);
    if (compiled && d.present("compile.components")) {
        const auto components = d.strings("compile.components");
        if (std::find(components.begin(), components.end(), "model") == components.end()) {
            compiled = false;
            m.unmapped("compile.components", components.empty() ? "" : components.front(),
                       "only the loss is compiled; membudget's compile is the model's blocks");
        }
    }
    m.setBool("compile", compiled);
    // components (default ["model", "loss"]) without "loss": the blocks only, the loss eager. The older
    // training.compile compiled both (build_cross_entropy_loss, since d1f62be). Set whenever the blocks are
    // compiled, so that an earlier file's setting does not survive.
    if (compiled) {
        const auto components = d.strings("compile.components");
        m.setBool("compile_loss",
                  !d.present("compile.components") || std::find(components.begin(), components.end(), "loss") != components.end());
    }
}

// Precision (Float8 linears among it), the optimizer and CPU offload.
void readPrecisionAndOptimizer(Document& d, Mapping& m, double shard) {
    const auto converters = d.strings("model.converters");
    const bool float8 = std::find(converters.begin(), converters.end(), "float8") != converters.end() ||
                        std::find(converters.begin(), converters.end(), "quantize.linear.float8") != converters.end() ||
                        d.boolean("float8.enable_float8_linear").value_or(false);
    const auto param = d.string("training.mixed_precision_param").value_or("bfloat16");
    m.set("precision", float8 ? "fp8" : param == "float32" ? "fp32" : "bf16");
    if (float8) m.set("fp8_recipe", "torchao");
    if (const auto optimizer = d.string("optimizer.name")) {
        if (*optimizer == "AdamW" || *optimizer == "Adam")
            m.set("optimizer", "adamw");
        else
            m.unmapped("optimizer.name", *optimizer, "not AdamW or Adam");
    } else {
        m.set("optimizer", "adamw");
    }
    if (d.boolean("training.enable_cpu_offload").value_or(false)) m.set("offload", "all");
    // FP8 all-gather applies only to Float8 linears under FSDP (torchtitan float8.py: enable_fsdp_float8_all_gather
    // and dp_shard_enabled); set whenever Float8 is, so that an earlier file's setting does not survive.
    const bool fp8Gather = d.boolean("float8.enable_fsdp_float8_all_gather").value_or(false) ||
                           d.boolean("quantize.linear.float8.enable_fsdp_float8_all_gather").value_or(false);
    if (float8) m.setBool("fp8_all_gather", fp8Gather && shard != 1);
}

}  // namespace

void importTorchtitan(Document& d, Mapping& m) {
    m.training(Framework::torchtitan);
    readModel(d, m);
    const Degrees degrees = readLayout(d, m);
    readBatch(d, m, degrees);
    if (const auto seq = d.number("training.seq_len")) m.setNumber("seq", *seq);
    readCheckpointing(d, m);
    readCompile(d, m);
    readPrecisionAndOptimizer(d, m, degrees.shard);
    d.listUnread(m, kTorchtitanIgnored, "not modelled by membudget");
}

ExportResult exportTorchtitan(const Config& c) {
    Exporter e(c);
    e.skipTrainingExtras(ImportFormat::torchtitan);
    Text t;
    t << "[model]\n";
    bool named = false;
    for (const auto& f : kTorchtitanFlavors)
        if (!named && c.model == f.preset) {
            t << "name = \"" << f.name << "\"\nflavor = \"" << f.flavor << "\"\n";
            named = true;
        }
    if (!named)
        e.skip("model", c.name.empty() ? c.model : c.name,
               "torchtitan names its models by flavor: llama3 8B/70B/405B, deepseek_v3 16B/671B");
    if (c.precision == Precision::fp8) t << "converters = [\"float8\"]\n";
    if (c.fp8AllGather) t << "\n[float8]\nenable_fsdp_float8_all_gather = true\n";
    if (c.precision == Precision::fp8 && c.fp8Recipe != Fp8Recipe::torchao) e.skip("fp8_recipe", "te", "torchtitan's Float8 is torchao's");
    const bool pipelined = c.pp > 1;
    const double local = pipelined ? c.mb * c.microbatches : c.mb;
    t << "\n[training]\nlocal_batch_size = " << formatNumber(local)
      << "\nglobal_batch_size = " << formatNumber(pipelined ? local * c.dp : local * c.dp * c.microbatches)
      << "\nseq_len = " << formatNumber(c.seq) << "\n";
    if (c.precision == Precision::fp32) t << "mixed_precision_param = \"float32\"\n";
    if (c.precision == Precision::fp16) e.skip("precision", "fp16", "torchtitan trains in bfloat16 or float32");
    if (c.offload == Offload::all) t << "enable_cpu_offload = true\n";
    if (c.offload == Offload::optimizer) e.skip("offload", "optimizer", "torchtitan offloads everything (enable_cpu_offload) or nothing");
    if (c.zero == 1 || c.zero == 2)
        e.skip("zero", formatNumber(c.zero), "torchtitan shards everything (FSDP2, zero 3) or nothing (DDP, zero 0); written as FSDP2");
    else if (c.zero == 0 && c.cp > 1)
        e.skip("zero", "0", "CP > 1 shards over the CP ranks (fsdp_enabled)");
    t << "\n[parallelism]\ndata_parallel_replicate_degree = " << formatNumber(c.zero == 0 ? c.dp : 1)
      << "\ndata_parallel_shard_degree = " << formatNumber(c.zero == 0 ? 1 : c.dp) << "\ntensor_parallel_degree = " << formatNumber(c.tp)
      << "\npipeline_parallel_degree = " << formatNumber(c.pp) << "\ncontext_parallel_degree = " << formatNumber(c.cp)
      << "\nexpert_parallel_degree = " << formatNumber(c.ep) << "\n";
    if (c.experts > 0 && c.moeDispatcher == MoeDispatcher::deepep) t << "expert_parallel_comm_backend = \"deepep\"\n";
    if (c.mtpLayers > 0)
        e.skip("mtp_layers", formatNumber(c.mtpLayers),
               "torchtitan's flavors build none (num_mtp_layers = 0): set it in the model's config");
    if (c.experts > 0 && c.capacityFactor > 0)
        e.skip("capacity_factor", formatNumber(c.capacityFactor), "torchtitan's routing is dropless: no capacity factor");
    if (c.asyncTp) t << "enable_async_tensor_parallel = true\n";
    if (pipelined) {
        t << "pipeline_parallel_microbatch_size = " << formatNumber(c.mb) << "\npipeline_parallel_schedule = \""
          << (c.vpp > 1 ? "Interleaved1F1B" : "1F1B") << "\"\n";
        if (c.vpp > 2)
            e.skip("vpp", formatNumber(c.vpp), "torchtitan makes two stages per rank unless pipeline_parallel_layers_per_stage is set");
    }
    if (!c.sp && c.tp > 1) e.skip("sp", "false", "torchtitan's tensor parallelism always shards the norms' regions (sequence parallel)");
    t << "\n[activation_checkpoint]\n";
    switch (c.ckpt) {
        case Checkpointing::none:
            t << "mode = \"none\"\n";
            break;
        case Checkpointing::op:
            t << "mode = \"selective\"\nselective_ac_option = \"op\"\n";
            break;
        case Checkpointing::full:
            t << (c.ckptEvery > 1 ? "mode = \"selective\"\nselective_ac_option = \"" + formatNumber(c.ckptEvery) + "\"\n"
                                  : std::string("mode = \"full\"\n"));
            if (c.recomputeLayers > 0)
                e.skip("recompute_layers", formatNumber(c.recomputeLayers), "torchtitan checkpoints every N-th layer, not the first N");
            break;
        case Checkpointing::selective:
            t << "mode = \"selective\"\nselective_ac_option = \"op\"\n";
            e.skip("ckpt", "selective", "Megatron-LM's core-attention recomputation; written as torchtitan's op-level selective");
            break;
    }
    if (c.compile) t << "\n[compile]\nenable = true\ncomponents = " << (c.compileLoss ? "[\"model\", \"loss\"]" : "[\"model\"]") << "\n";
    if (c.optimizer != Optimizer::adamw) e.skip("optimizer", std::string(toString(c.optimizer)), "torchtitan's optimizers here: AdamW");
    t << "\n[optimizer]\nname = \"AdamW\"\n";
    if (c.experts > 0 && c.moeForceBalance) t << "\n[debug]\nmoe_force_load_balance = true\n";
    ExportResult r = std::move(e.result());
    r.text = "# membudget export: torchtitan job config (" + (c.name.empty() ? c.model : c.name) + ")\n" + notes(r, "#") + t.str();
    return r;
}

}  // namespace membudget::detail
