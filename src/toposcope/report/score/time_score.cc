// report/score/time_score: clock alignment on the truth's check instants and detection of the
// injected telemetry faults.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/analysis/time/timesync.h"
#include "toposcope/base/names.h"
#include "toposcope/report/result_json.h"
#include "toposcope/report/score/score_sections.h"

namespace toposcope::report::score_internal {

using nlohmann::json;

namespace {

// Rebuilds the clock models of a result: host -> model name -> model.
std::map<std::string, std::map<std::string, analysis::ClockModel>> ClockModelsOf(const json& result) {
  std::map<std::string, std::map<std::string, analysis::ClockModel>> out;
  if (!result.contains("clocks") || !result["clocks"].is_array()) return out;
  for (const auto& c : result["clocks"]) {
    analysis::ClockModel m;
    m.host = StrField(c, "host");
    if (!c.contains("segments")) continue;
    for (const auto& sg : c["segments"]) {
      analysis::ClockSegment seg;
      seg.start_local_ns = sg.value("start_local_ns", int64_t{0});
      seg.t0_local_ns = sg.value("t0_local_ns", int64_t{0});
      if (sg.contains("c") && sg["c"].is_array() && sg["c"].size() == 3) {
        seg.c0 = sg["c"][0].is_number() ? sg["c"][0].get<double>() : 0.0;
        seg.c1 = sg["c"][1].is_number() ? sg["c"][1].get<double>() : 0.0;
        seg.c2 = sg["c"][2].is_number() ? sg["c"][2].get<double>() : 0.0;
      }
      m.segments.push_back(seg);
    }
    const std::string name = StrField(c, "model");
    out[m.host][name] = m;
    if (c.value("best", false)) out[m.host]["best"] = m;
  }
  return out;
}

// The q-quantile of `v` by linear interpolation between order statistics; 0 when empty.
double QuantileOf(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(pos);
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

// The mean of `v` (summed in order); 0 when empty.
double MeanOf(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0.0 : s / static_cast<double>(v.size());
}

// The GPU of a fault or finding: a number, or a canonical name "HOST/gpuN"; -1 when none.
int GpuOf(const json& f) {
  if (!f.contains("gpu")) return -1;
  if (f["gpu"].is_number_integer()) return f["gpu"].get<int>();
  if (f["gpu"].is_string()) {
    auto g = ParseGpuName(f["gpu"].get<std::string>());
    return g ? g->index : -1;
  }
  return -1;
}

// kind -> (host, GPU) of each fault or finding; clock steps are per host.
std::map<std::string, std::set<std::pair<std::string, int>>> FaultsByKind(const json& list) {
  std::map<std::string, std::set<std::pair<std::string, int>>> by_kind;
  for (const auto& f : list) {
    const int gpu = StrField(f, "kind") == "clock_step" ? -1 : GpuOf(f);
    by_kind[StrField(f, "kind")].insert({StrField(f, "host"), gpu});
  }
  return by_kind;
}

}  // namespace

// Clock alignment error on the truth's check instants (which no input contains).
json ScoreClocks(const json& truth, const json& result) {
  json out = json::object();
  if (!truth.contains("clock_checks") || !truth["clock_checks"].is_array()) return out;
  const auto models = ClockModelsOf(result);
  std::map<std::string, std::vector<double>> err;                       // model -> |error| us
  std::map<std::string, std::map<std::string, std::vector<double>>> per_host;  // host -> model -> errors
  int64_t checks = 0, unmodelled = 0;
  for (const auto& c : truth["clock_checks"]) {
    const std::string host = StrField(c, "host");
    const auto local = c.value("local_ns", int64_t{0});
    const auto global = c.value("global_ns", int64_t{0});
    ++checks;
    auto it = models.find(host);
    for (const char* name : {"none", "linear", "quadratic", "best"}) {
      double e = 0;
      if (it == models.end() || it->second.count(name) == 0U) {
        e = std::abs(static_cast<double>(local - global)) / 1000.0;  // no model: uncompensated
        if (std::string(name) == "best") ++unmodelled;
      } else {
        e = std::abs(static_cast<double>(it->second.at(name).ToGlobalNs(local) - global)) / 1000.0;
      }
      err[name].push_back(e);
      per_host[host][name].push_back(e);
    }
  }
  for (const auto& [name, v] : err) {
    out[name] = {{"mean_abs_error_us", Num(MeanOf(v), 3)}, {"p99_abs_error_us", Num(QuantileOf(v, 0.99), 3)}};
  }
  out["checks"] = checks;
  out["hosts_without_model"] = unmodelled;
  int worse = 0;
  json hosts = json::array();
  for (const auto& [host, m] : per_host) {
    const double q = MeanOf(m.at("quadratic"));
    const double b = MeanOf(m.at("best"));
    if (b > q) ++worse;
    hosts.push_back({{"host", host}, {"quadratic_mean_us", Num(q, 3)}, {"best_mean_us", Num(b, 3)}});
  }
  out["hosts"] = hosts;
  out["hosts_best_worse_than_quadratic"] = worse;
  const double qm = out.contains("quadratic") ? out["quadratic"]["mean_abs_error_us"].get<double>() : 0;
  const double bm = out.contains("best") ? out["best"]["mean_abs_error_us"].get<double>() : 0;
  out["quadratic_over_best"] = Num(bm > 0 ? qm / bm : 0, 3);
  return out;
}

// Detection of the injected telemetry faults: a finding matches a fault of the same kind on the
// same host (and GPU, when the fault names one).
json ScoreDetections(const json& truth, const json& result) {
  json out = json::object();
  if (!truth.contains("telemetry_faults") || !truth["telemetry_faults"].is_array()) return out;
  auto want = FaultsByKind(truth["telemetry_faults"]);
  auto got = result.contains("telemetry_findings") ? FaultsByKind(result["telemetry_findings"])
                                                   : std::map<std::string, std::set<std::pair<std::string, int>>>{};
  std::set<std::string> kinds;
  for (const auto& [k, _] : want) kinds.insert(k);
  for (const auto& [k, _] : got) kinds.insert(k);
  for (const auto& k : kinds) {
    int64_t tp = 0, fp = 0, fn = 0;
    for (const auto& x : got[k]) (want[k].count(x) != 0U ? tp : fp)++;
    for (const auto& x : want[k]) fn += got[k].count(x) == 0U ? 1 : 0;
    out[k] = DetectionJson(tp, fp, fn);
  }
  return out;
}

}  // namespace toposcope::report::score_internal
