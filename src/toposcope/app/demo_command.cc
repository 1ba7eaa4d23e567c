#include "toposcope/app/demo_command.h"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "toposcope/app/analyze_command.h"
#include "toposcope/app/barrier_sim_command.h"
#include "toposcope/app/ps_sim_command.h"
#include "toposcope/app/schedule_sim_command.h"
#include "toposcope/app/simulate_command.h"
#include "toposcope/base/file_io.h"
#include "toposcope/experiments/architecture_compare.h"
#include "toposcope/report/result_json.h"
#include "toposcope/report/score.h"
#include "toposcope/sim/ring_events.h"
#include "toposcope/act/hypotheses.h"
#include "toposcope/base/text.h"

namespace toposcope::app {
namespace {

namespace fs = std::filesystem;

// Simulates the demo cluster into `data_dir`.
Status SimulateStep(const DemoRequest& req, const std::string& data_dir, std::FILE* out) {
  std::error_code ec;
  fs::remove_all(data_dir, ec);
  std::fprintf(out, "== simulate: %d hosts, seed %llu -> %s\n", req.hosts, static_cast<unsigned long long>(req.seed),
               data_dir.c_str());
  sim::SimOptions o = SimulateDefaults();
  o.seed = req.seed;
  o.hosts = req.hosts;
  o.vary = req.vary;
  o.naming = sim::NameStyleOfSeed(req.seed);  // real-style names, in no placement order
  Result<sim::SimSummary> s = RunSimulate(o, data_dir);
  if (!s.ok()) return s.error();
  std::fputs(sim::SimSummaryText(*s).c_str(), out);
  return {};
}

// The fault hypothesis tree in a few lines: each symptom's most probable cause, the first of each
// kind of symptom first.
void ExplainStep(const AnalyzeOutcome& a, std::FILE* out) {
  act::HypothesisOptions ho;
  ho.probes = &a.probes;
  Result<act::HypothesisTree> tree = act::BuildHypotheses(a.result, ho);
  if (!tree.ok()) return;
  std::fprintf(out, "\n== explain: %zu symptom(s), each with its most probable cause (`toposcope explain` shows evidence and next checks)\n",
               tree->symptoms.size());
  std::vector<const act::Symptom*> shown, rest;
  std::set<act::SymptomKind> kinds;
  for (const act::Symptom& sy : tree->symptoms) (kinds.insert(sy.kind).second ? shown : rest).push_back(&sy);
  for (const act::Symptom* sy : rest) shown.push_back(sy);
  const size_t n = std::min<size_t>(shown.size(), 6);
  for (size_t i = 0; i < n; ++i) {
    const act::Symptom& sy = *shown[i];
    std::string line = "  " + std::string(act::SymptomKindName(sy.kind)) + " " + sy.entity + ": ";
    if (!sy.hypotheses.empty()) {
      const act::Hypothesis& h = sy.hypotheses.front();
      line += std::string(act::HypothesisKindName(h.kind)) + (h.entity != sy.entity && !h.entity.empty() ? " (" + h.entity + ")" : "") +
              " " + FormatFixed(100 * h.probability, 1) + " %";
    }
    if (line.size() > 118) line = line.substr(0, 115) + "...";
    std::fprintf(out, "%s\n", line.c_str());
  }
  if (shown.size() > n) std::fprintf(out, "  ... and %zu more symptom(s) in result.json\n", shown.size() - n);
}

// Analyses the simulated data into `res_dir`, printing the summary as `analyze` does.
Status AnalyzeStep(const std::string& data_dir, const std::string& res_dir, std::FILE* out) {
  std::fprintf(out, "\n== analyze %s\n", data_dir.c_str());
  AnalyzeRequest req;
  req.paths = {data_dir};
  req.out = res_dir;
  req.timeline = true;
  Result<AnalyzeOutcome> a = RunAnalyze(req);
  if (!a.ok()) return a.error();
  std::fputs(report::ResultSummaryText(a->result).c_str(), out);
  for (const auto& d : a->result.diagnostics) std::fprintf(stderr, "%s\n", d.c_str());
  std::fprintf(out, "wrote %s/result.json\n", res_dir.c_str());
  if (!a->any_input_read) return MakeError(data_dir, 0, 0, "no input could be read");
  ExplainStep(*a, out);
  return {};
}

// Which injected faults the hypothesis tree names (score's hypotheses section, per kind).
void NamedFaultsText(const nlohmann::json& score, std::FILE* out) {
  if (!score.contains("hypotheses") || !score["hypotheses"].contains("by_kind")) return;
  std::string line = "  injected faults the hypothesis tree names first (of injected):";
  size_t width = line.size();
  for (const auto& [kind, k] : score["hypotheses"]["by_kind"].items()) {
    const auto n = k.value("causes", int64_t{0});
    const auto first = static_cast<int64_t>(std::llround(k.value("top1_accuracy", 0.0) * static_cast<double>(n)));
    const auto top3 = static_cast<int64_t>(std::llround(k.value("top3_accuracy", 0.0) * static_cast<double>(n)));
    std::string item = " " + kind + " " + std::to_string(first) + "/" + std::to_string(n);
    if (top3 > first) item += " (" + std::to_string(top3 - first) + " in the top 3)";
    if (top3 < n) item += " (" + std::to_string(n - top3) + " not named)";
    item += ";";
    if (width + item.size() > 110) line += "\n   ", width = 3;
    line += item;
    width += item.size();
  }
  std::fprintf(out, "%s\n", line.c_str());
}

// EADPS acting on a degraded cable under a job's ring AllReduce (the ring scene of the simulator):
// the decision, its action and the measured speed-up; adds the scheduler's scores to the score.
void ActStep(const DemoRequest& req, nlohmann::json* score, std::FILE* out) {
  std::fprintf(out, "\n== act: a cable under a job's ring AllReduce trains at 1x mid-run; the path scheduler (EADPS) watches the captures\n");
  ScheduleSimRequest r;
  r.archs = {"fat-tree"};
  r.seeds = {req.seed};
  r.events = {"degraded"};
  r.hosts = std::clamp(req.hosts, 4, 256);
  r.out = (fs::path(req.out) / "schedule").string();
  Result<ScheduleSimOutcome> o = RunScheduleSim(r);
  if (!o.ok() || o->runs.empty()) {
    std::fprintf(stderr, "toposcope: %s\n", o.ok() ? "the scheduler simulation made no run" : o.error().ToString().c_str());
    return;
  }
  const ScheduleSimRun& run = o->runs.front();
  const sim::RingEventOptions scene;  // the scene's event window and length
  std::fprintf(out, "  injected: cable %s at 1x from %.0f s to %.0f s of a %.0f s job (%d hosts)\n", run.cable.c_str(),
               scene.event_start_s, scene.event_end_s, scene.duration_s, r.hosts);
  std::fputs(run.decisions_text.c_str(), out);
  if (run.detected) {
    std::fprintf(out, "  AllReduce of 1 GiB while the cable is slow: %.1f ms at %.0f Gb/s bus bandwidth in the job's order, %.1f ms at %.0f Gb/s after the decision: %.2fx faster\n",
                 run.allreduce_static_us / 1e3, run.busbw_static_gbps, run.allreduce_scheduled_us / 1e3,
                 run.busbw_scheduled_gbps, run.speedup);
  } else {
    std::fprintf(out, "  no decision on the event's cable: the job's order stays\n");
  }
  std::fprintf(out, "  (hostfiles, NCCL graph and settings of each decision: %s)\n", r.out.c_str());
  (*score)["schedule"] = ScheduleSimJson(*o)["schedule"];
}

// The three architectures side by side, each identified from its own simulated fabric; adds what
// was identified to the score.
void CompareStep(const DemoRequest& req, const std::string& table_path, nlohmann::json* score, std::FILE* out) {
  std::fprintf(out, "\n== compare architectures (%d hosts each, seed %llu)\n", req.hosts,
               static_cast<unsigned long long>(req.seed));
  auto c = experiments::CompareArchitectures(std::clamp(req.hosts, 2, 512), req.seed);
  if (!c.ok()) {
    std::fprintf(stderr, "toposcope: %s\n", c.error().ToString().c_str());
    return;
  }
  for (std::string_view line : SplitLines(c->table)) {  // the table without its blank lines (the file keeps them)
    if (!line.empty()) std::fprintf(out, "%.*s\n", static_cast<int>(line.size()), line.data());
  }
  nlohmann::json rows = nlohmann::json::object();
  int correct = 0;
  for (const auto& row : c->rows) {
    const analysis::ArchClass expected = experiments::ExpectedArchClass(row.arch);
    const bool ok = row.identified == expected && row.identified_from_probes == expected;
    correct += ok ? 1 : 0;
    rows[std::string(sim::ArchName(row.arch))] = {
        {"identified_from_fabric", analysis::ArchClassName(row.identified)},
        {"identified_from_probes", analysis::ArchClassName(row.identified_from_probes)},
        {"correct", ok}};
  }
  (*score)["architecture_comparison"] = {
      {"hosts", c->hosts}, {"architectures", rows}, {"correct", correct}, {"total", c->rows.size()}};
  (void)WriteFileText(table_path, c->table);
}

// The training-side mechanisms, each as a small real instance (a few seconds), one line each: the
// cross-region barrier (4 worker processes) and the parameter-server graph (6 processes, one killed
// mid-run); the commands print the whole tables.
void TrainStep(std::FILE* out) {
  std::fprintf(out, "\n== train: small real instances (`toposcope barrier-sim --real 4`, `toposcope ps-sim --real 6` print the tables)\n");
  BarrierSimRequest b;
  b.real = 4;
  b.base.steps = 30;
  b.base.problem.features = 4096;
  Result<BarrierSimOutcome> bo = RunBarrierSim(b);
  if (bo.ok()) {
    std::fprintf(out, "  barrier: sync %.2f ms, %.0f B / iteration; async 4-bit %.2f ms, %.0f B (%.1f %% saved); loss %.5f vs %.5f (claimed: 482 -> 317 ms, 68 %%)\n",
                 bo->sync.iteration_ms, bo->sync.bytes_per_iteration, bo->async_4bit.iteration_ms,
                 bo->async_4bit.bytes_per_iteration, 100 * bo->bytes_saved_fraction, bo->sync.final_loss,
                 bo->async_4bit.final_loss);
  } else {
    std::fprintf(stderr, "toposcope: %s\n", bo.error().ToString().c_str());
  }
  PsSimRequest p;
  p.real_nodes = 6;
  p.real.steps = 30;
  p.real.problem.features = 2048;
  p.real.problem.samples_per_worker = 256;
  Result<PsSimOutcome> po = RunPsSim(p);
  if (po.ok()) {
    std::fprintf(out, "  ps graph, node 0 killed: full %.3f MB/s a node, failover %.1f ms; sparse %.3f MB/s, %.1f ms; lost %lld, doubled %lld (claimed: 840 -> 196 ms)\n",
                 po->full.overhead_mb_s, po->full.failover_ms, po->sparse.overhead_mb_s, po->sparse.failover_ms,
                 static_cast<long long>(po->lost_updates), static_cast<long long>(po->duplicate_updates));
  } else {
    std::fprintf(stderr, "toposcope: %s\n", po.error().ToString().c_str());
  }
}

}  // namespace

Status RunDemo(const DemoRequest& req, std::FILE* out) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string data_dir = (fs::path(req.out) / "data").string();
  const std::string res_dir = (fs::path(req.out) / "analysis").string();
  if (Status st = SimulateStep(req, data_dir, out); !st.ok()) return st;
  if (Status st = AnalyzeStep(data_dir, res_dir, out); !st.ok()) return st;
  std::fprintf(out, "\n== score against %s/truth.json\n", data_dir.c_str());
  const std::string truth = (fs::path(data_dir) / "truth.json").string();
  const std::string result = (fs::path(res_dir) / "result.json").string();
  Result<nlohmann::json> score = report::ScoreFiles(truth, result);
  if (!score.ok()) return score.error();
  std::fputs(report::ScoreHeadlineText(*score).c_str(), out);
  NamedFaultsText(*score, out);
  std::fprintf(out, "  (every figure: %s/score.json)\n", req.out.c_str());
  ActStep(req, &*score, out);
  CompareStep(req, (fs::path(req.out) / "architectures.txt").string(), &*score, out);
  TrainStep(out);
  if (Status st = WriteFileText((fs::path(req.out) / "score.json").string(), report::DumpSchemaFirst(*score));
      !st.ok()) {
    return st;
  }
  // The HTML report of the analysis (analyze wrote it beside result.json), also at the top.
  const std::string html = (fs::path(req.out) / "report.html").string();
  std::error_code ec;
  fs::copy_file(fs::path(res_dir) / "report.html", html, fs::copy_options::overwrite_existing, ec);
  if (ec) return MakeKindError(ErrorKind::kOutput, html + ": cannot write: " + ec.message());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(out, "report: %s (open it in a browser); demo finished in %.2f s; outputs in %s\n", html.c_str(), secs,
               req.out.c_str());
  return {};
}

}  // namespace toposcope::app
