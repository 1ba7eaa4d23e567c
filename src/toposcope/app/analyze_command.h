// app/analyze_command: `toposcope analyze` (and `align`, `links`, `islands`, `identify`) as one
// library call: load the inputs, run the named passes, write the outputs a directory gets, and hand
// back the result. The CLI parses flags into an AnalyzeRequest and prints what comes back; the
// demo and, later, the server and the MPI driver call the same function.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "toposcope/analysis/analyze.h"
#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/app/prometheus_source.h"
#include "toposcope/base/result.h"
#include "toposcope/model/load_progress.h"

namespace toposcope::app {

// The analysis options `analyze` and the demo start from: the library's, with the link entropy
// window chosen from the captures' span (RdmaOptions: window_ns = 0) rather than fixed.
analysis::AnalyzeOptions AnalyzeDefaults();

struct AnalyzeRequest {
  std::vector<std::string> paths;   // files and directories to read (may be empty with from_dump)
  std::string host_override;        // attribute every input to this host
  int64_t untimed_at_ns = kNoTime;  // where samples without a time start (LoadOptions)
  std::string out;                  // output directory; empty: write nothing
  analysis::AnalyzeOptions options = AnalyzeDefaults();
  bool timeline = false;            // merge every event into out/timeline.json (needs `out`)
  bool merge_events = false;        // without `timeline`: merge the events and keep none (the
                                    // stragglers come from the merged timeline; `explain` sets it)
  std::set<analysis::PassId> only;  // produce only these passes (and what they need)
  std::string from_dump;            // load passes from this directory's passes/*.json
  PrometheusRequest prometheus;     // with a URL: DCGM series from a Prometheus server too
  bool dump_passes = false;         // write every pass's output to out/passes/<name>.json
  // Called when a pass starts and ends (progress on a terminal); may be empty.
  std::function<void(const analysis::PassInfo&, const analysis::PassStats*)> progress;
  model::LoadProgressFn load_progress;  // told after each input is read (files, bytes); may be empty
  // Told the output file being written and its bytes so far, after each piece; may be empty.
  std::function<void(const std::string& file, int64_t bytes)> output_progress;
  model::LoadPathsFn load_paths;        // reads the paths (empty: model::LoadPaths); dist/'s MPI load
  int threads = 0;                      // TBB threads for the whole run; 0 = every core
};

struct AnalyzeOutcome {
  analysis::AnalysisResult result;  // assembled from every pass produced
  analysis::PipelineRun run;        // what each pass cost
  std::vector<std::string> written; // files written, in order
  bool any_input_read = false;      // at least one input was read (not skipped)
  std::vector<formats::PathProbe> probes;  // the dataset's path probes (the hypothesis tree's
                                           // flapping test reads them), moved out after writing
};

// Runs the request. With `out`: result.json, topology.json and the exports the result calls for
// (report::WriteAnalysisOutputs), passes.json, timeline.json with `timeline`, and the pass dumps
// with `dump_passes`; with `only`, just the dumps of those passes and passes.json (a partial run
// writes no result.json). With a Prometheus URL the dataset is the paths' (none is fine) plus the
// server's DCGM series (app/prometheus_source). Fails with kUsage for an impossible request
// (timeline or only without out, a bad --prometheus / --range / --step... see the checks), kInput
// when the inputs, the dump or the Prometheus server cannot be read, kOutput when an output cannot
// be written.
Result<AnalyzeOutcome> RunAnalyze(const AnalyzeRequest& req);

}  // namespace toposcope::app
