// formats/nccl/nccl_inspector: NCCL Inspector profiler-plugin output (ext-profiler/inspector,
// `<hostname>-pid<PID>.log`): per-collective / per-p2p performance records, read into typed
// InspectorRecords and TraceEvents for the global timeline, and written (JSON lines) by the
// simulator. Reads both the plugin's compact JSON lines and the README's pretty-printed
// multi-line objects (any stream of concatenated JSON objects), streaming value by value.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/trace/trace_event.h"

namespace toposcope::formats {

enum class InspectorKind { kCollPerf, kP2pPerf, kDumpStats, kProxyTrace };

struct InspectorHeader {
  bool present = false;
  std::string id;            // communicator hash as hex, "0x7f8c496ae9f661"
  std::string comm_name;     // newer versions; empty when absent
  int rank = -1;
  int n_ranks = -1;
  int nnodes = -1;
  friend bool operator==(const InspectorHeader&, const InspectorHeader&) = default;
};

struct InspectorMetadata {
  bool present = false;
  std::string version;        // inspector_output_format_version, "v4.0"
  std::string git_rev;
  std::string rec_mechanism;  // nccl_profiler_interface | profiler_plugin
  int64_t dump_timestamp_us = -1;
  std::string hostname;
  int64_t pid = -1;
  friend bool operator==(const InspectorMetadata&, const InspectorMetadata&) = default;
};

// Verbose records' per-channel kernel events (event_trace_sn / event_trace_ts).
struct InspectorKernelEvent {
  int channel_id = -1;
  int64_t start_sn = -1, stop_sn = -1, record_sn = -1;
  int64_t start_ts_us = -1, stop_ts_us = -1, record_ts_us = -1;
  friend bool operator==(const InspectorKernelEvent&, const InspectorKernelEvent&) = default;
};

// coll_perf (coll_*) or p2p_perf (p2p_*), the prefix dropped.
struct InspectorPerf {
  std::string op;                 // coll / p2p: "AllReduce", "Send", ...
  int64_t sn = -1;                // coll_sn / p2p_sn
  int peer = -1;                  // p2p_peer; -1 for collectives
  int64_t msg_size_bytes = -1;
  double exec_time_us = NAN;      // NaN when "nan" or absent
  std::string timing_source;      // kernel_gpu | kernel_cpu | collective_cpu; empty when absent
  double algobw_gbs = NAN;
  double busbw_gbs = NAN;
  bool has_event_trace = false;   // verbose record
  int64_t start_sn = -1, stop_sn = -1;        // event_trace_sn.coll_start_sn / coll_stop_sn
  int64_t start_ts_us = -1, stop_ts_us = -1;  // event_trace_ts.coll_start_ts / coll_stop_ts
  std::vector<InspectorKernelEvent> kernels;
  friend bool operator==(const InspectorPerf&, const InspectorPerf&) = default;
};

struct InspectorDumpStats {
  int64_t coll_records = -1, p2p_records = -1, proxy_records = -1;
  friend bool operator==(const InspectorDumpStats&, const InspectorDumpStats&) = default;
};

struct InspectorRecord {
  InspectorKind kind = InspectorKind::kCollPerf;
  InspectorHeader header;      // the record's own, or carried from the last dump_stats/header
  InspectorMetadata metadata;  // likewise
  bool inherited = false;      // header or metadata was carried forward (v4.1+ layout)
  bool header_inherited = false;    // the header was carried forward
  bool metadata_inherited = false;  // the metadata was carried forward
  InspectorPerf perf;          // kCollPerf / kP2pPerf
  InspectorDumpStats stats;    // kDumpStats
  std::string proxy_json;      // kProxyTrace: the proxy_trace object as compact JSON
  int64_t line = 0;            // 1-based line where the record starts
  friend bool operator==(const InspectorRecord&, const InspectorRecord&) = default;
};

using InspectorRecordSink = std::function<void(InspectorRecord&&)>;

// Converts a perf record to a timeline event (local_ts_ns: Unix-epoch ns on the host's clock).
// Time: a verbose record (event_trace_ts) with kernel events gives the GPU span, first
// kernel_start_ts .. last kernel_stop_ts; one with only coll_start_ts/coll_stop_ts gives that span;
// otherwise start = dump_timestamp_us - exec_time_us (the dump follows completion, so this is a
// late bound on the start; documented approximation) and dur = exec_time_us. host =
// metadata.hostname, rank = header.rank, device = "rank<r>" (the record names no local GPU),
// pid = metadata.pid, type = op ("AllReduce", "Send"), category = coll_perf / p2p_perf,
// context = "comm=<id>;seq=<sn>" (+ ";peer=<p>" for p2p, + ";timing=dump" when the time comes
// from the dump timestamp: such an event is no completion anchor), value = busbw_gbs (0 when NaN),
// phase 'X', line = the record's first line. Returns false (event untouched) for dump_stats /
// proxy records and when no time is known.
bool InspectorRecordToEvent(const InspectorRecord& record, std::string_view source, TraceEvent* event);

// Reads records one JSON value after another (JSON lines or pretty-printed), tracking lines. A
// record is one top-level value; bad JSON in a value rejects it (line) and reading resumes at the
// next line that starts with '{'. Values that are not objects, or objects with none of
// coll_perf/p2p_perf/dump_stats/proxy_trace, are rejected. Records without header/metadata take
// the last ones seen (inherited). Each accepted perf record goes to `records` (may be null) and,
// converted, to `events` (may be null). Fails only when nothing in the input is JSON at all.
Status ReadNcclInspector(LineReader& reader, std::string_view source, const InspectorRecordSink& records,
                         const TraceEventSink& events, Diagnostics& diag, ReadCounts& counts);
// The same over a file; fails also when it cannot be opened or read.
Status ReadNcclInspectorFile(const std::string& path, const InspectorRecordSink& records,
                             const TraceEventSink& events, Diagnostics& diag, ReadCounts& counts);
// Convenience over a text: all records (dump_stats included); fails as ReadNcclInspector.
Result<std::vector<InspectorRecord>> ParseNcclInspector(std::string_view text, std::string_view source,
                                                        Diagnostics& diag, ReadCounts& counts);

// Writes one record as the plugin does: compact JSON on one line (no trailing newline), keys in
// the plugin's order, doubles with 6 decimals (exec time as an integer when it is one), NaN as
// "nan". An inherited header/metadata is left out, as v4.1+ writes. Round-trips through the
// reader (doubles to 6 decimals).
std::string WriteNcclInspectorRecord(const InspectorRecord& record);
// All records, one per line.
std::string WriteNcclInspector(const std::vector<InspectorRecord>& records);

}  // namespace toposcope::formats
