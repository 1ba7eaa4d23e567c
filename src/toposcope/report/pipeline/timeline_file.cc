#include "toposcope/report/pipeline/timeline_file.h"

#include <filesystem>

namespace toposcope::report {

TimelineFile::TimelineFile(const std::string& dir)
    : dir_(dir),
      path_((std::filesystem::path(dir) / "timeline.json").string()),
      proto_path_((std::filesystem::path(dir) / "timeline.pftrace").string()) {}

Status TimelineFile::Open() {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec);
  out_.open(path_, std::ios::binary);
  if (!out_) return WithKind(MakeError(path_, 0, 0, "cannot write"), ErrorKind::kOutput);
  writer_ = std::make_unique<PerfettoTimelineWriter>(out_);
  proto_out_.open(proto_path_, std::ios::binary);
  if (!proto_out_) return WithKind(MakeError(proto_path_, 0, 0, "cannot write"), ErrorKind::kOutput);
  proto_ = std::make_unique<PerfettoProtoWriter>(proto_out_);
  return {};
}

void TimelineFile::Write(const analysis::MergedEvent& m) {
  writer_->Write(m);
  proto_->Write(m);
}

Status TimelineFile::Close() {
  if (!writer_) return {};
  const bool ok = writer_->Finish();
  writer_.reset();
  out_.close();
  if (!ok || !out_) return WithKind(MakeError(path_, 0, 0, "write failed"), ErrorKind::kOutput);
  const bool proto_ok = proto_->Finish();
  proto_.reset();
  proto_out_.close();
  if (!proto_ok || !proto_out_) return WithKind(MakeError(proto_path_, 0, 0, "write failed"), ErrorKind::kOutput);
  return {};
}

}  // namespace toposcope::report
