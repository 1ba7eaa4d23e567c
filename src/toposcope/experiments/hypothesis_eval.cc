// experiments/hypothesis_eval: the hypothesis tree measured over simulated clusters (see the header).
#include "toposcope/experiments/hypothesis_eval.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "toposcope/analysis/analyze.h"
#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/base/file_io.h"
#include "toposcope/report/result_json.h"
#include "toposcope/report/score.h"
#include "toposcope/sim/simulate.h"

namespace toposcope::experiments {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The timeline pass runs only with a sink, and stragglers come from the merged timeline: this one
// keeps nothing.
class DiscardTimeline : public analysis::TimelineSink {
 public:
  Status Open() override { return {}; }
  void Write(const analysis::MergedEvent&) override {}
  Status Close() override { return {}; }
  [[nodiscard]] std::string path() const override { return "(discarded)"; }
};

// The analysis `toposcope analyze` runs (automatic entropy window, every pass, the timeline merged).
Result<analysis::AnalysisResult> AnalyzeDir(const std::string& dir, std::vector<formats::PathProbe>* probes) {
  DiscardTimeline sink;
  analysis::PipelineOptions po;
  po.analyze.rdma.entropy.window_ns = 0;
  po.paths = {dir};
  po.timeline = &sink;
  analysis::PipelineState state;
  auto run = analysis::RunPipeline(po, &state);
  if (!run.ok()) return run.error();
  if (state.dataset_storage) *probes = std::move(state.dataset_storage->path_probes);
  return analysis::AssembleResult(state, po.analyze);
}

sim::SimOptions EvalSimOptions(sim::Arch arch, uint64_t seed, int faults, int hosts) {
  sim::SimOptions o;
  o.arch = arch;
  o.seed = seed;
  o.hosts = hosts;
  o.with_telemetry = true;
  o.with_rdma = true;
  o.with_fabric = true;
  o.probes_per_pair = 32;
  o.faults = faults;
  const bool clean = faults == 0;
  o.telemetry_faults = !clean;
  o.fabric_faults = !clean;
  o.congested_links = faults;
  o.background_traffic = !clean;
  if (clean) o.slow_dcgm_period_ms = o.dcgm_period_ms;  // no host sampled too slowly
  return o;
}

Result<HypothesisEvalRun> EvalOne(sim::Arch arch, uint64_t seed, int faults, const HypothesisEvalOptions& opt) {
  const fs::path base = opt.work_dir.empty() ? fs::temp_directory_path() : fs::path(opt.work_dir);
  const std::string dir = (base / ("toposcope_hyp_" + std::string(sim::ArchName(arch)) + "_" + std::to_string(seed) +
                                   "_" + std::to_string(faults) + "_" + std::to_string(::getpid())))
                              .string();
  std::error_code ec;
  fs::remove_all(dir, ec);
  auto s = sim::Simulate(sim::WithScaleLimits(EvalSimOptions(arch, seed, faults, opt.hosts)), dir);
  if (!s.ok()) return s.error();
  std::vector<formats::PathProbe> probes;
  auto analysed = AnalyzeDir(dir, &probes);
  if (!analysed.ok()) return analysed.error();
  const analysis::AnalysisResult& result = *analysed;
  auto truth_text = ReadFileText(dir + "/truth.json");
  const json result_json = report::ResultToJson(result, &probes);
  if (opt.keep) {
    if (auto w = WriteFileText(dir + "/result.json", result_json.dump(2) + "\n"); !w.ok()) return w.error();
  } else {
    fs::remove_all(dir, ec);
  }
  if (!truth_text.ok()) return truth_text.error();
  auto score = report::Score(json::parse(*truth_text), result_json);
  if (!score.ok()) return score.error();
  HypothesisEvalRun run;
  if (opt.keep) run.dir = dir;
  run.arch = arch;
  run.seed = seed;
  run.faults = faults;
  if (!score->contains("hypotheses")) return run;
  const json& h = (*score)["hypotheses"];
  run.root_causes = h.value("root_causes", int64_t{0});
  const double n = static_cast<double>(run.root_causes);
  run.top1 = static_cast<int64_t>(std::llround(h["top1_accuracy"].get<double>() * n));
  run.top3 = static_cast<int64_t>(std::llround(h["top3_accuracy"].get<double>() * n));
  run.symptoms = h.value("symptoms", int64_t{0});
  run.max_fault_probability = h["max_fault_probability"].get<double>();
  for (const auto& m : h.value("not_found", json::array())) {
    run.not_found.push_back(m.value("kind", std::string()) + " " + m.value("entity", std::string()));
  }
  for (const auto& [kind, k] : h["by_kind"].items()) {
    const int64_t c = k.value("causes", int64_t{0});
    const double cn = static_cast<double>(c);
    run.by_kind[kind] = {c, static_cast<int64_t>(std::llround(k["top1_accuracy"].get<double>() * cn)),
                         static_cast<int64_t>(std::llround(k["top3_accuracy"].get<double>() * cn))};
  }
  return run;
}

}  // namespace

Result<HypothesisEvaluation> EvaluateHypotheses(const HypothesisEvalOptions& opt) {
  HypothesisEvaluation e;
  for (sim::Arch arch : opt.archs) {
    for (uint64_t seed : opt.seeds) {
      for (int k : opt.fault_counts) {
        auto run = EvalOne(arch, seed, k, opt);
        if (!run.ok()) return run.error();
        e.causes += run->root_causes;
        e.top1 += run->top1;
        e.top3 += run->top3;
        for (const auto& [kind, t] : run->by_kind) {
          KindTally& all = e.by_kind[kind];
          all.causes += t.causes;
          all.top1 += t.top1;
          all.top3 += t.top3;
        }
        if (k == 0) e.clean_max_probability = std::max(e.clean_max_probability, run->max_fault_probability);
        e.runs.push_back(std::move(*run));
      }
    }
  }
  e.top1_accuracy = e.causes > 0 ? static_cast<double>(e.top1) / static_cast<double>(e.causes) : 1.0;
  e.top3_accuracy = e.causes > 0 ? static_cast<double>(e.top3) / static_cast<double>(e.causes) : 1.0;
  e.table = FormatHypothesisEvaluation(e);
  return e;
}

std::string FormatHypothesisEvaluation(const HypothesisEvaluation& e) {
  std::ostringstream os;
  char line[256];
  os << "architecture  faults  runs  root causes  top-1   top-3   max fault p\n";
  std::map<std::pair<std::string, int>, HypothesisEvalRun> rows;
  std::map<std::pair<std::string, int>, int> count;
  for (const auto& r : e.runs) {
    auto& row = rows[{std::string(sim::ArchName(r.arch)), r.faults}];
    row.root_causes += r.root_causes;
    row.top1 += r.top1;
    row.top3 += r.top3;
    row.max_fault_probability = std::max(row.max_fault_probability, r.max_fault_probability);
    ++count[{std::string(sim::ArchName(r.arch)), r.faults}];
  }
  auto ratio = [](int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 1.0; };
  for (const auto& [key, r] : rows) {
    std::snprintf(line, sizeof line, "%-12s  %6s  %4d  %11lld  %5.3f   %5.3f   %5.3f\n", key.first.c_str(),
                  key.second == 0 ? "clean" : std::to_string(key.second).c_str(), count[key],
                  static_cast<long long>(r.root_causes), ratio(r.top1, r.root_causes), ratio(r.top3, r.root_causes),
                  r.max_fault_probability);
    os << line;
  }
  std::snprintf(line, sizeof line, "total: %lld root causes, top-1 %.4f, top-3 %.4f, clean max fault probability %.4f\n",
                static_cast<long long>(e.causes), e.top1_accuracy, e.top3_accuracy, e.clean_max_probability);
  os << line;
  os << "root cause kind            causes  top-1   top-3\n";
  for (const auto& [kind, t] : e.by_kind) {
    std::snprintf(line, sizeof line, "%-25s  %6lld  %5.3f   %5.3f\n", kind.c_str(), static_cast<long long>(t.causes),
                  ratio(t.top1, t.causes), ratio(t.top3, t.causes));
    os << line;
  }
  double macro1 = 0, macro3 = 0;
  for (const auto& [kind, t] : e.by_kind) {
    macro1 += ratio(t.top1, t.causes);
    macro3 += ratio(t.top3, t.causes);
  }
  if (!e.by_kind.empty()) {
    const double k = static_cast<double>(e.by_kind.size());
    std::snprintf(line, sizeof line, "mean over the %zu kinds (each kind weighted alike): top-1 %.4f, top-3 %.4f\n",
                  e.by_kind.size(), macro1 / k, macro3 / k);
    os << line;
  }
  os << "not top-1 (found lower / not found), by kind:";
  for (const auto& [kind, t] : e.by_kind) {
    if (t.top1 < t.causes) os << " " << kind << " " << t.top3 - t.top1 << "/" << t.causes - t.top3;
  }
  os << "\n";
  for (const auto& r : e.runs) {
    if (r.not_found.empty()) continue;
    os << "not found in " << sim::ArchName(r.arch) << " seed " << r.seed << " faults " << r.faults << ":";
    for (const auto& m : r.not_found) os << " " << m;
    if (!r.dir.empty()) os << " (" << r.dir << ")";
    os << "\n";
  }
  return os.str();
}

}  // namespace toposcope::experiments
