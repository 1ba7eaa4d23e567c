// formats/trace/event_jsonl: toposcope's own JSONL event format (docs/event_jsonl.md): one JSON object
// per line, `{"ts_ns":<int>,"host":"...","device":"gpu3","type":"...","context":"...",
// "dur_ns":<int>,"rank":<int>}` on the host's local clock. The simplest way for an operator to
// feed arbitrary events (their own logs, scripts) into the global timeline; read and written.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/trace/trace_event.h"

namespace toposcope::formats {

// Reads line by line. Blank lines and lines starting with '#' are skipped (not records). A line
// that is not a JSON object, lacks ts_ns/host/type, has a ts_ns/dur_ns/rank that is not an
// integer in range (dur_ns >= 0, rank >= -1), or a non-string host/device/type/context/category,
// is rejected with its line. Unknown keys are ignored. Optional: device (default ""), context
// (""), category (""), dur_ns (0), rank (-1), pid/tid (0), value (0, a number). phase = 'X' when
// dur_ns > 0, else 'i'. Duplicate and out-of-order lines are kept as they come.
// Never fails (returns an Error only for an I/O failure of the reader).
Status ReadEventJsonl(LineReader& reader, std::string_view source, const TraceEventSink& sink,
                      Diagnostics& diag, ReadCounts& counts);
// The same over a file; fails also when it cannot be opened.
Status ReadEventJsonlFile(const std::string& path, const TraceEventSink& sink, Diagnostics& diag,
                          ReadCounts& counts);
// Convenience over a text: the events accepted (never fails).
std::vector<TraceEvent> ParseEventJsonl(std::string_view text, std::string_view source, Diagnostics& diag,
                                        ReadCounts& counts);

// One event as one line (no newline): ts_ns, host, device, type, context always; category,
// dur_ns, rank, pid, tid, value only when set (non-empty / > 0 / >= 0 / != 0). Round-trips the fields it writes
// (source_file, line come back as the reader's own; phase as above).
std::string WriteEventJsonlLine(const TraceEvent& event);
// All events, one line each, '\n'-terminated.
std::string WriteEventJsonl(const std::vector<TraceEvent>& events);

}  // namespace toposcope::formats
