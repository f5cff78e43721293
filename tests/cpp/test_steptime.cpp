// The step-time estimate (engine/src/time/steptime.cpp): its arithmetic, its direction under each knob, the planner's
// recommendation, and its error on the published throughput of tests/fixtures/throughput.json.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <numeric>

#include "fixtures.hpp"
#include "membudget/base/choices.hpp"
#include "membudget/evaluate/evaluate.hpp"
#include "membudget/model/architecture.hpp"
#include "membudget/model/assignments.hpp"
#include "membudget/model/config.hpp"
#include "membudget/model/presets.hpp"
#include "membudget/model/validate.hpp"
#include "membudget/plan/advice.hpp"
#include "membudget/plan/plan.hpp"
#include "membudget/time/serving.hpp"
#include "membudget/time/steptime.hpp"
#include "time/runtime_constants.hpp"
#include "time/step_constants.hpp"

using namespace membudget;
using membudget::test::configFrom;
using membudget::test::fixture;

namespace {

Config configOf(std::vector<Assignment> assignments) {
    const ParsedConfig parsed = applyAssignments(assignments);
    INFO(parsed.problems.size() << " problems");
    REQUIRE(parsed.problems.empty());
    REQUIRE(validate(parsed.config).empty());
    return parsed.config;
}

double part(const StepTime& st, StepPart p) { return st.partSeconds[static_cast<size_t>(p)]; }

// Qwen3-30B-A3B under Megatron-LM on 8 H100s, EP 8 over NVLink, one micro-batch of `seq` tokens, then `changes`.
std::vector<Assignment> qwen3OnEightH100(const char* seq, const std::vector<Assignment>& changes) {
    std::vector<Assignment> all{{"model", "qwen3-30b-a3b"},
                                {"gpu", "h100-80gb"},
                                {"method", "membudget"},
                                {"framework", "megatron"},
                                {"tp", "1"},
                                {"dp", "8"},
                                {"ep", "8"},
                                {"mb", "1"},
                                {"seq", seq},
                                {"zero", "1"},
                                {"ckpt", "none"}};
    all.insert(all.end(), changes.begin(), changes.end());
    return all;
}

// The step as the model computes it at the runtime constants' values, before the reported step moves to its band's
// midpoint: what the tests of its arithmetic check.
StepTime modelStep(const Config& c) {
    std::array<detail::StageSpan, 16> stages;
    const size_t count = detail::stepTimeStages(c, stages);
    REQUIRE(count <= stages.size());
    return detail::estimateStepTime(c, detail::stepConstants(c), std::span(stages.data(), count));
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const size_t mid = values.size() / 2;
    return values.size() % 2 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

}  // namespace

TEST_CASE("the step time is the sum of its parts, and the throughput and MFU follow from it", "[steptime]") {
    const Config c = configOf({{"model", "llama-3.1-70b"},
                               {"gpu", "h100-80gb"},
                               {"method", "membudget"},
                               {"tp", "8"},
                               {"pp", "4"},
                               {"dp", "8"},
                               {"sp", "true"},
                               {"microbatches", "16"},
                               {"seq", "8192"},
                               {"ckpt", "selective"}});
    const StepTime st = estimateStepTime(c);
    REQUIRE(st.estimated);
    const double sum = std::accumulate(st.partSeconds.begin(), st.partSeconds.end(), 0.0);
    CHECK(st.stepSeconds == Approx(sum).epsilon(1e-12));
    CHECK(st.tokensPerStep == c.dp * c.mb * c.microbatches * c.seq);
    CHECK(st.tokensPerSecondPerGpu == Approx(st.tokensPerStep / st.stepSeconds / (c.tp * c.pp * c.dp * c.cp)).epsilon(1e-12));
    // MFU: torchtitan's 6·N + 12·L·a·d·s per token, N without the input embedding, over the dense BF16 peak.
    const double n = activeParameterCount(c) - c.vocab * c.hidden;
    const double perToken = 6 * n + 12 * c.layers * c.heads * headDimOf(c) * c.seq;
    CHECK(st.modelFlopsPerToken == Approx(perToken).epsilon(1e-12));
    CHECK(st.mfu == Approx(st.tokensPerSecondPerGpu * perToken / (c.peakTflops * 1e12)).epsilon(1e-12));
    // The bubble: (PP − 1)/(m·v + PP − 1) of the pipeline's time (the step less what follows the flush).
    CHECK(st.bubbleFraction == Approx(3.0 / (16 + 3)));
    const double pipeline = st.stepSeconds - part(st, StepPart::dataParallel) - part(st, StepPart::optimizer);
    CHECK(part(st, StepPart::pipelineBubble) / pipeline == Approx(st.bubbleFraction).epsilon(1e-9));
    // Every part is a duration; TP and PP are in use, CP and EP are not.
    for (double seconds : st.partSeconds) CHECK(seconds >= 0);
    CHECK(part(st, StepPart::tensorParallel) > 0);
    CHECK(part(st, StepPart::pipelineTransfer) > 0);
    CHECK(part(st, StepPart::contextParallel) == 0);
    CHECK(part(st, StepPart::expertParallel) == 0);
    // The same estimate reaches evaluate()'s result.
    CHECK(evaluate(c).stepTime.stepSeconds == st.stepSeconds);
}

TEST_CASE("the estimate moves the way each knob moves the step", "[steptime]") {
    const std::vector<Assignment> base{
        {"model", "llama-3.1-8b"}, {"gpu", "h100-80gb"}, {"method", "membudget"}, {"tp", "2"}, {"dp", "8"}, {"microbatches", "4"},
        {"seq", "8192"},           {"zero", "1"}};
    auto with = [&](std::vector<Assignment> changes) {
        std::vector<Assignment> all = base;
        all.insert(all.end(), changes.begin(), changes.end());
        return estimateStepTime(configOf(all));
    };
    const double none = with({{"ckpt", "none"}}).stepSeconds, selective = with({{"ckpt", "selective"}}).stepSeconds,
                 full = with({{"ckpt", "full"}}).stepSeconds;
    CHECK(none < selective);
    CHECK(selective < full);
    // Full recomputation costs about one more forward: between a quarter and a half of the step more.
    CHECK(full / none > 1.2);
    CHECK(full / none < 1.5);
    // FP8 linears on Hopper are faster; the A100 has no FP8 tensor cores.
    CHECK(with({{"precision", "fp8"}}).stepSeconds < with({}).stepSeconds);
    // A faster GPU is faster; a slower network makes the data-parallel part longer.
    CHECK(with({{"gpu", "b200"}}).stepSeconds < with({}).stepSeconds);
    CHECK(with({{"gpu", "a100-80gb"}}).stepSeconds > with({}).stepSeconds);
    // DP over 16 GPUs: inside one 16-GPU node it runs at NVLink's bandwidth, across 8-GPU nodes at the network's.
    CHECK(part(with({{"gpus_per_node", "16"}}), StepPart::dataParallel) < part(with({}), StepPart::dataParallel));
    // TP across nodes pays the network's bandwidth for every layer's all-reduces.
    CHECK(part(with({{"gpus_per_node", "1"}}), StepPart::tensorParallel) > 5 * part(with({}), StepPart::tensorParallel));
    // ZeRO-3 gathers the parameters for every micro-batch; the distributed optimizer once per step.
    CHECK(with({{"zero", "3"}, {"microbatches", "32"}}).stepSeconds / 8 > with({{"zero", "1"}, {"microbatches", "32"}}).stepSeconds / 8);
    // Fused pointwise kernels (torch.compile) move fewer bytes than eager PyTorch.
    const auto eager = with({{"framework", "torchtitan"}, {"zero", "3"}}),
               compiled = with({{"framework", "torchtitan"}, {"zero", "3"}, {"compile", "true"}});
    CHECK(part(compiled, StepPart::memoryBound) < part(eager, StepPart::memoryBound));
    // FlashAttention in Triton saves what flash saves and runs slower.
    CHECK(part(with({{"attention", "triton"}}), StepPart::attention) > 1.8 * part(with({}), StepPart::attention));
    // A frozen base computes no weight gradients: LoRA's step is shorter.
    CHECK(with({{"finetune", "lora"}}).stepSeconds < with({}).stepSeconds);
    // Interleaving shrinks the bubble.
    CHECK(with({{"tp", "1"}, {"pp", "4"}, {"dp", "4"}, {"vpp", "2"}, {"microbatches", "8"}}).bubbleFraction <
          with({{"tp", "1"}, {"pp", "4"}, {"dp", "4"}, {"microbatches", "8"}}).bubbleFraction);
}

TEST_CASE("small point-to-point messages pay NCCL's latency, not only their bytes", "[steptime]") {
    // Pipeline sends and ring-attention passes of a short sequence: the bytes halve with the sequence, the latency of
    // each message stays (at least LL's 3.6 + 0.47 µs for one hop), so the time falls by less than half.
    auto with = [](const char* seq, std::vector<Assignment> changes) {
        std::vector<Assignment> all{{"model", "llama-3.1-8b"}, {"gpu", "h100-80gb"}, {"method", "membudget"}, {"tp", "1"}, {"dp", "1"},
                                    {"microbatches", "8"},     {"seq", seq}};
        all.insert(all.end(), changes.begin(), changes.end());
        return estimateStepTime(configOf(all));
    };
    const auto pp256 = with("256", {{"pp", "2"}}), pp128 = with("128", {{"pp", "2"}});
    const double sendFloor = 8 * 2 * (3.6 + 0.47) * 1e-6;  // 8 micro-batches, a send and its gradient, one hop each
    CHECK(part(pp128, StepPart::pipelineTransfer) >= sendFloor);
    CHECK(part(pp128, StepPart::pipelineTransfer) / part(pp256, StepPart::pipelineTransfer) > 0.6);
    // Ring attention over 8 GPUs at 1,024 tokens: 3 × 7 passes a layer, each at least one hop's latency, more than the
    // attention core hides, so CP costs time a bandwidth-only model would not see.
    // The exposed exchange plus the attention it hides is at least 8 micro-batches × 32 layers × 21 passes × 4.07 µs
    // (bandwidth alone gives about 1.5 µs a pass for these 0.5 MB chunks).
    const auto cp = with("1024", {{"cp", "8"}});
    CHECK(part(cp, StepPart::contextParallel) + part(cp, StepPart::attention) >= 8 * 32 * 21 * (3.6 + 0.47) * 1e-6);
}

TEST_CASE("FlashAttention in Triton holds what FlashAttention holds", "[steptime]") {
    for (const char* method : {"membudget", "korthikanti"}) {
        INFO(method);
        const Config flash = configOf({{"model", "llama-3.1-8b"}, {"method", method}, {"tp", "2"}, {"dp", "4"}, {"attention", "flash"}});
        const Config triton = configOf({{"model", "llama-3.1-8b"}, {"method", method}, {"tp", "2"}, {"dp", "4"}, {"attention", "triton"}});
        CHECK(evaluate(triton).totalBytes == evaluate(flash).totalBytes);
    }
}

TEST_CASE("a GEMM too small to fill the GPU's waves takes as long as one that fills them", "[steptime]") {
    // 132 SMs of 256 × 128 tiles: a 512-token micro-batch of a 4096-wide model under TP 8 (one wave of 2 × 4 = 8 tiles)
    // takes the time of a whole wave, so halving its tokens does not halve its matmul time.
    auto matmuls = [](const char* mb) {
        return estimateStepTime(configOf({{"model", "llama-3.1-8b"},
                                          {"gpu", "h100-80gb"},
                                          {"method", "membudget"},
                                          {"tp", "8"},
                                          {"dp", "1"},
                                          {"seq", "256"},
                                          {"mb", mb},
                                          {"microbatches", "1"}}))
            .partSeconds[static_cast<size_t>(StepPart::matmuls)];
    };
    CHECK(matmuls("1") > 0.9 * matmuls("2"));
    // Large ones scale with their FLOPs.
    auto large = [](const char* mb) {
        return estimateStepTime(configOf({{"model", "llama-3.1-8b"},
                                          {"gpu", "h100-80gb"},
                                          {"method", "membudget"},
                                          {"tp", "1"},
                                          {"dp", "1"},
                                          {"seq", "8192"},
                                          {"mb", mb},
                                          {"microbatches", "1"}}))
            .partSeconds[static_cast<size_t>(StepPart::matmuls)];
    };
    CHECK(large("2") / large("1") == Approx(2).epsilon(0.02));
}

TEST_CASE(
    "a MoE layer's step: routing through HBM, all-to-alls split by node and rerun by full recomputation, experts "
    "reduced over their own group",
    "[steptime][moe]") {
    // Qwen3-30B-A3B: 48 MoE layers, 128 experts, top-8, hidden 2048; Megatron-LM, one micro-batch of 4,096 tokens.
    const std::vector<Assignment> base{{"model", "qwen3-30b-a3b"},
                                       {"gpu", "h100-80gb"},
                                       {"method", "membudget"},
                                       {"framework", "megatron"},
                                       {"tp", "1"},
                                       {"pp", "1"},
                                       {"dp", "8"},
                                       {"mb", "1"},
                                       {"seq", "4096"},
                                       {"microbatches", "1"},
                                       {"zero", "1"},
                                       {"moe_force_balance", "true"}};
    auto with = [&](std::vector<Assignment> changes) {
        std::vector<Assignment> all = base;
        all.insert(all.end(), changes.begin(), changes.end());
        return configOf(all);
    };
    const Config ep8 = with({{"ep", "8"}, {"ckpt", "none"}});
    const double layers = 48, k = 8, h = 2048, tokens = 4096;
    const double copies = tokens * k * h;
    const double intra = ep8.nvlinkGbps * 1e9 * 0.8, inter = ep8.networkGbps * 1e9 * 0.8;
    // Inside a node: 7/8 of the copies leave each GPU over NVLink, four all-to-alls a layer (dispatch and combine, and
    // their gradients), each with one hop's latency of NCCL's Simple protocol (8.4 µs + 3.4 µs over NVLink, 9.6 µs
    // over the network), but at least what an eager all-to-all measured at 0 bytes (docs/constants.md: 50 µs among 8
    // GPUs of a node, 37 µs across 2 nodes).
    CHECK((8.4 + 3.4) * 1e-6 < 50e-6);
    const double nvlinkHop = 50e-6, networkHop = 37e-6;
    const double inNode = nvlinkHop + 7.0 / 8 * copies * 2 / intra;
    CHECK(part(modelStep(ep8), StepPart::expertParallel) == Approx(4 * layers * inNode).epsilon(1e-9));
    // Dropless routing: the all-to-all lasts as long as the busiest rank's 1.25 times the even share takes.
    const Config dropless = with({{"ep", "8"}, {"ckpt", "none"}, {"moe_force_balance", "false"}});
    CHECK(part(modelStep(dropless), StepPart::expertParallel) ==
          Approx(4 * layers * (nvlinkHop + 1.25 * 7.0 / 8 * copies * 2 / intra)).epsilon(1e-9));
    // Full recomputation runs each layer's dispatch and combine again: six.
    const Config full = with({{"ep", "8"}, {"ckpt", "full"}});
    CHECK(part(modelStep(full), StepPart::expertParallel) == Approx(6 * layers * inNode).epsilon(1e-9));
    // So does Megatron-LM's selective moe module, which checkpoints dispatch and combine with the experts, and it runs
    // the MoE block's matmuls again; moe_act frees an output and reruns no matmul, nor any all-to-all.
    const Config moeModule = with({{"ep", "8"}, {"ckpt", "selective"}, {"recompute_modules", "moe"}});
    CHECK(part(modelStep(moeModule), StepPart::expertParallel) == Approx(6 * layers * inNode).epsilon(1e-9));
    // torchtitan's op-level SAC saves no grouped GEMM: a MoE block's routed experts run again whole, so it recomputes
    // more than half of what full recomputation does (every other mm of a dense block), and no all-to-all.
    const Config titanOp = with({{"ep", "8"}, {"ckpt", "op"}, {"framework", "torchtitan"}, {"zero", "3"}});
    const Config titanFull = with({{"ep", "8"}, {"ckpt", "full"}, {"framework", "torchtitan"}, {"zero", "3"}});
    CHECK(part(modelStep(titanOp), StepPart::recomputation) > 0.5 * part(modelStep(titanFull), StepPart::recomputation));
    CHECK(part(modelStep(titanOp), StepPart::expertParallel) == Approx(4 * layers * inNode).epsilon(1e-9));
    const Config actModule = with({{"ep", "8"}, {"ckpt", "selective"}, {"recompute_modules", "moe_act"}});
    CHECK(part(modelStep(actModule), StepPart::expertParallel) == Approx(4 * layers * inNode).epsilon(1e-9));
    CHECK(part(modelStep(moeModule), StepPart::recomputation) > part(modelStep(actModule), StepPart::recomputation));
    CHECK(part(modelStep(actModule), StepPart::recomputation) == 0);
    // EP 16 over two 8-GPU nodes: 7/16 over NVLink while 8/16 go over the network; the network's share sets the time.
    const Config ep16 = with({{"ep", "16"}, {"dp", "16"}, {"ckpt", "none"}});
    const double twoNodes = std::max(nvlinkHop + 7.0 / 16 * copies * 2 / intra, networkHop + 8.0 / 16 * copies * 2 / inter);
    CHECK(twoNodes == Approx(networkHop + 8.0 / 16 * copies * 2 / inter));
    CHECK(part(modelStep(ep16), StepPart::expertParallel) == Approx(4 * layers * twoNodes).epsilon(1e-9));
    // DeepEP sends a token once to each remote node that holds one of its experts, and forwards the copies over NVLink
    // (DeepSeek-V3 report §3.2.2): over two nodes of 64 experts each, a token reaches the other node unless all 8 of
    // its experts are local, C(64, 8) / C(128, 8); the network carries that one copy instead of 4 of the 8.
    const Config deepep = with({{"ep", "16"}, {"dp", "16"}, {"ckpt", "none"}, {"moe_dispatcher", "deepep"}});
    double allLocal = 1;
    for (int i = 0; i < 8; ++i) allLocal *= (64.0 - i) / (128.0 - i);
    const double oncePerNode = networkHop + (1 - allLocal) * tokens * h * 2 / inter;
    CHECK(oncePerNode > nvlinkHop + (7.0 / 16 + 8.0 / 16 * 7.0 / 8) * copies * 2 / intra);  // the network still sets the time
    CHECK(part(modelStep(deepep), StepPart::expertParallel) == Approx(4 * layers * oncePerNode).epsilon(1e-9));
    CHECK(part(modelStep(deepep), StepPart::expertParallel) < part(modelStep(ep16), StepPart::expertParallel) / 3);
    // Under TP with sequence parallelism a rank routes its s/TP shard of the tokens (Megatron-LM's MoELayer takes
    // [s/TP, b, h]): half the copies leave each GPU at TP 2.
    const Config tp2 = with({{"ep", "8"}, {"etp", "1"}, {"tp", "2"}, {"sp", "true"}, {"dp", "4"}, {"ckpt", "none"}});
    CHECK(part(modelStep(tp2), StepPart::expertParallel) ==
          Approx(4 * layers * (nvlinkHop + 7.0 / 8 * copies / 2 * 2 / intra)).epsilon(1e-9));
    // A rank of more than one expert sorts the received copies by expert and back: 4 more passes over them, forward
    // and backward, BF16 (EP 1 holds every expert and sorts nothing; its all-to-alls are none).
    const Config ep1 = with({{"ep", "1"}, {"ckpt", "none"}});
    // At the share of HBM's bandwidth a streaming kernel reaches (BabelStream on the H100, docs/constants.md).
    const double hbm = ep8.hbmTbps * 1e12 * 0.876;
    CHECK(part(modelStep(ep8), StepPart::memoryBound) - part(modelStep(ep1), StepPart::memoryBound) ==
          Approx(layers * 2 * 4 * copies * 2 / hbm).epsilon(1e-6));
    // EP 1 has no all-to-all, but a Megatron-LM MoE layer's forward still waits on the host past its sync (the
    // per-expert counts size TE GroupedLinear's m_splits): 30 launches and 2 per local expert (128 here), each a
    // Python-issued launch (7.5 µs, docs/constants.md), less the GPU work they pace; FP8 quantizes each expert's split
    // (12 more a local expert). torchtitan's grouped GEMM is one launch and is not counted.
    const double hostPaced = part(modelStep(ep1), StepPart::expertParallel);
    CHECK(hostPaced > 0);
    CHECK(hostPaced <= layers * (30 + 2 * 128) * 7.5e-6);
    const Config ep1Fp8 = with({{"ep", "1"}, {"ckpt", "none"}, {"precision", "fp8"}});
    CHECK(part(modelStep(ep1Fp8), StepPart::expertParallel) > hostPaced + layers * 12 * 128 * 7.5e-6 * 0.9);
    const Config titanEp1 = with({{"ep", "1"}, {"ckpt", "none"}, {"framework", "torchtitan"}, {"zero", "3"}});
    CHECK(part(modelStep(titanEp1), StepPart::expertParallel) == 0);
    // The experts' gradients are reduced over their own data-parallel group, TP × CP × DP ÷ (ETP × EP): at EP 8 over
    // DP 8 a group of one, so only the dense parameters cross the network; at EP 1 every expert is reduced over DP 8.
    CHECK(part(modelStep(ep8), StepPart::dataParallel) < 0.2 * part(modelStep(ep1), StepPart::dataParallel));
    // The distributed optimizer shards the experts over that group: EP 8 steps all 16 of this rank's experts, EP 1 an
    // eighth of all 128, the same count.
    CHECK(part(modelStep(ep8), StepPart::optimizer) == Approx(part(modelStep(ep1), StepPart::optimizer)).epsilon(1e-12));
    // With DP 16 over EP 8 the experts' group is 2: half of this rank's experts are stepped.
    const Config dp16 = with({{"ep", "8"}, {"dp", "16"}, {"ckpt", "none"}});
    CHECK(part(modelStep(dp16), StepPart::optimizer) < part(modelStep(ep8), StepPart::optimizer));
}

TEST_CASE("Megatron-LM's overlap switches hide the distributed optimizer's reduce and gather behind compute", "[steptime]") {
    const std::vector<Assignment> base{
        {"model", "llama-3.1-8b"}, {"gpu", "h100-80gb"}, {"method", "membudget"}, {"framework", "megatron"}, {"tp", "1"}, {"dp", "64"},
        {"microbatches", "4"},     {"seq", "8192"},      {"zero", "1"},           {"ckpt", "full"}};
    auto dp = [&](std::vector<Assignment> changes) {
        std::vector<Assignment> all = base;
        all.insert(all.end(), changes.begin(), changes.end());
        return part(estimateStepTime(configOf(all)), StepPart::dataParallel);
    };
    // Off by default (arguments.py): the reduce-scatter and the all-gather are all exposed.
    const double exposed = dp({});
    const double reduceHidden = dp({{"overlap_grad_reduce", "true"}});
    const double bothHidden = dp({{"overlap_grad_reduce", "true"}, {"overlap_param_gather", "true"}});
    CHECK(exposed > 0);
    CHECK(reduceHidden < exposed);
    CHECK(bothHidden < reduceHidden);
    // The switches are Megatron-LM's; the parameter gather's needs the distributed optimizer.
    auto refusedAt = [](std::vector<Assignment> all) { return test::refusedAt(applyAssignments(all).config); };
    CHECK(refusedAt({{"framework", "torchtitan"}, {"zero", "3"}, {"overlap_grad_reduce", "true"}}) == "overlap_grad_reduce");
    CHECK(refusedAt({{"framework", "megatron"}, {"zero", "0"}, {"overlap_param_gather", "true"}}) == "overlap_param_gather");
}

TEST_CASE("Megatron-LM's EP all-to-all overlap hides each all-to-all behind the paired micro-batch's compute", "[steptime][moe]") {
    // Qwen3-30B-A3B on 8 H100s, EP 8 over NVLink.
    const std::vector<Assignment> base = qwen3OnEightH100("4096", {});
    auto ep = [&](const std::vector<Assignment>& changes) {
        return part(estimateStepTime(configOf(qwen3OnEightH100("4096", changes))), StepPart::expertParallel);
    };
    // One micro-batch has no other to pair with: nothing hidden.
    CHECK(ep({{"microbatches", "1"}, {"overlap_moe_comm", "true"}}) == Approx(ep({{"microbatches", "1"}})).epsilon(1e-12));
    // Eight: seven pair (the first forward and the last backward do not), each all-to-all shown only past what it runs
    // beside, so at least the unpaired eighth stays.
    const double exposed = ep({{"microbatches", "8"}}), overlapped = ep({{"microbatches", "8"}, {"overlap_moe_comm", "true"}});
    CHECK(overlapped < exposed);
    CHECK(overlapped >= exposed / 8 * (1 - 1e-12));
    // Over the network (one GPU a node) the all-to-alls outgrow the compute beside them: a larger share stays exposed
    // than inside the node.
    const double slowExposed = ep({{"microbatches", "8"}, {"gpus_per_node", "1"}}),
                 slowOverlapped = ep({{"microbatches", "8"}, {"gpus_per_node", "1"}, {"overlap_moe_comm", "true"}});
    CHECK(slowOverlapped < slowExposed);
    CHECK(slowOverlapped / slowExposed > overlapped / exposed);
    // Under a pipeline the first stage's warm-up forwards, 2(PP − 1) + (v − 1)·PP chunks, are not paired: PP 2 × v 2
    // over 8 micro-batches leaves 4 + 1 of 16 chunks unpaired.
    const std::vector<Assignment> piped{{"pp", "2"}, {"vpp", "2"}, {"dp", "4"}, {"ep", "4"}, {"microbatches", "8"}};
    std::vector<Assignment> pipedOverlap = piped;
    pipedOverlap.push_back({"overlap_moe_comm", "true"});
    CHECK(ep(pipedOverlap) >= ep(piped) * 5 / 16 * (1 - 1e-12));
    CHECK(ep(pipedOverlap) < ep(piped));
    // Megatron-LM's own checks (transformer_config.py): expert parallelism, no full recomputation, interleaving under
    // a pipeline, and Megatron-LM itself.
    auto refusedAt = [&](std::vector<Assignment> changes) {
        std::vector<Assignment> all = base;
        all.insert(all.end(), changes.begin(), changes.end());
        all.push_back({"overlap_moe_comm", "true"});
        return test::refusedAt(applyAssignments(all).config);
    };
    CHECK(refusedAt({{"ep", "1"}}) == "overlap_moe_comm");
    CHECK(refusedAt({{"ckpt", "full"}}) == "overlap_moe_comm");
    CHECK(refusedAt({{"pp", "2"}, {"dp", "4"}, {"ep", "4"}}) == "overlap_moe_comm");
    CHECK(refusedAt({{"framework", "torchtitan"}, {"zero", "3"}}) == "overlap_moe_comm");
    // Advice that brings full recomputation turns the overlap off, and says so.
    {
        std::vector<Assignment> all = base;
        all.push_back({"overlap_moe_comm", "true"});
        all.push_back({"microbatches", "8"});
        const std::vector<Advice> advice = advise(configOf(all));
        const auto full = std::find_if(advice.begin(), advice.end(), [](const Advice& a) { return a.change.rfind("ckpt = full", 0) == 0; });
        REQUIRE(full != advice.end());
        CHECK(full->change == "ckpt = full; overlap_moe_comm = false");
        CHECK(full->query == "ckpt=full&overlap_moe_comm=false");
    }
    // The planner keeps the switch on the rows that allow it and drops it where a row's layout refuses it, so every
    // row it lists validates.
    PlanRequest request;
    request.base = configOf([&] {
        std::vector<Assignment> all = base;
        all.push_back({"overlap_moe_comm", "true"});
        all.push_back({"microbatches", "8"});
        return all;
    }());
    request.gpus = 8;
    request.globalBatch = 64;
    request.includeTight = true;
    const PlanResult result = plan(request);
    REQUIRE(!result.rows.empty());
    bool kept = false;
    for (const PlanRow& row : result.rows) {
        const Config c = planRowConfig(request.base, row);
        INFO(row.tp << " " << row.pp << " " << row.ep << " " << toString(row.ckpt));
        CHECK(validate(c).empty());
        kept = kept || c.overlapMoeComm;
        if (row.pp > 1 || row.ckpt == Checkpointing::full || row.ep <= 1) CHECK_FALSE(c.overlapMoeComm);
    }
    CHECK(kept);
}

TEST_CASE("a MoE layer's grouped GEMMs slow down as each expert gets fewer rows", "[steptime][moe]") {
    // Qwen3-30B-A3B on 8 H100s with EP 8 and forced balance: 16 local experts. At 4,096 tokens a micro-batch each expert
    // takes 4,096 × 8 × 8 / 128 = 2,048 rows; at 256 tokens, 128. The matmul FLOPs scale with the tokens; the routed
    // experts' time scales with FLOPs over rows / (rows + M½) (groupedGemmHalfRateRows, DeepGEMM's H800 tables).
    auto config = [](const char* seq) { return configOf(qwen3OnEightH100(seq, {{"moe_force_balance", "true"}})); };
    const Config large = config("4096"), small = config("256");
    const double halfRate = detail::runtimeConstant(detail::RuntimeConstant::groupedGemmHalfRateRows, large).value;
    CHECK(halfRate == 180);
    const double matmulLarge = part(estimateStepTime(large), StepPart::matmuls);
    const double matmulSmall = part(estimateStepTime(small), StepPart::matmuls);
    // Per token, the small run's matmuls take longer: its routed experts run at 128 / 308 of the rate, the large run's
    // at 2,048 / 2,228 (about 2 times slower per token), while attention's linears lose only their waves (1.25 times
    // with every grouped GEMM at the full rate).
    const double perTokenRatio = (matmulSmall / 256) / (matmulLarge / 4096);
    CHECK(perTokenRatio > 1.6);
    CHECK(perTokenRatio < (2048.0 / 2228) / (128.0 / 308));
}

TEST_CASE("every speed carries its band: the runtime constants' published ranges around the estimate", "[steptime][band]") {
    // Llama-3.1-8B on 8 H100s: the band's slow end takes every constant at the slow end of its range (the GEMMs at 74% of
    // the best shape's rate among them), the fast end the other; the estimate lies between, and the rates and the run
    // follow the step.
    const Config c = configOf({{"model", "llama-3.1-8b"},
                               {"gpu", "h100-80gb"},
                               {"method", "membudget"},
                               {"framework", "megatron"},
                               {"tp", "1"},
                               {"dp", "8"},
                               {"mb", "2"},
                               {"seq", "8192"},
                               {"zero", "1"},
                               {"train_tokens", "1e12"},
                               {"gpu_hour_usd", "2"}});
    const StepTime st = estimateStepTime(c);
    REQUIRE(st.estimated);
    CHECK(st.stepSecondsLow < st.stepSeconds);
    CHECK(st.stepSecondsHigh > st.stepSeconds);
    // The matmuls alone at 74% of the rate would make the step 1 / 0.741 as long as the model's figure at the values;
    // the other constants' slow ends add a few percent.
    CHECK(st.stepSecondsHigh < modelStep(c).stepSeconds / 0.741 * 1.1);
    CHECK(st.tokensPerSecondPerGpuLow == Approx(st.tokensPerSecondPerGpu * st.stepSeconds / st.stepSecondsHigh));
    CHECK(st.tokensPerSecondPerGpuHigh == Approx(st.tokensPerSecondPerGpu * st.stepSeconds / st.stepSecondsLow));
    CHECK(st.mfuLow < st.mfu);
    CHECK(st.runSecondsHigh == Approx(st.runSeconds * st.stepSecondsHigh / st.stepSeconds));
    CHECK(st.runCostUsdLow <= st.runCostUsd);
    CHECK(st.runCostUsdHigh > st.runCostUsd);

    // Serving: TTFT, TPOT and throughput each inside their band, the slow end slower.
    Config served = configOf({{"model", "llama-3.1-8b"},
                              {"gpu", "h100-80gb"},
                              {"mode", "inference"},
                              {"framework", "vllm"},
                              {"tp", "1"},
                              {"mb", "32"},
                              {"seq", "2048"}});
    const ServingTime sv = estimateServingTime(served);
    REQUIRE(sv.estimated);
    CHECK(sv.tpotSecondsLow <= sv.tpotSeconds);
    CHECK(sv.tpotSecondsHigh > sv.tpotSeconds);
    CHECK(sv.ttftSecondsLow <= sv.ttftSeconds);
    CHECK(sv.ttftSecondsHigh > sv.ttftSeconds);
    CHECK(sv.outputTokensPerSecondPerGpuLow < sv.outputTokensPerSecondPerGpu);
    CHECK(sv.outputTokensPerSecondPerGpuHigh >= sv.outputTokensPerSecondPerGpu);
    // Reported at the band's midpoint, the model's figure at the constants' values inside the band.
    CHECK(sv.tpotSeconds == Approx((sv.tpotSecondsLow + sv.tpotSecondsHigh) / 2));
    const double valueTpot = estimateServingTimeValue(served).tpotSeconds;
    CHECK(sv.tpotSecondsLow <= valueTpot);
    CHECK(valueTpot <= sv.tpotSecondsHigh);
    CHECK(st.stepSeconds == Approx((st.stepSecondsLow + st.stepSecondsHigh) / 2));
}

TEST_CASE("TP's all-reduces pay NCCL's ring latency: LL for a small message, Simple for a large one", "[steptime]") {
    // Llama 3.1 8B over TP 8 in one node, no SP, no recomputation: 32 layers × 4 all-reduces of b·s·h·2 B each.
    auto tp = [](const char* seq) {
        const Config c = configOf({{"model", "llama-3.1-8b"},
                                   {"gpu", "h100-80gb"},
                                   {"method", "membudget"},
                                   {"tp", "8"},
                                   {"dp", "1"},
                                   {"seq", seq},
                                   {"mb", "1"},
                                   {"microbatches", "1"},
                                   {"ckpt", "none"}});
        return std::pair{part(modelStep(c), StepPart::tensorParallel), c.nvlinkGbps * 1e9 * 0.8};
    };
    // NCCL src/graph/tuning.cc: a ring all-reduce of 2(t − 1) = 14 hops over NVLink, Simple 8.4 + 14 × 3.4 µs at the
    // bus bandwidth, LL 3.6 + 14 × 0.47 µs at a quarter of it; the faster one. An eager all-reduce among 8 GPUs takes
    // at least the 31 µs nccl-tests measured (docs/constants.md), above LL's 10.2 µs and below Simple's 56 µs.
    auto expected = [](double bytes, double bandwidth) {
        const double wire = 2.0 * 7 / 8 * bytes;
        const double simple = std::max((8.4 + 14 * 3.4) * 1e-6, 31e-6) + wire / bandwidth;
        const double ll = std::max((3.6 + 14 * 0.47) * 1e-6, 31e-6) + wire / (bandwidth / 4);
        return std::pair{std::min(simple, ll), ll < simple};
    };
    const auto [small, bandwidth] = tp("16");
    const auto [smallExpected, smallIsLl] = expected(16.0 * 4096 * 2, bandwidth);
    CHECK(smallIsLl);
    CHECK(small == Approx(32 * 4 * smallExpected).epsilon(1e-9));
    const auto [large, sameBandwidth] = tp("8192");
    const auto [largeExpected, largeIsLl] = expected(8192.0 * 4096 * 2, sameBandwidth);
    CHECK_FALSE(largeIsLl);
    CHECK(large == Approx(32 * 4 * largeExpected).epsilon(1e-9));
}

TEST_CASE("a run on a token budget is whole optimizer steps at the estimated step, on every GPU of the layout", "[steptime]") {
    std::vector<Assignment> assignments{
        {"model", "llama-3.1-8b"}, {"gpu", "h100-80gb"}, {"tp", "2"}, {"dp", "32"}, {"gpus", "64"}, {"mb", "2"},
        {"microbatches", "4"},     {"seq", "8192"}};
    const StepTime none = estimateStepTime(configOf(assignments));
    CHECK(none.runSteps == 0);
    CHECK(none.runSeconds == 0);
    CHECK(none.runGpuHours == 0);
    CHECK(none.runCostUsd == 0);
    // A budget that is not a whole number of global batches (32 × 2 × 4 × 8,192 = 2,097,152 tokens a step) rounds up:
    // the last step trains on a full batch too.
    const double budget = 1e12 + 1;
    assignments.push_back({"train_tokens", "1000000000001"});
    const Config c = configOf(assignments);
    const StepTime st = estimateStepTime(c);
    REQUIRE(st.estimated);
    CHECK(st.tokensPerStep == 2097152);
    CHECK(st.runSteps == std::ceil(budget / 2097152));
    CHECK(st.runSteps * st.tokensPerStep >= budget);
    CHECK((st.runSteps - 1) * st.tokensPerStep < budget);
    CHECK(st.runSeconds == Approx(st.runSteps * st.stepSeconds).epsilon(1e-12));
    CHECK(st.runGpuHours == Approx(64 * st.runSeconds / 3600).epsilon(1e-12));
    CHECK(st.runCostUsd == 0);  // no price given
    assignments.push_back({"gpu_hour_usd", "2.49"});
    const StepTime priced = estimateStepTime(configOf(assignments));
    CHECK(priced.runGpuHours == st.runGpuHours);
    CHECK(priced.runCostUsd == Approx(2.49 * st.runGpuHours).epsilon(1e-12));
    // Twice the GPUs at the same per-GPU batch: half the steps, the same tokens.
    const Config doubled = configOf({{"model", "llama-3.1-8b"},
                                     {"gpu", "h100-80gb"},
                                     {"tp", "2"},
                                     {"dp", "64"},
                                     {"gpus", "128"},
                                     {"mb", "2"},
                                     {"microbatches", "4"},
                                     {"seq", "8192"},
                                     {"train_tokens", "1000000000001"}});
    CHECK(estimateStepTime(doubled).runSteps == std::ceil(budget / (2 * 2097152)));
    // Out of range: named with its range.
    const std::vector<Assignment> negative{{"train_tokens", "-1"}};
    const ParsedConfig bad = applyAssignments(negative);
    REQUIRE(bad.problems.size() + validate(bad.config).size() > 0);
}

TEST_CASE("inference has no step-time estimate", "[steptime]") {
    const Config c = configOf({{"model", "llama-3.1-8b"}, {"mode", "inference"}, {"tp", "1"}, {"dp", "1"}});
    CHECK_FALSE(estimateStepTime(c).estimated);
    CHECK_FALSE(evaluate(c).stepTime.estimated);
}

TEST_CASE("the plan recommends its fastest fitting row, and an FSDP2 framework's rows are all valid", "[steptime][plan]") {
    PlanRequest request;
    request.base = configOf({{"model", "llama-3.1-8b"},
                             {"gpu", "h100-80gb"},
                             {"method", "membudget"},
                             {"framework", "torchtitan"},
                             {"zero", "3"},
                             {"seq", "8192"},
                             {"tp", "1"},
                             {"dp", "8"}});
    request.gpus = 64;
    request.globalBatch = 128;
    const PlanResult plan = membudget::plan(request);
    REQUIRE(plan.errors.empty());
    REQUIRE(plan.recommended.index >= 0);
    const PlanRow& best = plan.rows[static_cast<size_t>(plan.recommended.index)];
    CHECK(best.verdict == Verdict::fits);
    for (const PlanRow& row : plan.rows) {
        CHECK(row.stepSeconds > 0);
        if (row.verdict == Verdict::fits) CHECK(best.stepSeconds <= row.stepSeconds);
        // torchtitan shards with FSDP2 or not at all.
        CHECK((row.zero == 0 || row.zero == 3));
        // The row's estimate is its configuration's, its band too.
        const StepTime own = estimateStepTime(planRowConfig(request.base, row));
        CHECK(row.stepSeconds == own.stepSeconds);
        CHECK(row.tokensPerSecondPerGpuLow == own.tokensPerSecondPerGpuLow);
        CHECK(row.tokensPerSecondPerGpuHigh == own.tokensPerSecondPerGpuHigh);
        // As fast within the estimate: its band overlaps the recommended row's.
        CHECK(row.asFast == (row.verdict == best.verdict && row.tokensPerSecondPerGpuHigh >= best.tokensPerSecondPerGpuLow));
    }
    CHECK(best.asFast);
    const auto marked = std::count_if(plan.rows.begin(), plan.rows.end(), [](const PlanRow& r) { return r.asFast; });
    CHECK(marked < static_cast<long>(plan.rows.size()));  // the band separates some rows from the best
    CHECK_THAT(plan.recommended.reason, Catch::StartsWith("fastest that fits: "));
}

TEST_CASE("published training throughput: the estimate's error against a plain 40%-MFU estimate", "[steptime][validation]") {
    const auto& rows = fixture("throughput")["rows"];
    REQUIRE(rows.size() >= 60);
    std::vector<double> all, rated, baselineAll, baselineRated, moe, baselineMoe;
    // Ranking (issue 28, item 4): the configurations one source measured of one model on one cluster, as
    // scripts/throughput-table.mjs groups them, with each row's published and estimated tokens/s.
    std::map<std::string, std::vector<std::pair<double, double>>> rankingGroups;
    for (const auto& row : rows) {
        INFO(row["id"].get<std::string>());
        const Config c = configFrom(row["config"]);
        const StepTime st = estimateStepTime(c);
        REQUIRE(st.estimated);
        const double published = row["published"]["tokens_per_second_per_gpu"].get<double>();
        const double error = std::abs(st.tokensPerSecondPerGpu - published) / published;
        // The baseline: 0.4 × the dense BF16 peak over the model FLOPs per token.
        const double baseline = std::abs(0.4 * c.peakTflops * 1e12 / st.modelFlopsPerToken - published) / published;
        const auto& rc = row["config"];
        rankingGroups[row["source"]["title"].get<std::string>() + "|" + rc["model"].get<std::string>() + "|" +
                      rc.value("hidden", nlohmann::json("")).dump() + "|" + rc.value("layers", nlohmann::json("")).dump() + "|" +
                      rc["gpu"].get<std::string>() + "|" + std::to_string(c.tp * c.pp * c.cp * c.dp)]
            .push_back({published, st.tokensPerSecondPerGpu});
        // MoE rows (Megatron-Bridge's performance summary) are their own family: the estimate does not yet hold them
        // (issue 28), and their errors are bounded apart so that they neither hide nor break the dense bounds.
        if (c.experts > 0) {
            moe.push_back(error);
            baselineMoe.push_back(baseline);
            continue;
        }
        all.push_back(error);
        baselineAll.push_back(baseline);
        // complete = false: hardware the model cannot express (a power limit the source does not state), counted apart.
        if (row.value("complete", true)) {
            rated.push_back(error);
            baselineRated.push_back(baseline);
        }
    }
    REQUIRE(rated.size() >= 55);
    // Kendall's tau-b over every group's pairs pooled (docs/planner.md: 0.99 over 60 pairs): the goal is 0.8.
    double concordant = 0, discordant = 0, pairs = 0, tiesPublished = 0, tiesEstimate = 0;
    for (const auto& [key, group] : rankingGroups) {
        double c = 0, d = 0, n = 0, tx = 0, ty = 0;
        for (size_t i = 0; i < group.size(); ++i)
            for (size_t j = i + 1; j < group.size(); ++j) {
                const double dx = group[i].first - group[j].first, dy = group[i].second - group[j].second;
                n += 1;
                if (dx == 0) tx += 1;
                if (std::abs(dy) <= 1e-9 * std::max(group[i].second, group[j].second))
                    ty += 1;
                else
                    (dx * dy > 0 ? c : d) += dx * dy != 0 ? 1 : 0;
            }
        if (n == 0 || n == tx || n == ty) continue;  // a single row, or only ties: no order to compare
        concordant += c, discordant += d, pairs += n, tiesPublished += tx, tiesEstimate += ty;
    }
    REQUIRE(pairs >= 50);
    CHECK((concordant - discordant) / std::sqrt((pairs - tiesPublished) * (pairs - tiesEstimate)) >= 0.8);
    REQUIRE(moe.size() >= 8);
    // MoE: regression bounds at what the model gives now (docs/planner.md: median 70.9%, worst 302.1%), far from the
    // goal and no better than the plain 40%-MFU estimate: the routed experts' GEMM efficiency, dropless routing's
    // synchronisation and the launch path are not modelled yet. The median was 61.6% before the 26.04.01 rows stated
    // their overlap switches: hiding their DP time is right by the source, and leaves the missing MoE time showing.
    CHECK(median(moe) < 0.72);
    CHECK(*std::max_element(moe.begin(), moe.end()) < 3.1);
    // Regression bounds at what the model gives now (docs/planner.md's table, regenerated by
    // scripts/throughput-table.mjs): over the complete dense rows median 10.5% and worst 32.9%; over all dense rows
    // 10.8% and 53.5% (the rows marked incomplete run on hardware the model cannot express or leave settings unstated;
    // Megatron-Bridge's dense rows joined them: 10.2% before). The goal (10% and 25%) is not met; docs/planner.md
    // says where the model falls short.
    CHECK(median(rated) < 0.106);
    CHECK(*std::max_element(rated.begin(), rated.end()) < 0.34);
    CHECK(median(all) < 0.115);
    CHECK(*std::max_element(all.begin(), all.end()) < 0.55);
    // Ahead of the plain 40%-MFU estimate on the rated rows, median and worst, and on every row's worst.
    CHECK(median(rated) < median(baselineRated));
    CHECK(*std::max_element(rated.begin(), rated.end()) < *std::max_element(baselineRated.begin(), baselineRated.end()));
    CHECK(*std::max_element(all.begin(), all.end()) < *std::max_element(baselineAll.begin(), baselineAll.end()));
}

TEST_CASE("every GPU preset states its speed figures and their source", "[steptime][presets]") {
    for (const GpuPreset& gpu : gpuPresets()) {
        INFO(gpu.id);
        CHECK(gpu.peakTflops > 0);
        CHECK(gpu.fp8Tflops >= 0);
        CHECK((gpu.fp8Tflops == 0 || gpu.fp8Tflops > gpu.peakTflops));
        CHECK(gpu.matmulEfficiency > 0);
        CHECK(gpu.matmulEfficiency <= 1);
        CHECK(gpu.hbmTbps > 0);
        CHECK(gpu.nvlinkGbps > 0);
        CHECK(gpu.networkGbps > 0);
        CHECK(gpu.speedSource.size() > 40);
        // The preset sets the configuration's speed fields.
        Config c;
        applyGpuPreset(c, gpu);
        CHECK(c.peakTflops == gpu.peakTflops);
        CHECK(c.networkGbps == gpu.networkGbps);
    }
}

// docs/constants.md: one data file (engine/data/runtime-constants.json) gives each constant per GPU preset or vendor,
// with the published range it stays within; a preset without a CUDA compute capability takes AMD's rows.
TEST_CASE("runtime constants: each GPU's row, else its vendor's, inside its published range", "[steptime][constants]") {
    using namespace membudget::detail;
    for (const GpuPreset& gpu : gpuPresets())
        for (const RuntimeConstant id :
             {RuntimeConstant::eagerLaunchSeconds, RuntimeConstant::graphNodeSeconds, RuntimeConstant::smallKernelSeconds,
              RuntimeConstant::hbmStreamFraction, RuntimeConstant::decodeHbmFraction, RuntimeConstant::linkFraction,
              RuntimeConstant::groupedGemmHalfRateRows, RuntimeConstant::matmulShapeFraction, RuntimeConstant::attentionKernelSpeedup}) {
            Config c;
            applyGpuPreset(c, gpu);
            const ConstantRange r = runtimeConstant(id, c);
            INFO(gpu.id << " constant " << static_cast<int>(id));
            CHECK(r.value > 0);
            CHECK(r.low <= r.value);
            CHECK(r.value <= r.high);
        }
    auto of = [](RuntimeConstant id, const char* gpu) {
        Config c;
        c.gpu = gpu;
        return runtimeConstant(id, c).value;
    };
    // BabelStream per GPU where measured (H100 2.90–2.97 of 3.35 TB/s, H200 4.01–4.15 of 4.8, MI300X 4.09–4.26 of 5.3);
    // the B200 has none and takes NVIDIA's fallback.
    CHECK(of(RuntimeConstant::hbmStreamFraction, "h100-80gb") == 0.876);
    CHECK(of(RuntimeConstant::hbmStreamFraction, "h200") == 0.85);
    CHECK(of(RuntimeConstant::hbmStreamFraction, "mi300x") == 0.78);
    CHECK(of(RuntimeConstant::hbmStreamFraction, "b200") == 0.86);
    // Decode-shaped GEMMs (DeepGEMM on an H800, M = 64 and 128: median 68.6%); CDNA's derived from it.
    CHECK(of(RuntimeConstant::decodeHbmFraction, "h100-80gb") == 0.686);
    CHECK(of(RuntimeConstant::decodeHbmFraction, "mi300x") == 0.61);
    // Launches: NVIDIA's measured host cost and graph gap; hipGraph's larger gap on AMD. A GPU that is no preset is
    // taken as NVIDIA's.
    CHECK(of(RuntimeConstant::eagerLaunchSeconds, "h100-80gb") == 7.5e-6);
    CHECK(of(RuntimeConstant::graphNodeSeconds, "mi300x") > of(RuntimeConstant::graphNodeSeconds, "h100-80gb"));
    CHECK(of(RuntimeConstant::graphNodeSeconds, "no-such-gpu") == of(RuntimeConstant::graphNodeSeconds, "b200"));
    // FlashAttention-3 runs on Hopper only: its speedup over FlashAttention-2 widens the band there, nowhere else.
    auto range = [](RuntimeConstant id, const char* gpu) {
        Config c;
        c.gpu = gpu;
        return runtimeConstant(id, c);
    };
    CHECK(range(RuntimeConstant::attentionKernelSpeedup, "h100-80gb").high == 1.8);
    CHECK(range(RuntimeConstant::attentionKernelSpeedup, "a100-80gb").high == 1);
    CHECK(range(RuntimeConstant::attentionKernelSpeedup, "h100-80gb").value == 1);
    // The fast end of the band takes it for Megatron-LM (Transformer Engine's cuDNN attention), not for a framework on
    // PyTorch's SDPA, whose flash backend is FlashAttention-2.
    Config megatron;
    applyGpuPreset(megatron, *findGpuPreset("h100-80gb"));
    megatron.framework = Framework::megatron;
    Config titan = megatron;
    titan.framework = Framework::torchtitan;
    CHECK(stepConstants(megatron, EstimateEnd::fast).runtime.attentionKernelSpeedup == 1.8);
    CHECK(stepConstants(titan, EstimateEnd::fast).runtime.attentionKernelSpeedup == 1);
    CHECK(stepConstants(megatron, EstimateEnd::value).runtime.attentionKernelSpeedup == 1);
}
