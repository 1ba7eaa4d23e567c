#include "toposcope/stats/entropy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <utility>

#include <unsupported/Eigen/FFT>

#include "toposcope/base/hash.h"

namespace toposcope::stats {

uint64_t SeedHeaderHash(uint32_t src_qp, uint32_t psn, uint32_t dest_qp) {
  uint64_t h = kFnv1aOffsetBasis;
  for (uint32_t v : {src_qp, psn, dest_qp}) {
    for (int b = 0; b < 4; ++b) h = Fnv1aByte(h, static_cast<uint8_t>(v >> (8 * b)));
  }
  return h;
}

namespace {

// numpy's DOUBLE_pairwise_sum (numpy/core/src/umath/loops_utils.h.src), PW_BLOCKSIZE 128.
double PairwiseSum(const double* a, size_t n) {
  if (n < 8) {
    double res = 0.;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8) {
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    }
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return PairwiseSum(a, n2) + PairwiseSum(a + n2, n - n2);
}

// The seed estimator over distinct (value, count) pairs sorted by value, counts > 0.
double SeedEntropyFromPairs(const std::vector<std::pair<uint32_t, uint64_t>>& pairs) {
  constexpr int kBins = kSeedHeaderBins;
  if (pairs.empty()) return std::numeric_limits<double>::quiet_NaN();
  // _get_outer_edges: [min, max]; +-0.5 when equal.
  double first_edge = static_cast<double>(pairs.front().first);
  double last_edge = static_cast<double>(pairs.back().first);
  if (pairs.front().first == pairs.back().first) {
    first_edge -= 0.5;
    last_edge += 0.5;
  }
  // np.linspace(first, last, 1025): y = arange(1025) * step + start; y[-1] = stop. (Arrays on
  // the stack: this runs for every closed window of every link.)
  std::array<double, kBins + 1> edges;
  const double delta = last_edge - first_edge;
  const double step = delta / kBins;
  for (int i = 0; i <= kBins; ++i) edges[i] = static_cast<double>(i) * step + first_edge;
  edges[kBins] = last_edge;
  // Fast equal-bin path of np.histogram (numpy 1.24).
  const double norm = kBins / delta;
  std::array<uint64_t, kBins> n{};
  uint64_t total = 0;
  for (const auto& [value, count] : pairs) {
    const double v = static_cast<double>(value);
    if (v < first_edge || v > last_edge) continue;  // cannot happen; numpy's `keep`
    const double f = (v - first_edge) * norm;
    auto idx = static_cast<int64_t>(f);
    if (idx == kBins) --idx;
    if (v < edges[idx]) --idx;
    if (v >= edges[idx + 1] && idx != kBins - 1) ++idx;
    n[idx] += count;
    total += count;
  }
  // density: n / diff(edges) / n.sum(); then entropy(hist + 1e-9, base=2).
  std::array<double, kBins> pk;
  for (int i = 0; i < kBins; ++i) {
    const double db = edges[i + 1] - edges[i];
    pk[i] = static_cast<double>(n[i]) / db / static_cast<double>(total) + 1e-9;
  }
  const double s = PairwiseSum(pk.data(), pk.size());
  // Every empty bin holds the same 1e-9, hence the same term: its logarithm is taken once.
  const auto term = [s](double pk_i) {
    const double p = 1.0 * pk_i / s;
    return p > 0 ? -p * std::log(p) : (p == 0 ? 0.0 : -std::numeric_limits<double>::infinity());
  };
  const double empty_term = term(1e-9);
  std::array<double, kBins> vec;
  for (int i = 0; i < kBins; ++i) vec[i] = n[i] == 0 ? empty_term : term(pk[i]);
  return PairwiseSum(vec.data(), vec.size()) / std::log(2.0);
}

}  // namespace

double NumpyPairwiseSum(std::span<const double> values) { return PairwiseSum(values.data(), values.size()); }

double SeedHeaderEntropyBits(const std::vector<uint32_t>& hashes_mod_1024) {
  std::vector<uint32_t> sorted = hashes_mod_1024;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::pair<uint32_t, uint64_t>> pairs;
  for (uint32_t v : sorted) {
    if (!pairs.empty() && pairs.back().first == v) {
      ++pairs.back().second;
    } else {
      pairs.emplace_back(v, 1);
    }
  }
  return SeedEntropyFromPairs(pairs);
}

double SeedHeaderEntropyBitsFromCounts(std::span<const uint32_t> counts_by_value) {
  std::vector<std::pair<uint32_t, uint64_t>> pairs;
  for (size_t v = 0; v < counts_by_value.size(); ++v) {
    if (counts_by_value[v] > 0) pairs.emplace_back(static_cast<uint32_t>(v), counts_by_value[v]);
  }
  return SeedEntropyFromPairs(pairs);
}

double ShannonBits(std::span<const uint32_t> counts) {
  uint64_t total = 0;
  for (uint32_t c : counts) total += c;
  if (total == 0) return 0;
  const double n = static_cast<double>(total);
  double h = 0;
  for (uint32_t c : counts) {
    if (c == 0) continue;
    const double p = c / n;
    h -= p * std::log2(p);
  }
  return h;
}

double ShannonBitsWeights(std::span<const double> weights) {
  double total = 0;
  for (double w : weights) {
    if (w > 0) total += w;  // NaN and negatives fail the test
  }
  if (!(total > 0) || !std::isfinite(total)) return 0;
  double h = 0;
  for (double w : weights) {
    if (!(w > 0)) continue;
    const double p = w / total;
    h -= p * std::log2(p);
  }
  return h;
}

double MillerMadowBits(std::span<const uint32_t> counts) {
  uint64_t total = 0;
  int64_t m = 0;
  for (uint32_t c : counts) {
    total += c;
    m += c > 0 ? 1 : 0;
  }
  if (total == 0) return 0;
  return ShannonBits(counts) + static_cast<double>(m - 1) / (2.0 * static_cast<double>(total) * std::numbers::ln2);
}

double ChaoShenBits(std::span<const uint32_t> counts) {
  uint64_t total = 0, f1 = 0;
  for (uint32_t c : counts) {
    total += c;
    f1 += c == 1 ? 1 : 0;
  }
  if (total == 0) return 0;
  if (f1 == total) f1 = total - 1;
  const double n = static_cast<double>(total);
  const double coverage = 1.0 - static_cast<double>(f1) / n;
  double h = 0;
  for (uint32_t c : counts) {
    if (c == 0) continue;
    const double pa = coverage * c / n;
    const double la = 1.0 - std::pow(1.0 - pa, n);
    if (pa > 0 && la > 0) h -= pa * std::log2(pa) / la;
  }
  return h;
}

// --- Spectrum -------------------------------------------------------------------------------------

int64_t LargestSmoothLength(int64_t n) {
  for (int64_t m = n; m > 0; --m) {
    int64_t r = m;
    for (int64_t p : {2, 3, 5}) {
      while (r % p == 0) r /= p;
    }
    if (r == 1) return m;
  }
  return 0;
}

namespace {

PowerSpectrum Prepare(std::span<const double> series, double sample_rate_hz, std::vector<double>* centred) {
  PowerSpectrum s;
  s.sample_rate_hz = sample_rate_hz;
  s.n = static_cast<int64_t>(series.size());
  if (s.n == 0) return s;
  double sum = 0;
  for (double v : series) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  double ss = 0;
  centred->resize(series.size());
  for (size_t i = 0; i < series.size(); ++i) {
    (*centred)[i] = series[i] - s.mean;
    ss += (*centred)[i] * (*centred)[i];
  }
  s.stddev = std::sqrt(ss / static_cast<double>(s.n));
  return s;
}

}  // namespace

PowerSpectrum ComputePowerSpectrum(std::span<const double> series, double sample_rate_hz) {
  std::vector<double> x;
  PowerSpectrum s = Prepare(series, sample_rate_hz, &x);
  if (s.n < 2) return s;
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> out;
  fft.fwd(out, x);
  const int64_t half = s.n / 2;
  s.freq_hz.resize(half);
  s.power.resize(half);
  for (int64_t k = 1; k <= half; ++k) {
    s.freq_hz[k - 1] = static_cast<double>(k) * sample_rate_hz / static_cast<double>(s.n);
    s.power[k - 1] = std::norm(out[k]) / static_cast<double>(s.n);
  }
  return s;
}

PowerSpectrum ComputePowerSpectrumNaive(std::span<const double> series, double sample_rate_hz) {
  std::vector<double> x;
  PowerSpectrum s = Prepare(series, sample_rate_hz, &x);
  if (s.n < 2) return s;
  const int64_t half = s.n / 2;
  s.freq_hz.resize(half);
  s.power.resize(half);
  for (int64_t k = 1; k <= half; ++k) {
    double re = 0, im = 0;
    for (int64_t t = 0; t < s.n; ++t) {
      // reduce k*t mod n first so the angle stays accurate for long series
      const double ang = -2.0 * std::numbers::pi * static_cast<double>((k * t) % s.n) / static_cast<double>(s.n);
      re += x[t] * std::cos(ang);
      im += x[t] * std::sin(ang);
    }
    s.freq_hz[k - 1] = static_cast<double>(k) * sample_rate_hz / static_cast<double>(s.n);
    s.power[k - 1] = (re * re + im * im) / static_cast<double>(s.n);
  }
  return s;
}

double SpectralFlatness(std::span<const double> power) {
  if (power.empty()) return std::numeric_limits<double>::quiet_NaN();
  double log_sum = 0, sum = 0;
  for (double p : power) {
    if (!(p > 0)) return 0;
    log_sum += std::log(p);
    sum += p;
  }
  const double m = static_cast<double>(power.size());
  const double mean = sum / m;
  if (!(mean > 0)) return 0;
  return std::exp(log_sum / m) / mean;
}

double FisherGPValue(double g, int64_t m) {
  if (m <= 0 || !(g > 0)) return 1;
  if (g >= 1) return 0;
  const double p = static_cast<double>(m) * std::exp(static_cast<double>(m - 1) * std::log1p(-g));
  return std::min(1.0, p);
}

SpectralPeak FindLowFrequencyPeak(const PowerSpectrum& s, double max_freq_hz, int64_t min_bin) {
  SpectralPeak peak;
  const auto m = static_cast<int64_t>(s.power.size());
  if (m == 0) return peak;
  double sum = 0;
  for (double p : s.power) sum += p;
  for (int64_t k = std::max<int64_t>(min_bin, 1); k <= m; ++k) {
    if (s.freq_hz[k - 1] > max_freq_hz) break;
    const double p = s.power[k - 1];
    if (!peak.found || p > s.power[peak.bin - 1]) {
      peak.found = true;
      peak.bin = k;
    }
  }
  if (!peak.found) return peak;
  const double p = s.power[peak.bin - 1];
  peak.freq_hz = s.freq_hz[peak.bin - 1];
  peak.period_s = peak.freq_hz > 0 ? 1.0 / peak.freq_hz : 0;
  const double mean = sum / static_cast<double>(m);
  peak.ratio_to_mean = mean > 0 ? p / mean : 0;
  peak.fisher_g = sum > 0 ? p / sum : 0;
  peak.fisher_p = FisherGPValue(peak.fisher_g, m);
  return peak;
}

}  // namespace toposcope::stats
