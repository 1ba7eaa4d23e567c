// report/pipeline/timeline_file: the timeline pass's sink that writes DIR/timeline.json, a
// Chrome/Perfetto trace with one process per host and one track per device, rank and stream, and the
// same timeline as a native Perfetto protobuf trace, DIR/timeline.pftrace (report/perfetto_proto).
#pragma once

#include <fstream>
#include <memory>
#include <string>

#include "toposcope/analysis/pipeline/pipeline.h"
#include "toposcope/report/perfetto.h"
#include "toposcope/report/perfetto_proto.h"

namespace toposcope::report {

class TimelineFile final : public analysis::TimelineSink {
 public:
  // The trace goes to `dir`/timeline.json; nothing is created before Open.
  explicit TimelineFile(const std::string& dir);
  // Creates the directory and the file. Fails (ErrorKind::kOutput) when it cannot.
  Status Open() override;
  void Write(const analysis::MergedEvent& m) override;
  // Closes the trace document. Fails (kOutput) when a write failed.
  Status Close() override;
  [[nodiscard]] std::string path() const override { return path_; }

 private:
  std::string dir_, path_, proto_path_;
  std::ofstream out_, proto_out_;
  std::unique_ptr<PerfettoTimelineWriter> writer_;
  std::unique_ptr<PerfettoProtoWriter> proto_;
};

}  // namespace toposcope::report
