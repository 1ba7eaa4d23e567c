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

// Intervals where the temperature is at or above `hot_c` (gaps of up to 3 samples bridged).
std::vector<std::pair<int64_t, int64_t>> HotIntervals(const model::SeriesSummary& temp, double hot_c) {
  std::vector<std::pair<int64_t, int64_t>> out;
  const auto& pts = temp.points;
  if (pts.size() < 2) return out;
  const int64_t gap = 3 * std::max<int64_t>(1, (pts.back().first - pts.front().first) / static_cast<int64_t>(pts.size()));
  for (const auto& [t, v] : pts) {
    if (v < hot_c) continue;
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

}  // namespace

std::string_view TelemetryFindingKindName(TelemetryFindingKind k) {
  return NameIn(kFindingKindNames, k, "thermal_link_downspeed");
}

TelemetryReport AnalyzeTelemetry(const model::DcgmStore& dcgm, const std::vector<HostClockFit>& clocks,
                                 const TelemetryOptions& opt) {
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

  // Thermal down-speed: per GPU with a temperature series and per-link rx series.
  std::map<std::pair<std::string, int>, const model::SeriesSummary*> temps;
  std::map<std::pair<std::string, int>, std::map<int, const model::SeriesSummary*>> links;
  for (const auto& [k, s] : dcgm.series) {
    int link = -1;
    if (!k.IsGpu()) continue;  // a MIG instance, switch or CPU is not the GPU of the same number
    if (IsTemperature(k) && k.link < 0) temps[{k.host, k.gpu}] = &s;
    if (IsLinkRx(k, &link)) links[{k.host, k.gpu}][link] = &s;
  }
  for (const auto& [gpu_key, temp] : temps) {
    const auto hot = HotIntervals(*temp, opt.hot_c);
    if (hot.empty()) continue;
    auto lit = links.find(gpu_key);
    if (lit == links.end() || lit->second.size() < 2) continue;
    std::map<int, double> ratio;
    std::map<int, std::pair<double, double>> levels;
    for (const auto& [link, s] : lit->second) {
      std::vector<double> in, out;
      for (const auto& [t, v] : s->points) (Inside(t, hot) ? in : out).push_back(v);
      if (in.size() < 3 || out.size() < 3) continue;
      const double cool = Median(out);
      if (!(cool > 0)) continue;
      levels[link] = {Median(in), cool};
      ratio[link] = Median(in) / cool;
    }
    for (const auto& [link, q] : ratio) {
      std::vector<double> peers;
      for (const auto& [l2, q2] : ratio) {
        if (l2 != link) peers.push_back(q2);
      }
      const double peer = Median(peers);
      if (q < opt.link_drop_ratio && (std::isnan(peer) || q < opt.peer_margin * peer)) {
        TelemetryFinding f;
        f.kind = TelemetryFindingKind::kThermalLinkDownspeed;
        f.host = gpu_key.first;
        f.gpu = gpu_key.second;
        f.link = link;
        f.start_ns = hot.front().first;
        f.end_ns = hot.back().second;
        f.confidence = std::min(1.0, (opt.link_drop_ratio - q) / opt.link_drop_ratio + 0.5);
        f.evidence = "temperature >= " + FormatFixed(opt.hot_c, 0) + " C during " + std::to_string(hot.size()) +
                     " interval(s); link " + std::to_string(link) + " rx fell to " + FormatFixed(100 * q, 1) +
                     "% of its cool level (" + FormatFixed(levels[link].first / 1e9, 2) + " vs " +
                     FormatFixed(levels[link].second / 1e9, 2) + " GB/s) while its peer links kept " +
                     FormatFixed(std::isnan(peer) ? 100.0 : 100 * peer, 1) + "%";
        r.findings.push_back(std::move(f));
      }
    }
  }
  // Clock steps found by the robust clock model.
  for (const auto& fit : clocks) {
    for (int64_t t : fit.Best().steps_local_ns) {
      TelemetryFinding f;
      f.kind = TelemetryFindingKind::kClockStep;
      f.host = fit.host;
      f.start_ns = f.end_ns = t;
      f.confidence = 0.9;
      f.evidence = "the sync offsets jump at local " + FormatIsoTimeNs(t);
      r.findings.push_back(std::move(f));
    }
  }
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
    f.confidence = std::min(1.0, 0.5 + static_cast<double>(n_late) / instances);
    f.evidence = "its compute phase before a collective runs longer in " + std::to_string(n_late) + " of " +
                 std::to_string(instances) + " collectives, by a median " + FormatFixed(Median(lates), 1) +
                 " us (noise scale " +
                 FormatFixed(sigma, 1) + " us)";
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
