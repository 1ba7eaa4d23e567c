// analysis/time/servo_health: servo series, diverging and saturated servos (see servo_health.h).
#include "toposcope/analysis/time/servo_health.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "toposcope/base/text.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

constexpr size_t kMaxOffsetsKept = 64;

// One point of a series: its |offset| (a summary's max), signed offset, frequency and line.
struct Point {
  int64_t local_ns = 0;
  int64_t line = 0;
  double magnitude = NAN;  // |offset| or summary max
  double offset = NAN;     // signed offset (summary: its max)
  double freq = NAN;
  bool locked = false;
};

using SeriesKey = std::tuple<std::string, std::string, std::string, std::string, bool>;

// "ptp4l" / "phc2sys" and whether the point is a summary; empty program for other sources.
std::pair<std::string, bool> ProgramOf(const std::string& source) {
  if (source == "ptp4l" || source == "phc2sys") return {source, false};
  if (source == "ptp4l-summary") return {"ptp4l", true};
  if (source == "phc2sys-summary") return {"phc2sys", true};
  return {"", false};
}

// The smallest k with n/k! < max_chance (at least 2).
int KNeeded(int64_t n, double max_chance) {
  const double log_n = std::log(static_cast<double>(std::max<int64_t>(n, 1)));
  const double log_max = std::log(max_chance);
  int k = 2;
  while (log_n - std::lgamma(k + 1.0) >= log_max && k < 1000) ++k;
  return k;
}

std::string Num(double v) { return FormatFixed(v, 0); }

std::string Describe(const ServoFinding& f) {
  std::string who = f.program + (f.clock.empty() ? "" : " " + f.clock) +
                    (f.reference.empty() ? "" : " (" + f.reference + ")") + " on " + f.host;
  std::string what = f.summaries ? "summary max |offset|" : "|offset|";
  std::string lines = "lines " + std::to_string(f.first_line) + "-" + std::to_string(f.last_line);
  std::string grow = Num(std::fabs(f.offsets_ns.front())) + " -> " + Num(std::fabs(f.offsets_ns.back())) + " ns";
  if (f.kind == ServoFindingKind::kDiverging) {
    char chance[32];
    std::snprintf(chance, sizeof chance, "%.2g", f.chance);
    return who + ": " + what + " grew over " + std::to_string(f.k) + " consecutive locked samples (" + lines +
           ", " + grow + ", freq " + Num(f.freq_first_ppb) + " -> " + Num(f.freq_last_ppb) +
           " ppb); chance under a stable servo n/k! = " + std::to_string(f.n) + "/" + std::to_string(f.k) +
           "! = " + chance + " (k >= " + std::to_string(f.k_needed) + " needed)";
  }
  std::string s = who + ": freq pinned at " + Num(f.freq_first_ppb) + " ppb, the series' largest |freq|, for " +
                  std::to_string(f.k) + " consecutive samples (" + lines + ") while " + what + " grew " + grow;
  if (std::fabs(f.freq_first_ppb) == 9e8) s += " (ptp4l's default max_frequency)";
  return s;
}

ServoFinding NewFinding(ServoFindingKind kind, const ServoSeries& s, const std::vector<Point>& p, size_t b,
                        size_t e) {
  ServoFinding f;
  f.kind = kind;
  f.host = s.host;
  f.program = s.program;
  f.clock = s.clock;
  f.reference = s.reference;
  f.summaries = s.summaries;
  f.first_line = p[b].line;
  f.last_line = p[e - 1].line;
  f.k = static_cast<int>(e - b);
  for (size_t i = b; i < e && f.offsets_ns.size() < kMaxOffsetsKept; ++i) f.offsets_ns.push_back(p[i].offset);
  f.freq_first_ppb = p[b].freq;
  f.freq_last_ppb = p[e - 1].freq;
  return f;
}

// Maximal runs of strictly growing magnitude among the locked points that are long enough.
void FindDiverging(const ServoSeries& s, const std::vector<Point>& all, const ServoOptions& opt,
                   std::vector<ServoFinding>& out) {
  std::vector<Point> p;
  for (const auto& x : all) {
    if (x.locked && std::isfinite(x.magnitude)) p.push_back(x);
  }
  const auto n = static_cast<int64_t>(p.size());
  if (n < 2) return;
  const int k_needed = KNeeded(n, opt.max_chance);
  size_t b = 0;
  for (size_t i = 1; i <= p.size(); ++i) {
    if (i < p.size() && p[i].magnitude > p[i - 1].magnitude) continue;
    if (static_cast<int>(i - b) >= k_needed) {
      ServoFinding f = NewFinding(ServoFindingKind::kDiverging, s, p, b, i);
      f.k_needed = k_needed;
      f.n = n;
      f.chance = std::exp(std::log(static_cast<double>(n)) - std::lgamma(f.k + 1.0));
      f.evidence = Describe(f);
      out.push_back(std::move(f));
    }
    b = i;
  }
}

// Runs of at least min_pinned points whose frequency is the series' extreme value while the magnitude
// grows strictly across the run.
void FindSaturated(const ServoSeries& s, const std::vector<Point>& p, const ServoOptions& opt,
                   std::vector<ServoFinding>& out) {
  double extreme = NAN;
  for (const auto& x : p) {
    if (std::isfinite(x.freq) && !(std::fabs(x.freq) <= std::fabs(extreme))) extreme = x.freq;
  }
  if (!std::isfinite(extreme) || extreme == 0) return;
  for (size_t b = 0; b < p.size();) {
    if (p[b].freq != extreme && p[b].freq != -extreme) {
      ++b;
      continue;
    }
    size_t e = b + 1;
    bool grows = std::isfinite(p[b].magnitude);
    while (e < p.size() && p[e].freq == p[b].freq) {
      grows = grows && p[e].magnitude > p[e - 1].magnitude;
      ++e;
    }
    if (grows && static_cast<int>(e - b) >= std::max(2, opt.min_pinned)) {
      ServoFinding f = NewFinding(ServoFindingKind::kSaturated, s, p, b, e);
      f.n = static_cast<int64_t>(p.size());
      f.evidence = Describe(f);
      out.push_back(std::move(f));
    }
    b = e;
  }
}

// The series' clock-quality figures from its points.
void Summarise(ServoSeries& s, const std::vector<Point>& p, const std::vector<double>& rms) {
  s.points = static_cast<int64_t>(p.size());
  s.first_line = p.front().line;
  s.last_line = p.back().line;
  double sum2 = 0;
  for (const auto& x : p) {
    if (x.locked) ++s.locked;
    if (x.locked && std::isfinite(x.magnitude)) {
      sum2 += x.magnitude * x.magnitude;
      if (!(x.magnitude <= s.offset_max_ns)) s.offset_max_ns = x.magnitude;
    }
    if (std::isfinite(x.freq)) {
      if (!(x.freq >= s.freq_min_ppb)) s.freq_min_ppb = x.freq;
      if (!(x.freq <= s.freq_max_ppb)) s.freq_max_ppb = x.freq;
    }
  }
  if (s.summaries) {
    if (!rms.empty()) s.offset_rms_ns = stats::Median(rms);
  } else if (s.locked > 0) {
    s.offset_rms_ns = std::sqrt(sum2 / static_cast<double>(s.locked));
  }
}

}  // namespace

std::string_view ServoFindingKindName(ServoFindingKind k) {
  return k == ServoFindingKind::kSaturated ? "saturated" : "diverging";
}

ServoReport AnalyzeServos(const std::vector<formats::SyncPoint>& points, const ServoOptions& opt) {
  std::map<SeriesKey, std::vector<Point>> by_series;
  std::map<SeriesKey, std::vector<double>> rms_of;
  for (const auto& sp : points) {
    const auto [program, summary] = ProgramOf(sp.source);
    if (program.empty()) continue;
    const SeriesKey key{sp.host, program, sp.clock, sp.reference, summary};
    Point x;
    x.local_ns = sp.local_ns;
    x.line = sp.line;
    x.freq = sp.freq_ppb;
    if (summary) {
      x.magnitude = sp.offset_max_ns;
      x.offset = sp.offset_max_ns;
      x.locked = true;  // a summary covers the locked samples of its interval
      if (std::isfinite(sp.offset_rms_ns)) rms_of[key].push_back(sp.offset_rms_ns);
    } else {
      x.magnitude = std::fabs(sp.offset_ns);
      x.offset = sp.offset_ns;
      x.locked = sp.synced;
    }
    by_series[key].push_back(x);
  }
  ServoReport r;
  for (auto& [key, p] : by_series) {
    std::stable_sort(p.begin(), p.end(), [](const Point& a, const Point& b) {
      return a.local_ns != b.local_ns ? a.local_ns < b.local_ns : a.line < b.line;
    });
    ServoSeries s;
    std::tie(s.host, s.program, s.clock, s.reference, s.summaries) = key;
    Summarise(s, p, rms_of[key]);
    FindDiverging(s, p, opt, r.findings);
    FindSaturated(s, p, opt, r.findings);
    r.series.push_back(std::move(s));
  }
  return r;
}

ServoReport AnalyzeServoHealth(const model::Dataset& ds, const ServoOptions& opt) {
  std::vector<formats::SyncPoint> points;
  for (const auto& [host, h] : ds.hosts) points.insert(points.end(), h.sync_points.begin(), h.sync_points.end());
  return AnalyzeServos(points, opt);
}

}  // namespace toposcope::analysis
