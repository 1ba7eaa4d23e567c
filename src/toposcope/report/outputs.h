// report/outputs: the files `toposcope analyze --out DIR` writes beside the timeline: result.json,
// topology.json, report.html (the self-contained HTML report, report/html), topology.conf and
// topology.yaml (Slurm, when leaves were inferred from probe RTTs) and opensm-hop-weights.txt (when
// tomography gave hop weights).
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/analysis/result.h"
#include "toposcope/base/result.h"
#include "toposcope/model/dataset.h"

namespace toposcope::report {

// Returns (file name, text) of every output of `r` (analysed from `ds`), in the order they are
// written: result.json, topology.json, report.html, then topology.conf and topology.yaml when leaves were
// inferred, then opensm-hop-weights.txt when there are hop weights. Never fails.
std::vector<std::pair<std::string, std::string>> AnalysisOutputFiles(const analysis::AnalysisResult& r,
                                                                     const model::Dataset& ds);

// Hands each output of AnalysisOutputFiles to `take`, one at a time, in that order, each file's
// text rendered only once the one before it is taken, so that a large cluster's outputs are never
// all in memory together. Stops at, and returns, the first error `take` returns.
Status ForEachAnalysisOutput(const analysis::AnalysisResult& r, const model::Dataset& ds,
                             const std::function<Status(const std::string& name, std::string&& text)>& take);

// Writes AnalysisOutputFiles(r, ds) into `dir` (created when missing), in order. Returns the first
// write error (the Error names the file); the files before it are written, those after it are not.
Status WriteAnalysisOutputs(const analysis::AnalysisResult& r, const model::Dataset& ds, const std::string& dir);

}  // namespace toposcope::report
