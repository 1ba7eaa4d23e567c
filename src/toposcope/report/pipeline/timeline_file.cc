#include "toposcope/report/pipeline/timeline_file.h"

#include <filesystem>

namespace toposcope::report {

TimelineFile::TimelineFile(const std::string& dir)
    : dir_(dir), path_((std::filesystem::path(dir) / "timeline.json").string()) {}

Status TimelineFile::Open() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  out_.open(path_, std::ios::binary);
  if (!out_) return WithKind(MakeError(path_, 0, 0, "cannot write"), ErrorKind::kOutput);
  writer_ = std::make_unique<PerfettoTimelineWriter>(out_);
  return {};
}

void TimelineFile::Write(const analysis::MergedEvent& m) { writer_->Write(m); }

Status TimelineFile::Close() {
  if (!writer_) return {};
  const bool ok = writer_->Finish();
  writer_.reset();
  out_.close();
  if (!ok || !out_) return WithKind(MakeError(path_, 0, 0, "write failed"), ErrorKind::kOutput);
  return {};
}

}  // namespace toposcope::report
