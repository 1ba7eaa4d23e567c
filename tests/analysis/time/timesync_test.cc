// Tests of analysis/timesync: the four clock models on synthetic clocks with known offsets.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "toposcope/analysis/time/timesync.h"
#include "toposcope/base/rng.h"

namespace toposcope::analysis {
namespace timesync_test {

struct TrueClock {
  double o0_ns, f_ppm, a_ppm_per_s;
  std::vector<double> walk;  // frequency random walk per second (ppm)
  int64_t step_at_s = -1;
  double step_ns = 0;
  // offset (local - true) at true second t (fractional).
  [[nodiscard]] double Offset(double t) const {
    const size_t k = std::min(walk.size() - 1, static_cast<size_t>(std::max(0.0, t)));
    double off = o0_ns + f_ppm * 1e3 * t + 0.5 * a_ppm_per_s * 1e3 * t * t + walk[k] * 1e3;
    if (step_at_s >= 0 && t >= static_cast<double>(step_at_s)) off += step_ns;
    return off;
  }
};

TrueClock MakeClock(uint64_t seed, int seconds) {
  Rng r(seed);
  TrueClock c{r.Uniform(-50e3, 50e3), r.Uniform(-1, 1), r.Uniform(-1e-4, 1e-4), {}, -1, 0};
  double acc = 0, fw = 0;
  for (int s = 0; s <= seconds; ++s) {
    fw += r.Normal() * 0.002;  // ppm random walk
    acc += fw;                 // integrated: ns offsets (x1e3 below)
    c.walk.push_back(acc);
  }
  return c;
}

struct Errors {
  double mean_us[4];
};

// Sync every `interval_s` with Gaussian noise `noise_ns` and one-sided delay spikes.
Errors RunSync(const TrueClock& c, int seconds, double interval_s, double noise_ns, double spike_prob, double spike_ns,
           uint64_t seed) {
  Rng r(seed);
  const int64_t t0 = 1700000000LL * 1000000000LL;
  std::vector<SyncSample> samples;
  for (double t = 0; t <= seconds; t += interval_s) {
    const double off = c.Offset(t);
    double meas = off + r.Normal() * noise_ns;
    if (r.Uniform() < spike_prob) meas += r.Uniform(0.3, 1.0) * spike_ns;
    const int64_t ref = t0 + static_cast<int64_t>(t * 1e9);
    SyncSample s;
    s.ref_ns = ref;
    s.local_ns = ref + static_cast<int64_t>(std::llround(meas));
    samples.push_back(s);
  }
  const HostClockFit fit = FitHostClock("h", samples);
  Errors e{};
  for (int m = 0; m < 4; ++m) {
    double sum = 0;
    int n = 0;
    for (double t = 7.3; t < seconds - 1; t += 9.7) {  // checks between sync points, never fitted
      const int64_t global = t0 + static_cast<int64_t>(t * 1e9);
      const int64_t local = global + static_cast<int64_t>(std::llround(c.Offset(t)));
      sum += std::abs(static_cast<double>(fit.models[static_cast<size_t>(m)].ToGlobalNs(local) - global)) / 1000.0;
      ++n;
    }
    e.mean_us[m] = sum / n;
  }
  return e;
}

TEST(Timesync, ModelsAreOrderedAndRobustBeatsTheSeedQuadratic) {
  for (uint64_t seed : {1, 2, 3, 4}) {
    const int secs = 1800;
    const TrueClock c = MakeClock(seed, secs);
    // NTP-grade: 16 s polls, 20 us jitter, 5 % asymmetric-delay spikes up to 2 ms.
    const Errors ntp = RunSync(c, secs, 16, 20e3, 0.05, 2e6, seed * 11);
    std::printf("seed %llu ntp none %.2f linear %.2f quadratic %.2f robust %.2f us\n", static_cast<unsigned long long>(seed),
                ntp.mean_us[0], ntp.mean_us[1], ntp.mean_us[2], ntp.mean_us[3]);
    EXPECT_LT(ntp.mean_us[3] * 2.5, ntp.mean_us[2]) << "robust " << ntp.mean_us[3] << " vs quadratic " << ntp.mean_us[2];
    // PTP-grade: 1 s, 100 ns jitter, rare spikes.
    const Errors ptp = RunSync(c, secs, 1, 100, 0.01, 50e3, seed * 13);
    std::printf("seed %llu ptp none %.3f linear %.3f quadratic %.3f robust %.3f us\n", static_cast<unsigned long long>(seed),
                ptp.mean_us[0], ptp.mean_us[1], ptp.mean_us[2], ptp.mean_us[3]);
    EXPECT_LT(ptp.mean_us[3], ptp.mean_us[2]) << "robust " << ptp.mean_us[3] << " vs quadratic " << ptp.mean_us[2];
    EXPECT_LT(ptp.mean_us[3], 1.0);
  }
}

TEST(Timesync, FindsAClockStep) {
  TrueClock c = MakeClock(9, 900);
  c.step_at_s = 400;
  c.step_ns = 2e6;
  Rng r(3);
  std::vector<SyncSample> samples;
  const int64_t t0 = 1700000000LL * 1000000000LL;
  for (int t = 0; t <= 900; ++t) {
    SyncSample s;
    s.ref_ns = t0 + t * 1000000000LL;
    s.local_ns = s.ref_ns + static_cast<int64_t>(c.Offset(t) + r.Normal() * 200);
    samples.push_back(s);
  }
  const HostClockFit fit = FitHostClock("h", samples);
  const ClockModel& robust = fit.Best();
  ASSERT_EQ(robust.steps_local_ns.size(), 1U);
  EXPECT_NEAR(static_cast<double>(robust.steps_local_ns[0] - t0) / 1e9, 400, 1.5);
  EXPECT_LT(robust.mean_abs_residual_us, 1.0);
  EXPECT_GT(fit.models[1].mean_abs_residual_us, 100.0) << "one line cannot follow a 2 ms step";
}

// A chrony host polling every 64 s logs four records over four minutes: FindSteps' medians need
// seven. The records carry their own sigma (`Offset sd`); a 0.65 ms step between the 2nd and 3rd
// (and one between the 1st and 2nd, with a single record before it) is found from them, at the
// right place; the clock's own drift (0.4 ppm, 25 us per poll) is not a step.
TEST(Timesync, FindsAClockStepInAFewSparseRecords) {
  const int64_t t0 = 1700000000LL * 1000000000LL;
  auto records = [&](int n, int step_after, double step_ns) {
    Rng r(5);
    std::vector<SyncSample> s;
    for (int k = 0; k < n; ++k) {
      const double t = 5.0 + 64.0 * k + r.Uniform(-3.0, 3.0);
      const double off = 17e3 + 0.4 * 1e3 * t + (k > step_after ? step_ns : 0.0) + r.Normal() * 4e3;
      SyncSample x;
      x.ref_ns = t0 + static_cast<int64_t>(t * 1e9);
      x.local_ns = x.ref_ns + static_cast<int64_t>(std::llround(off));
      x.uncertainty_ns = 4.4e3;
      s.push_back(x);
    }
    return s;
  };
  for (const auto& [n, after] : {std::pair{4, 1}, std::pair{3, 0}, std::pair{4, 0}}) {
    const ClockModel m = FitHostClock("h", records(n, after, 650e3)).Best();
    ASSERT_EQ(m.steps_local_ns.size(), 1U) << n << " records, step after " << after;
    const auto recs = records(n, after, 650e3);
    EXPECT_GT(m.steps_local_ns[0], recs[static_cast<size_t>(after)].local_ns);
    EXPECT_LT(m.steps_local_ns[0], recs[static_cast<size_t>(after) + 1].local_ns);
    EXPECT_NEAR(m.OffsetNs(recs.back().local_ns) - m.OffsetNs(recs.front().local_ns),
                recs.back().offset_ns() - recs.front().offset_ns(), 20e3);
  }
  EXPECT_TRUE(FitHostClock("h", records(4, 1, 0)).Best().steps_local_ns.empty()) << "drift alone";
}

// A delay spike moves one record's offset by up to a quarter of the spike, and chrony's `Offset sd`
// grows by half of it: a record 1 ms off with a 2.5 ms sigma is no step, nor is a jump between
// records that report no sigma (not synchronised).
TEST(Timesync, SparseRecordsWithTheirOwnLargeSigmaAreNoStep) {
  const int64_t t0 = 1700000000LL * 1000000000LL;
  std::vector<SyncSample> s;
  for (int k = 0; k < 4; ++k) {
    SyncSample x;
    x.ref_ns = t0 + k * 64'000'000'000LL;
    x.local_ns = x.ref_ns + (k >= 2 ? 1'000'000 : 0);
    x.uncertainty_ns = k >= 2 ? 2.5e6 : 3e3;
    s.push_back(x);
  }
  EXPECT_TRUE(FitHostClock("h", s).Best().steps_local_ns.empty());
  for (auto& x : s) x.uncertainty_ns = NAN;
  EXPECT_TRUE(FitHostClock("h", s).Best().steps_local_ns.empty());
}

// One mis-stamped point a century after the run, and samples at the ends of the int64 range: the
// models stay bounded by the samples, the stretch without samples is a reported gap.
TEST(Timesync, SegmentsGrowWithTheSamplesNotTheSpan) {
  const int64_t t0 = 1700000000LL * 1000000000LL;
  std::vector<SyncSample> samples;
  for (int t = 0; t < 600; ++t) {
    SyncSample s;
    s.ref_ns = t0 + t * 1000000000LL;
    s.local_ns = s.ref_ns + 5000 + (t % 7) * 10;
    samples.push_back(s);
  }
  SyncSample late;
  late.ref_ns = t0 + 100LL * 365 * 86400 * 1000000000LL;
  late.local_ns = late.ref_ns + 5000;
  samples.push_back(late);
  const HostClockFit fit = FitHostClock("h", samples);
  for (const ClockModel& m : fit.models) {
    EXPECT_LE(m.segments.size(), samples.size()) << ClockModelName(m.kind);
    ASSERT_EQ(m.gaps.size(), 1U) << ClockModelName(m.kind);
    EXPECT_EQ(m.gaps[0].to_local_ns, late.local_ns);
  }
  EXPECT_LT(fit.Best().mean_abs_residual_us, 0.1);
  for (int64_t extreme : {INT64_MIN, INT64_MAX}) {
    std::vector<SyncSample> edge(samples.begin(), samples.begin() + 40);
    SyncSample e;
    e.local_ns = extreme;
    e.ref_ns = extreme;
    edge.push_back(e);
    const HostClockFit f = FitHostClock("h", edge);
    for (const ClockModel& m : f.models) EXPECT_LE(m.segments.size(), edge.size() + 2) << ClockModelName(m.kind);
  }
}

TEST(Timesync, DegenerateInputs) {
  EXPECT_EQ(FitHostClock("h", {}).models.size(), 4U);
  SyncSample one;
  one.local_ns = 1000;
  one.ref_ns = 400;
  const HostClockFit f = FitHostClock("h", {one});
  EXPECT_NEAR(f.models[1].OffsetNs(5000), 600, 1e-6);
  EXPECT_NEAR(f.Best().OffsetNs(5000), 600, 1e-6);
  EXPECT_EQ(f.models[0].ToGlobalNs(5000), 5000);
  EXPECT_EQ(ClockModelName(ClockModelKind::kQuadratic), "quadratic");
}

}  // namespace timesync_test
}  // namespace toposcope::analysis
