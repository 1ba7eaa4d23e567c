#include "toposcope/app/demo_command.h"

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "toposcope/app/analyze_command.h"
#include "toposcope/app/simulate_command.h"
#include "toposcope/base/file_io.h"
#include "toposcope/experiments/architecture_compare.h"
#include "toposcope/report/result_json.h"
#include "toposcope/report/score.h"

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
  return {};
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
  std::fputs(c->table.c_str(), out);
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
  std::fprintf(out, "  (every figure: %s/score.json)\n", req.out.c_str());
  CompareStep(req, (fs::path(req.out) / "architectures.txt").string(), &*score, out);
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
  std::fprintf(out, "report: %s (open it in a browser)\n", html.c_str());
  std::fprintf(out, "demo finished in %.2f s; outputs in %s\n", secs, req.out.c_str());
  return {};
}

}  // namespace toposcope::app
