// base/rng: a small, portable, seedable random generator (xoshiro256**, seeded by SplitMix64).
// Same seed -> same sequence on every platform and compiler (std:: distributions are not).
#pragma once

#include <cmath>
#include <cstdint>

namespace toposcope {

class Rng {
 public:
  explicit Rng(uint64_t seed) {
    for (auto& s : s_) s = SplitMix(seed);
  }
  // Derives an independent stream, e.g. one per host, from a seed and a label.
  static uint64_t Mix(uint64_t seed, uint64_t label) {
    uint64_t x = seed ^ (label * 0x9E3779B97F4A7C15ULL);
    return SplitMix(x);
  }

  uint64_t NextU64() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }
  // Uniform in [0, 1).
  double Uniform() { return static_cast<double>(NextU64() >> 11) * 0x1.0p-53; }
  // Uniform in [a, b).
  double Uniform(double a, double b) { return a + (b - a) * Uniform(); }
  // Uniform integer in [0, n); n > 0.
  uint64_t Below(uint64_t n) { return NextU64() % n; }
  // Exponential(1).
  double Exponential() {
    double u = Uniform();
    while (u <= 0.0) u = Uniform();
    return -std::log(u);
  }
  // Standard normal (Box-Muller, one value per call).
  double Normal() {
    double u1 = Uniform();
    while (u1 <= 0.0) u1 = Uniform();
    const double u2 = Uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * 3.14159265358979323846 * u2);
  }

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  static uint64_t SplitMix(uint64_t& x) {
    uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t s_[4]{};
};

}  // namespace toposcope
