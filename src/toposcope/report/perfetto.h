// report/perfetto: writes the merged global timeline as a Chrome trace JSON that Perfetto (and
// chrome://tracing) open: one process per host, one thread (track) per GPU/device, every event at
// its corrected global time, with its local time and source kept in the args.
#pragma once

#include <map>
#include <ostream>
#include <string>

#include "toposcope/analysis/time/timeline.h"
#include "toposcope/formats/trace/chrome_trace.h"

namespace toposcope::report {

class PerfettoTimelineWriter {
 public:
  // Starts the trace document on `out`, which must outlive the writer.
  explicit PerfettoTimelineWriter(std::ostream& out);
  // Writes one merged event (tracks are named on first use). Never fails: a stream error shows in
  // Finish.
  void Write(const analysis::MergedEvent& m);
  // Closes the document. Returns false when the stream failed at any point, true otherwise.
  bool Finish();
  // Returns the number of events written so far.
  [[nodiscard]] int64_t events_written() const { return events_; }

 private:
  formats::ChromeTraceWriter writer_;
  std::map<std::string, int64_t> pids_;
  std::map<std::pair<int64_t, std::string>, int64_t> tids_;
  int64_t events_ = 0;
};

}  // namespace toposcope::report
