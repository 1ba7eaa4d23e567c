// formats/clock/sync_csv: reader and writer of toposcope's sync-pairs CSV (docs/sync_csv.md).
#include "toposcope/formats/clock/sync_csv.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/csv.h"
#include "toposcope/base/text.h"
#include "toposcope/formats/clock/log_lines.h"

namespace toposcope::formats {
namespace {


// A strict decimal int64 with an optional sign.
std::optional<int64_t> ParseDecimal(std::string_view s) {
  std::string_view d = s;
  if (!d.empty() && (d[0] == '-' || d[0] == '+')) d.remove_prefix(1);
  if (d.empty() || d.size() > 19) return std::nullopt;
  for (const char c : d) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  return ParseInt(s);
}

std::string ShortestDouble(double v) {
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  if (ec != std::errc()) return {};
  return std::string(buf, ptr);
}

// The columns of a sync CSV, from its header.
struct SyncColumns {
  int host = -1, local = -1, ref = -1, unc = -1, source = -1;
  size_t count = 0;
};

constexpr const char* kSyncCsvHint = "expected 'host,local_ns,ref_ns[,uncertainty_ns][,source]'";

// The header line `t` (`cells`: its cells); fails when it lacks a required column or names one twice.
// Warns about unknown columns.
Status ReadSyncHeader(const std::vector<std::string>& cells, std::string_view t, std::string_view raw, int64_t ln,
                      std::string_view source, Diagnostics& diag, SyncColumns& cols) {
  std::vector<size_t> unknown_cells;
  const int twice = FindCsvColumns(cells,
                                   {{"host", &cols.host},
                                    {"local_ns", &cols.local},
                                    {"ref_ns", &cols.ref},
                                    {"uncertainty_ns", &cols.unc},
                                    {"source", &cols.source}},
                                   &unknown_cells);
  if (twice >= 0) {
    return MakeError(std::string(source), ln, 0,
                     "sync CSV header names '" + ToLowerAscii(cells[static_cast<size_t>(twice)]) + "' twice");
  }
  if (cols.host < 0 || cols.local < 0 || cols.ref < 0) {
    return MakeError(std::string(source), ln, 0,
                     "not a sync CSV: the header " + QuoteRaw(t) + " lacks host, local_ns or ref_ns", kSyncCsvHint);
  }
  std::string unknown;
  for (const size_t i : unknown_cells) {
    if (!unknown.empty()) unknown += ", ";
    unknown += ClipRaw(cells[i], 40);
  }
  if (!unknown.empty()) diag.Warn(source, ln, raw, "ignoring unknown columns: " + unknown);
  cols.count = cells.size();
  return {};
}

// One data row into `p`; "" when it is a sync point, else why not.
std::string ReadSyncRow(const std::vector<std::string>& cells, const SyncColumns& cols, SyncPoint& p) {
  if (cells.size() != cols.count) {
    return "row has " + std::to_string(cells.size()) + " cells, the header " + std::to_string(cols.count);
  }
  auto cell = [&](int c) -> const std::string& { return cells[static_cast<size_t>(c)]; };
  p.host = cell(cols.host);
  if (p.host.empty() || HasControlChars(p.host)) return "empty host or control characters in it";
  const auto local = ParseDecimal(cell(cols.local));
  const auto ref = ParseDecimal(cell(cols.ref));
  if (!local) return "local_ns " + QuoteRaw(cell(cols.local)) + " is not an integer (ns)";
  if (!ref) return "ref_ns " + QuoteRaw(cell(cols.ref)) + " is not an integer (ns)";
  int64_t diff = 0;
  if (__builtin_sub_overflow(*local, *ref, &diff)) return "local_ns - ref_ns overflows";
  p.local_ns = *local;
  p.ref_ns = *ref;
  p.offset_ns = static_cast<double>(diff);
  if (cols.unc >= 0) {
    const std::string& u = cell(cols.unc);
    if (!u.empty() && u != "NaN" && u != "nan" && u != "N/A") {
      const auto v = ParseDouble(u);
      if (!v || *v < 0) return "uncertainty_ns " + QuoteRaw(u) + " is not a finite number >= 0";
      p.uncertainty_ns = *v;
    }
  }
  if (cols.source >= 0) {
    p.source = cell(cols.source);
    if (HasControlChars(p.source)) return "control characters in source";
  }
  if (p.source.empty()) p.source = "csv";
  p.synced = true;
  return {};
}

}  // namespace

Status ReadSyncCsv(LineReader& lines, std::string_view source, const SyncPointSink& sink, Diagnostics& diag,
                   ReadCounts& counts) {
  SyncColumns cols;
  bool have_header = false;
  std::vector<std::string> cells;
  RepeatedLines repeats;
  std::string_view raw, t;
  while (NextCsvLine(lines, &raw, &t)) {
    const int64_t ln = lines.line_number();
    if (!have_header) {
      if (!SplitCsvLine(t, cells)) {
        return MakeError(std::string(source), ln, 0, "sync CSV header has a broken quote", kSyncCsvHint);
      }
      if (Status st = ReadSyncHeader(cells, t, raw, ln, source, diag, cols); !st.ok()) return st;
      have_header = true;
      continue;
    }
    ++counts.read;
    SyncPoint p;
    p.line = ln;
    const std::string reason = SplitCsvLine(t, cells) ? ReadSyncRow(cells, cols, p) : "broken quote";
    if (!reason.empty()) {
      ++counts.rejected;
      diag.Reject(source, ln, raw, reason);
      continue;
    }
    repeats.Check(source, ln, raw, t, diag);
    ++counts.accepted;
    if (sink) sink(p);
  }
  if (const Error* e = lines.error()) return *e;
  if (!have_header) return MakeError(std::string(source), 0, 0, "empty sync CSV: no header", kSyncCsvHint);
  return {};
}

Status ReadSyncCsvText(std::string_view text, std::string_view source, const SyncPointSink& sink,
                       Diagnostics& diag, ReadCounts& counts) {
  LineReader lines = TextLineReader(text, std::string(source));
  return ReadSyncCsv(lines, source, sink, diag, counts);
}

Result<std::vector<SyncPoint>> ParseSyncCsv(std::string_view text, std::string_view source, Diagnostics& diag,
                                            ReadCounts& counts) {
  std::vector<SyncPoint> out;
  const Status st = ReadSyncCsvText(
      text, source, [&](const SyncPoint& p) { out.push_back(p); }, diag, counts);
  if (!st.ok()) return st.error();
  return out;
}

std::string SyncCsvHeader() { return "host,local_ns,ref_ns,uncertainty_ns,source\n"; }

std::string FormatSyncCsvRow(const SyncPoint& p) {
  std::string row = CsvCell(p.host);
  row += ',';
  row += std::to_string(p.local_ns);
  row += ',';
  row += std::to_string(p.ref_ns);
  row += ',';
  if (std::isfinite(p.uncertainty_ns)) row += ShortestDouble(p.uncertainty_ns);
  row += ',';
  row += CsvCell(p.source);
  row += '\n';
  return row;
}

std::string WriteSyncCsv(const std::vector<SyncPoint>& points) {
  std::string out = SyncCsvHeader();
  for (const auto& p : points) out += FormatSyncCsvRow(p);
  return out;
}

}  // namespace toposcope::formats
