#include "toposcope/analysis/time/telemetry.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "toposcope/base/text.h"
#include "toposcope/base/time.h"
#include "toposcope/formats/dcgm/dcgm_fields.h"
#include "toposcope/stats/order_stats.h"

namespace toposcope::analysis {
namespace {

using stats::Median;

constexpr NamedValue<TelemetryFindingKind> kFindingKindNames[] = {
    {TelemetryFindingKind::kThermalLinkDownspeed, "thermal_link_downspeed"},
    {TelemetryFindingKind::kStraggler, "straggler"}, {TelemetryFindingKind::kClockStep, "clock_step"}};

bool IsTemperature(const model::SeriesKey& k) { return k.field_id == formats::field_id::kGpuTemp; }

// DCGM field ids of the thermal limits and throttle reasons (dcgm_fields.h; catalog in formats/dcgm).
constexpr int kClockThrottleReasons = 112;  // DCGM_FI_DEV_CLOCK_THROTTLE_REASONS (4.x: CLOCKS_EVENT_REASONS)
constexpr int kGpuMaxOpTemp = 152;          // DCGM_FI_DEV_GPU_MAX_OP_TEMP
constexpr int kSlowdownTemp = 158;          // DCGM_FI_DEV_SLOWDOWN_TEMP
// nvml.h: nvmlClocksThrottleReasonSwThermalSlowdown 0x20, nvmlClocksThrottleReasonHwThermalSlowdown 0x40.
constexpr int64_t kThermalThrottleBits = 0x20 | 0x40;

constexpr NamedValue<HotSource> kHotSourceNames[] = {
    {HotSource::kOption, "option"},
    {HotSource::kThrottleReasons, "dcgm_clock_throttle_reasons"},
    {HotSource::kDcgmLimit, "dcgm_max_operating_temp"},
    {HotSource::kNvsmiLimit, "nvidia_smi_q_max_operating_temp"},
    {HotSource::kModelLimit, "gpu_model"},
    {HotSource::kLowestKnown, "lowest_known_model_limit"}};

// Temperature limits read from real `nvidia-smi -q` output (copies in testdata/real/nvidia_smi_q/, with
// PROVENANCE.md; the golden test in tests/analysis/time/telemetry_analysis_test.cc checks this table
// against them). Newer drivers print T.Limit headroom instead of absolute limits: there the max
// operating temperature is current + T.Limit (the median over the capture's GPUs) and the slowdown and
// shutdown limits sit their "T.Limit" degrees past it.
constexpr GpuThermalLimits kThermalLimits[] = {
    // thamada/nvidia-smi gls/A100SXMx4_smi.py (4x NVIDIA A100-SXM4-80GB, driver 555.42.02)
    {"A100", 85, 89, 92, "nvidia-smi -q, NVIDIA A100-SXM4-80GB, driver 555.42.02"},
    // liguodongiot/llm-action docs/llm-base/nvidia-smi.md (NVIDIA H800, driver 525.105.17)
    {"H800", 87, 89, 92, "nvidia-smi -q, NVIDIA H800, driver 525.105.17"},
    // thamada/nvidia-smi gls/H100SXMx8_smi.py (8x NVIDIA H100 80GB HBM3, driver 565.57.01, T.Limit):
    // current + T.Limit = 87 C (median), slowdown / shutdown T.Limit -2 / -8 C
    {"H100 80GB HBM3", 87, 89, 95, "nvidia-smi -q, NVIDIA H100 80GB HBM3, driver 565.57.01 (T.Limit)"},
};

// The median of a series' values (NaN when empty).
double SeriesMedian(const model::SeriesSummary& s) {
  std::vector<double> v;
  v.reserve(s.points.size());
  for (const auto& [t, x] : s.points) v.push_back(x);
  return Median(v);
}

const model::SeriesSummary* FindGpuSeries(const model::DcgmStore& dcgm, const std::string& host, int gpu, int field) {
  for (auto it = dcgm.series.lower_bound(model::SeriesKey{host, gpu, -1, field, ""});
       it != dcgm.series.end() && it->first.host == host && it->first.gpu == gpu && it->first.link == -1 &&
       it->first.field_id == field;
       ++it) {
    if (!it->second.points.empty()) return &it->second;
  }
  return nullptr;
}

// P(|N(0,1)| < z) for z >= 0: the chance that noise alone stays below z sigma.
double TwoSidedNormalCoverage(double z) { return z > 0 ? std::erf(z / std::sqrt(2.0)) : 0.0; }
// P(X >= k) for X ~ Binomial(n, p): the chance a rank late as often as the others is late k times.
double BinomialTailAtLeast(int n, int k, double p) {
  if (k <= 0) return 1.0;
  if (k > n || p <= 0) return 0.0;
  if (p >= 1) return 1.0;
  double sum = 0;
  for (int i = k; i <= n; ++i) {
    const double log_term = std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) +
                            i * std::log(p) + (n - i) * std::log1p(-p);
    sum += std::exp(log_term);
  }
  return std::min(1.0, sum);
}

// Phi(z), the standard normal CDF.
double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

// An NVLink receive-throughput series of one link (per-link fields, or link rows of dmon 4.6).
bool IsLinkRx(const model::SeriesKey& k, int* link) {
  namespace id = formats::field_id;
  if (k.field_id >= id::kProfNvlinkL0TxBytes && k.field_id <= id::kProfNvlinkL17RxBytes &&
      (k.field_id - id::kProfNvlinkL0TxBytes) % 2 == 1) {  // PROF_NVLINK_L{n}_RX_BYTES
    *link = (k.field_id - id::kProfNvlinkL0RxBytes) / 2;
    return true;
  }
  if (k.field_id >= id::kNvlinkRxBandwidthL0 && k.field_id <= id::kNvlinkRxBandwidthL17) {
    *link = k.field_id - id::kNvlinkRxBandwidthL0;
    return true;
  }
  if (k.link >= 0 && (k.field_id == id::kProfNvlinkRxBytes || k.field_id == id::kNvlinkRxBandwidthTotal)) {
    // a link row's NVLRX
    *link = k.link;
    return true;
  }
  return false;
}

// Intervals where a sample is hot (gaps of up to 3 samples bridged): the temperature at or above
// `hot_c`, or, with `bits` set, the throttle-reason bitmask with one of those bits.
std::vector<std::pair<int64_t, int64_t>> HotIntervals(const model::SeriesSummary& series, double hot_c,
                                                      int64_t bits = 0) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const auto& pts = series.points;
  if (pts.size() < 2) return out;
  const int64_t gap = 3 * std::max<int64_t>(1, (pts.back().first - pts.front().first) / static_cast<int64_t>(pts.size()));
  for (const auto& [t, v] : pts) {
    const bool hot = bits != 0 ? (std::isfinite(v) && v >= 0 && (static_cast<int64_t>(v) & bits) != 0) : v >= hot_c;
    if (!hot) continue;
    if (!out.empty() && t - out.back().second <= gap) {
      out.back().second = t;
    } else {
      out.emplace_back(t, t);
    }
  }
  return out;
}

bool Inside(int64_t t, const std::vector<std::pair<int64_t, int64_t>>& iv) {
  for (const auto& [a, b] : iv) {
    if (t >= a && t <= b) return true;
  }
  return false;
}


// Median absolute deviation about the median, as a normal sigma (kMadToSigma); NaN when empty.
double RobustSigma(const std::vector<double>& v) {
  const double m = Median(v);
  std::vector<double> d;
  d.reserve(v.size());
  for (double x : v) d.push_back(std::abs(x - m));
  return stats::kMadToSigma * Median(d);
}

// The rx level of one link inside and outside the hot intervals.
struct LinkLevels {
  double hot = NAN, cool = NAN;  // medians, B/s
  double ratio = NAN;            // hot / cool
  double ratio_se = NAN;         // standard error of the ratio: 1.2533 sigma / sqrt(n) per median
  int n_hot = 0, n_cool = 0;
};

// The levels of one link's rx series against the hot intervals; nullopt with fewer than 3 samples
// on either side or no cool traffic.
std::optional<LinkLevels> LevelsOf(const model::SeriesSummary& s, const std::vector<std::pair<int64_t, int64_t>>& hot) {
  std::vector<double> in, out;
  for (const auto& [t, v] : s.points) (Inside(t, hot) ? in : out).push_back(v);
  if (in.size() < 3 || out.size() < 3) return std::nullopt;
  LinkLevels l;
  l.cool = Median(out);
  if (!(l.cool > 0)) return std::nullopt;
  l.hot = Median(in);
  l.ratio = l.hot / l.cool;
  l.n_hot = static_cast<int>(in.size());
  l.n_cool = static_cast<int>(out.size());
  // Standard error of a median: sqrt(pi/2) sigma / sqrt(n); the ratio's from both medians.
  constexpr double kMedianSe = 1.2533;
  const double se_hot = kMedianSe * RobustSigma(in) / std::sqrt(static_cast<double>(l.n_hot)) / l.cool;
  const double se_cool = kMedianSe * RobustSigma(out) / std::sqrt(static_cast<double>(l.n_cool)) / l.cool;
  l.ratio_se = std::sqrt(se_hot * se_hot + l.ratio * l.ratio * se_cool * se_cool);
  return l;
}

// Each link's share of its GPU's NVLink receive traffic, sample by sample: its rx over the median
// rx of the GPU's other links at the same timestamp (dmon rows and exporter scrapes stamp every
// field of a sample alike), where those carry traffic. NCCL stripes a GPU's NVLink traffic over
// all its links, so a healthy link's share stays near 1 whatever the traffic does (idle gaps,
// bursts, compute phases); a link that trains down carries less than its peers. Empty when fewer
// than two links are sampled together.
std::map<int, model::SeriesSummary> LinkShares(const std::map<int, const model::SeriesSummary*>& links) {
  std::map<int64_t, std::vector<std::pair<int, double>>> at;
  for (const auto& [link, s] : links) {
    for (const auto& [t, v] : s->points) {
      if (std::isfinite(v)) at[t].emplace_back(link, v);
    }
  }
  std::map<int, model::SeriesSummary> out;
  for (const auto& [t, row] : at) {
    if (row.size() < 2) continue;
    for (const auto& [link, v] : row) {
      std::vector<double> peers;
      for (const auto& [l2, v2] : row) {
        if (l2 != link) peers.push_back(v2);
      }
      const double peer = Median(peers);
      if (peer > 0) out[link].points.emplace_back(t, v / peer);
    }
  }
  return out;
}

// What the evidence says of a hot threshold.
std::string DescribeThreshold(const HotThreshold& t) {
  if (t.source == HotSource::kThrottleReasons) {
    return "DCGM's clock throttle reasons (field 112) show a thermal slowdown bit (SW 0x20 / HW 0x40)";
  }
  std::string s = "temperature >= " + FormatFixed(t.hot_c, 0) + " C (" + t.source_name;
  if (t.source == HotSource::kNvsmiLimit) s += ": the GPU's own limit, " + t.form + " form, " + t.file;
  if (t.source == HotSource::kModelLimit) s += ": max operating temperature of " + t.model;
  if (t.source == HotSource::kLowestKnown) s += t.model.empty() ? ": GPU model unknown" : ": " + t.model + " not in the table";
  return s + ")";
}

// Thermal down-speed: per GPU with a temperature or throttle-reasons series and per-link rx series,
// a link whose rx falls while the GPU is hot, and further than its peers'. Confidence: Phi(z), z =
// (decision line - hot/cool ratio) / its standard error (LevelsOf).
std::vector<TelemetryFinding> ThermalFindings(const model::DcgmStore& dcgm, const TelemetryOptions& opt,
                                              const GpuModels& models, const GpuOwnLimits& limits) {
  std::map<std::pair<std::string, int>, const model::SeriesSummary*> temps, throttles;
  std::map<std::pair<std::string, int>, std::map<int, const model::SeriesSummary*>> links;
  for (const auto& [k, s] : dcgm.series) {
    int link = -1;
    if (!k.IsGpu()) continue;  // a MIG instance, switch or CPU is not the GPU of the same number
    if (IsTemperature(k) && k.link < 0) temps[{k.host, k.gpu}] = &s;
    if (k.field_id == kClockThrottleReasons && k.link < 0) throttles[{k.host, k.gpu}] = &s;
    if (IsLinkRx(k, &link)) links[{k.host, k.gpu}][link] = &s;
  }
  std::vector<TelemetryFinding> out;
  for (const auto& [gpu_key, link_series] : links) {
    if (link_series.size() < 2) continue;
    const HotThreshold thr = HotThresholdOf(dcgm, gpu_key.first, gpu_key.second, models, opt, limits);
    std::vector<std::pair<int64_t, int64_t>> hot;
    if (thr.source == HotSource::kThrottleReasons) {
      hot = HotIntervals(*throttles.at(gpu_key), NAN, kThermalThrottleBits);
    } else if (auto t = temps.find(gpu_key); t != temps.end()) {
      hot = HotIntervals(*t->second, thr.hot_c);
    }
    if (hot.empty()) continue;
    // Levels of each link's share of the GPU's traffic; the raw rx levels when the links' samples
    // do not line up.
    std::map<int, LinkLevels> levels;
    const std::map<int, model::SeriesSummary> shares = LinkShares(link_series);
    bool by_share = shares.size() == link_series.size();
    for (const auto& [link, s] : shares) {
      auto l = LevelsOf(s, hot);
      by_share = by_share && l.has_value();
      if (l) levels[link] = *l;
    }
    if (!by_share) {
      levels.clear();
      for (const auto& [link, s] : link_series) {
        if (auto l = LevelsOf(*s, hot)) levels[link] = *l;
      }
    }
    for (const auto& [link, lv] : levels) {
      std::vector<double> peers;
      for (const auto& [l2, lv2] : levels) {
        if (l2 != link) peers.push_back(lv2.ratio);
      }
      const double peer = Median(peers);
      const double q = lv.ratio;
      if (!(q < opt.link_drop_ratio && (std::isnan(peer) || q < opt.peer_margin * peer))) continue;
      const double line = std::isnan(peer) ? opt.link_drop_ratio : std::min(opt.link_drop_ratio, opt.peer_margin * peer);
      const double z = lv.ratio_se > 0 ? (line - q) / lv.ratio_se : INFINITY;
      TelemetryFinding f;
      f.kind = TelemetryFindingKind::kThermalLinkDownspeed;
      f.host = gpu_key.first;
      f.gpu = gpu_key.second;
      f.link = link;
      f.start_ns = hot.front().first;
      f.end_ns = hot.back().second;
      f.confidence = NormalCdf(z);
      f.threshold_source = thr.source_name;
      f.hot_c = thr.hot_c;
      f.threshold_file = thr.file;
      const std::string levels_text =
          by_share ? FormatFixed(lv.hot, 2) + " vs " + FormatFixed(lv.cool, 2) + " of its peer links' rx in the same sample"
                   : FormatFixed(lv.hot / 1e9, 2) + " vs " + FormatFixed(lv.cool / 1e9, 2) + " GB/s";
      f.evidence = DescribeThreshold(thr) + " during " + std::to_string(hot.size()) + " interval(s); link " +
                   std::to_string(link) + (by_share ? " rx share" : " rx") + " fell to " + FormatFixed(100 * q, 1) +
                   "% of its cool level (" + levels_text + ", " + std::to_string(lv.n_hot) + " hot / " +
                   std::to_string(lv.n_cool) +
                   " cool samples) while its peer links kept " +
                   FormatFixed(std::isnan(peer) ? 100.0 : 100 * peer, 1) + "%; " +
                   (std::isinf(z) ? std::string("noise-free") : FormatFixed(z, 1) + " standard errors") +
                   " below the " + FormatFixed(100 * line, 1) + "% decision line";
      out.push_back(std::move(f));
    }
  }
  return out;
}

// Clock steps found by the robust clock model. Confidence: P(|N(0,1)| < z), z = the step's size over
// the model's noise sigma (1.2533 x its mean held-out |residual|); NaN without held-out residuals.
std::vector<TelemetryFinding> ClockStepFindings(const std::vector<HostClockFit>& clocks) {
  std::vector<TelemetryFinding> out;
  for (const auto& fit : clocks) {
    const ClockModel& m = fit.Best();
    const double sigma_ns = 1.2533 * m.mean_abs_residual_us * 1e3;
    for (int64_t t : m.steps_local_ns) {
      TelemetryFinding f;
      f.kind = TelemetryFindingKind::kClockStep;
      f.host = fit.host;
      f.start_ns = f.end_ns = t;
      constexpr int64_t kAside = 1'000'000;  // 1 ms either side of the step
      const double jump_ns = std::abs(m.OffsetNs(t + kAside) - m.OffsetNs(t - kAside));
      f.evidence = "the sync offsets jump at local " + FormatIsoTimeNs(t) + " by " + FormatFixed(jump_ns / 1e3, 1) + " us";
      if (sigma_ns > 0) {
        f.confidence = TwoSidedNormalCoverage(jump_ns / sigma_ns);
        f.evidence += " (" + FormatFixed(jump_ns / sigma_ns, 1) + " x the model's noise sigma of " +
                      FormatFixed(sigma_ns / 1e3, 2) + " us)";
      } else {
        f.evidence += " (no held-out residuals to measure the noise: confidence not measured)";
      }
      out.push_back(std::move(f));
    }
  }
  return out;
}

}  // namespace

std::string_view TelemetryFindingKindName(TelemetryFindingKind k) {
  return NameIn(kFindingKindNames, k, "thermal_link_downspeed");
}

std::string_view HotSourceName(HotSource s) { return NameIn(kHotSourceNames, s, "lowest_known_model_limit"); }

std::optional<GpuThermalLimits> FindGpuThermalLimits(std::string_view model) {
  if (model.empty()) return std::nullopt;
  const std::string lower = ToLowerAscii(model);
  for (const GpuThermalLimits& l : kThermalLimits) {
    if (lower.find(ToLowerAscii(l.match)) != std::string::npos) return l;
  }
  return std::nullopt;
}

double LowestKnownMaxOperatingC() {
  double lowest = NAN;
  for (const GpuThermalLimits& l : kThermalLimits) {
    if (std::isnan(lowest) || l.max_operating_c < lowest) lowest = l.max_operating_c;
  }
  return lowest;
}

GpuModels GpuModelsOf(const model::Dataset& ds) {
  GpuModels out;
  for (const auto& [host, h] : ds.hosts) {
    for (const auto& [index, g] : h.gpus) {
      if (!g.model.empty()) out[{host, index}] = g.model;
    }
  }
  return out;
}

GpuOwnLimits GpuOwnLimitsOf(const model::Dataset& ds) {
  GpuOwnLimits out;
  for (const auto& [host, h] : ds.hosts) {
    for (const model::GpuQueryInfo& q : h.gpu_queries) {
      if (q.index >= 0) out.emplace(std::make_pair(host, q.index), q);
    }
  }
  return out;
}

std::vector<GpuLimitsEntry> GpuLimitsOf(const model::Dataset& ds) {
  std::vector<GpuLimitsEntry> out;
  for (const auto& [host, h] : ds.hosts) {
    for (const model::GpuQueryInfo& q : h.gpu_queries) out.push_back({host, q});
  }
  return out;
}

HotThreshold HotThresholdOf(const model::DcgmStore& dcgm, const std::string& host, int gpu, const GpuModels& models,
                            const TelemetryOptions& opt, const GpuOwnLimits& limits) {
  HotThreshold h;
  const auto own = limits.find({host, gpu});
  const model::GpuQueryInfo* q = own == limits.end() ? nullptr : &own->second;
  if (auto it = models.find({host, gpu}); it != models.end()) h.model = it->second;
  auto set = [&](HotSource s, double c, std::string name = "") {
    h.source = s;
    h.hot_c = c;
    h.source_name = name.empty() ? std::string(HotSourceName(s)) : std::move(name);
  };
  if (!std::isnan(opt.hot_c)) {
    set(HotSource::kOption, opt.hot_c);
  } else if (FindGpuSeries(dcgm, host, gpu, kClockThrottleReasons) != nullptr) {
    set(HotSource::kThrottleReasons, NAN);
  } else if (const auto* s = FindGpuSeries(dcgm, host, gpu, kGpuMaxOpTemp); s && SeriesMedian(*s) > 0) {
    set(HotSource::kDcgmLimit, SeriesMedian(*s), "dcgm_max_operating_temp");
  } else if (const auto* s2 = FindGpuSeries(dcgm, host, gpu, kSlowdownTemp); s2 && SeriesMedian(*s2) > 0) {
    set(HotSource::kDcgmLimit, SeriesMedian(*s2), "dcgm_slowdown_temp");
  } else if (q != nullptr && (q->max_operating_c > 0 || q->slowdown_c > 0)) {
    const bool max_op = q->max_operating_c > 0;
    set(HotSource::kNvsmiLimit, max_op ? q->max_operating_c : q->slowdown_c,
        max_op ? "nvidia_smi_q_max_operating_temp" : "nvidia_smi_q_slowdown_temp");
    h.file = q->source + ":" + std::to_string(q->line);
    h.form = q->limits_form;
    if (h.model.empty()) h.model = q->product_name;
  } else if (const auto l = FindGpuThermalLimits(h.model)) {
    set(HotSource::kModelLimit, l->max_operating_c);
  } else {
    set(HotSource::kLowestKnown, LowestKnownMaxOperatingC());
  }
  return h;
}

TelemetryReport AnalyzeTelemetry(const model::DcgmStore& dcgm, const std::vector<HostClockFit>& clocks,
                                 const TelemetryOptions& opt, const GpuModels& models, const GpuOwnLimits& limits) {
  TelemetryReport r;
  r.series = static_cast<int64_t>(dcgm.series.size());
  r.points = dcgm.points;
  // Fields and sampling periods.
  std::map<std::pair<int, std::string>, FieldReport> fields;
  for (const auto& [k, s] : dcgm.series) {
    FieldReport& f = fields[{k.field_id, k.field}];
    f.field_id = k.field_id;
    f.field = k.field;
    ++f.series;
    if (const formats::DcgmField* meta = formats::FindFieldById(k.field_id)) {
      f.long_name = meta->long_name;
      f.field_class = std::string(formats::FieldClassName(meta->field_class));
      f.needed_period_ms = meta->max_period_ms;
    }
    const double p = s.PeriodMs();
    if (!std::isnan(p) && (std::isnan(f.worst_period_ms) || p > f.worst_period_ms)) f.worst_period_ms = p;
    if (f.needed_period_ms > 0 && !std::isnan(p) && p > f.needed_period_ms * 1.05) {
      f.ok = false;
      r.sampling_warnings.push_back({k.host, k.field, k.gpu, p, f.needed_period_ms});
    }
  }
  for (auto& [_, f] : fields) r.fields.push_back(std::move(f));
  // Collapse the warnings to one per (host, field).
  {
    std::map<std::pair<std::string, std::string>, SamplingWarning> one;
    for (const auto& w : r.sampling_warnings) one.emplace(std::make_pair(w.host, w.field), w).first->second.gpu = -1;
    r.sampling_warnings.clear();
    for (auto& [_, w] : one) r.sampling_warnings.push_back(w);
  }

  r.findings = ThermalFindings(dcgm, opt, models, limits);
  for (auto& f : ClockStepFindings(clocks)) r.findings.push_back(std::move(f));
  return r;
}

void StragglerDetector::Add(const MergedEvent& m) {
  const auto& e = m.event;
  if (e.phase != 'X') return;
  if (e.type.rfind("ncclKernel_", 0) != 0 && e.type.rfind("ncclDevKernel_", 0) != 0) return;
  auto [it, inserted] = rank_ids_.emplace(std::make_pair(e.host, e.device), static_cast<int>(rank_ids_.size()));
  const int rank = it->second;
  // The time a rank spent outside NCCL before entering this kernel: its compute phase. A straggler
  // computes longer; its neighbours only wait longer inside their kernels.
  auto last = last_end_.find(rank);
  if (last != last_end_.end()) {
    const int64_t k = seen_[{rank, e.type}]++;
    instances_[{e.type, k}].emplace_back(rank, m.global_ns - last->second);
  }
  last_end_[rank] = std::max(last == last_end_.end() ? m.global_ns : last->second, m.global_ns + e.dur_ns);
}

std::vector<TelemetryFinding> StragglerDetector::Finish(const TelemetryOptions& opt) const {
  std::vector<TelemetryFinding> out;
  const size_t ranks = rank_ids_.size();
  if (ranks < 3) return out;
  // Lateness of every rank in every collective instance, against the instance's median start.
  std::vector<std::vector<double>> late(ranks);
  std::vector<double> all;
  int instances = 0;
  for (const auto& [key, starts] : instances_) {
    if (starts.size() < std::max<size_t>(3, ranks * 3 / 4)) continue;
    ++instances;
    std::vector<double> t;
    for (const auto& [r, s] : starts) t.push_back(static_cast<double>(s));
    const double med = Median(t);
    for (const auto& [r, s] : starts) {
      const double d = (static_cast<double>(s) - med) / 1000.0;
      late[static_cast<size_t>(r)].push_back(d);
      all.push_back(d);
    }
  }
  if (instances == 0) return out;
  std::vector<double> dev;
  for (double v : all) dev.push_back(std::abs(v));
  const double sigma = stats::kMadToSigma * Median(dev);
  const double cut = std::max(opt.straggler_min_us, 8 * sigma);
  // Each rank's 90th-percentile lateness; the ranks' typical value is the jitter every rank shows.
  std::vector<double> q90(ranks, 0.0);
  for (size_t r = 0; r < ranks; ++r) {
    std::vector<double> v = late[r];
    if (v.empty()) continue;
    std::sort(v.begin(), v.end());
    q90[r] = v[static_cast<size_t>(0.9 * static_cast<double>(v.size() - 1))];
  }
  const double typical = std::max(0.0, Median(q90));
  // A straggler is late beyond the noise in a good share of the collectives (it may straggle for
  // only part of the traced window), and far beyond the jitter of the other ranks.
  for (const auto& [key, r] : rank_ids_) {
    if (q90[static_cast<size_t>(r)] < std::max(opt.straggler_min_us, 5 * typical)) continue;
    const auto& v = late[static_cast<size_t>(r)];
    std::vector<double> lates;
    for (double d : v) {
      if (d > cut) lates.push_back(d);
    }
    const int n_late = static_cast<int>(lates.size());
    if (n_late < std::max(3, instances / 5)) continue;
    TelemetryFinding f;
    f.kind = TelemetryFindingKind::kStraggler;
    f.host = key.first;
    const std::string& dev_name = key.second;
    if (dev_name.rfind("gpu", 0) == 0) f.gpu = static_cast<int>(ParseInt(dev_name.substr(3)).value_or(-1));
    // How often the other ranks are late beyond the cut (Jeffreys' +0.5 when never).
    int64_t others_late = 0, others = 0;
    for (size_t r2 = 0; r2 < ranks; ++r2) {
      if (static_cast<int>(r2) == r) continue;
      others += static_cast<int64_t>(late[r2].size());
      for (double d : late[r2]) others_late += d > cut ? 1 : 0;
    }
    const double p0 = (static_cast<double>(others_late) + 0.5) / (static_cast<double>(others) + 1.0);
    f.confidence = 1.0 - BinomialTailAtLeast(static_cast<int>(v.size()), n_late, p0);
    f.evidence = "its compute phase before a collective runs longer in " + std::to_string(n_late) + " of " +
                 std::to_string(instances) + " collectives, by a median " + FormatFixed(Median(lates), 1) +
                 " us (noise scale " + FormatFixed(sigma, 1) + " us; the other ranks are that late in " +
                 FormatFixed(100 * p0, 2) + "% of theirs)";
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<OfferedFields> CheckOfferedFields(const model::Dataset& ds) {
  namespace id = formats::field_id;
  struct Need {
    std::vector<std::pair<int, int>> ids;  // any id in these ranges will do
    const char* name;
    const char* used_by;
  };
  const Need needs[] = {
      {{{id::kGpuTemp, id::kGpuTemp}}, "DCGM_FI_DEV_GPU_TEMP", "thermal findings"},
      {{{id::kProfNvlinkTxBytes, id::kProfNvlinkTxBytes}}, "DCGM_FI_PROF_NVLINK_TX_BYTES", "traffic matrix"},
      {{{id::kProfNvlinkRxBytes, id::kProfNvlinkRxBytes}}, "DCGM_FI_PROF_NVLINK_RX_BYTES", "traffic matrix"},
      {{{id::kNvlinkRxBandwidthL0, id::kNvlinkRxBandwidthL17}, {id::kProfNvlinkL0TxBytes, id::kProfNvlinkL17RxBytes}},
       "per-link NVLink counters", "link down-speed"},
  };
  std::vector<OfferedFields> out;
  for (const auto& [host, ev] : ds.hosts) {
    if (ev.dcgm_offered.empty()) continue;
    OfferedFields o;
    o.host = host;
    o.offered = static_cast<int>(ev.dcgm_offered.size());
    for (const Need& n : needs) {
      const bool has = std::any_of(ev.dcgm_offered.begin(), ev.dcgm_offered.end(), [&](const auto& e) {
        return std::any_of(n.ids.begin(), n.ids.end(),
                           [&](const auto& r) { return e.field_id >= r.first && e.field_id <= r.second; });
      });
      if (!has) o.missing.push_back(std::string(n.name) + " (" + n.used_by + ")");
    }
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace toposcope::analysis
