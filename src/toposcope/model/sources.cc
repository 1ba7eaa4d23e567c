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
  auto sum = formats::ReadQpStateLog(lines, input.path, diag, sink);
  if (sum.ok()) {
    out.counts = sum->counts;
    RejectOversizedLines(lines, diag, out.counts);
  } else {
    out.error = sum.error().ToString();
  }
  return out;
}

}  // namespace toposcope::model
