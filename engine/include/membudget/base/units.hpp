// Byte units: every byte count in the engine is a double, exact below 2^53.
#pragma once

#include <cmath>

namespace membudget {

inline constexpr double kBytesPerGB = 1e9;                        // decimal gigabyte, as the chapter uses
inline constexpr double kBytesPerGiB = 1073741824.0;              // 2^30, what allocators and nvidia-smi count in
inline constexpr double kBytesPerMiB = 1048576.0;                 // 2^20
inline constexpr double kExactIntegerLimit = 9007199254740992.0;  // 2^53: doubles are exact integers below this

// An allowance given in GB as whole bytes (a fraction of a byte rounds up).
inline double gigabytesToBytes(double gb) { return std::ceil(gb * kBytesPerGB); }

// std::ceil, exactly, for byte counts on the kernel's critical path (the stage's byte lines). On x86-64 without SSE4.1 (the baseline the
// native build targets) std::ceil has no instruction: GCC expands it to a round trip through a 64-bit integer (cvttsd2si, cvtsi2sd) and a
// correction, whose latency sat on the kernel's critical path. Adding and taking away 2^52 rounds to the nearest
// integer in double arithmetic alone (every double of magnitude 2^52 or more is already whole); the nearest is
// corrected up where it fell below, and copysign keeps std::ceil's sign for (-1, 0] (-0). Elsewhere (SSE4.1's
// roundsd, WebAssembly's f64.ceil, AArch64's frintp) std::ceil is one instruction and is used as it is.
inline double ceilBytes(double x) {
#if defined(__x86_64__) && !defined(__SSE4_1__)
    constexpr double kWhole = 4503599627370496.0;  // 2^52
    if (!(x > -kWhole && x < kWhole)) return x;    // whole already, or infinite or NaN, as std::ceil returns them
    double nearest = x >= 0 ? (x + kWhole) - kWhole : (x - kWhole) + kWhole;
    if (nearest < x) nearest += 1;
    return std::copysign(nearest, x);
#else
    return std::ceil(x);
#endif
}

}  // namespace membudget
