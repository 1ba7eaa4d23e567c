// analysis/time/timeline: maps every event of every source onto the global axis with its host's clock
// model and k-way merges them by corrected time (seed §2.2), keeping the device of origin.
// Memory stays bounded whatever the inputs' size: events are gathered into sorted runs of at most
// `run_events`, spilled to temporary files, and merged with a heap. Nothing is dropped: counts in
// equal counts out. Ties break by (source index, order within the source), so the output is
// deterministic.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "toposcope/analysis/time/timesync.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/trace/trace_event.h"

namespace toposcope::analysis {
struct TimelineSource {
  std::string path, host, format;
  int64_t events = 0, records = 0, rejected = 0;
};

// The merged global timeline (present when `align` ran).
struct TimelineReport {
  bool present = false;
  std::string trace_path;
  int64_t events_in = 0, events_out = 0, without_clock = 0;
  std::vector<TimelineSource> sources;
};

// Streams the events of one input into the sink; returns an Error only when the input cannot be
// read at all.
using EventSource = std::function<Status(const formats::TraceEventSink& sink)>;

struct MergedEvent {
  int64_t global_ns = 0;
  int source = 0;         // index of the source it came from
  formats::TraceEvent event;
};

struct MergeStats {
  int64_t events_in = 0;
  int64_t events_out = 0;
  int64_t without_clock = 0;  // events of hosts with no clock model: mapped with offset 0
  int64_t runs = 0;
};

struct MergeOptions {
  size_t run_events = 1 << 18;  // events held in memory before a run is spilled
};

// Merges the events of every source, mapped to global time, into `out` in (global time, source,
// order) order; `clocks` maps a host to the model that maps its local time (hosts absent: offset 0,
// counted). Counts go to *stats (may be null). Fails when a source fails (its error), when a
// temporary run file cannot be created or written, or when a run file loses events.
Status MergeTimeline(const std::vector<EventSource>& sources, const std::map<std::string, const ClockModel*>& clocks,
                     const std::function<void(const MergedEvent&)>& out, MergeStats* stats,
                     const MergeOptions& opt = {});

}  // namespace toposcope::analysis
