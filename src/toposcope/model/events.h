// model/events: turns an event input (Chrome/Kineto trace, NCCL Inspector records, JSONL events)
// into a re-readable stream of TraceEvents for the timeline merge. The stream is read when called,
// so nothing is held in memory between the load and the merge.
#pragma once

#include <functional>
#include <memory>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/trace/trace_event.h"
#include "toposcope/model/dataset.h"

namespace toposcope::model {

// Counts of one event input, filled as it is read.
struct EventInputCounts {
  ReadCounts counts;
  int64_t events = 0;
};

// A callable that streams the input's events (host stamped from the input when the record has
// none). Diagnostics go to `diag`, counts to `*counts` (both must outlive the call).
std::function<Status(const formats::TraceEventSink&)> MakeEventSource(const EventInput& input, Diagnostics* diag,
                                                                        EventInputCounts* counts);

}  // namespace toposcope::model
