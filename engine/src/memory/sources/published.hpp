// What the published sources share as ledger methods: the lines membudget fills in for them, and their kernels'
// one walk over the peak-candidate stages (each stage's lines as evaluate() sums them: parameters, gradients,
// optimizer, activations, then the allowances, with no text; tested equal to the ledgers in tests/cpp/test_plan.cpp,
// so that every method plans as fast as membudget's own).
#pragma once

#include <algorithm>
#include <span>

#include "membudget/base/choices.hpp"
#include "membudget/base/units.hpp"
#include "membudget/memory/result.hpp"
#include "membudget/memory/sources.hpp"
#include "membudget/model/config.hpp"
#include "memory/ledgers.hpp"

namespace membudget::detail {

// Checkpointing as the sources name it.
sources::Recompute recomputeOf(const Config& c);

// A stage's line by id (every method's stage has the four static and activation lines).
const Line& lineOf(const StageOutput& stage, LineId id);

// The lines every source but Megatron-LM's leaves to membudget's forward/backward composition.
struct StaticAndActivations {
    double parameters, gradients, optimizer, activations;
};

template <class Lines>
PeakBytes peakOver(const Config& c, std::span<const StageSpan> stages, Lines lines) {
    const double buffers = gigabytesToBytes(c.buffersGb), context = gigabytesToBytes(c.contextGb), allowances = buffers + context;
    PeakBytes peak{};
    peak.totalBytes = -1;
    for (const StageSpan& stage : stages) {
        const StaticAndActivations l = lines(stage);
        const double total = l.parameters + l.gradients + l.optimizer + l.activations + buffers + context;
        const double staticBytes = l.parameters + l.gradients + l.optimizer + allowances;
        if (total > peak.totalBytes)
            peak = {l.parameters, l.gradients, l.optimizer, l.activations, allowances, total, stage.index, peak.staticBytes};
        peak.staticBytes = std::max(peak.staticBytes, staticBytes);
    }
    return peak;
}

}  // namespace membudget::detail
