// stats/entropy: Shannon entropy estimators and a power spectrum, the pure math behind RDMA traffic
// entropy (seed §1, §3.1).
//
// The seed's header-entropy estimator, in Python:
//   counts = np.array([hash((q, p, d)) % 1024 for q, p, d in packets])
//   hist, _ = np.histogram(counts, bins=1024, density=True)
//   return scipy.stats.entropy(hist + 1e-9, base=2)
// Python's hash() of a tuple is salted per process, so the seed's numbers cannot be reproduced. We
// use a fixed hash instead: SeedHeaderHash = 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime
// 0x100000001b3) over 12 bytes, the three values (src_qp, psn, dest_qp) in that order, each as a
// 4-byte little-endian unsigned integer; the symbol is that hash % 1024 (its low 10 bits).
// SeedHeaderEntropyBits replicates numpy 1.24 / scipy 1.10 exactly, quirks included: the 1024 bins
// span [min, max] of the symbols (not [0, 1024)), [v - 0.5, v + 0.5] when all are equal v; the
// edges are np.linspace's; density divides by N * (per-bin) width; +1e-9 is added to every bin
// and scipy renormalises; sums are numpy's pairwise sums (the numpy test agrees bit for bit).
// Since symbols < 1024 spread over at most 1023 < 1024 bins, distinct symbols never share a bin and
// the result is the plug-in entropy of the symbol frequencies plus a smoothing term whose weight
// grows with the symbols' spread (about 3e-5 bit at full spread, two symbols). Like any plug-in
// estimate it is biased low for N not >> 1024 (log2 N at most), which is why "< 2.1 bit" mostly
// flags windows with few distinct (src_qp, psn, dest_qp) tuples. ShannonBits / MillerMadowBits /
// ChaoShenBits are proper estimators of the entropy of a categorical distribution from counts.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace toposcope::stats {

inline constexpr int kSeedHeaderBins = 1024;

// 64-bit FNV-1a over (src_qp, psn, dest_qp) as 4-byte little-endian unsigned values.
uint64_t SeedHeaderHash(uint32_t src_qp, uint32_t psn, uint32_t dest_qp);
// SeedHeaderHash(...) % 1024.
inline uint32_t SeedHeaderSymbol(uint32_t src_qp, uint32_t psn, uint32_t dest_qp) {
  return static_cast<uint32_t>(SeedHeaderHash(src_qp, psn, dest_qp) % kSeedHeaderBins);
}

// The seed's estimator (numpy/scipy replica, see above) over a list of symbols (any uint32 values;
// the seed's are < 1024). Returns NaN for an empty list (numpy: 0/0).
double SeedHeaderEntropyBits(const std::vector<uint32_t>& hashes_mod_1024);
// The same from a histogram of symbol values: counts_by_value[v] = how many symbols equal v.
// Identical result to SeedHeaderEntropyBits on the expanded list. NaN when all counts are 0.
double SeedHeaderEntropyBitsFromCounts(std::span<const uint32_t> counts_by_value);

// numpy's pairwise summation (np.add.reduce on a contiguous float64 array), for exact replicas;
// 0 for no values. Never fails.
double NumpyPairwiseSum(std::span<const double> values);

// Plug-in (maximum-likelihood) entropy in bits of the distribution p_i = c_i / N. Zero counts are
// ignored; 0 when N == 0.
double ShannonBits(std::span<const uint32_t> counts);
// Plug-in entropy in bits of non-negative weights (bytes per flow ...); negative or NaN weights
// are ignored; 0 when the total is 0.
double ShannonBitsWeights(std::span<const double> weights);
// Miller-Madow: plug-in + (m - 1) / (2 N ln 2) bits, m = number of non-zero counts. Removes the
// first-order bias (the plug-in estimator underestimates by ~(K - 1) / (2 N ln 2)). 0 when N == 0.
double MillerMadowBits(std::span<const uint32_t> counts);
// Chao-Shen (2003): coverage-adjusted Horvitz-Thompson estimator, for undersampled distributions
// with many unseen symbols. C = 1 - f1 / N (f1 singletons; f1 = N - 1 when every count is 1),
// p_i = C c_i / N, H = -sum p_i log2 p_i / (1 - (1 - p_i)^N). 0 when N == 0.
double ChaoShenBits(std::span<const uint32_t> counts);

// Entropy of how traffic spreads over flows: ShannonBitsWeights of bytes (or packets) per flow.
inline double FlowEntropyBits(std::span<const double> bytes_per_flow) { return ShannonBitsWeights(bytes_per_flow); }

// --- Spectrum -----------------------------------------------------------------------------------

// Largest n' <= n whose only prime factors are 2, 3 and 5 (0 for n == 0).
int64_t LargestSmoothLength(int64_t n);

struct PowerSpectrum {
  double sample_rate_hz = 0;
  int64_t n = 0;              // samples used
  double mean = 0, stddev = 0;  // of the samples used (population std)
  std::vector<double> freq_hz;  // f_k = k * rate / n, k = 1 .. n/2
  std::vector<double> power;    // |X_k|^2 / n of the mean-removed samples (periodogram)
};

// Periodogram of a real series sampled at sample_rate_hz: the mean is removed, the DFT taken
// (Eigen's FFT; the series should have a 2^a 3^b 5^c length for speed — any length works), and
// P_k = |X_k|^2 / n returned for k = 1 .. floor(n/2). Empty spectrum for n < 2.
PowerSpectrum ComputePowerSpectrum(std::span<const double> series, double sample_rate_hz);
// Plain O(n^2) DFT periodogram, for tests (same convention).
PowerSpectrum ComputePowerSpectrumNaive(std::span<const double> series, double sample_rate_hz);

// Geometric mean / arithmetic mean of the power values: 1 for a flat (white) spectrum, near 0 when
// one line dominates; exp(-0.5772) ~= 0.56 is the expectation for white noise (exponential P_k).
// Returns 0 when any value is 0 or the mean is 0, NaN when empty.
double SpectralFlatness(std::span<const double> power);

struct SpectralPeak {
  bool found = false;
  int64_t bin = 0;          // k (1-based frequency index)
  double freq_hz = 0, period_s = 0;
  double ratio_to_mean = 0;  // P_peak / mean P
  double fisher_g = 0;       // P_peak / sum P
  double fisher_p = 1;       // min(1, m (1 - g)^(m - 1)), m = number of bins (upper bound)
};
// The largest power among bins k >= min_bin with f_k <= max_freq_hz (the first on ties), with its
// ratios and Fisher's p bound; found = false when no bin qualifies (or the spectrum is empty).
SpectralPeak FindLowFrequencyPeak(const PowerSpectrum& s, double max_freq_hz, int64_t min_bin = 2);
// Fisher's g test p-value bound for the largest of m periodogram ordinates: min(1, m (1-g)^(m-1)).
double FisherGPValue(double g, int64_t m);

}  // namespace toposcope::stats
