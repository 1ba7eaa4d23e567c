// report/json/time_json: the time sections of result.json: clock models, implicit clock anchors,
// DCGM telemetry and its findings, the merged timeline.
#include <algorithm>
#include <string>

#include "toposcope/report/json/result_sections.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report {

using nlohmann::json;

namespace {

// A model's signed residuals on the held-out sync points, at most kResidualPoints evenly spread:
// [[seconds since the host's first held-out point, model offset - measured offset in us], ...].
constexpr size_t kResidualPoints = 48;
json HeldOutResidualsJson(const analysis::ClockModel& m, const std::vector<analysis::SyncSample>& held) {
  json points = json::array();
  if (held.empty()) return points;
  int64_t first = held.front().local_ns;
  for (const auto& s : held) first = std::min(first, s.local_ns);
  const size_t n = held.size(), k = std::min(n, kResidualPoints);
  for (size_t i = 0; i < k; ++i) {
    const analysis::SyncSample& s = held[k > 1 ? i * (n - 1) / (k - 1) : 0];
    points.push_back({Num(static_cast<double>(s.local_ns - first) / 1e9, 3), Num((m.OffsetNs(s.local_ns) - s.offset_ns()) / 1000.0, 3)});
  }
  return points;
}

}  // namespace

json ClocksJson(const std::vector<analysis::HostClockFit>& fits) {
  json clocks = json::array();
  for (const auto& fit : fits) {
    for (const auto& m : fit.models) {
      json segs = json::array();
      for (const auto& sg : m.segments) {
        segs.push_back({{"start_local_ns", sg.start_local_ns},
                        {"t0_local_ns", sg.t0_local_ns},
                        {"c", {Num(sg.c0, 3), Num(sg.c1, 6), Num(sg.c2, 9)}}});
      }
      json gaps = json::array();
      for (const auto& g : m.gaps) gaps.push_back({g.from_local_ns, g.to_local_ns});
      clocks.push_back({{"host", m.host},
                        {"model", std::string(analysis::ClockModelName(m.kind))},
                        {"best", m.kind == fit.Best().kind},
                        {"segments", segs},
                        {"steps_local_ns", m.steps_local_ns},
                        {"gaps_local_ns", gaps},
                        {"fit_points", m.fit_points},
                        {"heldout_points", m.heldout_points},
                        {"anchor_points", m.anchor_points},
                        {"anchor_weight", Num(m.anchor_weight, 4)},
                        {"residual_us", {{"mean", Num(m.mean_abs_residual_us, 3)}, {"p99", Num(m.p99_abs_residual_us, 3)}}},
                        {"heldout_residuals_us", HeldOutResidualsJson(m, fit.heldout)}});
    }
  }
  return clocks;
}

json ServoJson(const analysis::ServoReport& servo) {
  json series = json::array(), findings = json::array();
  for (const auto& s : servo.series) {
    series.push_back({{"host", s.host}, {"program", s.program}, {"clock", s.clock}, {"reference", s.reference},
                      {"summaries", s.summaries}, {"points", s.points}, {"locked", s.locked},
                      {"lines", {s.first_line, s.last_line}}, {"offset_rms_ns", Num(s.offset_rms_ns, 1)},
                      {"offset_max_ns", Num(s.offset_max_ns, 1)}, {"freq_min_ppb", Num(s.freq_min_ppb, 1)},
                      {"freq_max_ppb", Num(s.freq_max_ppb, 1)}});
  }
  for (const auto& f : servo.findings) {
    json offsets = json::array();
    for (double v : f.offsets_ns) offsets.push_back(Num(v, 1));
    findings.push_back({{"kind", analysis::ServoFindingKindName(f.kind)}, {"host", f.host}, {"program", f.program},
                        {"clock", f.clock}, {"reference", f.reference}, {"summaries", f.summaries},
                        {"first_line", f.first_line}, {"last_line", f.last_line}, {"k", f.k},
                        {"k_needed", f.k_needed}, {"n", f.n}, {"chance", f.chance > 0 ? json(f.chance) : json(nullptr)},
                        {"offsets_ns", offsets}, {"freq_first_ppb", Num(f.freq_first_ppb, 1)},
                        {"freq_last_ppb", Num(f.freq_last_ppb, 1)}, {"evidence", f.evidence}});
  }
  return {{"series", series}, {"findings", findings}};
}

json ClockAnchorsJson(const analysis::AnchorReport& anchors) {
  json hosts = json::array();
  for (const auto& h : anchors.hosts) {
    hosts.push_back({{"host", h.host}, {"anchors", h.anchors}, {"weight", Num(h.weight, 4)},
                     {"scatter_us", Num(h.scatter_us, 3)}, {"sync_sigma_us", Num(h.sync_sigma_us, 3)},
                     {"new_steps_local_ns", h.new_steps_local_ns}});
  }
  return {{"events_scanned", anchors.events_scanned},
          {"candidate_events", anchors.candidate_events},
          {"groups", anchors.groups},
          {"groups_dropped", anchors.groups_dropped},
          {"hosts", hosts}};
}

void AddTelemetryJson(const analysis::TelemetryReport& t, json& j) {
  json fields = json::array();
  for (const auto& f : t.fields) {
    fields.push_back({{"field_id", f.field_id}, {"field", f.field}, {"long_name", f.long_name},
                      {"class", f.field_class}, {"needed_period_ms", f.needed_period_ms}, {"series", f.series},
                      {"worst_period_ms", Num(f.worst_period_ms, 3)}, {"ok", f.ok}});
  }
  json warnings = json::array();
  for (const auto& w : t.sampling_warnings) {
    warnings.push_back({{"host", w.host}, {"field", w.field}, {"period_ms", Num(w.period_ms, 3)},
                        {"needed_period_ms", w.needed_period_ms}});
  }
  json offered = json::array();
  for (const auto& o : t.offered) offered.push_back({{"host", o.host}, {"fields", o.offered}, {"missing", o.missing}});
  j["dcgm"] = {{"series", t.series}, {"points", t.points}, {"fields", fields}, {"sampling_warnings", warnings},
               {"offered", offered}};
  json findings = json::array();
  for (const auto& f : t.findings) {
    json one = {{"kind", analysis::TelemetryFindingKindName(f.kind)}, {"host", f.host}, {"gpu", f.gpu},
                {"link", f.link}, {"start_ns", f.start_ns}, {"end_ns", f.end_ns},
                {"confidence", Num(f.confidence, 4)}, {"evidence", f.evidence}};
    if (f.kind == analysis::TelemetryFindingKind::kThermalLinkDownspeed) {
      one["hot_threshold"] = {{"source", f.threshold_source}, {"hot_c", Num(f.hot_c, 1)}};
      if (!f.threshold_file.empty()) one["hot_threshold"]["file"] = f.threshold_file;
    }
    findings.push_back(std::move(one));
  }
  j["telemetry_findings"] = findings;
  json limits = json::array();
  for (const auto& e : t.gpu_limits) {
    const model::GpuQueryInfo& g = e.gpu;
    limits.push_back({{"host", e.host}, {"gpu", g.index}, {"matched_by", g.matched_by}, {"bus_id", g.bus_id},
                      {"product_name", g.product_name}, {"driver_version", g.driver_version},
                      {"max_operating_c", Num(g.max_operating_c, 1)}, {"slowdown_c", Num(g.slowdown_c, 1)},
                      {"shutdown_c", Num(g.shutdown_c, 1)}, {"form", g.limits_form}, {"source", g.source},
                      {"line", g.line}});
  }
  if (!limits.empty()) j["gpu_limits"] = limits;
}

json TimelineJson(const analysis::TimelineReport& t) {
  json srcs = json::array();
  for (const auto& s : t.sources) {
    srcs.push_back({{"path", s.path}, {"host", s.host}, {"format", s.format}, {"events", s.events},
                    {"records", s.records}, {"rejected", s.rejected}});
  }
  return {{"trace", t.trace_path},     {"events_in", t.events_in},
          {"events_out", t.events_out}, {"without_clock", t.without_clock},
          {"sources", srcs}};
}

}  // namespace toposcope::report
