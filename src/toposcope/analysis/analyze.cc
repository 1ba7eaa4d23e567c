#include "toposcope/analysis/analyze.h"

#include "toposcope/analysis/islands.h"
#include "toposcope/analysis/links.h"

namespace toposcope::analysis {

AnalysisResult Analyze(const model::Dataset& ds, const AnalyzeOptions& opt) {
  AnalysisResult r;
  r.thresholds = opt.thresholds;
  for (const auto& in : ds.inputs) {
    r.inputs.push_back({in.path, in.format, in.host, in.records, in.rejected, in.skipped, in.skip_reason});
  }
  r.links = AnalyzeLinks(ds, opt.thresholds, opt.noise);
  IslandOutput isl = AnalyzeIslands(ds, r.links, opt.thresholds);
  r.gpus = std::move(isl.gpus);
  r.islands = std::move(isl.islands);
  r.confidence = AnalyzeConfidence(r.links, opt.noise, opt.confidence);
  r.rejected_total = ds.diag.rejected_total();
  r.warnings_total = ds.diag.warnings_total();
  for (const auto& d : ds.diag.items()) r.diagnostics.push_back(d.ToString());
  return r;
}

}  // namespace toposcope::analysis
