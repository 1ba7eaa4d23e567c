// report/text/summary: the short human summary of an analysis that the CLI prints on the terminal.
#pragma once

#include <string>

#include "toposcope/analysis/result.h"

namespace toposcope::report {

struct SummaryOptions {
  // false: a screen's worth — each list of findings shows its first `max_items` and says how many
  // more there are, repeated findings of one kind are grouped, the clock and confidence tables are
  // one line each. true: every finding, every host's clock fits, the whole confidence table.
  bool verbose = false;
  size_t max_items = 3;
};

// Returns the summary text: inputs, hosts / GPUs / islands, links and degraded ones, clock fits,
// DCGM sampling and findings, timeline, RDMA, patterns, paths, leaves, architecture, fabric and
// the confidence bound; each line ends in a newline. Never fails.
std::string ResultSummaryText(const analysis::AnalysisResult& r, const SummaryOptions& options = {});

}  // namespace toposcope::report
