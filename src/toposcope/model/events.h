// model/events: turns an event input (Chrome/Kineto trace, NCCL Inspector records, JSONL events,
// DCGM samples) into a stream of TraceEvents. The loader reads each event input once through
// StreamEvents to count its records and report its diagnostics (one number per file); the passes
// that need the events (anchors, the timeline merge) read it again through MakeEventSource, which
// reports nothing a second time. Nothing is held in memory between the load and the merge.
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

// Streams the input's events to `sink` (host stamped from the input when the record has none),
// diagnostics to `diag`, counts to `*counts`. Fails when the input cannot be opened, is not of its
// format, or ends in a read error (the events before it have been handed to `sink` and counted).
Status StreamEvents(const EventInput& input, const formats::TraceEventSink& sink, Diagnostics& diag,
                    EventInputCounts* counts);

// A callable that streams the input's events again for a pass, after the loader has counted and
// reported them: the reader's diagnostics are not reported a second time (`diag` receives none) and
// a read error ends the stream without failing it (the loader reported it; the events before it
// are streamed, as the loader counted them). Counts go to `*counts` (must outlive the call).
std::function<Status(const formats::TraceEventSink&)> MakeEventSource(const EventInput& input, Diagnostics* diag,
                                                                        EventInputCounts* counts);

}  // namespace toposcope::model
