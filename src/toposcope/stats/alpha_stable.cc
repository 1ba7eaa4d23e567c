// stats/alpha_stable: Chambers-Mallows-Stuck sampling (Weron 1996, S1 parametrisation) and the
// truncated relative-noise model.
#include "toposcope/stats/alpha_stable.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace toposcope::stats {

double SampleAlphaStable(Rng& rng, double alpha, double beta, double sigma, double mu) {
  if (!(alpha > 0.0 && alpha <= 2.0) || !(sigma >= 0.0) || std::isnan(beta) || std::isnan(mu)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  beta = std::clamp(beta, -1.0, 1.0);
  constexpr double kPi = std::numbers::pi;
  constexpr double kHalfPi = kPi / 2;
  // U ~ Uniform(-pi/2, pi/2) (open at both ends), W ~ Exp(1).
  double u = rng.Uniform(-kHalfPi, kHalfPi);
  while (u <= -kHalfPi) u = rng.Uniform(-kHalfPi, kHalfPi);
  const double w = rng.Exponential();

  if (alpha == 1.0) {
    const double b = kHalfPi + beta * u;
    const double x = (2.0 / kPi) * (b * std::tan(u) - beta * std::log(kHalfPi * w * std::cos(u) / b));
    const double shift = sigma > 0 ? (2.0 / kPi) * beta * sigma * std::log(sigma) : 0.0;
    return sigma * x + shift + mu;
  }
  const double zeta = -beta * std::tan(kPi * alpha / 2);
  const double xi = std::atan(-zeta) / alpha;
  const double x = std::pow(1.0 + zeta * zeta, 1.0 / (2.0 * alpha)) * std::sin(alpha * (u + xi)) /
                   std::pow(std::cos(u), 1.0 / alpha) *
                   std::pow(std::cos(u - alpha * (u + xi)) / w, (1.0 - alpha) / alpha);
  return sigma * x + mu;
}

double NoiseModel::Sample(Rng& rng) const {
  // truncation <= 0 (or infinite) means no truncation.
  if (!(truncation > 0.0) || std::isinf(truncation)) {
    return SampleAlphaStable(rng, alpha, beta, scale);
  }
  const double bound = truncation * scale;
  double y = 0;
  for (int tries = 0; tries < 1000; ++tries) {
    y = SampleAlphaStable(rng, alpha, beta, scale);
    if (std::abs(y) <= bound) return y;
  }
  if (std::isnan(y)) return y;
  return std::clamp(y, -bound, bound);
}

double NoiseQuantiles::Cdf(double x) const {
  if (sorted.empty()) return std::numeric_limits<double>::quiet_NaN();
  const auto it = std::upper_bound(sorted.begin(), sorted.end(), x);
  return static_cast<double>(it - sorted.begin()) / static_cast<double>(sorted.size());
}

// Linear interpolation between order statistics (numpy's default "linear" method).
double NoiseQuantiles::Quantile(double q) const {
  if (sorted.empty() || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + frac * (sorted[hi] - sorted[lo]);
}

NoiseQuantiles EstimateNoise(const NoiseModel& model, int n, uint64_t seed) {
  NoiseQuantiles out;
  Rng rng(seed);
  out.sorted.reserve(static_cast<size_t>(std::max(n, 0)));
  for (int i = 0; i < n; ++i) {
    const double y = model.Sample(rng);
    if (!std::isnan(y)) out.sorted.push_back(y);  // NaN only for invalid parameters
  }
  std::sort(out.sorted.begin(), out.sorted.end());
  return out;
}

double MeanAbsErrorQuantile(const NoiseModel& model, int n_avg, double q, int trials, uint64_t seed) {
  n_avg = std::max(n_avg, 1);
  NoiseQuantiles abs_means;
  Rng rng(seed);
  abs_means.sorted.reserve(static_cast<size_t>(std::max(trials, 0)));
  for (int t = 0; t < trials; ++t) {
    double sum = 0;
    for (int i = 0; i < n_avg; ++i) sum += model.Sample(rng);
    if (!std::isnan(sum)) abs_means.sorted.push_back(std::abs(sum / n_avg));
  }
  std::sort(abs_means.sorted.begin(), abs_means.sorted.end());
  return abs_means.Quantile(q);
}

}  // namespace toposcope::stats
