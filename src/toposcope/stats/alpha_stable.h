// stats/alpha_stable: Levy alpha-stable random numbers (Chambers-Mallows-Stuck in Weron's form,
// S1 parametrisation) and the truncated relative-noise model of DCGM-style measurements
// (alpha 1.4, beta 0.3, scale 0.08 by default), with its quantiles estimated by Monte Carlo.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/base/rng.h"

namespace toposcope::stats {

// One draw of S1(alpha, beta, sigma, mu); 0 < alpha <= 2, -1 <= beta <= 1 (clamped), sigma >= 0.
// Invalid alpha or sigma (or NaN parameters) give NaN.
double SampleAlphaStable(Rng& rng, double alpha, double beta, double sigma, double mu = 0.0);

struct NoiseModel {
  double alpha = 1.4;
  double beta = 0.3;
  double scale = 0.08;
  double truncation = 3.0;  // |noise| <= truncation * scale; larger draws are resampled (up to
                            // 1000 tries, then clipped); <= 0 or infinite: no truncation
  double location = 0.0;    // S1 location of a draw, before truncation. 0 for the seed's prior; a model
                            // fitted to data sets it so that the draws' median is the data's (near
                            // alpha = 1 the S1 location of a median-0 sample is far from 0)
  // One relative error draw (multiply a true value by 1 + Sample()); NaN for invalid parameters.
  [[nodiscard]] double Sample(Rng& rng) const;
};

// The S1 location that puts the untruncated median of `model`'s draws at `median` (Monte Carlo,
// 20,000 draws with `seed`); NaN for invalid parameters.
double LocationForMedian(NoiseModel model, double median, uint64_t seed);

// Quantiles of the model's relative error, from n Monte Carlo draws with a fixed seed (draws that
// are NaN, from invalid parameters, are left out).
struct NoiseQuantiles {
  std::vector<double> sorted;  // the draws, sorted
  // P(X <= x), empirical; NaN when empty.
  [[nodiscard]] double Cdf(double x) const;
  // The q-quantile (linear interpolation, as numpy's default); NaN when empty.
  [[nodiscard]] double Quantile(double q) const;
};
// Draws n samples of the model's relative error (fixed seed) and returns them sorted. Never fails:
// invalid parameters or n <= 0 give an empty sample (whose quantiles are NaN).
NoiseQuantiles EstimateNoise(const NoiseModel& model, int n = 100000, uint64_t seed = 12345);
// Relative error of the mean of `n_avg` draws (at least 1): its `q`-quantile of |mean| over
// `trials` Monte Carlo means. NaN when no trial gives a number (invalid parameters, trials <= 0)
// or q is NaN.
double MeanAbsErrorQuantile(const NoiseModel& model, int n_avg, double q, int trials = 20000,
                            uint64_t seed = 777);
// The Monte Carlo's trials fall into this many blocks, each drawn from its own stream
// (Rng(Rng::Mix(seed, block))): the blocks run in parallel, and the draws never depend on the
// number of threads. Block b holds MonteCarloBlockTrials(trials, b) trials.
inline constexpr int kMonteCarloBlocks = 8;
inline int64_t MonteCarloBlockTrials(int64_t trials, int block) {
  return trials * (block + 1) / kMonteCarloBlocks - trials * block / kMonteCarloBlocks;
}
// MeanAbsErrorQuantile for each of `n_avgs`, the same numbers, from one pass over each block's
// stream: within a block, its trial t of the mean of n takes draws t*n .. t*n+n-1 of the block's
// stream, as each call of MeanAbsErrorQuantile draws them, so each stream is drawn once, as far as
// the largest n needs (the draws are not stored: each n keeps a running sum).
std::vector<double> MeanAbsErrorQuantiles(const NoiseModel& model, const std::vector<int>& n_avgs, double q,
                                          int trials = 20000, uint64_t seed = 12345);

// An alpha-stable fit of a sample (McCulloch's quantile method).
struct StableFit {
  bool ok = false;        // false: too few samples or no spread (the parameters are NaN)
  double alpha = NAN;     // 0.6 .. 2 (the table's range; values beyond are clamped)
  double beta = NAN;      // -1 .. 1
  double scale = NAN;     // sigma, in the sample's units
  double location = NAN;  // the sample's median
  int samples = 0;
  std::string note;       // why the fit failed ("" when ok)
};

// McCulloch (1986) quantile estimates of alpha, beta and scale: alpha and beta from nu_alpha =
// (x95 - x05) / (x75 - x25) and nu_beta = (x95 + x05 - 2 x50) / (x95 - x05) through the quantile-ratio
// table (tests/stats/mcculloch_table_gen.py; bilinear in alpha and beta, beta < 0 by symmetry),
// scale = (x75 - x25) / nu_c(alpha, beta). Closed form: one sort. NaNs are ignored. Fails (ok =
// false, with a note) with fewer than `min_samples` values or a zero interquartile range.
StableFit FitStableQuantiles(std::vector<double> x, int min_samples = 50);

}  // namespace toposcope::stats
