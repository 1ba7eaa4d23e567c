// formats/dcgm/dcgm_csv: DCGM samples as people export them from a TSDB to CSV, read as a stream and
// written back. Long form `ts,host,gpu,field,value` (one sample per row) or wide form
// `ts,host,gpu,<field1>,<field2>,...` (one sample per field column per row). Column names are
// case-insensitive and have aliases; ts is ISO-8601 or epoch s/ms/us/ns; RFC 4180 quoting.
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
#include "toposcope/base/time.h"

namespace toposcope::formats {

// One DCGM sample.
struct CsvSample {
  int64_t ts_ns = kNoTime;  // ns since the epoch
  std::string host;         // empty when the CSV has no host column
  int gpu = -1;
  std::string field;        // as written: "DCGM_FI_PROF_NVLINK_TX_BYTES", "nvltx", "1011", ...
  double value = NAN;       // NaN when the cell is empty, N/A, NA, NaN or null
  int64_t line = 0;         // 1-based line of the row (0 for samples built in memory)
};

// Equal ts, host, gpu and field, and values equal or both NaN. `line` is not compared.
bool SameCsvSample(const CsvSample& a, const CsvSample& b);

enum class DcgmCsvLayout { kLong, kWide };

// What one read saw.
struct DcgmCsvSummary {
  DcgmCsvLayout layout = DcgmCsvLayout::kLong;
  std::vector<std::string> columns;        // the header's column names as written (unquoted)
  std::vector<std::string> field_columns;  // wide form: the field columns, in order
  int64_t rows = 0;                        // data rows accepted
  int64_t samples = 0;                     // samples emitted
  int64_t nan_values = 0;                  // of those, NaN values
  int64_t out_of_order = 0;                // rows warned for a ts before the series' last ts
};

// Receives each sample; the reference is only valid during the call.
using CsvSampleSink = std::function<void(const CsvSample&)>;

// Streams a DCGM CSV. The first line that is neither blank nor a `#` comment is the header:
//   ts column: ts | timestamp | time            (required)
//   host:      host | hostname | instance       (optional; an `instance` ":port" suffix is cut)
//   gpu:       gpu | entity | gpu_id             (required; "3", "GPU3", "gpu3")
//   long form: field | metric | field_id, and value
//   wide form: every other column is a field.
// Records are the data rows. A row is rejected (line and reason in `diag`) for a wrong column
// count, an unterminated quote, a bad ts, a bad gpu, a bad number (including infinities and
// overflow), an empty field name or one with a control character (a byte below 0x20 but a quoted
// newline, or 0x7f), or
// when it repeats the last ts of its series (host, gpu, field): an exact duplicate. A ts earlier
// than the series' last one is accepted with a warning. Memory holds the last ts per series only.
// Quoted fields may hold commas, doubled quotes and newlines.
// Fails (Error) on an I/O error, an input without a usable header (no ts or gpu column, binary, a
// wide-form field column named with a control character), or rows none of which was accepted.
Result<DcgmCsvSummary> ReadDcgmCsv(LineReader& lines, std::string_view source,
                                   const CsvSampleSink& sink, Diagnostics& diag,
                                   ReadCounts& counts);
// The same over an in-memory text: returns the summary; fails as the streaming form (but for I/O).
Result<DcgmCsvSummary> ReadDcgmCsv(std::string_view text, std::string_view source,
                                   const CsvSampleSink& sink, Diagnostics& diag,
                                   ReadCounts& counts);

// A whole parse kept in memory.
struct DcgmCsv {
  DcgmCsvSummary summary;
  std::vector<CsvSample> samples;
};
// Reads a whole text (as ReadDcgmCsv) into a DcgmCsv; fails as ReadDcgmCsv.
Result<DcgmCsv> ParseDcgmCsv(std::string_view text, std::string_view source, Diagnostics& diag,
                             ReadCounts& counts);

// ---- Writing ----

enum class CsvTimeStyle {
  kEpochNs,  // integer ns since the epoch
  kEpochMs,  // integer ms (sub-ms parts are dropped)
  kIso,      // "2024-05-01T12:00:00.123456789Z"
};

// Appends the header line: `ts,host,gpu,field,value` (long) or `ts,host,gpu,<fields...>` (wide).
void AppendDcgmCsvHeader(std::string* out, DcgmCsvLayout layout,
                         const std::vector<std::string>& wide_fields = {});
// Appends one long-form row. Values print in the shortest text that reads back exactly; NaN as
// an empty cell; text cells are quoted when they need it.
void AppendDcgmCsvLongRow(std::string* out, const CsvSample& sample,
                          CsvTimeStyle time_style = CsvTimeStyle::kEpochNs);
// Appends one wide-form row: `values` are in the order of the header's fields.
void AppendDcgmCsvWideRow(std::string* out, int64_t ts_ns, std::string_view host, int gpu,
                          const std::vector<double>& values,
                          CsvTimeStyle time_style = CsvTimeStyle::kEpochNs);

// Writes samples in long form. Round-trips through ReadDcgmCsv (exactly, with kEpochNs or kIso).
std::string WriteDcgmCsvLong(const std::vector<CsvSample>& samples,
                             CsvTimeStyle time_style = CsvTimeStyle::kEpochNs);
// Writes samples in wide form: the field columns are the fields in first-seen order, and
// consecutive samples with the same (ts, host, gpu) make one row (cells a row lacks are empty,
// so they read back as NaN samples). Round-trips when every row has every field.
std::string WriteDcgmCsvWide(const std::vector<CsvSample>& samples,
                             CsvTimeStyle time_style = CsvTimeStyle::kEpochNs);

}  // namespace toposcope::formats
