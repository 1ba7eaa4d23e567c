// analysis/analyze: the whole analysis of a dataset as one call. Runs every named pass of
// pipeline/ (links, islands, confidence, clocks, anchors, telemetry, fabric, patterns, paths,
// leaves, link weights, rdma, traffic matrix, architecture, and the timeline when asked) and
// gathers their outputs into one AnalysisResult, the value report/ renders as result.json.
#pragma once

#include "toposcope/analysis/pipeline/options.h"
#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/analysis/pipeline/state.h"
#include "toposcope/analysis/result.h"
#include "toposcope/analysis/time/clock_fits.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

// Every pass except the timeline over a loaded dataset; never fails (problems with inputs are in
// the result's inputs and diagnostics).
AnalysisResult Analyze(const model::Dataset& ds, const AnalyzeOptions& opt);

// The result of the passes a pipeline run produced (slots left empty give empty sections). The
// state's dataset gives the inputs table and the loader's diagnostics; a state without one gives
// none. Each pass's own diagnostics follow, in pass order, then the loader's, then the timeline's.
AnalysisResult AssembleResult(const PipelineState& state, const AnalyzeOptions& opt);
// The same, moving the passes' outputs out of `state`: its slots are left empty (its dataset as it
// was), for a run that needs only the result and the dataset from then on.
AnalysisResult TakeResult(PipelineState* state, const AnalyzeOptions& opt);

}  // namespace toposcope::analysis
