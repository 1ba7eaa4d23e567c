#include "toposcope/sim/clocks.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace toposcope::sim {
namespace {

constexpr double kNsPerS = 1e9;

double Sign(Rng& rng) { return rng.Uniform() < 0.5 ? -1.0 : 1.0; }
double LogUniform(Rng& rng, double lo, double hi) {
  return std::exp(rng.Uniform(std::log(lo), std::log(hi)));
}
int64_t Round(double v) { return static_cast<int64_t>(std::llround(v)); }

}  // namespace

const char* ClockDisciplineName(ClockDiscipline d) { return d == ClockDiscipline::kPtp ? "ptp" : "ntp"; }

HostClock::HostClock(ClockParams params, uint64_t rw_seed) : p_(std::move(params)) {
  std::sort(p_.steps.begin(), p_.steps.end(),
            [](const ClockStep& a, const ClockStep& b) { return a.true_ns < b.true_ns; });
  const int n = std::max(1, static_cast<int>(std::ceil(p_.duration_s)) + 2);
  Rng rng(rw_seed);
  rw_freq_ppm_.resize(static_cast<size_t>(n));
  rw_cum_ns_.assign(static_cast<size_t>(n) + 1, 0.0);
  double f = 0;
  for (int k = 0; k < n; ++k) {
    if (k > 0) f += p_.rw_sigma_ppm * rng.Normal();
    rw_freq_ppm_[static_cast<size_t>(k)] = f;
    rw_cum_ns_[static_cast<size_t>(k) + 1] = rw_cum_ns_[static_cast<size_t>(k)] + f * 1e3;  // ppm x 1 s
  }
}

double HostClock::SmoothOffsetNs(int64_t true_ns) const {
  const double t = static_cast<double>(true_ns - p_.epoch_ns) / kNsPerS;
  double rw = 0;
  if (t > 0 && !rw_freq_ppm_.empty()) {
    const auto n = static_cast<int64_t>(rw_freq_ppm_.size());
    const auto k = std::min<int64_t>(static_cast<int64_t>(std::floor(t)), n - 1);
    rw = rw_cum_ns_[static_cast<size_t>(k)] +
         rw_freq_ppm_[static_cast<size_t>(k)] * 1e3 * (t - static_cast<double>(k));
  }
  // ppm x s = 1e-6 s = 1e3 ns.
  return p_.offset0_ns + p_.skew_ppm * 1e3 * t + 0.5 * p_.aging_ppm_per_s * 1e3 * t * t + rw;
}

int64_t HostClock::StepsBefore(int64_t true_ns) const {
  int64_t s = 0;
  for (const ClockStep& st : p_.steps) {
    if (st.true_ns <= true_ns) s += st.step_ns;
  }
  return s;
}

double HostClock::OffsetNs(int64_t true_ns) const {
  return SmoothOffsetNs(true_ns) + static_cast<double>(StepsBefore(true_ns));
}

double HostClock::FreqPpm(int64_t true_ns) const {
  const double t = static_cast<double>(true_ns - p_.epoch_ns) / kNsPerS;
  double rw = 0;
  if (t > 0 && !rw_freq_ppm_.empty()) {
    const auto n = static_cast<int64_t>(rw_freq_ppm_.size());
    rw = rw_freq_ppm_[static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(std::floor(t)), n - 1))];
  }
  return p_.skew_ppm + p_.aging_ppm_per_s * t + rw;
}

int64_t HostClock::LocalNs(int64_t true_ns) const { return true_ns + Round(OffsetNs(true_ns)); }

int64_t HostClock::MonotonicNs(int64_t true_ns) const {
  return LocalNs(true_ns) - StepsBefore(true_ns) - p_.boot_local_ns;
}

int64_t HostClock::TrueNsAt(int64_t local_ns) const {
  int64_t t = local_ns - Round(OffsetNs(local_ns));
  for (int i = 0; i < 6; ++i) {
    const int64_t next = local_ns - Round(OffsetNs(t));
    if (next == t) break;
    t = next;
  }
  return t;
}

ClockParams DrawClockParams(ClockDiscipline discipline, int64_t epoch_ns, double duration_s, Rng& rng) {
  ClockParams p;
  p.discipline = discipline;
  p.epoch_ns = epoch_ns;
  p.duration_s = duration_s;
  if (discipline == ClockDiscipline::kPtp) {
    p.offset0_ns = Sign(rng) * rng.Uniform(50.0, 800.0);
    p.skew_ppm = Sign(rng) * LogUniform(rng, 0.0002, 0.002);
    p.aging_ppm_per_s = Sign(rng) * rng.Uniform(1e-7, 1e-6);
    p.rw_sigma_ppm = 3e-5;
    p.sync_interval_s = 1.0 / static_cast<double>(1 << rng.Below(4));  // 1, 2, 4 or 8 Hz
    p.meas_sigma_ns = rng.Uniform(5.0, 30.0);
    p.base_delay_ns = rng.Uniform(500.0, 5000.0);
  } else {
    p.offset0_ns = Sign(rng) * rng.Uniform(10e3, 100e3);
    p.skew_ppm = Sign(rng) * LogUniform(rng, 0.01, 1.0);
    p.aging_ppm_per_s = Sign(rng) * rng.Uniform(5e-5, 5e-4);
    p.rw_sigma_ppm = 0.002;
    p.sync_interval_s = static_cast<double>(16 << rng.Below(3));  // 16, 32 or 64 s
    p.meas_sigma_ns = rng.Uniform(1e3, 5e3);
    p.base_delay_ns = rng.Uniform(100e3, 300e3);
  }
  p.raw_freq_ppm = Sign(rng) * rng.Uniform(10.0, 100.0);
  const double uptime_s = rng.Uniform(3600.0, 30.0 * 86400.0);
  // Boot time on the host's own clock (before the run, so no step is involved).
  p.boot_local_ns = epoch_ns + Round(p.offset0_ns) - Round(uptime_s * kNsPerS);
  return p;
}

std::vector<formats::ChronyTrackingRecord> SimulateChronyTracking(const HostClock& clock,
                                                                  const std::string& server_ip, Rng& rng) {
  const ClockParams& p = clock.params();
  std::vector<formats::ChronyTrackingRecord> out;
  const int64_t end_ns = p.epoch_ns + Round(p.duration_s * kNsPerS);
  double t_s = rng.Uniform(0.0, p.sync_interval_s);
  int64_t last_local = std::numeric_limits<int64_t>::min();
  while (true) {
    const int64_t approx_true = p.epoch_ns + Round(t_s * kNsPerS);
    if (approx_true > end_ns) break;
    // Updates land on whole seconds of the host's clock (the log has no sub-second part).
    const int64_t local_guess = clock.LocalNs(approx_true);
    const int64_t local_s = (local_guess + 999999999) / 1000000000 * 1000000000;
    const int64_t true_ns = clock.TrueNsAt(local_s);
    const double jitter = rng.Uniform(0.9, 1.1);
    const double noise = rng.Normal() * p.meas_sigma_ns;
    const bool spike = rng.Uniform() < 0.06;
    const double spike_ns = spike ? rng.Uniform(0.5e6, 5e6) : 0.0;
    const double share = spike ? rng.Uniform(-0.5, 0.5) : 0.0;
    const double skew = rng.Uniform(0.005, 0.08);
    const double rem = rng.Normal() * 200.0;
    const double disp = rng.Uniform(10e3, 40e3);
    const double freq_noise = rng.Normal() * 0.002;
    t_s += p.sync_interval_s * jitter;
    if (clock.LocalNs(true_ns) != local_s || local_s <= last_local) continue;  // at a step
    last_local = local_s;
    formats::ChronyTrackingRecord r;
    r.time_ns = local_s;
    r.ip = server_ip;
    r.stratum = 3;
    r.freq_ppm = p.raw_freq_ppm + clock.FreqPpm(true_ns) + freq_noise;
    r.skew_ppm = skew;
    const double offset_ns = clock.OffsetNs(true_ns) + noise + share * spike_ns / 2.0;
    r.offset_s = offset_ns / kNsPerS;
    r.leap = 'N';
    r.combined = 1;
    r.offset_sd_s = (p.meas_sigma_ns + spike_ns / 2.0) / kNsPerS;
    r.remaining_correction_s = rem / kNsPerS;
    r.root_delay_s = (p.base_delay_ns + spike_ns) / kNsPerS;
    r.root_dispersion_s = disp / kNsPerS;
    r.max_error_s = r.root_delay_s / 2.0 + r.root_dispersion_s + std::abs(r.offset_s);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<PtpSample> SimulatePtp4l(const HostClock& clock, Rng& rng) {
  const ClockParams& p = clock.params();
  std::vector<PtpSample> out;
  const int64_t interval_ns = Round(p.sync_interval_s * kNsPerS);
  const int64_t end_ns = p.epoch_ns + Round(p.duration_s * kNsPerS);
  const int64_t phase = static_cast<int64_t>(rng.Below(static_cast<uint64_t>(interval_ns)));
  for (int64_t t = p.epoch_ns + phase; t <= end_ns; t += interval_ns) {
    const double noise = rng.Normal() * p.meas_sigma_ns;
    const bool spike = rng.Uniform() < 0.01;
    const double spike_ns = spike ? rng.Uniform(2e3, 50e3) : 0.0;
    const double sign = spike ? Sign(rng) : 0.0;
    const double delay_noise = rng.Normal() * p.meas_sigma_ns * 0.5;
    const int64_t print_latency = 5000 + static_cast<int64_t>(rng.Below(45000));  // 5-50 us
    const int64_t journal_latency = 20000 + static_cast<int64_t>(rng.Below(180000));
    const double freq_noise = rng.Normal() * 2.0;
    PtpSample s;
    s.true_ns = t;
    s.monotonic_ns = clock.MonotonicNs(t + print_latency);
    s.local_ns = clock.LocalNs(t + print_latency + journal_latency);
    s.offset_ns = Round(clock.OffsetNs(t) + noise + sign * spike_ns / 2.0);
    s.servo_state = 2;
    s.freq_ppb = -(p.raw_freq_ppm + clock.FreqPpm(t)) * 1e3 + freq_noise;
    s.path_delay_ns = std::max<int64_t>(1, Round(p.base_delay_ns + delay_noise + spike_ns / 2.0));
    out.push_back(s);
  }
  return out;
}

std::vector<formats::SyncPoint> SimulateSyncPairs(const HostClock& clock, const std::string& host,
                                                  double interval_s, double sigma_ns, Rng& rng) {
  const ClockParams& p = clock.params();
  std::vector<formats::SyncPoint> out;
  const int64_t interval_ns = Round(interval_s * kNsPerS);
  const int64_t end_ns = p.epoch_ns + Round(p.duration_s * kNsPerS);
  const int64_t phase = static_cast<int64_t>(rng.Below(static_cast<uint64_t>(interval_ns)));
  for (int64_t t = p.epoch_ns + phase; t <= end_ns; t += interval_ns) {
    formats::SyncPoint sp;
    sp.host = host;
    sp.ref_ns = t;
    sp.local_ns = clock.LocalNs(t) + Round(rng.Normal() * sigma_ns);
    sp.offset_ns = static_cast<double>(sp.local_ns - sp.ref_ns);
    sp.uncertainty_ns = 2.0 * sigma_ns;
    sp.source = "pps-probe";
    sp.synced = true;
    out.push_back(std::move(sp));
  }
  return out;
}

}  // namespace toposcope::sim
