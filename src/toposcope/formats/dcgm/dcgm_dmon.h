// formats/dcgm/dcgm_dmon: `dcgmi dmon` text, read as a stream and written for the simulator.
//
// Layout (DCGM dcgmi/DeviceMonitor.cpp; see FORMAT_NOTES "dcgmi dmon"):
//   #Entity   NVLTX                       NVLRX          <- short names, left-aligned columns
//   ID                                                   <- units (often all empty)
//   GPU 7     30570603980                 30638829242    <- one row per entity per iteration
// The entity column is 10 wide up to DCGM 3.x, 11 in 4.0-4.4, 16 in 4.5+; rows are read by
// whitespace on the entity label grammar, not by columns (columns are a fallback for text values
// with spaces). Labels: `GPU n`, `GPU-I n`, `GPU-CI n`, `Switch n`, `CPU n`, `CPU Core n`, `CX n`,
// and (4.6) link rows `GPU n LINK m`, `SW n LINK m`. Values: integers, doubles (`%.3f`), `N/A`,
// or text (cut with `...`). The header repeats every ~14 iterations; `dmon was stopped due to
// receiving a signal` ends the stream.
//
// Timestamps: plain dmon prints none. An iteration is one block of rows; a row whose entity was
// already seen in the current block starts the next one; ts = start_ts_ns + iteration * delay_ms.
// Lines may instead carry a prefix as moreutils `ts` writes it, which then wins:
//   `Nov 29 17:00:01` (default `%b %d %H:%M:%S`, optional `.ffffff`; year from the options),
//   `00:00:01[.ffffff]` (`ts -s` since start, or `ts -i` since the previous line),
//   `1700000000.123456` (`%.s` epoch), `2024-05-01T12:00:00.123Z` (ISO-8601 / RFC 3339).
// Prefix times are read as UTC on the host's own clock (LocalNs semantics).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/base/time.h"

namespace toposcope::formats {

enum class DmonEntityKind {
  kGpu,         // GPU n
  kGpuI,        // GPU-I n (MIG GPU instance)
  kGpuCi,       // GPU-CI n (MIG compute instance)
  kSwitch,      // Switch n (NVSwitch)
  kCpu,         // CPU n
  kCpuCore,     // CPU Core n
  kCx,          // CX n (ConnectX NIC)
  kGpuLink,     // GPU n LINK m (DCGM 4.6)
  kSwitchLink,  // SW n LINK m (DCGM 4.6)
};

struct DmonEntity {
  DmonEntityKind kind = DmonEntityKind::kGpu;
  int id = 0;     // entity id (GPU index, switch id, ...)
  int link = -1;  // link index for kGpuLink / kSwitchLink, else -1
  friend bool operator==(const DmonEntity&, const DmonEntity&) = default;
};

// The label as dcgmi prints it: "GPU 0", "CPU Core 3", "GPU 0 LINK 3", "SW 1 LINK 7".
std::string DmonEntityLabel(const DmonEntity& e);
// Parses a whole label (words separated by single or multiple spaces); false when it is not one.
bool ParseDmonEntityLabel(std::string_view label, DmonEntity* out);

// One column of the header.
struct DmonField {
  std::string short_name;  // "NVLTX"
  std::string unit;        // from the `ID` line; usually empty
  int field_id = -1;       // resolved through the catalog (FindFieldByName), -1 when unknown
  int width = 0;           // column width as printed (from header positions); 0 when unknown
  friend bool operator==(const DmonField&, const DmonField&) = default;
};

struct DmonHeader {
  int entity_width = 0;            // width of the `#Entity` column as printed (10, 11, 16)
  std::vector<DmonField> fields;
  int64_t line = 0;                // line of the first `#Entity` header
};

// How lines are prefixed with a time (as moreutils `ts` writes them).
enum class DmonTimestampStyle {
  kNone,         // no prefix; ts = start + iteration * delay
  kTs,           // `Nov 29 17:00:01[.ffffff]`
  kTsRelative,   // `00:00:01[.ffffff]` (ts -s, or ts -i with DmonOptions::relative_incremental)
  kEpoch,        // `1700000000.123456`
  kIso,          // `2024-05-01T12:00:00.123456789Z`
};

struct DmonOptions {
  int64_t start_ts_ns = kNoTime;  // time of iteration 0 (and base of relative prefixes)
  int64_t delay_ms = 1000;        // dmon -d; spacing of iterations when lines have no prefix
  std::string host;               // copied into every row
  int year = 0;                   // year for `%b %d` prefixes; 0 = year of start_ts_ns, else 1970
  bool relative_incremental = false;  // relative prefixes are `ts -i` (since previous line)
};

struct DmonRow {
  int64_t ts_ns = kNoTime;        // kNoTime when there is no prefix and no start_ts_ns
  std::string host;
  DmonEntity entity;
  std::vector<double> values;     // aligned with the header's fields; NaN for N/A and for text
  std::vector<std::string> text;  // empty when every value is numeric or N/A; otherwise aligned
                                  // with values, the text where a value is not a number ("" else)
  int64_t iteration = 0;          // 0-based block index
  int64_t line = 0;               // 1-based input line
};

// What a whole read saw.
struct DmonSummary {
  DmonHeader header;
  int64_t iterations = 0;            // number of blocks seen (0 when no rows)
  int64_t rows = 0;                  // rows accepted
  int64_t headers_seen = 0;          // `#Entity` lines (first + repeats)
  bool stopped_by_signal = false;    // the stop message was seen
  DmonTimestampStyle timestamp_style = DmonTimestampStyle::kNone;  // of the first data line
};

using DmonRowSink = std::function<void(const DmonRow&)>;
using DmonHeaderSink = std::function<void(const DmonHeader&)>;

// Incremental reader: feed it lines in order; rows go to `sink` (the DmonRow passed is reused
// between calls: copy what you keep). Each data row is one record in `counts`; a repeated header
// that differs from the first, lines after the stop message and garbage lines are rejected records
// too. Rows with a wrong number of values, an unknown entity label, a non-number in a numeric field
// (by the catalog type), an int64 field out of range, or a duplicate (same ts and entity) are
// rejected; out-of-order prefix times are kept with a warning.
class DmonParser {
 public:
  DmonParser(std::string_view source, DmonOptions options, Diagnostics& diag, ReadCounts& counts,
             DmonRowSink sink, DmonHeaderSink on_header = {});
  ~DmonParser();
  DmonParser(const DmonParser&) = delete;
  DmonParser& operator=(const DmonParser&) = delete;

  // One line without its newline ('\r' at the end is dropped); `line_no` is 1-based.
  void Feed(std::string_view line, int64_t line_no);
  // Ends the input. Fails when no `#Entity` header was seen (not dmon output at all).
  Result<DmonSummary> Finish();
  // The first header, or nullptr before it has been read.
  [[nodiscard]] const DmonHeader* header() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Streams a file's lines through DmonParser. Fails on no header or on an I/O error.
Result<DmonSummary> ReadDmon(LineReader& lines, std::string_view source, const DmonOptions& options,
                             Diagnostics& diag, ReadCounts& counts, const DmonRowSink& sink,
                             const DmonHeaderSink& on_header = {});
// The same over an in-memory text: returns the summary; fails when there is no header.
Result<DmonSummary> ReadDmonText(std::string_view text, std::string_view source,
                                 const DmonOptions& options, Diagnostics& diag, ReadCounts& counts,
                                 const DmonRowSink& sink, const DmonHeaderSink& on_header = {});

// A whole text read into memory (tests, small inputs).
struct DmonLog {
  DmonSummary summary;
  std::vector<DmonRow> rows;
};
// Reads a whole text (as ReadDmonText) into a DmonLog; fails as ReadDmonText.
Result<DmonLog> ParseDmonText(std::string_view text, std::string_view source,
                              const DmonOptions& options, Diagnostics& diag, ReadCounts& counts);

// ---------------------------------------------------------------------------------------------
// Writer.

struct DmonWriterOptions {
  int entity_width = 10;  // 10 (DCGM <= 3), 11 (4.0-4.4), 16 (4.5+)
  int field_width = 28;   // default column width when neither DmonField::width nor the catalog
                          // gives one
  int header_every = 14;  // header repeated before every Nth iteration; 0 = only once
  DmonTimestampStyle timestamp_style = DmonTimestampStyle::kNone;
  int fraction_digits = -1;  // digits after the seconds in kTs / kTsRelative / kEpoch prefixes;
                             // -1 = auto (0 for kTs/kTsRelative when all whole seconds, else 6;
                             // 6 for kEpoch). kIso always writes 9.
  int64_t relative_base_ns = kNoTime;  // base for kTsRelative (ts -s); kNoTime = first row's ts
  bool write_stop_message = false;     // end with `dmon was stopped due to receiving a signal`
};

// Writes dmon text in dcgmi's layout: header (`#Entity` + short names, `ID` + units, both padded
// to the column widths), repeated every header_every iterations, rows with the entity label padded
// to the entity width and values padded to their column width (at least one space between values):
// integers for int64 fields and integral values of unknown fields, `%.3f` otherwise, `N/A` for NaN,
// text values as given (cut with `...` when longer than the column). Prefixes each line with the
// row's time in the chosen style. Parse(Write(x)) == x for values that `%.3f` represents exactly.
class DmonWriter {
 public:
  DmonWriter(std::vector<DmonField> fields, DmonWriterOptions options);

  // Starts an iteration at `ts_ns` (used for prefixes; may be kNoTime with kNone).
  void BeginIteration(int64_t ts_ns, std::string* out);
  // Sets the time used for the prefixes of the following rows (BeginIteration sets it too); for
  // inputs whose rows of one iteration carry different times.
  void SetTime(int64_t ts_ns) { ts_ns_ = ts_ns; }
  // Appends one row. `values` must have one entry per field; `text` is empty or aligned.
  void WriteRow(const DmonEntity& entity, const std::vector<double>& values,
                const std::vector<std::string>& text, std::string* out);
  // Appends the stop message.
  void WriteStop(std::string* out);
  [[nodiscard]] const std::vector<DmonField>& fields() const { return fields_; }
  [[nodiscard]] int64_t iterations() const { return iterations_; }

 private:
  void WriteHeader(std::string* out);
  void WritePrefix(std::string* out);
  std::vector<DmonField> fields_;
  std::vector<int> widths_;
  std::vector<int> types_;  // FieldValueType as int, -1 unknown
  DmonWriterOptions options_;
  int64_t iterations_ = 0;
  int64_t ts_ns_ = kNoTime;
};

// Writes rows (in order) as one dmon text: a new iteration starts when an entity repeats within
// the current one (the reader's rule), using that row's ts_ns.
std::string WriteDmon(const std::vector<DmonField>& fields, const std::vector<DmonRow>& rows,
                      const DmonWriterOptions& options);

// Name of a timestamp style: "none", "ts", "ts_relative", "epoch", "iso".
std::string_view DmonTimestampStyleName(DmonTimestampStyle s);

}  // namespace toposcope::formats
