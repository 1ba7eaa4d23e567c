// analysis/time/timesync: per-host clock models that map a host's local timestamps onto the global
// (reference) axis (seed §2.2). Four models are fitted side by side on the same sync points:
//   none       offset 0 (uncompensated)
//   linear     one least-squares line offset(t) = a + b t over the whole run
//   quadratic  the seed's model: every `refit_period_s` (30 s) a least-squares quadratic over the
//              trailing `quad_window_s` of sync points, used for the next refit period
//   robust     ours: clock steps found and split first (a jump between the medians of up to 5
//              points either side; where a side has fewer, as in a chrony log polled every 64 s,
//              a line plus a jump fitted on the 2 + 2 points around the split, weighted by each
//              point's own reported uncertainty: 12 standard errors and 1 us); then, at knots every `knot_spacing_s`, a
//              local linear fit with tricube weights and bisquare (IRLS) down-weighting of
//              impulsive outliers (asymmetric-delay spikes), sync uncertainties as weights; the
//              knots joined piecewise-linearly. It follows frequency random walk and ignores spikes.
// Every model is a list of polynomial segments, so it can be written to result.json and applied
// by anyone: offset_ns(local) = c0 + c1*dt + c2*dt^2 with dt = (local - t0) seconds.
// Residuals are measured on held-out sync points (every `holdout_every`-th point, never fitted).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace toposcope::analysis {

struct SyncSample {
  int64_t local_ns = 0;        // the host's clock
  int64_t ref_ns = 0;          // the reference clock at the same instant
  double uncertainty_ns = NAN; // one-sigma, when the source gives one
  [[nodiscard]] double offset_ns() const { return static_cast<double>(local_ns - ref_ns); }
};

enum class ClockModelKind { kNone, kLinear, kQuadratic, kRobust };
// The kind's name: "none", "linear", "quadratic", "robust" ("none" outside the enum). Never fails.
std::string_view ClockModelName(ClockModelKind k);

struct ClockSegment {
  int64_t start_local_ns = 0;  // segment covers [start, end); the first and last extend to +-inf
  int64_t end_local_ns = 0;
  int64_t t0_local_ns = 0;     // origin of dt
  double c0 = 0, c1 = 0, c2 = 0;
};

// A stretch of local time without sync samples (between two consecutive fitted samples further
// apart than twice the coarsest model resolution: knot spacing, refit period, quadratic window).
// No segment is placed inside it: the model there is the segment before it carried on.
struct ClockGap {
  int64_t from_local_ns = 0;  // the last sample before the gap
  int64_t to_local_ns = 0;    // the first sample after it
};

struct ClockModel {
  std::string host;
  ClockModelKind kind = ClockModelKind::kNone;
  std::vector<ClockSegment> segments;  // sorted, non-overlapping
  int fit_points = 0;
  int heldout_points = 0;
  double mean_abs_residual_us = NAN;   // on held-out points
  double p99_abs_residual_us = NAN;
  std::vector<int64_t> steps_local_ns; // clock steps found (robust model only)
  int anchor_points = 0;               // implicit anchors folded in (robust model only)
  double anchor_weight = 0;            // their share of the blend inside the anchored span, 0..1
  std::vector<ClockGap> gaps;          // stretches without samples, sorted; no segment inside them

  // The offset (local - global) at a local time, in ns; 0 for a model without segments.
  [[nodiscard]] double OffsetNs(int64_t local_ns) const;
  // The global time of a local time (local - rounded OffsetNs). Never fails.
  [[nodiscard]] int64_t ToGlobalNs(int64_t local_ns) const;
};

struct TimesyncOptions {
  double refit_period_s = 30.0;   // the seed's refit cadence
  double quad_window_s = 120.0;   // trailing window of the seed's quadratic
  double knot_spacing_s = 30.0;   // robust model knots
  int min_window_points = 12;     // the robust local fit widens its window to reach this many
  int holdout_every = 5;          // every 5th point is held out (0 = none)
  double step_threshold_ns = 0;   // 0 = automatic (from the robust noise scale)
};

struct HostClockFit {
  std::string host;
  std::vector<ClockModel> models;  // none, linear, quadratic, robust (in that order)
  std::vector<SyncSample> heldout; // the held-out sync points the residuals are measured on
  // The robust model, else the last model; `models` must not be empty (FitHostClock fills all four).
  [[nodiscard]] const ClockModel& Best() const;
};

// Sets a model's held-out residuals (mean and p99 of |error|, µs) and heldout_points; without
// held-out points the residuals are left as they are. Never fails.
void ScoreHeldOut(ClockModel& m, const std::vector<SyncSample>& held);

// Our robust model alone, on samples sorted by local_ns (no hold-out, no residuals). Returns it;
// never fails: fewer than 2 samples give a constant model.
ClockModel FitRobustModel(const std::vector<SyncSample>& sorted, const TimesyncOptions& opt = {});

// Inside [from_local_ns, to_local_ns) the inverse-variance blend (1 - b_weight) * a + b_weight * b
// of two piecewise-linear models; outside, `a` unchanged. Quadratic terms are evaluated at each
// segment start (exact for the linear segments of the robust model). Returns the blend; `a` itself
// when b_weight <= 0, the span is empty or `b` has no segments. Never fails.
ClockModel BlendModels(const ClockModel& a, const ClockModel& b, double b_weight, int64_t from_local_ns,
                       int64_t to_local_ns);

// The gaps of samples sorted by local_ns: consecutive samples further apart than twice the coarsest
// resolution of `opt` (knot spacing, refit period, quadratic window). Returns them sorted; never fails.
std::vector<ClockGap> FindClockGaps(const std::vector<SyncSample>& sorted, const TimesyncOptions& opt = {});

// Fits and returns the four models for one host, scored on the held-out points. Samples need not be
// sorted. Never fails: fewer than 2 samples give constant models.
HostClockFit FitHostClock(const std::string& host, std::vector<SyncSample> samples, const TimesyncOptions& opt = {});

}  // namespace toposcope::analysis
