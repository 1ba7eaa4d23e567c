// Tests for stats/alpha_stable: CMS sampling (S1) and the truncated noise model.
#include "toposcope/stats/alpha_stable.h"

#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "toposcope/base/rng.h"

namespace toposcope::stats {
namespace alpha_stable_test {

NoiseQuantiles Draw(double alpha, double beta, double sigma, double mu, int n, uint64_t seed) {
  NoiseQuantiles q;
  Rng rng(seed);
  q.sorted.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) q.sorted.push_back(SampleAlphaStable(rng, alpha, beta, sigma, mu));
  std::sort(q.sorted.begin(), q.sorted.end());
  return q;
}

TEST(AlphaStableTest, ReferenceQuantiles) {
  // S1(1.4, 0.3, 0.08, 0), untruncated, 4e5 draws.
  const NoiseQuantiles q = Draw(1.4, 0.3, 0.08, 0.0, 400000, 2024);
  EXPECT_NEAR(q.Quantile(0.05), -0.249, 0.015);
  EXPECT_NEAR(q.Quantile(0.25), -0.099, 0.01);
  EXPECT_NEAR(q.Quantile(0.50), -0.025, 0.01);
  EXPECT_NEAR(q.Quantile(0.75), 0.059, 0.01);
  EXPECT_NEAR(q.Quantile(0.95), 0.293, 0.015);
}

TEST(AlphaStableTest, AlphaTwoIsGaussianWithStdSigmaRootTwo) {
  const double sigma = 0.5;
  const NoiseQuantiles q = Draw(2.0, 0.7, sigma, 1.0, 200000, 7);  // beta is irrelevant at 2
  double mean = 0;
  for (double x : q.sorted) mean += x;
  mean /= static_cast<double>(q.sorted.size());
  double var = 0;
  for (double x : q.sorted) var += (x - mean) * (x - mean);
  var /= static_cast<double>(q.sorted.size() - 1);
  EXPECT_NEAR(mean, 1.0, 0.01);
  EXPECT_NEAR(std::sqrt(var), sigma * std::sqrt(2.0), 0.01);
  // Gaussian quartiles: mu +- 0.6745 * std.
  EXPECT_NEAR(q.Quantile(0.75) - q.Quantile(0.25), 2 * 0.674490 * sigma * std::sqrt(2.0), 0.01);
}

TEST(AlphaStableTest, AlphaOneSymmetricIsCauchy) {
  // S1(1, 0, sigma, mu) is Cauchy(mu, sigma): quartiles at mu -+ sigma.
  const NoiseQuantiles q = Draw(1.0, 0.0, 2.0, 3.0, 200000, 5);
  EXPECT_NEAR(q.Quantile(0.5), 3.0, 0.03);
  EXPECT_NEAR(q.Quantile(0.25), 1.0, 0.05);
  EXPECT_NEAR(q.Quantile(0.75), 5.0, 0.05);
}

TEST(AlphaStableTest, AlphaHalfTotallySkewedIsLevy) {
  // S1(1/2, 1, sigma, 0) is the Levy distribution with scale sigma: positive, median 2.198 sigma.
  const double sigma = 0.3;
  const NoiseQuantiles q = Draw(0.5, 1.0, sigma, 0.0, 200000, 9);
  EXPECT_GE(q.sorted.front(), 0.0);
  EXPECT_NEAR(q.Quantile(0.5) / sigma, 2.198109, 0.03);
}

TEST(AlphaStableTest, DeterministicForASeed) {
  Rng a(99);
  Rng b(99);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(SampleAlphaStable(a, 1.4, 0.3, 0.08), SampleAlphaStable(b, 1.4, 0.3, 0.08));
  }
}

TEST(AlphaStableTest, InvalidParametersGiveNaN) {
  Rng rng(1);
  EXPECT_TRUE(std::isnan(SampleAlphaStable(rng, 0.0, 0.0, 1.0)));
  EXPECT_TRUE(std::isnan(SampleAlphaStable(rng, 2.5, 0.0, 1.0)));
  EXPECT_TRUE(std::isnan(SampleAlphaStable(rng, 1.5, 0.0, -1.0)));
  EXPECT_FALSE(std::isnan(SampleAlphaStable(rng, 1.5, 3.0, 1.0)));  // beta is clamped
}

TEST(NoiseModelTest, SamplesRespectTruncation) {
  const NoiseModel model;
  Rng rng(3);
  const double bound = model.truncation * model.scale;
  for (int i = 0; i < 50000; ++i) {
    const double y = model.Sample(rng);
    ASSERT_LE(std::abs(y), bound);
  }
}

TEST(NoiseModelTest, ZeroScaleIsNoNoise) {
  NoiseModel model;
  model.scale = 0;
  Rng rng(3);
  EXPECT_EQ(model.Sample(rng), 0.0);
}

TEST(NoiseModelTest, EstimateNoiseQuantilesAndCdf) {
  const NoiseModel model;
  const NoiseQuantiles q = EstimateNoise(model, 100000);
  ASSERT_EQ(q.sorted.size(), 100000u);
  EXPECT_TRUE(std::is_sorted(q.sorted.begin(), q.sorted.end()));
  // Truncation at 3 * scale barely moves the centre of the untruncated distribution.
  EXPECT_NEAR(q.Quantile(0.5), -0.025, 0.01);
  EXPECT_NEAR(q.Quantile(0.25), -0.099, 0.01);
  EXPECT_GE(q.Quantile(0.0), -0.24);
  EXPECT_LE(q.Quantile(1.0), 0.24);
  for (double p : {0.1, 0.3, 0.5, 0.7, 0.9}) EXPECT_NEAR(q.Cdf(q.Quantile(p)), p, 1e-3);
  EXPECT_EQ(q.Cdf(-1.0), 0.0);
  EXPECT_EQ(q.Cdf(1.0), 1.0);
  // Same seed, same draws.
  EXPECT_EQ(EstimateNoise(model, 1000).sorted, EstimateNoise(model, 1000).sorted);
}

TEST(NoiseModelTest, MeanAbsErrorQuantilesShareOneStreamExactly) {
  // Each n drawn on its own from fresh generators (one per block), as a separate Monte Carlo
  // would: the shared streams give the same numbers to the bit, for n in any order and repeated.
  NoiseModel m;
  m.alpha = 1.6;
  m.scale = 0.05;
  const std::vector<int> ns = {10, 1, 3, 10, 7, 0};
  const int trials = 500;
  const std::vector<double> got = MeanAbsErrorQuantiles(m, ns, 0.95, trials, 99);
  ASSERT_EQ(got.size(), ns.size());
  for (size_t i = 0; i < ns.size(); ++i) {
    const int n = std::max(ns[i], 1);
    NoiseQuantiles means;
    for (int b = 0; b < kMonteCarloBlocks; ++b) {
      Rng rng(Rng::Mix(99, static_cast<uint64_t>(b)));
      for (int64_t t = 0; t < MonteCarloBlockTrials(trials, b); ++t) {
        double sum = 0;
        for (int k = 0; k < n; ++k) sum += m.Sample(rng);
        if (!std::isnan(sum)) means.sorted.push_back(std::abs(sum / n));
      }
    }
    ASSERT_EQ(means.sorted.size(), static_cast<size_t>(trials));
    std::sort(means.sorted.begin(), means.sorted.end());
    EXPECT_EQ(got[i], means.Quantile(0.95)) << "n = " << ns[i];
    EXPECT_EQ(MeanAbsErrorQuantile(m, ns[i], 0.95, trials, 99), got[i]);
  }
  EXPECT_TRUE(MeanAbsErrorQuantiles(m, {}, 0.95, trials, 99).empty());
  EXPECT_TRUE(std::isnan(MeanAbsErrorQuantiles(m, {4}, 0.95, 0, 99)[0]));
}

TEST(NoiseModelTest, QuantileInterpolatesAndHandlesEmpty) {
  NoiseQuantiles q;
  EXPECT_TRUE(std::isnan(q.Quantile(0.5)));
  EXPECT_TRUE(std::isnan(q.Cdf(0.0)));
  q.sorted = {0.0, 1.0, 2.0, 3.0};
  EXPECT_DOUBLE_EQ(q.Quantile(0.5), 1.5);
  EXPECT_DOUBLE_EQ(q.Quantile(0.0), 0.0);
  EXPECT_DOUBLE_EQ(q.Quantile(1.0), 3.0);
  EXPECT_DOUBLE_EQ(q.Cdf(1.0), 0.5);
}

TEST(NoiseModelTest, MeanAbsErrorQuantilesAreTheSameOnAnyThreadCount) {
  NoiseModel m;
  m.alpha = 1.5;
  m.scale = 0.03;
  const std::vector<int> ns = {1, 5, 40};
  std::vector<double> one, four;
  tbb::task_arena(1).execute([&] { one = MeanAbsErrorQuantiles(m, ns, 0.9, 3001, 5); });
  tbb::task_arena(4).execute([&] { four = MeanAbsErrorQuantiles(m, ns, 0.9, 3001, 5); });
  ASSERT_EQ(one.size(), ns.size());
  for (size_t i = 0; i < ns.size(); ++i) EXPECT_EQ(one[i], four[i]) << "n = " << ns[i];
  int64_t total = 0;
  for (int b = 0; b < kMonteCarloBlocks; ++b) total += MonteCarloBlockTrials(3001, b);
  EXPECT_EQ(total, 3001);
}

TEST(NoiseModelTest, AveragingShrinksTheError) {
  const NoiseModel model;
  const double one = MeanAbsErrorQuantile(model, 1, 0.95, 20000);
  const double four = MeanAbsErrorQuantile(model, 4, 0.95, 20000);
  const double sixteen = MeanAbsErrorQuantile(model, 16, 0.95, 20000);
  EXPECT_GT(one, four);
  EXPECT_GT(four, sixteen);
  EXPECT_GT(sixteen, 0.0);
  EXPECT_LE(one, model.truncation * model.scale);
  EXPECT_EQ(MeanAbsErrorQuantile(model, 4, 0.95, 2000), MeanAbsErrorQuantile(model, 4, 0.95, 2000));
}

// McCulloch's quantile fit recovers the parameters of draws from our own sampler.
TEST(StableFitTest, RecoversTheParametersOfItsOwnDraws) {
  struct Case {
    double alpha, beta, scale;
  };
  for (const Case c : {Case{1.4, 0.3, 0.08}, Case{1.8, -0.5, 2.0}, Case{1.0, 0.0, 1.0}, Case{0.8, 0.6, 0.5}}) {
    Rng rng(99);
    std::vector<double> x;
    for (int i = 0; i < 40000; ++i) x.push_back(SampleAlphaStable(rng, c.alpha, c.beta, c.scale, 3.0));
    const StableFit f = FitStableQuantiles(x);
    ASSERT_TRUE(f.ok) << f.note;
    EXPECT_NEAR(f.alpha, c.alpha, 0.06) << c.alpha;
    EXPECT_NEAR(f.beta, c.beta, c.alpha >= 1.7 ? 0.35 : 0.12) << c.alpha;  // beta is weakly identified near 2
    EXPECT_NEAR(f.scale / c.scale, 1.0, 0.08) << c.alpha;  // nu_c is steep in beta at low alpha
    EXPECT_EQ(f.samples, 40000);
  }
  // Gaussian draws: alpha 2, scale sigma / sqrt(2).
  Rng rng(7);
  std::vector<double> g;
  for (int i = 0; i < 40000; ++i) g.push_back(rng.Normal() * 3.0);
  const StableFit f = FitStableQuantiles(g);
  EXPECT_NEAR(f.alpha, 2.0, 0.05);
  EXPECT_NEAR(f.scale, 3.0 / std::sqrt(2.0), 0.1);
}

TEST(StableFitTest, FailsWithoutEnoughSamplesOrSpread) {
  std::vector<double> few(20, 1.0);
  few[3] = 2.0;
  StableFit f = FitStableQuantiles(few);
  EXPECT_FALSE(f.ok);
  EXPECT_TRUE(std::isnan(f.alpha));
  EXPECT_NE(f.note.find("20 samples"), std::string::npos) << f.note;
  f = FitStableQuantiles(std::vector<double>(100, 1.0));
  EXPECT_FALSE(f.ok);
  EXPECT_NE(f.note.find("no spread"), std::string::npos);
  std::vector<double> with_nan(100, NAN);
  EXPECT_EQ(FitStableQuantiles(with_nan).samples, 0);
}

// A fit near alpha = 1 (as repeated P2P bandwidths give): with S1 location 0 the draws' centre lies
// far outside the truncation bound, so under 5 % of draws fall inside it (each sample costs dozens of
// resamples); the location from LocationForMedian centres them on
// the data's median instead.
TEST(NoiseModelTest, LocationForMedianCentresAFitNearAlphaOne) {
  NoiseModel model;
  model.alpha = 0.9642;
  model.beta = -0.5752;
  model.scale = 0.0749;
  const double bound = model.truncation * model.scale;
  auto inside_share = [&](double location) {
    Rng rng(5);
    int inside = 0;
    constexpr int kDraws = 20000;
    for (int i = 0; i < kDraws; ++i) {
      inside += std::abs(SampleAlphaStable(rng, model.alpha, model.beta, model.scale, location)) <= bound ? 1 : 0;
    }
    return static_cast<double>(inside) / kDraws;
  };
  EXPECT_LT(inside_share(0.0), 0.05);
  model.location = LocationForMedian(model, 0.0, 9);
  ASSERT_TRUE(std::isfinite(model.location));
  EXPECT_GT(inside_share(model.location), 0.5);
  EXPECT_LT(std::abs(EstimateNoise(model, 20000, 11).Quantile(0.5)), 0.15 * bound);
}

TEST(NoiseModelTest, LocationForMedianOfInvalidParametersIsNaN) {
  NoiseModel model;
  model.alpha = 3.0;
  EXPECT_TRUE(std::isnan(LocationForMedian(model, 0.0, 1)));
}

}  // namespace alpha_stable_test
}  // namespace toposcope::stats
