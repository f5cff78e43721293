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

}  // namespace membudget
