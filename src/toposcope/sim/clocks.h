// sim/clocks: the simulated hosts' clocks and the clock-sync records their daemons log.
//
// Every host has a CLOCK_REALTIME whose offset from the true (reference) time is
//   offset(t) = o0 + f*t + 0.5*a*t^2 + R(t) + sum of steps before t          [ns; + = host ahead]
// with t the true seconds since the run start, f the residual skew, a the aging (the slow frequency
// drift), R(t) the integral of a random-walk frequency (a new Gaussian increment every second,
// piecewise-constant in between, so R is continuous and piecewise linear) and steps the injected
// clock jumps. This is the RESIDUAL of a disciplined clock (DOMAIN.md §6): the daemon's frequency
// correction removes the oscillator's free-running error (kept apart, `raw_freq_ppm`, +-10..100 ppm,
// it shows in the logs' freq columns), and what is left drifts freely between sync updates.
//
// Parameters, drawn per host from its stream (documented in docs/truth_schema.md too):
//   PTP-grade (ptp4l -S on a PTP-aware LAN): o0 = +-U(50, 800) ns (asymmetry bias + servo residual),
//     f = +-logU(0.0002, 0.002) ppm, a = +-U(1e-7, 1e-6) ppm/s, random walk 3e-5 ppm/sqrt(s);
//     ptp4l samples at 2^k Hz, k in {0..3}; measurement noise N(0, U(5, 30) ns); path delay
//     U(0.5, 5) us; 1 % of samples hit an asymmetric delay spike of U(2, 50) us on one direction
//     (offset error +-spike/2, path delay + spike/2).
//   NTP-grade (chrony on a LAN): o0 = +-U(10, 100) us, f = +-logU(0.01, 1) ppm,
//     a = +-U(5e-5, 5e-4) ppm/s, random walk 0.002 ppm/sqrt(s); tracking.log updates every poll
//     interval 2^k s, k in {4, 5, 6} (16-64 s), x U(0.9, 1.1), at whole seconds of the host's clock
//     (the log has whole-second times); measurement noise N(0, U(1, 5) us); root delay
//     U(100, 300) us; 6 % of updates see a delay spike of U(0.5, 5) ms, of which a random share in
//     [-0.5, 0.5] is asymmetric (offset error = share * spike / 2; `Offset sd` = noise + spike / 2,
//     `Root delay` = base + spike). Other columns: stratum 3, `Co` 1, `Skew` U(0.005, 0.08) ppm,
//     `Rem. corr.` N(0, 0.2 us), `Root disp.` U(10, 40) us, `Max. error` = delay/2 + disp + |offset|.
//   Both: raw_freq_ppm = +-U(10, 100) (free-running crystal error the daemon compensates);
//     uptime at the run start U(1 h, 30 d); CLOCK_MONOTONIC = CLOCK_REALTIME - boot time - steps
//     (monotonic is slewed with realtime but never stepped).
//   Fault `clock_step`: at one instant in the middle 40 % of the run one host's clock jumps by
//     +-U(0.5, 5) ms and stays there (the daemon does not undo it within the run).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "toposcope/base/rng.h"
#include "toposcope/formats/clock/chrony.h"
#include "toposcope/formats/clock/linuxptp.h"
#include "toposcope/formats/clock/sync_point.h"

namespace toposcope::sim {

enum class ClockDiscipline { kPtp, kNtp };

// Returns "ptp" or "ntp" (a static string). Never fails.
const char* ClockDisciplineName(ClockDiscipline d);

struct ClockStep {
  int64_t true_ns = 0;   // when it happened, true time (ns since the epoch)
  int64_t local_ns = 0;  // the host's clock just before the step
  int64_t step_ns = 0;   // the jump (+ = the clock jumped ahead)
};

struct ClockParams {
  ClockDiscipline discipline = ClockDiscipline::kNtp;
  int64_t epoch_ns = 0;          // true time of t = 0 (the run start)
  double duration_s = 0;         // the modelled span (random walk grid); beyond it f is held
  double offset0_ns = 0;         // o0
  double skew_ppm = 0;           // f
  double aging_ppm_per_s = 0;    // a
  double rw_sigma_ppm = 0;       // random-walk frequency increment per second (std dev, ppm)
  double raw_freq_ppm = 0;       // free-running oscillator error compensated by the daemon
  int64_t boot_local_ns = 0;     // CLOCK_REALTIME reading at boot: monotonic = realtime - this
  std::vector<ClockStep> steps;  // sorted by time
  // Sync daemon.
  double sync_interval_s = 0;  // PTP: 1 / sample rate; NTP: poll interval
  double meas_sigma_ns = 0;    // measurement noise (std dev)
  double base_delay_ns = 0;    // PTP path delay / NTP root delay without spikes
};

// One host's clock: the offset model of the header, evaluated exactly at any true time. Every
// member returns what its comment says for any time (before the epoch or past the modelled span
// the frequency is held); none fails.
class HostClock {
 public:
  HostClock() = default;
  // Builds the random-walk grid from `rw_seed` (independent of the other draws).
  HostClock(ClockParams params, uint64_t rw_seed);

  [[nodiscard]] const ClockParams& params() const { return p_; }
  // offset(t) in ns (local - true) at true time `true_ns`, steps included.
  [[nodiscard]] double OffsetNs(int64_t true_ns) const;
  // The same without the steps (the smooth part).
  [[nodiscard]] double SmoothOffsetNs(int64_t true_ns) const;
  // The residual frequency (ppm) at `true_ns`: f + a*t + random walk.
  [[nodiscard]] double FreqPpm(int64_t true_ns) const;
  // CLOCK_REALTIME reading at true time `true_ns` (rounded to ns).
  [[nodiscard]] int64_t LocalNs(int64_t true_ns) const;
  // CLOCK_MONOTONIC reading at true time `true_ns`.
  [[nodiscard]] int64_t MonotonicNs(int64_t true_ns) const;
  // A true time at which the host's clock reads `local_ns` (fixed-point iteration; near a
  // negative step, where the reading repeats, the earlier solution is not guaranteed).
  [[nodiscard]] int64_t TrueNsAt(int64_t local_ns) const;
  // Sum of the steps that happened at or before `true_ns`.
  [[nodiscard]] int64_t StepsBefore(int64_t true_ns) const;

 private:
  ClockParams p_;
  std::vector<double> rw_freq_ppm_;  // frequency of second k (k = 0 .. n-1)
  std::vector<double> rw_cum_ns_;    // R at the start of second k (k = 0 .. n)
};

// Draws the parameters of one host's clock (the header's table). `rng` is the host's clock
// stream; `epoch_ns`/`duration_s` the run; `uptime_s` comes from the same stream. Returns the
// parameters (no steps yet); never fails.
ClockParams DrawClockParams(ClockDiscipline discipline, int64_t epoch_ns, double duration_s, Rng& rng);

// The chrony tracking.log of an NTP-grade host over [epoch, epoch + duration]: one update per poll
// interval at whole seconds of the host's clock. Offsets are the true offset plus measurement
// noise and delay-spike errors; Freq is the raw oscillator error plus the residual frequency.
// `server_ip` is the reference's address. Returns the records in time order (updates that land
// on a clock step are left out); never fails. The clock must be NTP-grade (DrawClockParams: a
// positive poll interval).
std::vector<formats::ChronyTrackingRecord> SimulateChronyTracking(const HostClock& clock,
                                                                  const std::string& server_ip, Rng& rng);

// One ptp4l servo sample.
struct PtpSample {
  int64_t true_ns = 0;
  int64_t local_ns = 0;      // CLOCK_REALTIME at the sample (journal time)
  int64_t monotonic_ns = 0;  // the `[sec.ms]` prefix
  int64_t offset_ns = 0;     // measured master offset (slave - master)
  int servo_state = 2;
  double freq_ppb = 0;
  int64_t path_delay_ns = 0;
};
// The ptp4l samples of a PTP-grade host over the run, at its sample rate, in time order. Never
// fails; the clock must be PTP-grade (DrawClockParams: a sample interval of at least 1 ns).
std::vector<PtpSample> SimulatePtp4l(const HostClock& clock, Rng& rng);

// Explicit sync pairs (our CSV): every `interval_s` of true time, the host's clock and the
// reference read at one instant, with Gaussian read error of `sigma_ns` on the host side;
// uncertainty_ns = 2 sigma; source "pps-probe". Returns the pairs in time order over the run;
// never fails. `interval_s` must be at least 1 ns.
std::vector<formats::SyncPoint> SimulateSyncPairs(const HostClock& clock, const std::string& host,
                                                  double interval_s, double sigma_ns, Rng& rng);

}  // namespace toposcope::sim
