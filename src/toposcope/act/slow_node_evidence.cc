#include "toposcope/act/slow_node_evidence.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "toposcope/base/diagnostics.h"
#include "toposcope/formats/nccl/nccl_tests.h"

namespace toposcope::act {

namespace {

std::string Joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ",") + x;
  return s;
}

std::string RunName(const PlannedRun& run) { return "run " + std::to_string(run.id); }

// The host of a GPU id "HOST/gpuN" (the id itself when it has no '/').
std::string HostOfGpu(const std::string& id) {
  const size_t slash = id.rfind('/');
  return slash == std::string::npos ? id : id.substr(0, slash);
}

}  // namespace

Result<RunObservation> ReadRunObservation(std::string_view text, const std::string& source, const PlannedRun& run) {
  const std::string hint = "rerun " + RunName(run) + " and write its whole output there";
  Diagnostics diag;
  Result<formats::NcclTestsReport> rep = formats::ParseNcclTests(text, source, diag);
  if (!rep.ok()) {
    Error e = rep.error();
    e.message = RunName(run) + ": " + e.message;
    if (e.hint.empty()) e.hint = hint;
    return e;
  }
  for (const Diagnostic& d : diag.items()) {
    if (d.severity != Severity::kRejected) continue;
    return MakeError(source, d.line, 0, RunName(run) + ": garbled nccl-tests line: " + d.reason + ": " + d.raw, hint);
  }
  const formats::NcclTestsRun* last = nullptr;
  for (const formats::NcclTestsRun& r : rep->runs) {
    if (!r.rows.empty()) last = &r;
  }
  if (last == nullptr) {
    const int64_t at = rep->runs.empty() ? 0 : rep->runs.back().first_line;
    return MakeError(source, at, 0, RunName(run) + ": no table row: the run failed or its output was cut", hint);
  }
  if (!last->test.empty() && last->test != "all_reduce_perf") {
    return MakeError(source, last->first_line, 0, RunName(run) + ": the output is " + last->test + ", not all_reduce_perf",
                     hint);
  }
  std::set<std::string> hosts;
  for (const formats::NcclTestsDevice& d : last->devices) hosts.insert(d.host);
  const std::vector<std::string> ran(hosts.begin(), hosts.end());
  if (!ran.empty() && ran != run.hosts) {
    return MakeError(source, last->devices.front().line, 0,
                     RunName(run) + ": the output ran on " + Joined(ran) + ", the plan on " + Joined(run.hosts),
                     "is this another run's output?");
  }
  const formats::NcclTestsRow* big = &last->rows.front();
  for (const formats::NcclTestsRow& row : last->rows) {
    if (row.size_bytes > big->size_bytes) big = &row;
  }
  RunObservation obs;
  obs.id = run.id;
  obs.source = source;
  const formats::NcclTestsTiming& o = big->out_of_place;
  const formats::NcclTestsTiming& i = big->in_place;
  if (o.present && i.present) {
    obs.busbw_gbps = 0.5 * (o.busbw_gbps + i.busbw_gbps);
    obs.spread_rel = obs.busbw_gbps > 0 ? std::fabs(o.busbw_gbps - i.busbw_gbps) / obs.busbw_gbps : -1;
  } else if (o.present || i.present) {
    obs.busbw_gbps = o.present ? o.busbw_gbps : i.busbw_gbps;
  } else {
    return MakeError(source, big->line, 0, RunName(run) + ": the largest size has no bus bandwidth (N/A)", hint);
  }
  for (const formats::NcclTestsRow& row : last->rows) {
    if (row.out_of_place.wrong > 0 || row.in_place.wrong > 0) obs.failed = true;
  }
  if (last->out_of_bounds && *last->out_of_bounds > 0) obs.failed = true;
  return obs;
}

std::vector<SlowNodePrior> PriorsFromAnalysis(const analysis::AnalysisResult& result,
                                              const std::vector<std::string>& hosts) {
  const std::set<std::string> known(hosts.begin(), hosts.end());
  std::map<std::string, double> healthy;  // per host: prod (1 - w)
  std::map<std::string, std::string> why;
  auto add = [&](const std::vector<std::string>& named, double weight, const std::string& what) {
    std::vector<std::string> in;
    for (const std::string& h : named) {
      if (known.count(h)) in.push_back(h);
    }
    if (in.empty()) return;
    const double w = (std::isfinite(weight) && weight > 0 && weight < 1 ? weight : 0.5) / static_cast<double>(in.size());
    for (const std::string& h : in) {
      auto [it, fresh] = healthy.emplace(h, 1.0);
      it->second *= 1 - w;
      std::string& s = why[h];
      s += (s.empty() ? "" : "; ") + what;
      (void)fresh;
    }
  };
  for (const analysis::CollectiveFinding& f : result.collectives.findings) {
    add(f.hosts, NAN, f.kind + " (" + f.test + ")");
  }
  for (const analysis::TelemetryFinding& f : result.telemetry.findings) {
    if (f.kind == analysis::TelemetryFindingKind::kClockStep) continue;  // says nothing about speed
    add({f.host}, f.confidence, std::string(analysis::TelemetryFindingKindName(f.kind)));
  }
  for (const analysis::LinkReport& l : result.links) {
    if (!l.degraded) continue;
    std::vector<std::string> named{HostOfGpu(l.a)};
    if (HostOfGpu(l.b) != named[0]) named.push_back(HostOfGpu(l.b));
    add(named, l.confidence, "degraded link " + l.a + "-" + l.b);
  }
  std::vector<SlowNodePrior> out;
  for (const auto& [h, p_healthy] : healthy) {
    const double p = std::clamp(1 - p_healthy, 1e-6, 1 - 1e-6);
    out.push_back({h, p, why[h]});
  }
  return out;
}

}  // namespace toposcope::act
