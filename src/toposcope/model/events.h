// model/events: turns an event input (Chrome/Kineto trace, NCCL Inspector records, JSONL events,
// DCGM samples) into a stream of TraceEvents. The loader reads each event input once through
// StreamEvents to count its records, report its diagnostics (one number per file) and keep the
// few events that may be clock anchors (AnchorCandidateOf, for the anchors pass); the timeline
// merge reads it again through MakeEventSource, which reports nothing a second time. No other
// event is held in memory between the load and the merge.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/trace/trace_event.h"
#include "toposcope/model/dataset.h"

namespace toposcope::model {

// The anchor candidate of an event, or nullopt when it cannot be one. What counts as one
// collective across ranks (the key):
//   - Chrome/Kineto NCCL kernels (not SendRecv): collective + process group + `seq` from the
//     event's context; without a seq, the ordinal of that collective on that process group on that
//     rank (`family` and `who` set; the anchors pass numbers them in input order);
//   - NCCL Inspector collective records: op + communicator id + collective sequence number (not
//     when the record was stamped at dump time);
//   - any event whose context has `anchor=<id>` (documented in docs/event_jsonl.md).
// Events without a host or a time are none.
std::optional<AnchorCandidate> AnchorCandidateOf(formats::TraceEvent&& e);

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
