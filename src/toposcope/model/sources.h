// model/sources: the record sources of the inputs that are streamed, not held: packet captures and
// QP state logs (events have theirs in model/events.h). The loader only lists these files; a pass
// that needs their records asks a source here, which opens the file, runs the format's reader and
// hands each record to the pass. So analysis/ never opens a file or calls a reader, and memory
// grows with what a pass keeps, not with the bytes read.
#pragma once

#include <functional>
#include <string>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/rdma/pcap_capture.h"
#include "toposcope/formats/rdma/qp_state_log.h"
#include "toposcope/model/dataset.h"

namespace toposcope::model {

using PacketSink = std::function<void(const formats::RocePacket&)>;

// Streams the RoCE packets of one capture to `sink`, in file order, each stamped with the
// capture's index (RocePacket::capture_index). With `check_icrc` every packet's ICRC is recomputed
// (a mismatch is a warning). Returns the capture's summary and counts; fails, naming the file at
// byte 0, when it cannot be opened or is not a pcap/pcapng file. Bad records are diagnostics.
Result<formats::CaptureSummary> StreamCapture(const CaptureInput& capture, bool check_icrc, const PacketSink& sink,
                                              Diagnostics& diag);

// What streaming one input gave: its record counts, or why it could not be read at all.
struct StreamedInput {
  std::string path;
  ReadCounts counts;
  std::string error;  // empty when the input was read
};

// Streams the records of one QP state log (CSV or JSONL) to `sink`, in input order. Never fails:
// a file refused before any record was handed on comes back with `error` set (its rejected lines
// counted); one that fails after records were handed on is read, its error one more rejected
// record (a diagnostic); bad lines are diagnostics. accepted + rejected = read always.
StreamedInput StreamQpStateLog(const EventInput& input, const formats::QpStateSink& sink, Diagnostics& diag);

}  // namespace toposcope::model
