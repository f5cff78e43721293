// LoRA and QLoRA (docs/frameworks.md, "Fine-tuning"): which matrices carry adapters, how many adapter
// parameters a layer holds on one rank, and what a frozen base costs. Internal.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "membudget/base/choices.hpp"
#include "membudget/model/config.hpp"
#include "model/lora_targets.hpp"
#include "model/rank.hpp"

namespace membudget::detail {

// QLoRA's NF4 storage per parameter: 4 bits, plus bitsandbytes' block-wise absmax (blocks of 64) double-quantised
// to 8 bits with an FP32 second-level constant per 256 blocks: 4 + 8/64 + 32/(64 · 256) bits (Dettmers et al. 2023
// §3, "Double Quantization": 0.127 bits per parameter for the constants).
inline constexpr double kNf4BytesPerParam = (4.0 + 8.0 / 64 + 32.0 / (64 * 256)) / 8;

// Adapter parameters on one rank: r × (in + out) per adapted matrix, split by TP as its base matrix is.
struct LoraShape {
    LoraTargets targets;
    double denseLayer = 0;     // adapters of one dense layer on one rank
    double moeLayer = 0;       // of one MoE layer (attention, and each routed expert's matrices on this EP rank)
    double output = 0;         // of the output layer (last stage)
    double largestMatrix = 0;  // the largest base matrix of a layer on one rank (QLoRA dequantises one at a time)
};

inline LoraShape loraShape(const Config& c, const Dims& x) {
    LoraShape s;
    s.targets = x.adapted;
    const LoraTargets& t = s.targets;
    const double r = c.loraRank;
    const double qOut = x.a * x.d, kvOut = x.kv * x.d;
    auto adapter = [r, &x](double in, double out) { return r * (in + out) / x.t; };
    double attention = 0;
    if (t.q) attention += adapter(x.h, qOut);
    if (t.k) attention += adapter(x.h, kvOut);
    if (t.v) attention += adapter(x.h, kvOut);
    if (t.o) attention += adapter(qOut, x.h);
    double mlp = 0;
    if (t.gate && x.gated) mlp += adapter(x.h, x.f);
    if (t.up) mlp += adapter(x.h, x.f);
    if (t.down) mlp += adapter(x.f, x.h);
    s.denseLayer = attention + mlp;
    if (c.experts > 0) {
        const double fe = expertFfn(c), etp = expertTensorParallel(c);
        double expert = 0;
        if (t.gate && x.gated) expert += r * (x.h + fe) / etp;
        if (t.up) expert += r * (x.h + fe) / etp;
        if (t.down) expert += r * (fe + x.h) / etp;
        s.moeLayer = attention + expert * c.experts / c.ep;
    }
    s.output = t.output ? adapter(x.h, x.V) : 0;
    s.largestMatrix = std::max({x.h * qOut, x.h * x.f, c.experts > 0 ? x.h * expertFfn(c) : 0.0}) / x.t;
    return s;
}

// Bytes of one adapter element (weights, gradients): lora_dtype, or the framework's.
inline double loraBytes(const Config& c) {
    if (c.loraDtype == LoraDtype::fp32) return 4;
    if (c.loraDtype == LoraDtype::bf16) return 2;
    return c.framework == Framework::torchtune && c.precision != Precision::fp32 ? 2 : 4;
}

}  // namespace membudget::detail
