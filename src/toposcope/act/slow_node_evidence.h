// act/slow_node_evidence: what the slow-node search reads. One run's result: the nccl-tests
// all_reduce_perf output of a planned run, read by formats/nccl/nccl_tests, checked against the
// plan (its hosts, its test) and reduced to the bus bandwidth at the largest size. The priors:
// passive evidence in an analysis result that names hosts (slow host sets of earlier nccl-tests
// runs, stragglers, thermal findings, degraded links) raises those hosts' prior of being slow.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toposcope/act/slow_node_search.h"
#include "toposcope/analysis/result.h"
#include "toposcope/base/result.h"

namespace toposcope::act {

// The observation of `run` from its nccl-tests output `text` read from `source`. Fails (kInput,
// naming `source` and the line) when the output cannot be read, holds a garbled line (the first
// rejected line is named), holds no table row (a failed or cut run), is another test than
// all_reduce_perf, or ran on other hosts than the plan's.
Result<RunObservation> ReadRunObservation(std::string_view text, const std::string& source, const PlannedRun& run);

// The priors the analysis result gives `hosts`: per host, 1 - prod(1 - w) over the findings naming
// it, where a finding's weight w is its confidence when it has one, else 1/2, shared among the hosts
// it names. Hosts without evidence are left out (the search gives them 1/N). Never fails.
std::vector<SlowNodePrior> PriorsFromAnalysis(const analysis::AnalysisResult& result,
                                              const std::vector<std::string>& hosts);

}  // namespace toposcope::act
