// The chapter's conventions (sections 1 and 2): bytes per parameter of static memory, activations per layer.
#pragma once

namespace membudget {

// Bytes per parameter of the static memory under each of the chapter's conventions (section 1).
struct StaticBytesPerParam {
    double parameters;  // BF16 working copy
    double gradients;   // BF16, plus FP32 where the convention keeps them
    double master;      // FP32 master weights
    double adamM;       // Adam first moment
    double adamV;       // Adam second moment
    double total() const { return parameters + gradients + master + adamM + adamV; }
};
StaticBytesPerParam staticBytesPerParam(double staticBytes);

// The chapter's worked 70B example (section 2) uses (14h + 6·d_ff)·b·s + 3·a·s²·b bytes per layer rather
// than its table's 22bsh + 2bas²; both are offered (`act_formula`). These give one layer without
// parallelism or checkpointing.
double tableActivationBytesPerLayer(double b, double s, double h, double a, double ffn);
double workedActivationBytesPerLayer(double b, double s, double h, double a, double ffn);

}  // namespace membudget
