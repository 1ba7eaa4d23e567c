// formats/clock/sync_csv: toposcope's own CSV of clock sync pairs (documented in docs/sync_csv.md):
// `host,local_ns,ref_ns[,uncertainty_ns][,source]` — at the instant the reference clock read
// ref_ns, `host`'s clock read local_ns. For sources we have no reader for, and for the simulator.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "toposcope/base/diagnostics.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/result.h"
#include "toposcope/formats/clock/sync_point.h"

namespace toposcope::formats {

// Streams a sync CSV. The header (the first non-comment line) names the columns: `host`,
// `local_ns`, `ref_ns` are required, `uncertainty_ns` and `source` optional, in any order; other
// column names are ignored with one warning. `#` comment lines and blank lines are skipped.
// Cells may be double-quoted (RFC 4180). Each data line is a record: a wrong cell count, an empty
// host, a non-integer time, a negative / non-finite uncertainty is rejected. Accepted with a
// warning: a line repeating the previous one. Rows need not be sorted. SyncPoints get
// offset_ns = local - ref, synced = true, source "csv" when the column is absent or empty.
// Fails when the input is empty or the header lacks a required column.
Status ReadSyncCsv(LineReader& lines, std::string_view source, const SyncPointSink& sink, Diagnostics& diag,
                   ReadCounts& counts);
// The same over in-memory text; fails as ReadSyncCsv.
Status ReadSyncCsvText(std::string_view text, std::string_view source, const SyncPointSink& sink,
                       Diagnostics& diag, ReadCounts& counts);
// Collects all points; fails as ReadSyncCsv.
Result<std::vector<SyncPoint>> ParseSyncCsv(std::string_view text, std::string_view source, Diagnostics& diag,
                                            ReadCounts& counts);

// Writer: `host,local_ns,ref_ns,uncertainty_ns,source` header, one row per point (uncertainty
// with up to 17 significant digits, empty when NaN; cells quoted when needed). Round-trips through
// ParseSyncCsv for host, local_ns, ref_ns, uncertainty_ns, source.
std::string SyncCsvHeader();                       // with trailing newline
std::string FormatSyncCsvRow(const SyncPoint& p);  // with trailing newline
std::string WriteSyncCsv(const std::vector<SyncPoint>& points);

}  // namespace toposcope::formats
