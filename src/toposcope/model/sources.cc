#include "toposcope/model/sources.h"

#include <utility>

#include "toposcope/base/file_io.h"

namespace toposcope::model {

Result<formats::CaptureSummary> StreamCapture(const CaptureInput& capture, bool check_icrc, const PacketSink& sink,
                                              Diagnostics& diag) {
  formats::CaptureOptions co;
  co.check_icrc = check_icrc;
  co.capture_index = capture.index;
  return formats::ReadCapture(capture.path, sink, diag, co);
}

StreamedInput StreamQpStateLog(const EventInput& input, const formats::QpStateSink& sink, Diagnostics& diag) {
  StreamedInput out;
  out.path = input.path;
  auto stream = OpenInput(input.path);
  if (!stream.ok()) {
    out.error = stream.error().ToString();
    return out;
  }
  LineReader lines(std::move(*stream));
  const int64_t rejected_before = diag.RejectedFor(input.path);
  int64_t handed_on = 0;
  auto sum = formats::ReadQpStateLog(
      lines, input.path, diag, [&](const formats::QpStateRecord& r) {
        ++handed_on;
        if (sink) sink(r);
      });
  if (sum.ok()) {
    out.counts = sum->counts;
    RejectOversizedLines(lines, diag, out.counts);
    return out;
  }
  // The records counted before the failure stay counted: the rejected lines are in `diag`, and
  // records already handed on make the file read, its error one more rejected record.
  ReadCounts oversized;  // its rejections land in `diag`, counted just below
  RejectOversizedLines(lines, diag, oversized);
  out.counts.accepted = handed_on;
  out.counts.rejected = diag.RejectedFor(input.path) - rejected_before;
  if (handed_on > 0) {
    const Error& e = sum.error();
    diag.Reject(input.path, e.line, "", "input ends in a read error after " + std::to_string(handed_on) +
                                            " records: " + e.message);
    ++out.counts.rejected;
  } else {
    out.error = sum.error().ToString();
  }
  out.counts.read = out.counts.accepted + out.counts.rejected;
  return out;
}

}  // namespace toposcope::model
