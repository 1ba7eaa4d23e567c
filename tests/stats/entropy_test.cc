// Tests for stats/entropy: the fixed seed hash, the exact numpy/scipy replica of the seed estimator
// (hand-computed cases), plug-in / Miller-Madow / Chao-Shen estimators and their bias, and the
// periodogram / flatness / low-frequency peak helpers.
#include "toposcope/stats/entropy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <numeric>
#include <vector>

#include "toposcope/base/rng.h"

namespace toposcope::stats {
namespace entropy_test {

constexpr double kLn2 = std::numbers::ln2;

TEST(SeedHeaderHash, IsFnv1aOverLittleEndianTriples) {
  // Reference values from an independent Python FNV-1a (bytes: v.to_bytes(4, 'little') each).
  EXPECT_EQ(SeedHeaderHash(0, 0, 0), 0x5467b0da1d106495ULL);
  EXPECT_EQ(SeedHeaderHash(1, 2, 3), 0xfd1f0f4381eb0395ULL);
  EXPECT_EQ(SeedHeaderHash(0x123456, 0xabcdef, 0xffffff), 0x8e73c844be252b57ULL);
  EXPECT_EQ(SeedHeaderSymbol(1, 2, 3), 917u);
  // Order matters (not a symmetric hash).
  EXPECT_NE(SeedHeaderHash(1, 2, 3), SeedHeaderHash(3, 2, 1));
}

TEST(SeedHeaderEntropy, HandComputedCases) {
  // All symbols equal: range [v-0.5, v+0.5], the one full bin has density 1024, 1023 bins 1e-9.
  {
    const double s = 1024 + 1024e-9;
    const double p0 = (1024 + 1e-9) / s, pi = 1e-9 / s;
    const double want = -(p0 * std::log(p0) + 1023 * pi * std::log(pi)) / kLn2;
    const double got = SeedHeaderEntropyBits(std::vector<uint32_t>(10, 5));
    EXPECT_NEAR(got, want, 1e-14);
    EXPECT_NEAR(got, 4.129967652914182e-08, 1e-20);  // numpy 1.24 / scipy 1.10
  }
  // {0, 1023}: width 1023/1024, two bins with density 512/1023 each.
  {
    const double d = 512.0 / 1023.0 + 1e-9, e = 1e-9;
    const double s = 2 * d + 1022 * e;
    const double want = -(2 * (d / s) * std::log(d / s) + 1022 * (e / s) * std::log(e / s)) / kLn2;
    const double got = SeedHeaderEntropyBits({0, 1023});
    EXPECT_NEAR(got, want, 1e-13);
    EXPECT_NEAR(got, 1.000030978656396, 1e-13);
  }
  // 0..1023 once each: one symbol per bin, uniform, 10 bits.
  {
    std::vector<uint32_t> all(1024);
    std::iota(all.begin(), all.end(), 0u);
    EXPECT_NEAR(SeedHeaderEntropyBits(all), 10.0, 1e-12);
    EXPECT_NEAR(SeedHeaderEntropyBits(all), 10.000000000000002, 1e-15);
  }
  // Values from numpy directly.
  EXPECT_NEAR(SeedHeaderEntropyBits({0, 1, 0, 1, 0, 1}), 1.000000040261258, 1e-13);
  EXPECT_NEAR(SeedHeaderEntropyBits({3, 1, 4, 1, 5, 9, 2, 6}), 2.7500002827799106, 1e-13);
  // Empty: numpy gives 0/0.
  EXPECT_TRUE(std::isnan(SeedHeaderEntropyBits({})));
  EXPECT_TRUE(std::isnan(SeedHeaderEntropyBitsFromCounts(std::vector<uint32_t>(1024, 0))));
}

TEST(SeedHeaderEntropy, IsPluginUpToSmoothingWhoseWeightDependsOnSpread) {
  // Symbols < 1024 span at most 1023 < 1024 bins, so distinct symbols never share a bin: the
  // estimator is the plug-in entropy of the symbol frequencies, perturbed by the +1e-9 smoothing,
  // whose weight grows with the spread (density = count / (N * spread / 1024)).
  const double narrow = SeedHeaderEntropyBits({0, 1});
  const double wide = SeedHeaderEntropyBits({0, 1000});
  EXPECT_NEAR(narrow, 1.000000040261258, 1e-13);   // numpy
  EXPECT_NEAR(wide, 1.0000303149092824, 1e-13);    // numpy
  EXPECT_GT(wide - narrow, 1e-5);
  EXPECT_NEAR(SeedHeaderEntropyBits({0, 1, 1000}), std::log2(3.0), 1e-4);
  EXPECT_NEAR(SeedHeaderEntropyBits({0, 1, 1000}), 1.5849922027199412, 1e-13);  // numpy
  EXPECT_NEAR(SeedHeaderEntropyBits({7, 7, 7, 9}), ShannonBits(std::vector<uint32_t>{3, 1}), 1e-6);
}

TEST(SeedHeaderEntropy, CountsFormMatchesListForm) {
  Rng rng(42);
  for (int trial = 0; trial < 20; ++trial) {
    const int n = 1 + static_cast<int>(rng.Below(3000));
    const uint32_t span = 1 + static_cast<uint32_t>(rng.Below(1024));
    const uint32_t offset = static_cast<uint32_t>(rng.Below(1024 - span + 1));
    std::vector<uint32_t> values;
    std::vector<uint32_t> counts(1024, 0);
    for (int i = 0; i < n; ++i) {
      const uint32_t v = offset + static_cast<uint32_t>(rng.Below(span));
      values.push_back(v);
      ++counts[v];
    }
    EXPECT_EQ(SeedHeaderEntropyBits(values), SeedHeaderEntropyBitsFromCounts(counts)) << trial;
  }
}

TEST(NumpyPairwiseSum, MatchesPlainSumOnIntegersAndOrderOnSmall) {
  std::vector<double> v(1000);
  std::iota(v.begin(), v.end(), 1.0);
  EXPECT_EQ(NumpyPairwiseSum(v), 500500.0);
  EXPECT_EQ(NumpyPairwiseSum(std::vector<double>{}), 0.0);
  EXPECT_EQ(NumpyPairwiseSum(std::vector<double>{1.5, 2.5}), 4.0);
}

TEST(Estimators, HandComputedValues) {
  EXPECT_DOUBLE_EQ(ShannonBits(std::vector<uint32_t>{1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(ShannonBits(std::vector<uint32_t>{5, 5, 5, 5, 0, 0}), 2.0);
  EXPECT_NEAR(ShannonBits(std::vector<uint32_t>{3, 1}), 0.8112781244591328, 1e-15);
  EXPECT_EQ(ShannonBits(std::vector<uint32_t>{}), 0.0);
  EXPECT_EQ(ShannonBits(std::vector<uint32_t>{0, 0}), 0.0);
  EXPECT_EQ(ShannonBits(std::vector<uint32_t>{7}), 0.0);
  // Miller-Madow: + (m - 1) / (2 N ln 2) = 1 / (8 ln 2) for {3, 1}.
  EXPECT_NEAR(MillerMadowBits(std::vector<uint32_t>{3, 1}), 0.8112781244591328 + 0.18033688011112042, 1e-15);
  EXPECT_EQ(MillerMadowBits(std::vector<uint32_t>{7}), 0.0);
  EXPECT_EQ(MillerMadowBits(std::vector<uint32_t>{}), 0.0);
  // Chao-Shen {1, 1}: f1 = N -> N - 1 = 1, C = 1/2, p = 1/4, 1 - (3/4)^2 = 7/16 -> 2 * (1/2) / (7/16).
  EXPECT_NEAR(ChaoShenBits(std::vector<uint32_t>{1, 1}), 16.0 / 7.0, 1e-14);
  // No singletons: C = 1; {2, 2}: p = 1/2, 1 - (1/2)^4 = 15/16 -> 1 / (15/16).
  EXPECT_NEAR(ChaoShenBits(std::vector<uint32_t>{2, 2}), 16.0 / 15.0, 1e-14);
  EXPECT_EQ(ChaoShenBits(std::vector<uint32_t>{}), 0.0);
  // Weights.
  EXPECT_DOUBLE_EQ(ShannonBitsWeights(std::vector<double>{2.0, 2.0, NAN, -1.0, 0.0}), 1.0);
  EXPECT_DOUBLE_EQ(FlowEntropyBits(std::vector<double>{1e9, 1e9, 1e9, 1e9}), 2.0);
  EXPECT_EQ(FlowEntropyBits(std::vector<double>{}), 0.0);
  EXPECT_EQ(FlowEntropyBits(std::vector<double>{INFINITY, 1.0}), 0.0);
}

TEST(Estimators, MillerMadowLessBiasedThanPluginOnUndersampledUniform) {
  // Uniform source over K = 256 symbols (true entropy 8 bits), N = 200 samples: the plug-in
  // estimator is biased low by about (K - 1) / (2 N ln 2) = 0.92 bit.
  constexpr int kSymbols = 256, kSamples = 200, kTrials = 200;
  Rng rng(7);
  double plugin = 0, mm = 0, cs = 0;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<uint32_t> counts(kSymbols, 0);
    for (int i = 0; i < kSamples; ++i) ++counts[rng.Below(kSymbols)];
    plugin += ShannonBits(counts);
    mm += MillerMadowBits(counts);
    cs += ChaoShenBits(counts);
  }
  plugin /= kTrials;
  mm /= kTrials;
  cs /= kTrials;
  const double truth = 8.0;
  EXPECT_GT(truth - plugin, 0.5);                             // plug-in badly biased low
  EXPECT_LT(std::abs(truth - mm), std::abs(truth - plugin));  // Miller-Madow is closer
  EXPECT_LT(std::abs(truth - cs), std::abs(truth - mm));      // Chao-Shen closer still here
  // Well sampled: all three agree with the truth.
  std::vector<uint32_t> big(kSymbols, 0);
  for (int i = 0; i < 200000; ++i) ++big[rng.Below(kSymbols)];
  EXPECT_NEAR(MillerMadowBits(big), truth, 0.01);
  EXPECT_NEAR(ShannonBits(big), truth, 0.01);
}

TEST(Spectrum, SmoothLengths) {
  EXPECT_EQ(LargestSmoothLength(0), 0);
  EXPECT_EQ(LargestSmoothLength(1), 1);
  EXPECT_EQ(LargestSmoothLength(7), 6);
  EXPECT_EQ(LargestSmoothLength(97), 96);
  EXPECT_EQ(LargestSmoothLength(36000), 36000);
  EXPECT_EQ(LargestSmoothLength(1031), 1024);
}

TEST(Spectrum, FftMatchesNaiveDft) {
  Rng rng(3);
  for (int n : {2, 3, 16, 60, 97, 128}) {
    std::vector<double> x(n);
    for (double& v : x) v = rng.Normal() + 5.0;
    const PowerSpectrum a = ComputePowerSpectrum(x, 10.0);
    const PowerSpectrum b = ComputePowerSpectrumNaive(x, 10.0);
    ASSERT_EQ(a.power.size(), static_cast<size_t>(n / 2));
    ASSERT_EQ(b.power.size(), a.power.size());
    for (size_t k = 0; k < a.power.size(); ++k) {
      EXPECT_NEAR(a.power[k], b.power[k], 1e-9) << n << " " << k;
      EXPECT_DOUBLE_EQ(a.freq_hz[k], (k + 1) * 10.0 / n);
    }
    EXPECT_NEAR(a.mean, 5.0, 1.5);
  }
  EXPECT_TRUE(ComputePowerSpectrum(std::vector<double>{1.0}, 1.0).power.empty());
  EXPECT_TRUE(ComputePowerSpectrum(std::vector<double>{}, 1.0).power.empty());
}

TEST(Spectrum, SinusoidLineAndParseval) {
  // x_t = 3 + 2 cos(2 pi 5 t / 64): the periodogram is n A^2 / 4 = 64 at k = 5, 0 elsewhere.
  const int n = 64;
  std::vector<double> x(n);
  for (int t = 0; t < n; ++t) x[t] = 3.0 + 2.0 * std::cos(2 * std::numbers::pi * 5 * t / n);
  const PowerSpectrum s = ComputePowerSpectrum(x, 1.0);
  EXPECT_NEAR(s.mean, 3.0, 1e-12);
  EXPECT_NEAR(s.stddev, std::sqrt(2.0), 1e-12);
  for (size_t k = 0; k < s.power.size(); ++k) EXPECT_NEAR(s.power[k], k + 1 == 5 ? 64.0 : 0.0, 1e-9) << k;
  EXPECT_LT(SpectralFlatness(s.power), 1e-6);
  const SpectralPeak peak = FindLowFrequencyPeak(s, 0.5, 2);
  ASSERT_TRUE(peak.found);
  EXPECT_EQ(peak.bin, 5);
  EXPECT_NEAR(peak.freq_hz, 5.0 / 64, 1e-15);
  EXPECT_NEAR(peak.period_s, 12.8, 1e-12);
  EXPECT_NEAR(peak.fisher_g, 1.0, 1e-9);
  EXPECT_LT(peak.fisher_p, 1e-6);
  EXPECT_NEAR(peak.ratio_to_mean, 32.0, 1e-6);
  // Band limits: nothing at or below 4/64 Hz except bins 2..4, all ~0.
  const SpectralPeak low = FindLowFrequencyPeak(s, 4.0 / 64, 2);
  ASSERT_TRUE(low.found);
  EXPECT_LT(low.bin, 5);
  EXPECT_FALSE(FindLowFrequencyPeak(s, 1.0 / 64, 2).found);
}

TEST(Spectrum, FlatnessAndFisher) {
  EXPECT_DOUBLE_EQ(SpectralFlatness(std::vector<double>{2, 2, 2}), 1.0);
  EXPECT_NEAR(SpectralFlatness(std::vector<double>{1, 4}), 2.0 / 2.5, 1e-15);
  EXPECT_EQ(SpectralFlatness(std::vector<double>{0, 4}), 0.0);
  EXPECT_TRUE(std::isnan(SpectralFlatness(std::vector<double>{})));
  // White noise: flatness near exp(-gamma) = 0.56, no significant peak.
  Rng rng(11);
  std::vector<double> x(4096);
  for (double& v : x) v = rng.Normal();
  const PowerSpectrum s = ComputePowerSpectrum(x, 10.0);
  EXPECT_NEAR(SpectralFlatness(s.power), 0.5615, 0.05);
  EXPECT_GT(FindLowFrequencyPeak(s, 2.5, 2).fisher_p, 0.01);
  EXPECT_EQ(FisherGPValue(0.0, 10), 1.0);
  EXPECT_EQ(FisherGPValue(1.0, 10), 0.0);
  EXPECT_NEAR(FisherGPValue(0.5, 3), 3 * 0.25, 1e-15);
  EXPECT_EQ(FisherGPValue(0.01, 10), 1.0);  // bound clipped
}

}  // namespace entropy_test
}  // namespace toposcope::stats
