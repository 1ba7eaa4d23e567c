// report/perfetto: writes the merged global timeline as a Chrome trace JSON that Perfetto (and
// chrome://tracing) open, every event at its corrected global time:
//  - one process per host; one track (thread) per device, rank and stream of that host, so ranks
//    sharing a host and streams sharing a GPU never overlap on one track, and slices of one track
//    that overlap without nesting on extra lanes (SliceLanes);
//  - counters named per device ("gpu3 DCGM_FI_DEV_GPU_TEMP"), so each GPU has its own counter track;
//  - flow and async ids made unique across hosts (a hash of host and id, below 2^53);
//  - timestamps relative to an origin (the first event's second, "baseTimeNanoseconds" in the
//    header), so microseconds with a fraction stay exact in a JavaScript double.
// The local time and source of each event are kept in the args.
#pragma once

#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "toposcope/analysis/time/timeline.h"
#include "toposcope/formats/trace/chrome_trace.h"

namespace toposcope::report {

// The track an event of `e` goes on within its host: device, rank and stream (for GPU events the
// Chrome tid of the source is the stream). Never fails.
std::string TimelineTrackName(const formats::TraceEvent& e);
// The value of the "id=" key of a context ("key=value;..."), "" when it has none. Never fails.
std::string ContextId(const std::string& context);
// A flow or async id made unique across hosts: a hash of (host, id) below 2^53. Never fails.
uint64_t HostScopedId(const std::string& host, const std::string& id);
// `context` with its "id=" value replaced by HostScopedId (unchanged when it has no id). Never fails.
std::string HostScopedIds(const std::string& context, const std::string& host);

// Lanes of one track for slices that overlap without nesting (several collectives of one rank in
// flight at once): a slice goes on the first lane where it starts after the open slices end or nests
// inside the innermost one; lane k > 0 is shown as "<track> (k+1)". Slices must come in start order.
class SliceLanes {
 public:
  // The lane of a slice [start_ns, end_ns] on `track`. Never fails.
  int Lane(const std::string& track, int64_t start_ns, int64_t end_ns);
  // The track name of `lane`.
  static std::string LaneName(const std::string& track, int lane);

 private:
  std::map<std::string, std::vector<std::vector<int64_t>>> open_;  // per track, per lane: open ends
};

class PerfettoTimelineWriter {
 public:
  // Writes the trace document to `out`, which must outlive the writer (the header is written with
  // the first event, whose second becomes the origin).
  explicit PerfettoTimelineWriter(std::ostream& out);
  ~PerfettoTimelineWriter();
  // Writes one merged event (tracks are named on first use). Never fails: a stream error shows in
  // Finish.
  void Write(const analysis::MergedEvent& m);
  // Closes the document. Returns false when the stream failed at any point, true otherwise.
  bool Finish();
  // Returns the number of events written so far.
  [[nodiscard]] int64_t events_written() const { return events_; }
  // The origin: global ns of the first event's whole second (0 before the first event).
  [[nodiscard]] int64_t origin_ns() const { return origin_ns_; }

 private:
  void Start(int64_t first_ns);
  std::ostream& out_;
  std::unique_ptr<formats::ChromeTraceWriter> writer_;
  std::map<std::string, int64_t> pids_;
  std::map<std::pair<int64_t, std::string>, int64_t> tids_;
  SliceLanes lanes_;
  int64_t events_ = 0;
  int64_t origin_ns_ = 0;
};

}  // namespace toposcope::report
