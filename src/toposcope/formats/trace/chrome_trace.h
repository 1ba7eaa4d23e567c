// formats/trace/chrome_trace: the Chrome trace event format (JSON) as the PyTorch profiler / Kineto,
// HTA samples and the NCCL example profiler plugin write it, and as toposcope writes per-rank
// simulated traces and the aligner's merged timeline (opens in Perfetto / chrome://tracing).
//
// Reading streams (nlohmann::json SAX over our InputStream, .gz/.zst transparent): memory stays
// bounded by the largest single event, never the document. Top-level metadata
// (baseTimeNanoseconds, distributedInfo, deviceProperties, ...) may follow traceEvents; the
// file/text readers then make two passes (pass 1: metadata and `M` events; pass 2: events, which
// skips the bytes of the top-level values pass 1 read, without lexing them again). A top-level
// distributedInfo / deviceProperties value is read up to 100,000 values (a warning says when more
// were dropped), except pg_config[*].ranks lists, which are read whole into a compact RankList.
// Both the object form `{"traceEvents":[...]}` and the bare array form `[...]` are read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/trace/trace_event.h"

namespace toposcope::formats {

// A run of consecutive ascending ranks: first, first + 1, ..., last (first <= last).
struct RankRun {
  int first = 0;
  int last = 0;
  friend bool operator==(const RankRun&, const RankRun&) = default;
};

// A list of ranks in its listed order, duplicates and all, held as maximal runs of consecutive
// ascending ranks: the 0..N-1 list every rank of a job writes costs one run whatever N, any other
// list at most one run per rank. Two lists are equal exactly when they list the same ranks in the
// same order (the runs of a list are unique).
class RankList {
 public:
  RankList() = default;
  RankList(std::initializer_list<int> ranks);
  // Appends one rank (extending the last run when it is that run's successor).
  void Append(int rank);
  // Appends first, first + 1, ..., last; nothing when last < first.
  void AppendRun(int first, int last);
  [[nodiscard]] size_t size() const { return size_; }  // ranks listed
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] const std::vector<RankRun>& runs() const { return runs_; }
  // The ranks one by one (size() ints: for tests and small lists).
  [[nodiscard]] std::vector<int> ToVector() const;
  friend bool operator==(const RankList&, const RankList&) = default;

 private:
  std::vector<RankRun> runs_;
  size_t size_ = 0;
};

struct ProcessGroupConfig {
  std::string pg_name;
  std::string pg_desc;
  std::string backend_config;
  int pg_size = -1;
  RankList ranks;     // never cut, whatever its length (not counted against the metadata cap)
  friend bool operator==(const ProcessGroupConfig&, const ProcessGroupConfig&) = default;
};

struct DistributedInfo {
  bool present = false;
  std::string backend;       // nccl, gloo, "mtia:hccl,cpu:gloo", ...
  int rank = -1;
  int world_size = -1;
  int pg_count = -1;
  std::vector<ProcessGroupConfig> pg_config;
  std::string nccl_version;  // "2.17.1"; empty when absent
  friend bool operator==(const DistributedInfo&, const DistributedInfo&) = default;
};

struct DeviceProperties {
  int id = -1;
  std::string name;          // "NVIDIA A100-PG509-200"
  int64_t total_global_mem_bytes = -1;
  int compute_major = -1;
  int compute_minor = -1;
  int num_sms = -1;
  friend bool operator==(const DeviceProperties&, const DeviceProperties&) = default;
};

// What the trace says about itself (everything but the events).
struct ChromeTraceInfo {
  bool has_base_time = false;     // baseTimeNanoseconds present: local_ts_ns is Unix-epoch ns
  int64_t base_time_ns = 0;
  bool relative_axis = true;      // true when local_ts_ns is ts*1000 with no known epoch. Traces
                                  // whose ts are already Unix-epoch us (older Kineto, > 1e15)
                                  // are flagged false too.
  int64_t schema_version = -1;
  std::string display_time_unit;  // "ms", "ns"; empty when absent
  std::string trace_name;
  DistributedInfo distributed;
  std::vector<DeviceProperties> devices;
  std::map<int64_t, std::string> process_names;   // pid -> process_name
  std::map<int64_t, std::string> process_labels;  // pid -> process_labels ("CPU", "GPU 0")
  std::map<std::pair<int64_t, int64_t>, std::string> thread_names;  // (pid, tid) -> thread_name
  bool array_form = false;        // the document was a bare array of events
  bool truncated = false;         // the JSON broke off (or went bad) before its end
  int64_t error_byte_offset = -1; // where it broke, when truncated
  int64_t events_emitted = 0;
};

struct ChromeTraceOptions {
  std::string host;               // host to stamp on every event (Kineto traces do not carry it);
                                  // an event's own args.host wins when this is empty
  int rank_override = -1;         // >= 0: rank of every event, else args.rank / distributedInfo.rank
  bool include_metadata_events = false;  // also emit ph M events (type = process_name, ...,
                                          // context = the name/label/sort index)
  bool lenient_hex = true;        // quote bare 0x... values and fix curly quotes (NCCL example
                                  // profiler before 1e0c869c) instead of stopping there
};

// Device naming: args.device_name (ours) > args.device (int: "gpu<N>") > the pid's process_labels
// "GPU N" > "cpu". Context: args.toposcope_context verbatim when present, else composed in this
// order from: id (the event's top-level async/flow id), corr (args.correlation), coll ("Collective
// name"), pg ("Process Group Name"), seq ("Seq", else NCCL profiler "SeqNum"), comm ("CommHash");
// values with ';'/'=' get '_'. Host: options.host > args.host > "". Rank: options.rank_override >
// args.rank > distributedInfo.rank. Time: local_ts_ns = base_time_ns + round(ts*1000), ts read
// from its decimal text exactly (no double rounding). Counters (ph C): one event per series,
// context = series key, value = its number. Events with missing/non-numeric ts, unknown ph, or
// a non-object shape are rejected (byte offset). A break in the JSON ends the read: what came
// before is kept and ONE diagnostic names the byte offset (info.truncated).
//
// Reads a file (or "-"), reopening it for the second pass when metadata follows the events.
// Fails when the file cannot be opened or is not a Chrome trace (first value neither an object
// nor an array).
Result<ChromeTraceInfo> ReadChromeTraceFile(const std::string& path, const ChromeTraceOptions& options,
                                            const TraceEventSink& sink, Diagnostics& diag,
                                            ReadCounts& counts);
// Same, over an opener that yields a fresh stream each time it is called (it is called once or
// twice); `source` names the input in diagnostics. Fails as ReadChromeTraceFile (or with the
// opener's error).
Result<ChromeTraceInfo> ReadChromeTrace(const std::function<Result<std::unique_ptr<InputStream>>()>& open,
                                        std::string_view source, const ChromeTraceOptions& options,
                                        const TraceEventSink& sink, Diagnostics& diag,
                                        ReadCounts& counts);
// One pass over a non-rewindable stream: metadata after traceEvents is reported in the returned
// info but not applied to events already emitted (a warning says so). Fails when the stream is not
// a Chrome trace (first value neither an object nor an array) or cannot be read.
Result<ChromeTraceInfo> ReadChromeTraceOnePass(InputStream& in, std::string_view source,
                                               const ChromeTraceOptions& options,
                                               const TraceEventSink& sink, Diagnostics& diag,
                                               ReadCounts& counts);
// Convenience over an in-memory text (tests); same semantics (and failures) as the file reader.
Result<ChromeTraceInfo> ParseChromeTrace(std::string_view text, std::string_view source,
                                         const ChromeTraceOptions& options, const TraceEventSink& sink,
                                         Diagnostics& diag, ReadCounts& counts);
// Convenience: collects the events into a vector; fails as ParseChromeTrace.
Result<std::vector<TraceEvent>> ParseChromeTraceEvents(std::string_view text, std::string_view source,
                                                       const ChromeTraceOptions& options,
                                                       Diagnostics& diag, ReadCounts& counts,
                                                       ChromeTraceInfo* info = nullptr);

// An std::streambuf over an InputStream (used by the reader; exposed for other JSON readers).
std::unique_ptr<std::streambuf> MakeInputStreamBuf(InputStream& in);
// An InputStream over a string_view the caller keeps alive.
std::unique_ptr<InputStream> MakeStringInputStream(std::string_view text, std::string source);

// Streaming writer. Writes `{"displayTimeUnit":"ns",` then the optional header metadata, then
// `"traceEvents":[` and each event as it is given, then `]}` on Finish (or destruction). ts/dur
// are written in microseconds with exactly 3 fractional digits (ns precision), relative to
// base_time_ns when SetBaseTime was called (and baseTimeNanoseconds is written), else absolute.
// Round trip: the reader gives back every field the writer was given (host, rank, device,
// context, pid, tid, phase, type, category, ts, dur), except source_file/line/byte_offset; for
// M and C events only type, category, phase, ts, dur, pid, tid, context (and C's value) travel
// (their args are the metadata / the counter series). value travels only on C events.
class ChromeTraceWriter {
 public:
  explicit ChromeTraceWriter(std::ostream& out);
  ~ChromeTraceWriter();
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  // Header metadata: call before the first event (ignored after).
  void SetBaseTime(int64_t base_time_ns);
  void SetDistributedInfo(const DistributedInfo& info);
  void SetDeviceProperties(const std::vector<DeviceProperties>& devices);
  void SetSchemaVersion(int64_t version);
  void SetTraceName(const std::string& name);

  // Metadata events (Perfetto uses them to name and order tracks).
  void WriteProcessName(int64_t pid, const std::string& name);
  void WriteProcessLabels(int64_t pid, const std::string& labels);
  void WriteProcessSortIndex(int64_t pid, int64_t sort_index);
  void WriteThreadName(int64_t pid, int64_t tid, const std::string& name);
  void WriteThreadSortIndex(int64_t pid, int64_t tid, int64_t sort_index);

  // One event, by its phase: X (ts, dur), i/I (instant, "s":"t"), B/E, b/e/n and s/t/f (with
  // "id" from the context's id= key), C (counter: {context: value}), M (args.name = context).
  // Extra args carry host, rank, device ("device": N for gpuN, else "device_name") and the context
  // (decomposed into Kineto arg names when canonical, else "toposcope_context").
  void Write(const TraceEvent& event);

  // Closes the array and the object. Returns false when the stream went bad.
  bool Finish();
  [[nodiscard]] int64_t events_written() const { return events_written_; }

 private:
  void BeginEvents();
  void Sep();
  std::ostream& out_;
  bool has_base_ = false;
  int64_t base_ns_ = 0;
  int dist_rank_ = -1;      // distributedInfo.rank written in the header (-1: none)
  std::string header_;      // extra top-level members, written before traceEvents
  bool started_ = false;
  bool finished_ = false;
  bool first_event_ = true;
  int64_t events_written_ = 0;
};

// Writes a whole trace to a string (tests, small traces).
std::string WriteChromeTrace(const std::vector<TraceEvent>& events, const ChromeTraceInfo* meta = nullptr);

// Appends `s` as a JSON string literal (quotes, escapes; invalid UTF-8 bytes become U+FFFD).
void AppendJsonString(std::string* out, std::string_view s);

// Formats ns as microseconds with 3 decimals ("12.345", "-0.001"), exactly.
std::string FormatUsFromNs(int64_t ns);

}  // namespace toposcope::formats
