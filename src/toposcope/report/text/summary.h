// report/text/summary: the short human summary of an analysis that the CLI prints on the terminal.
#pragma once

#include <string>

#include "toposcope/analysis/result.h"

namespace toposcope::report {

// Returns the summary text: inputs, hosts / GPUs / islands, links and degraded ones, clock fits,
// DCGM sampling and findings, timeline, RDMA, patterns, paths, leaves, architecture, fabric and
// the confidence bound; one line per item, each ending in a newline. Never fails.
std::string ResultSummaryText(const analysis::AnalysisResult& r);

}  // namespace toposcope::report
