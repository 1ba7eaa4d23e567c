#include "toposcope/app/schedule_sim_command.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include "toposcope/app/schedule_command.h"
#include "toposcope/base/text.h"
#include "toposcope/report/result_json.h"
#include "toposcope/sim/ring_events.h"

namespace toposcope::app {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string F(double v, int d) { return std::isfinite(v) ? FormatFixed(v, d) : std::string("n/a"); }

// The qps a decision's NCCL settings leave (the last NCCL_IB_QPS_PER_CONNECTION it sets).
int QpsAfter(const ScheduleAction& a, int current) {
  for (const act::NcclSetting& s : a.nccl) {
    if (s.name == "NCCL_IB_QPS_PER_CONNECTION" && s.changed) {
      const std::optional<int64_t> v = ParseInt(s.value);
      if (v && *v >= 1 && *v <= 1024) return static_cast<int>(*v);
    }
  }
  return current;
}

// Scores one run's decisions and measures the speed-up.
void Score(const sim::RingEventScene& scene, const ScheduleOutcome& o, const act::EadpsOptions& opt, ScheduleSimRun& run) {
  const sim::RingEventOptions& so = scene.options;
  std::map<std::string, int> index;
  for (const sim::HostModel& h : scene.cluster.hosts) index[h.name] = h.index;
  const std::set<std::string> affected(scene.affected_links.begin(), scene.affected_links.end());
  const double slack_s = opt.hot_hold_s + 2 * so.window_s;
  run.decisions = static_cast<int64_t>(o.decisions.size());
  std::set<std::string> scored_links;
  double first_correct_s = NAN;
  for (const ScheduledDecision& d : o.decisions) {
    run.decision_links.push_back(d.decision.action + " " + d.decision.evidence.link);
    if (d.decision.action != "move_off" || !scored_links.insert(d.decision.evidence.link).second) continue;
    ++run.move_offs;
    const double t_s = static_cast<double>(d.decision.t_ns - scene.base_ns) / 1e9;
    const bool ok = so.event != sim::RingEventKind::kNone && affected.count(d.decision.evidence.link) > 0 &&
                    t_s >= so.event_start_s && t_s <= so.event_end_s + slack_s;
    if (ok) {
      ++run.correct;
      if (!std::isfinite(first_correct_s)) first_correct_s = t_s;
    }
  }
  run.detected = std::isfinite(first_correct_s);
  if (!run.detected) return;
  run.time_to_decision_s = first_correct_s - so.event_start_s;
  // Speed-up over the windows from the first correct decision to the event's end.
  double ts = 0, te = 0, bs = 0, be = 0;
  int windows = 0;
  for (double t = std::ceil(first_correct_s / so.window_s) * so.window_s; t < so.event_end_s; t += so.window_s) {
    const double mid = t + 0.5 * so.window_s;
    std::vector<std::string> order = o.order;
    int qps = so.qps_per_connection;
    for (const ScheduledDecision& d : o.decisions) {
      if (static_cast<double>(d.decision.t_ns - scene.base_ns) / 1e9 > t) break;
      order = d.action.order;
      qps = QpsAfter(d.action, qps);
    }
    std::vector<int> idx;
    for (const std::string& h : order) {
      auto it = index.find(h);
      if (it != index.end()) idx.push_back(it->second);
    }
    const sim::RingAllReduceMeasure a = sim::MeasureRingAllReduce(scene, scene.order, so.qps_per_connection, mid);
    const sim::RingAllReduceMeasure b = sim::MeasureRingAllReduce(scene, idx, qps, mid);
    if (windows == 0) run.bottleneck_static = a.bottleneck, run.bottleneck_scheduled = b.bottleneck, run.qps_scheduled = qps;
    ts += a.time_us, te += b.time_us, bs += a.busbw_gbps, be += b.busbw_gbps;
    ++windows;
  }
  if (windows == 0 || !(te > 0)) return;
  run.allreduce_static_us = ts / windows, run.allreduce_scheduled_us = te / windows;
  run.busbw_static_gbps = bs / windows, run.busbw_scheduled_gbps = be / windows;
  run.speedup = ts / te;
}

Result<ScheduleSimRun> OneRun(const ScheduleSimRequest& req, sim::Arch arch, uint64_t seed, sim::RingEventKind ev) {
  sim::RingEventOptions so;
  so.arch = arch;
  so.hosts = req.hosts;
  so.seed = seed;
  so.event = ev;
  so.qps_per_connection = req.qps_per_connection;
  Result<sim::RingEventScene> scene = sim::PlanRingEvent(so);
  if (!scene.ok()) return scene.error();
  const std::string name = std::string(sim::ArchName(arch)) + "-s" + std::to_string(seed) + "-" +
                           std::string(sim::RingEventKindName(ev));
  const fs::path data = fs::path(req.out) / name / "data";
  Result<std::vector<std::string>> written = sim::WriteRingEventDataset(*scene, data.string());
  if (!written.ok()) return written.error();
  ScheduleRequest sr;
  // The analyzer reads the dataset's real-format files; truth.json stays with the scorer.
  for (const std::string& f : *written) {
    if (f != "truth.json" && f != "hostfile") sr.paths.push_back((data / f).string());
  }
  sr.out = (fs::path(req.out) / name / "schedule").string();
  sr.hosts_file = (data / "hostfile").string();
  sr.options = req.options;
  sr.entropy_window_ns = static_cast<int64_t>(std::llround(so.window_s * 1e9));
  sr.qps_per_connection = req.qps_per_connection;
  Result<ScheduleOutcome> o = RunSchedule(sr);
  if (!o.ok()) return o.error();
  ScheduleSimRun run;
  run.arch = sim::ArchName(arch);
  run.seed = seed;
  run.event = sim::RingEventKindName(ev);
  run.cable = scene->cable_id;
  const std::string text = ScheduleText(*o);
  for (const std::string_view line : SplitLines(text)) {
    if (line.starts_with("  #") || line.starts_with("      NCCL_")) run.decisions_text += std::string(line) + "\n";
  }
  Score(*scene, *o, req.options, run);
  return run;
}

}  // namespace

Result<ScheduleSimOutcome> RunScheduleSim(const ScheduleSimRequest& req) {
  if (req.out.empty()) return MakeKindError(ErrorKind::kUsage, "schedule --simulate: --out DIR is required");
  if (Status st = act::ValidateEadpsOptions(req.options); !st.ok()) return st.error();
  std::vector<sim::Arch> archs;
  for (const std::string& a : req.archs) {
    auto p = sim::ParseArch(a);
    if (!p) return MakeKindError(ErrorKind::kUsage, "schedule --simulate: unknown architecture " + a);
    archs.push_back(*p);
  }
  std::vector<sim::RingEventKind> events;
  for (const std::string& e : req.events) {
    auto p = sim::ParseRingEventKind(e);
    if (!p) return MakeKindError(ErrorKind::kUsage, "schedule --simulate: unknown event " + e + " (none, congestion, flapping, degraded)");
    events.push_back(*p);
  }
  ScheduleSimOutcome out;
  int64_t moves = 0, correct = 0, event_runs = 0, detected = 0;
  double sp_det = 0, sp_all = 0, ttd = 0;
  for (const sim::Arch a : archs) {
    for (const uint64_t seed : req.seeds) {
      for (const sim::RingEventKind ev : events) {
        Result<ScheduleSimRun> r = OneRun(req, a, seed, ev);
        if (!r.ok()) return r.error();
        if (ev == sim::RingEventKind::kNone) {
          out.clean_decisions += r->decisions;
        } else {
          ++event_runs;
          moves += r->move_offs, correct += r->correct;
          sp_all += r->speedup;
          if (r->detected) ++detected, sp_det += r->speedup, ttd += r->time_to_decision_s;
        }
        out.runs.push_back(std::move(*r));
      }
    }
  }
  if (moves > 0) out.precision = static_cast<double>(correct) / static_cast<double>(moves);
  if (event_runs > 0) {
    out.recall = static_cast<double>(detected) / static_cast<double>(event_runs);
    out.speedup_all = sp_all / static_cast<double>(event_runs);
  }
  if (detected > 0) out.speedup_detected = sp_det / static_cast<double>(detected), out.time_to_decision_s = ttd / static_cast<double>(detected);
  return out;
}

json ScheduleSimJson(const ScheduleSimOutcome& o) {
  json runs = json::array();
  for (const ScheduleSimRun& r : o.runs) {
    runs.push_back({{"arch", r.arch}, {"seed", r.seed}, {"event", r.event}, {"cable", r.cable},
                    {"decisions", r.decisions}, {"move_offs", r.move_offs}, {"correct", r.correct},
                    {"detected", r.detected}, {"time_to_decision_s", report::Num(r.time_to_decision_s, 3)},
                    {"allreduce_static_us", report::Num(r.allreduce_static_us, 1)},
                    {"allreduce_scheduled_us", report::Num(r.allreduce_scheduled_us, 1)},
                    {"busbw_static_gbps", report::Num(r.busbw_static_gbps, 1)},
                    {"busbw_scheduled_gbps", report::Num(r.busbw_scheduled_gbps, 1)},
                    {"speedup", report::Num(r.speedup, 3)}, {"decision_links", r.decision_links},
                    {"bottleneck_static", r.bottleneck_static}, {"bottleneck_scheduled", r.bottleneck_scheduled},
                    {"qps_scheduled", r.qps_scheduled}});
  }
  return {{"schedule",
           {{"precision", report::Num(o.precision, 3)},
            {"recall", report::Num(o.recall, 3)},
            {"clean_decisions", o.clean_decisions},
            {"allreduce_speedup", report::Num(o.speedup_detected, 3)},
            {"allreduce_speedup_all_events", report::Num(o.speedup_all, 3)},
            {"time_to_decision_s", report::Num(o.time_to_decision_s, 3)}}},
          {"runs", std::move(runs)}};
}

std::string ScheduleSimText(const ScheduleSimOutcome& o) {
  struct Agg {
    int runs = 0, detected = 0;
    int64_t moves = 0, correct = 0, decisions = 0;
    double speedup = 0, ttd = 0;
  };
  std::map<std::pair<std::string, std::string>, Agg> agg;
  for (const ScheduleSimRun& r : o.runs) {
    Agg& a = agg[{r.arch, r.event}];
    ++a.runs;
    a.decisions += r.decisions, a.moves += r.move_offs, a.correct += r.correct;
    a.speedup += r.speedup;
    if (r.detected) ++a.detected, a.ttd += r.time_to_decision_s;
  }
  std::string s = "| arch | event | runs | decisions | move_offs correct | detected | mean time to decision (s) | mean speed-up |\n"
                  "|---|---|---|---|---|---|---|---|\n";
  for (const auto& [key, a] : agg) {
    s += "| " + key.first + " | " + key.second + " | " + std::to_string(a.runs) + " | " + std::to_string(a.decisions) + " | " +
         std::to_string(a.correct) + "/" + std::to_string(a.moves) + " | " + std::to_string(a.detected) + "/" +
         std::to_string(a.runs) + " | " + (a.detected > 0 ? F(a.ttd / a.detected, 2) : "n/a") + " | " +
         F(a.speedup / a.runs, 3) + " |\n";
  }
  s += "\nschedule.precision " + F(o.precision, 3) + ", schedule.recall " + F(o.recall, 3) + ", schedule.clean_decisions " +
       std::to_string(o.clean_decisions) + ", schedule.allreduce_speedup " + F(o.speedup_detected, 3) +
       " (detected events; " + F(o.speedup_all, 3) + " over every event run), time to decision " +
       F(o.time_to_decision_s, 2) + " s\n";
  return s;
}

}  // namespace toposcope::app
