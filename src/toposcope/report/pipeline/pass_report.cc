#include "toposcope/report/pipeline/pass_report.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/report/result_json.h"

namespace toposcope::report {
namespace {

double Mb(int64_t bytes) { return static_cast<double>(bytes) / (1024.0 * 1024.0); }

// Seconds with three decimals, as a JSON number; null when not finite (strtod never throws).
nlohmann::json Secs(double s) {
  if (!std::isfinite(s)) return nullptr;
  return std::strtod(FormatFixed(s, 3).c_str(), nullptr);
}

}  // namespace

nlohmann::json PassStatsJson(const analysis::PipelineRun& run) {
  nlohmann::json passes = nlohmann::json::array();
  double wall = 0, cpu = 0;
  int64_t peak = 0;
  for (const analysis::PassStats& p : run.passes) {
    passes.push_back({{"name", std::string(analysis::PassName(p.id))},
                      {"source", analysis::PassSourceName(p.source)},
                      {"wall_s", Secs(p.wall_s)},
                      {"cpu_s", Secs(p.cpu_s)},
                      {"peak_rss_mb", Secs(Mb(p.peak_rss_bytes))},
                      {"rss_growth_mb", Secs(Mb(p.rss_growth_bytes))},
                      {"records_in", p.records_in},
                      {"records_out", p.records_out}});
    wall += p.wall_s;
    cpu += p.cpu_s;
    peak = std::max(peak, p.peak_rss_bytes);
  }
  return {{"schema", "toposcope.passes/1"},
          {"passes", passes},
          {"total", {{"wall_s", Secs(wall)}, {"cpu_s", Secs(cpu)}, {"peak_rss_mb", Secs(Mb(peak))}}}};
}

std::string PassStatsText(const analysis::PipelineRun& run) {
  std::string out = StringPrintf("%-15s %-6s %9s %9s %10s %10s %12s %12s\n", "pass", "from", "wall s", "cpu s",
                                 "peak MiB", "+MiB", "records in", "records out");
  double wall = 0, cpu = 0;
  int64_t peak = 0;
  for (const analysis::PassStats& p : run.passes) {
    out += StringPrintf("%-15s %-6s %9.3f %9.3f %10.1f %10.1f %12lld %12lld\n",
                        std::string(analysis::PassName(p.id)).c_str(),
                        std::string(analysis::PassSourceName(p.source)).c_str(), p.wall_s, p.cpu_s,
                        Mb(p.peak_rss_bytes), Mb(p.rss_growth_bytes), static_cast<long long>(p.records_in),
                        static_cast<long long>(p.records_out));
    wall += p.wall_s;
    cpu += p.cpu_s;
    peak = std::max(peak, p.peak_rss_bytes);
  }
  out += StringPrintf("%-15s %-6s %9.3f %9.3f %10.1f\n", "total", "", wall, cpu, Mb(peak));
  return out;
}

std::string PassListText() {
  std::string out = "Passes, in the order they run (`analyze --only NAME` produces one and what it needs):\n\n";
  for (const analysis::PassInfo& p : analysis::Passes()) {
    std::string needs;
    for (analysis::PassId n : p.needs) needs += (needs.empty() ? "" : ",") + std::string(analysis::PassName(n));
    out += StringPrintf("  %-15s %s\n  %-15s needs: %s\n", std::string(p.name).c_str(), std::string(p.summary).c_str(),
                        "", needs.empty() ? "-" : needs.c_str());
  }
  return out;
}

std::string PassProgressText(const analysis::PassInfo& pass, const analysis::PassStats* done) {
  const int index = static_cast<int>(pass.id) + 1;
  if (done == nullptr) {
    return StringPrintf("[%2d/%d] %-15s %s ...\n", index, analysis::kPassCount, std::string(pass.name).c_str(),
                        std::string(pass.summary).c_str());
  }
  if (done->source == analysis::PassSource::kDump) {
    return StringPrintf("[%2d/%d] %-15s loaded from the dump\n", index, analysis::kPassCount,
                        std::string(pass.name).c_str());
  }
  return StringPrintf("[%2d/%d] %-15s done in %.2f s (%lld records in, %lld out)\n", index, analysis::kPassCount,
                      std::string(pass.name).c_str(), done->wall_s, static_cast<long long>(done->records_in),
                      static_cast<long long>(done->records_out));
}

Status WritePassStats(const std::string& dir, const analysis::PipelineRun& run) {
  return WriteFileText((std::filesystem::path(dir) / "passes.json").string(), DumpSchemaFirst(PassStatsJson(run)));
}

Status WritePassDump(const std::string& dir, std::string_view pass, const std::string& text) {
  const std::string path = (std::filesystem::path(dir) / "passes" / (std::string(pass) + ".json")).string();
  return WriteFileText(path, text + "\n");
}

}  // namespace toposcope::report
