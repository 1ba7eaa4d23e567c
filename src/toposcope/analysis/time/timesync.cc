#include "toposcope/analysis/time/timesync.h"
#include "toposcope/stats/order_stats.h"

#include <Eigen/Dense>
#include <algorithm>
#include <array>

namespace toposcope::analysis {
namespace {

constexpr double kNsPerS = 1e9;

double Median(std::vector<double> v) { return v.empty() ? 0.0 : stats::Median(std::move(v)); }

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// Weighted polynomial least squares of degree `deg` in dt (seconds from t0). Returns c0..c2.
std::array<double, 3> FitPoly(const std::vector<SyncSample>& s, size_t b, size_t e, int64_t t0, int deg,
                              const std::vector<double>* weights = nullptr) {
  std::array<double, 3> c{0, 0, 0};
  const size_t n = e - b;
  if (n == 0) return c;
  deg = std::min<int>(deg, static_cast<int>(n) - 1);
  if (deg <= 0) {
    double sw = 0, sy = 0;
    for (size_t i = b; i < e; ++i) {
      const double w = weights ? (*weights)[i - b] : 1.0;
      sw += w;
      sy += w * s[i].offset_ns();
    }
    c[0] = sw > 0 ? sy / sw : 0;
    return c;
  }
  Eigen::MatrixXd a(static_cast<int>(n), deg + 1);
  Eigen::VectorXd y(static_cast<int>(n));
  for (size_t i = b; i < e; ++i) {
    const double w = std::sqrt(weights ? std::max(0.0, (*weights)[i - b]) : 1.0);
    const double dt = static_cast<double>(s[i].local_ns - t0) / kNsPerS;
    double p = 1;
    for (int k = 0; k <= deg; ++k) {
      a(static_cast<int>(i - b), k) = w * p;
      p *= dt;
    }
    y(static_cast<int>(i - b)) = w * s[i].offset_ns();
  }
  const Eigen::VectorXd x = a.colPivHouseholderQr().solve(y);
  for (int k = 0; k <= deg; ++k) c[static_cast<size_t>(k)] = std::isfinite(x(k)) ? x(k) : 0.0;
  return c;
}

ClockSegment Segment(int64_t start, int64_t end, int64_t t0, const std::array<double, 3>& c) {
  return ClockSegment{start, end, t0, c[0], c[1], c[2]};
}

// Index of the first sample with local_ns >= t.
size_t LowerBound(const std::vector<SyncSample>& s, int64_t t) {
  return static_cast<size_t>(std::lower_bound(s.begin(), s.end(), t, [](const SyncSample& x, int64_t v) {
                               return x.local_ns < v;
                             }) - s.begin());
}

// a + b without overflow (clamped to the int64 range).
int64_t SatAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (!__builtin_add_overflow(a, b, &r)) return r;
  return b > 0 ? INT64_MAX : INT64_MIN;
}

// A model resolution in seconds as ns: at least 1 ns, at most ~146 years, whatever the option says.
int64_t ResolutionNs(double s) {
  const double ns = s * kNsPerS;
  if (!(ns >= 1)) return 1;
  return ns >= 4.6e18 ? INT64_C(4600000000000000000) : static_cast<int64_t>(ns);
}

// The grid point origin + k*step (k >= 0) at or after t when `up`, else at or before t (origin when
// t <= origin). Never overflows.
int64_t GridPoint(int64_t origin, int64_t step, int64_t t, bool up) {
  if (t <= origin) return origin;
  const uint64_t d = static_cast<uint64_t>(t) - static_cast<uint64_t>(origin);  // exact: t > origin
  const uint64_t below = d / static_cast<uint64_t>(step) * static_cast<uint64_t>(step);
  const auto g = static_cast<int64_t>(static_cast<uint64_t>(origin) + below);    // origin <= g <= t
  return up && g < t ? SatAdd(g, step) : g;
}

ClockModel FitNone(const std::vector<SyncSample>& fit) {
  ClockModel m;
  m.kind = ClockModelKind::kNone;
  const int64_t t0 = fit.empty() ? 0 : fit.front().local_ns;
  m.segments.push_back(Segment(t0, t0, t0, {0, 0, 0}));
  return m;
}

ClockModel FitLinear(const std::vector<SyncSample>& fit) {
  ClockModel m;
  m.kind = ClockModelKind::kLinear;
  const int64_t t0 = fit.empty() ? 0 : fit.front().local_ns;
  m.segments.push_back(Segment(t0, t0, t0, FitPoly(fit, 0, fit.size(), t0, 1)));
  return m;
}

ClockModel FitQuadratic(const std::vector<SyncSample>& fit, const TimesyncOptions& opt) {
  ClockModel m;
  m.kind = ClockModelKind::kQuadratic;
  if (fit.empty()) {
    ClockModel z = FitNone(fit);
    z.kind = ClockModelKind::kQuadratic;
    return z;
  }
  // Segments only where samples are: the count grows with the samples, never with the time span.
  const int64_t period = ResolutionNs(opt.refit_period_s);
  const int64_t window = ResolutionNs(opt.quad_window_s);
  const int64_t first = fit.front().local_ns;
  const int64_t last = fit.back().local_ns;
  for (int64_t r = first; r <= last;) {
    // Trailing window [r - W, r); before any history exists, the first window ahead (warm-up).
    size_t b = LowerBound(fit, SatAdd(r, -window));
    size_t e = LowerBound(fit, r);
    if (e - b == 0) {
      const int64_t ahead = SatAdd(r, window);
      b = LowerBound(fit, r);
      e = ahead == INT64_MAX ? fit.size() : LowerBound(fit, ahead);
    }
    if (e - b == 0) {
      // No sample within a window either side: a gap, left without segments (the one before it
      // carries on). The grid resumes at the refit holding the next sample.
      const int64_t resume = std::max(SatAdd(r, period), GridPoint(first, period, fit[b].local_ns, false));
      if (resume <= r) break;
      r = resume;
      continue;
    }
    m.segments.push_back(Segment(r, std::min(SatAdd(r, period), SatAdd(last, 1)), r, FitPoly(fit, b, e, r, 2)));
    if (r > SatAdd(last, -period)) break;
    r += period;
  }
  return m;
}

// Local robust linear fit around `tau` using points of [b, e): tricube kernel, bisquare IRLS.
std::pair<double, double> RobustLocalFit(const std::vector<SyncSample>& s, size_t b, size_t e, int64_t tau,
                                          double h_s, int min_points) {
  // Widen the window until it holds enough points (or the whole segment).
  double h = h_s;
  size_t lo = 0, hi = 0;
  for (int iter = 0; iter < 40; ++iter) {
    lo = std::max(b, LowerBound(s, tau - static_cast<int64_t>(h * kNsPerS)));
    hi = std::min(e, LowerBound(s, tau + static_cast<int64_t>(h * kNsPerS) + 1));
    if (static_cast<int>(hi - lo) >= min_points || (lo == b && hi == e)) break;
    h *= 1.5;
  }
  if (hi <= lo) return {0, 0};
  const size_t n = hi - lo;
  std::vector<double> kernel(n), robust(n, 1.0), w(n);
  double max_dt = 0;
  for (size_t i = 0; i < n; ++i) {
    max_dt = std::max(max_dt, std::abs(static_cast<double>(s[lo + i].local_ns - tau)) / kNsPerS);
  }
  const double hh = std::max(h, max_dt) * 1.0001 + 1e-9;
  for (size_t i = 0; i < n; ++i) {
    const double u = std::abs(static_cast<double>(s[lo + i].local_ns - tau)) / kNsPerS / hh;
    const double t = 1 - u * u * u;
    kernel[i] = t * t * t;
    const double sig = s[lo + i].uncertainty_ns;
    if (std::isfinite(sig) && sig > 0) kernel[i] /= sig * sig;
  }
  std::array<double, 3> c{0, 0, 0};
  for (int it = 0; it < 5; ++it) {
    for (size_t i = 0; i < n; ++i) w[i] = kernel[i] * robust[i];
    c = FitPoly(s, lo, hi, tau, n >= 2 ? 1 : 0, &w);
    std::vector<double> res(n);
    for (size_t i = 0; i < n; ++i) {
      const double dt = static_cast<double>(s[lo + i].local_ns - tau) / kNsPerS;
      res[i] = s[lo + i].offset_ns() - (c[0] + c[1] * dt);
    }
    std::vector<double> absr(n);
    for (size_t i = 0; i < n; ++i) absr[i] = std::abs(res[i]);
    const double scale = stats::kMadToSigma * Median(absr);
    if (!(scale > 0)) break;
    const double cut = 4.685 * scale;
    for (size_t i = 0; i < n; ++i) {
      const double u = res[i] / cut;
      robust[i] = std::abs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0.0;
    }
  }
  return {c[0], c[1]};
}

// FindSteps' half-window: up to 5 points each side, at least 3.
size_t StepHalfWindow(size_t n) { return std::clamp<size_t>(n / 6, 3, 5); }

// Finds clock steps: a jump between the medians of the m points before and after that stands out
// from the noise. Returns indices i such that the step lies between fit[i] and fit[i+1].
std::vector<size_t> FindSteps(const std::vector<SyncSample>& s, double threshold_ns) {
  std::vector<size_t> steps;
  const size_t n = s.size();
  // Medians of up to 5 points each side; sparse NTP series (a point every 16-64 s) use fewer.
  const size_t m = StepHalfWindow(n);
  if (n < 2 * m + 1) return steps;
  std::vector<double> diffs;
  for (size_t i = 0; i + 1 < n; ++i) diffs.push_back(std::abs(s[i + 1].offset_ns() - s[i].offset_ns()));
  const double noise = stats::kMadToSigma * Median(diffs) / std::sqrt(2.0);
  const double thr = threshold_ns > 0 ? threshold_ns : std::max(12.0 * noise, 1000.0);
  std::vector<double> jump(n, 0.0);
  for (size_t i = m - 1; i + m < n; ++i) {
    std::vector<double> left, right;
    for (size_t k = i + 1 - m; k <= i; ++k) left.push_back(s[k].offset_ns());
    for (size_t k = i + 1; k <= i + m; ++k) right.push_back(s[k].offset_ns());
    jump[i] = Median(right) - Median(left);
  }
  for (size_t i = m - 1; i + m < n; ++i) {
    if (std::abs(jump[i]) < thr) continue;
    // The step sits where the raw difference is largest among the neighbours sharing the jump.
    bool is_max = true;
    for (size_t k = (i >= m ? i - m : 0); k <= std::min(n - 2, i + m); ++k) {
      if (k != i && std::abs(s[k + 1].offset_ns() - s[k].offset_ns()) > std::abs(s[i + 1].offset_ns() - s[i].offset_ns())) {
        is_max = false;
      }
    }
    if (is_max && (steps.empty() || i > steps.back() + m)) steps.push_back(i);
  }
  return steps;
}

// Clock steps in a sparse series (chrony polling every 16-64 s leaves a handful of records per
// few minutes), at the splits FindSteps' medians cannot reach: between fit[i] and fit[i + 1] with
// fewer than `m` points on a side (`m` = FindSteps' half-window; every split when n < 2m + 1).
// Locally, up to 2 points before and 2 after (at least 1 before and 2 after: a step persists), the
// offsets are fitted by weighted least squares as a line plus a jump at the split, each point
// weighted by its own one-sigma uncertainty as the sync daemon reports it (chrony's `Offset sd`,
// which a delay spike inflates with the spike). The jump is a step when it is at least 12 standard
// errors (FindSteps' noise multiple; with a spare degree of freedom the error is scaled up by the
// fit's reduced chi-square when the scatter exceeds the reported sigmas) and at least the
// threshold (FindSteps' 1 us floor, or `threshold_ns`). Points without a reported uncertainty are
// not tested. Returns the split indices, at most one per 4-point window (the strongest).
std::vector<size_t> FindSparseSteps(const std::vector<SyncSample>& s, size_t m, double threshold_ns) {
  std::vector<size_t> out;
  const size_t n = s.size();
  if (n < 3) return out;
  const bool dense = n >= 2 * m + 1;
  std::vector<double> z(n, 0.0);
  for (size_t i = 0; i + 2 < n; ++i) {
    if (dense && i + 1 >= m && i + m < n) continue;  // FindSteps tests this split
    const size_t lo = i >= 1 ? i - 1 : i, hi = std::min(n, i + 3);
    bool known = true;
    for (size_t k = lo; k < hi; ++k) known = known && std::isfinite(s[k].uncertainty_ns) && s[k].uncertainty_ns > 0;
    if (!known) continue;
    const int rows = static_cast<int>(hi - lo);
    Eigen::MatrixXd a(rows, 3);
    Eigen::VectorXd y(rows);
    for (size_t k = lo; k < hi; ++k) {
      const double w = 1.0 / s[k].uncertainty_ns;
      const int r = static_cast<int>(k - lo);
      a(r, 0) = w;
      a(r, 1) = w * static_cast<double>(s[k].local_ns - s[i].local_ns) / kNsPerS;
      a(r, 2) = k > i ? w : 0.0;
      y(r) = w * s[k].offset_ns();
    }
    const Eigen::Matrix3d info = a.transpose() * a;
    const Eigen::FullPivLU<Eigen::Matrix3d> lu(info);
    if (!lu.isInvertible()) continue;
    const Eigen::Matrix3d cov = lu.inverse();
    const Eigen::Vector3d x = cov * (a.transpose() * y);
    double se = std::sqrt(cov(2, 2));
    if (rows > 3) {
      const double chi2 = (a * x - y).squaredNorm() / static_cast<double>(rows - 3);
      se *= std::sqrt(std::max(1.0, chi2));
    }
    const double jump = std::abs(x(2));
    const double floor_ns = threshold_ns > 0 ? threshold_ns : 1000.0;
    if (se > 0 && jump >= floor_ns && jump >= 12.0 * se) z[i] = jump / se;
  }
  for (size_t i = 0; i < n; ++i) {
    if (z[i] <= 0) continue;
    bool is_max = true;
    for (size_t k = (i >= 2 ? i - 2 : 0); k <= std::min(n - 1, i + 2); ++k) is_max = is_max && (k == i || z[k] < z[i]);
    if (is_max) out.push_back(i);
  }
  return out;
}

// The knots of one part [b, e) of the robust model: every `spacing` from its first sample, none
// inside a gap (the last sample before a gap is a knot; the grid resumes one spacing before the
// sample after it), then its last sample. Their count grows with the samples, not the span.
std::vector<int64_t> Knots(const std::vector<SyncSample>& fit, size_t b, size_t e, int64_t spacing,
                           const std::vector<ClockGap>& gaps) {
  const int64_t first = fit[b].local_ns;
  const int64_t last = fit[e - 1].local_ns;
  std::vector<int64_t> knots;
  size_t gi = 0;
  for (int64_t k = first; k < last;) {
    knots.push_back(k);
    int64_t next = SatAdd(k, spacing);
    while (gi < gaps.size() && gaps[gi].to_local_ns <= next) ++gi;
    if (gi < gaps.size() && gaps[gi].from_local_ns < next && gaps[gi].to_local_ns <= last) {
      if (gaps[gi].from_local_ns > k) knots.push_back(gaps[gi].from_local_ns);
      next = std::max(next, GridPoint(first, spacing, SatAdd(gaps[gi].to_local_ns, -spacing), true));
      ++gi;
    }
    k = next;
  }
  knots.push_back(last);
  return knots;
}

ClockModel FitRobust(const std::vector<SyncSample>& fit, const TimesyncOptions& opt) {
  ClockModel m;
  m.kind = ClockModelKind::kRobust;
  if (fit.size() < 2) {
    ClockModel l = FitLinear(fit);
    l.kind = ClockModelKind::kRobust;
    return l;
  }
  std::vector<size_t> steps = FindSteps(fit, opt.step_threshold_ns);
  for (size_t st : FindSparseSteps(fit, StepHalfWindow(fit.size()), opt.step_threshold_ns)) {
    bool near = false;
    for (size_t d : steps) near = near || (st + 2 >= d && st <= d + 2);
    if (!near) steps.push_back(st);
  }
  std::sort(steps.begin(), steps.end());
  std::vector<std::pair<size_t, size_t>> parts;
  size_t begin = 0;
  for (size_t st : steps) {
    parts.emplace_back(begin, st + 1);
    m.steps_local_ns.push_back(fit[st].local_ns + (fit[st + 1].local_ns - fit[st].local_ns) / 2);
    begin = st + 1;
  }
  parts.emplace_back(begin, fit.size());
  // Knots only where samples are (none inside gaps): a mis-stamped point cannot explode the work.
  m.gaps = FindClockGaps(fit, opt);
  const int64_t spacing = ResolutionNs(opt.knot_spacing_s);
  for (size_t p = 0; p < parts.size(); ++p) {
    const auto [b, e] = parts[p];
    const int64_t seg_start = p == 0 ? fit[b].local_ns : m.steps_local_ns[p - 1];
    const int64_t seg_end = p + 1 < parts.size() ? m.steps_local_ns[p] : fit[e - 1].local_ns + 1;
    const std::vector<int64_t> knots = Knots(fit, b, e, spacing, m.gaps);
    std::vector<std::pair<double, double>> val;
    for (int64_t k : knots) val.push_back(RobustLocalFit(fit, b, e, k, opt.knot_spacing_s, opt.min_window_points));
    if (knots.size() == 1 || knots.front() == knots.back()) {
      m.segments.push_back(Segment(seg_start, seg_end, knots.front(), {val.front().first, val.front().second, 0}));
      continue;
    }
    // Before the first knot: its local slope; between knots: straight lines; after: last slope.
    for (size_t k = 0; k + 1 < knots.size(); ++k) {
      const double dt = static_cast<double>(knots[k + 1] - knots[k]) / kNsPerS;
      const double slope = dt > 0 ? (val[k + 1].first - val[k].first) / dt : val[k].second;
      const int64_t s0 = k == 0 ? seg_start : knots[k];
      if (k == 0 && seg_start < knots[0]) {
        m.segments.push_back(Segment(seg_start, knots[0], knots[0], {val[0].first, val[0].second, 0}));
      }
      m.segments.push_back(Segment(std::max(s0, knots[k]), knots[k + 1], knots[k], {val[k].first, slope, 0}));
    }
    m.segments.push_back(Segment(knots.back(), std::max(seg_end, knots.back() + 1), knots.back(),
                                 {val.back().first, val.back().second, 0}));
  }
  return m;
}

}  // namespace

std::vector<ClockGap> FindClockGaps(const std::vector<SyncSample>& sorted, const TimesyncOptions& opt) {
  const int64_t res = std::max({ResolutionNs(opt.knot_spacing_s), ResolutionNs(opt.refit_period_s),
                                ResolutionNs(opt.quad_window_s)});
  const uint64_t threshold = 2 * static_cast<uint64_t>(res);
  std::vector<ClockGap> gaps;
  for (size_t i = 0; i + 1 < sorted.size(); ++i) {
    const int64_t a = sorted[i].local_ns;
    const int64_t b = sorted[i + 1].local_ns;
    if (b > a && static_cast<uint64_t>(b) - static_cast<uint64_t>(a) > threshold) gaps.push_back({a, b});
  }
  return gaps;
}

void ScoreHeldOut(ClockModel& m, const std::vector<SyncSample>& held) {
  std::vector<double> err;
  err.reserve(held.size());
  for (const auto& s : held) err.push_back(std::abs(m.OffsetNs(s.local_ns) - s.offset_ns()) / 1000.0);
  m.heldout_points = static_cast<int>(held.size());
  if (err.empty()) return;
  double sum = 0;
  for (double e : err) sum += e;
  m.mean_abs_residual_us = sum / static_cast<double>(err.size());
  m.p99_abs_residual_us = Quantile(err, 0.99);
}

std::string_view ClockModelName(ClockModelKind k) {
  switch (k) {
    case ClockModelKind::kNone: return "none";
    case ClockModelKind::kLinear: return "linear";
    case ClockModelKind::kQuadratic: return "quadratic";
    case ClockModelKind::kRobust: return "robust";
  }
  return "none";
}

double ClockModel::OffsetNs(int64_t local_ns) const {
  if (segments.empty()) return 0;
  auto it = std::upper_bound(segments.begin(), segments.end(), local_ns,
                             [](int64_t v, const ClockSegment& s) { return v < s.start_local_ns; });
  const ClockSegment& s = it == segments.begin() ? segments.front() : *std::prev(it);
  const double dt = static_cast<double>(local_ns - s.t0_local_ns) / kNsPerS;
  return s.c0 + s.c1 * dt + s.c2 * dt * dt;
}

int64_t ClockModel::ToGlobalNs(int64_t local_ns) const {
  return local_ns - static_cast<int64_t>(std::llround(OffsetNs(local_ns)));
}

ClockModel FitRobustModel(const std::vector<SyncSample>& sorted, const TimesyncOptions& opt) {
  return FitRobust(sorted, opt);
}

namespace {

// The offset and its slope (ns per s) of a model at a local time.
std::pair<double, double> OffsetAndSlope(const ClockModel& m, int64_t local_ns) {
  if (m.segments.empty()) return {0, 0};
  auto it = std::upper_bound(m.segments.begin(), m.segments.end(), local_ns,
                             [](int64_t v, const ClockSegment& s) { return v < s.start_local_ns; });
  const ClockSegment& s = it == m.segments.begin() ? m.segments.front() : *std::prev(it);
  const double dt = static_cast<double>(local_ns - s.t0_local_ns) / kNsPerS;
  return {s.c0 + s.c1 * dt + s.c2 * dt * dt, s.c1 + 2 * s.c2 * dt};
}

}  // namespace

ClockModel BlendModels(const ClockModel& a, const ClockModel& b, double b_weight, int64_t from_local_ns,
                       int64_t to_local_ns) {
  ClockModel out = a;
  if (!(b_weight > 0) || to_local_ns <= from_local_ns || b.segments.empty()) return out;
  const double wb = std::min(1.0, b_weight);
  const double wa = 1.0 - wb;
  // Boundaries: `from`, every segment start of either model inside the span, `to`.
  std::vector<int64_t> cuts{from_local_ns};
  for (const auto* m : {&a, &b}) {
    for (const auto& sg : m->segments) {
      if (sg.start_local_ns > from_local_ns && sg.start_local_ns < to_local_ns) cuts.push_back(sg.start_local_ns);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  std::vector<ClockSegment> segs;
  // a's segments before `from` (the one straddling it is cut there).
  for (const auto& sg : a.segments) {
    if (sg.start_local_ns < from_local_ns) segs.push_back(sg);
  }
  for (size_t i = 0; i < cuts.size(); ++i) {
    const int64_t s0 = cuts[i];
    const int64_t s1 = i + 1 < cuts.size() ? cuts[i + 1] : to_local_ns;
    const auto [oa, sa] = OffsetAndSlope(a, s0);
    const auto [ob, sb] = OffsetAndSlope(b, s0);
    ClockSegment sg;
    sg.start_local_ns = s0;
    sg.end_local_ns = s1;
    sg.t0_local_ns = s0;
    sg.c0 = wa * oa + wb * ob;
    sg.c1 = wa * sa + wb * sb;
    segs.push_back(sg);
  }
  // a again from `to` on: the segment covering `to`, re-expressed there, then the later ones.
  {
    const auto [oa, sa] = OffsetAndSlope(a, to_local_ns);
    ClockSegment sg;
    sg.start_local_ns = to_local_ns;
    sg.t0_local_ns = to_local_ns;
    sg.c0 = oa;
    sg.c1 = sa;
    auto next = std::upper_bound(a.segments.begin(), a.segments.end(), to_local_ns,
                                 [](int64_t v, const ClockSegment& s) { return v < s.start_local_ns; });
    sg.end_local_ns = next == a.segments.end() ? std::max(to_local_ns + 1, a.segments.back().end_local_ns)
                                               : next->start_local_ns;
    segs.push_back(sg);
    for (; next != a.segments.end(); ++next) segs.push_back(*next);
  }
  out.segments = std::move(segs);
  return out;
}

const ClockModel& HostClockFit::Best() const {
  for (const auto& m : models) {
    if (m.kind == ClockModelKind::kRobust) return m;
  }
  return models.back();
}

HostClockFit FitHostClock(const std::string& host, std::vector<SyncSample> samples, const TimesyncOptions& opt) {
  std::sort(samples.begin(), samples.end(), [](const SyncSample& a, const SyncSample& b) {
    return a.local_ns != b.local_ns ? a.local_ns < b.local_ns : a.ref_ns < b.ref_ns;
  });
  std::vector<SyncSample> fit, held;
  const bool hold = opt.holdout_every > 1 && samples.size() >= 10;
  for (size_t i = 0; i < samples.size(); ++i) {
    if (hold && static_cast<int>(i % static_cast<size_t>(opt.holdout_every)) == opt.holdout_every - 1) {
      held.push_back(samples[i]);
    } else {
      fit.push_back(samples[i]);
    }
  }
  HostClockFit out;
  out.host = host;
  out.models = {FitNone(fit), FitLinear(fit), FitQuadratic(fit, opt), FitRobust(fit, opt)};
  const std::vector<ClockGap> gaps = FindClockGaps(fit, opt);
  for (auto& m : out.models) {
    m.host = host;
    m.gaps = gaps;
    m.fit_points = static_cast<int>(fit.size());
    ScoreHeldOut(m, held);
  }
  out.heldout = std::move(held);
  return out;
}

}  // namespace toposcope::analysis
