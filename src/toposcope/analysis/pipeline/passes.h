// analysis/pipeline/passes: the body of each named pass: which analysis it calls, on which
// inputs, and how its result lands in the pipeline state. The order and the dependencies are in
// Passes() (pipeline.cc); nothing here times, dumps or loads.
#pragma once

#include <cstdint>

#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/analysis/pipeline/state.h"
#include "toposcope/base/result.h"

namespace toposcope::analysis {

// Records a pass read and produced (PassStats::records_in / records_out).
struct PassCounts {
  int64_t records_in = 0;
  int64_t records_out = 0;
};

// Runs one pass on `state`, whose dataset and needed slots are filled, and fills the pass's slot.
// Fails only for the load pass (a path that does not exist) and the timeline (a merge that cannot
// be written); every other problem is part of the pass's output.
Result<PassCounts> RunPass(PassId id, const PipelineOptions& opt, PipelineState* state);

// True when the pass's slot in `state` is filled.
bool HasOutput(const PipelineState& state, PassId id);

}  // namespace toposcope::analysis
