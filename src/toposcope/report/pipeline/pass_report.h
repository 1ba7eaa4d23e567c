// report/pipeline/pass_report: what a pipeline run measured, pass by pass (wall and CPU time, peak
// memory, records in and out), as DIR/passes.json and as a table for `--verbose`; and the pass
// dumps written to DIR/passes/<name>.json. Kept out of result.json, which stays deterministic.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/base/result.h"

namespace toposcope::report {

// {"schema": "toposcope.passes/1", "passes": [{name, source, wall_s, cpu_s, peak_rss_mb,
// rss_growth_mb, records_in, records_out}, ...], "total": {wall_s, cpu_s, peak_rss_mb}}.
nlohmann::json PassStatsJson(const analysis::PipelineRun& run);

// One line per pass, aligned, with a total: fits a terminal.
std::string PassStatsText(const analysis::PipelineRun& run);

// Every pass with what it needs and what it answers, for `toposcope passes`.
std::string PassListText();

// The progress line of a pass that started (done == nullptr) or ended.
std::string PassProgressText(const analysis::PassInfo& pass, const analysis::PassStats* done);

// Writes PassStatsJson to `dir`/passes.json. Fails (ErrorKind::kOutput) when it cannot.
Status WritePassStats(const std::string& dir, const analysis::PipelineRun& run);

// Writes a pass dump to `dir`/passes/<pass>.json. Fails (ErrorKind::kOutput) when it cannot.
Status WritePassDump(const std::string& dir, std::string_view pass, const std::string& text);

}  // namespace toposcope::report
