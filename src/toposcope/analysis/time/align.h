// analysis/time/align: the whole global-timeline pass over a dataset: every event input (traces,
// Inspector records, JSONL events, DCGM samples) mapped with its host's best clock model, k-way
// merged, handed to a sink (e.g. the Perfetto writer) and watched for stragglers on the way.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "toposcope/analysis/time/telemetry.h"
#include "toposcope/analysis/time/timeline.h"
#include "toposcope/analysis/time/timesync.h"
#include "toposcope/model/dataset.h"

namespace toposcope::analysis {

struct AlignOutput {
  TimelineReport timeline;                  // counts per source; trace_path left empty
  std::vector<TelemetryFinding> stragglers;
  int64_t rejected = 0, warnings = 0;       // records the event readers rejected / warned about
  std::vector<std::string> diagnostics;
};

// Maps, merges and hands every event of the dataset's inputs to `sink` and returns the timeline
// counts, the stragglers found and the readers' diagnostics. Fails only when an input cannot be
// read at all or a merge run cannot be written.
Result<AlignOutput> AlignDataset(const model::Dataset& ds, const std::vector<HostClockFit>& clocks,
                                 const std::function<void(const MergedEvent&)>& sink);

}  // namespace toposcope::analysis
