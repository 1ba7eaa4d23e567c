// base/hash: FNV-1a, the one portable byte hash the project uses (seed streams per name, the
// seed's header hash), the same on every platform and run.
#pragma once

#include <cstdint>
#include <string_view>

namespace toposcope {

inline constexpr uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ULL;
inline constexpr uint64_t kFnv1aPrime = 0x100000001b3ULL;

// Folds one byte into a 64-bit FNV-1a state `h` and returns the new state.
constexpr uint64_t Fnv1aByte(uint64_t h, uint8_t byte) { return (h ^ byte) * kFnv1aPrime; }

// The 64-bit FNV-1a hash of `bytes`.
constexpr uint64_t Fnv1a(std::string_view bytes) {
  uint64_t h = kFnv1aOffsetBasis;
  for (const char c : bytes) h = Fnv1aByte(h, static_cast<uint8_t>(c));
  return h;
}

}  // namespace toposcope
