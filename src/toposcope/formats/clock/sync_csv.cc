// formats/clock/sync_csv: reader and writer of toposcope's sync-pairs CSV (docs/sync_csv.md).
#include "toposcope/formats/clock/sync_csv.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/text.h"

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

}  // namespace

Status ReadSyncCsv(LineReader& lines, std::string_view source, const SyncPointSink& sink, Diagnostics& diag,
                   ReadCounts& counts) {
  int col_host = -1;
  int col_local = -1;
  int col_ref = -1;
  int col_unc = -1;
  int col_source = -1;
  size_t ncols = 0;
  bool have_header = false;
  std::vector<std::string> cells;
  std::string prev_raw;
  int64_t prev_line = 0;
  std::string_view raw;
  while (lines.Next(&raw)) {
    const int64_t ln = lines.line_number();
    std::string_view t = Trim(raw);
    if (ln == 1 && StartsWith(t, "\xEF\xBB\xBF")) t = Trim(t.substr(3));  // UTF-8 BOM
    if (t.empty() || t[0] == '#') continue;
    if (!have_header) {
      if (!SplitCsvLine(t, cells)) {
        return MakeError(std::string(source), ln, 0, "sync CSV header has a broken quote",
                         "expected 'host,local_ns,ref_ns[,uncertainty_ns][,source]'");
      }
      std::string unknown;
      for (size_t i = 0; i < cells.size(); ++i) {
        std::string name = cells[i];
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        int* slot = nullptr;
        if (name == "host")
          slot = &col_host;
        else if (name == "local_ns")
          slot = &col_local;
        else if (name == "ref_ns")
          slot = &col_ref;
        else if (name == "uncertainty_ns")
          slot = &col_unc;
        else if (name == "source")
          slot = &col_source;
        if (slot == nullptr) {
          if (!unknown.empty()) unknown += ", ";
          unknown += ClipRaw(cells[i], 40);
        } else if (*slot >= 0) {
          return MakeError(std::string(source), ln, 0, "sync CSV header names '" + name + "' twice");
        } else {
          *slot = static_cast<int>(i);
        }
      }
      if (col_host < 0 || col_local < 0 || col_ref < 0) {
        return MakeError(std::string(source), ln, 0,
                         "not a sync CSV: the header " + QuoteRaw(t) + " lacks host, local_ns or ref_ns",
                         "expected 'host,local_ns,ref_ns[,uncertainty_ns][,source]'");
      }
      if (!unknown.empty()) diag.Warn(source, ln, raw, "ignoring unknown columns: " + unknown);
      ncols = cells.size();
      have_header = true;
      continue;
    }
    ++counts.read;
    auto reject = [&](const std::string& reason) {
      ++counts.rejected;
      diag.Reject(source, ln, raw, reason);
    };
    if (!SplitCsvLine(t, cells)) {
      reject("broken quote");
      continue;
    }
    if (cells.size() != ncols) {
      reject("row has " + std::to_string(cells.size()) + " cells, the header " + std::to_string(ncols));
      continue;
    }
    SyncPoint p;
    p.line = ln;
    p.host = cells[static_cast<size_t>(col_host)];
    if (p.host.empty() || HasControlChars(p.host)) {
      reject("empty host or control characters in it");
      continue;
    }
    const auto local = ParseDecimal(cells[static_cast<size_t>(col_local)]);
    const auto ref = ParseDecimal(cells[static_cast<size_t>(col_ref)]);
    if (!local) {
      reject("local_ns " + QuoteRaw(cells[static_cast<size_t>(col_local)]) + " is not an integer (ns)");
      continue;
    }
    if (!ref) {
      reject("ref_ns " + QuoteRaw(cells[static_cast<size_t>(col_ref)]) + " is not an integer (ns)");
      continue;
    }
    int64_t diff = 0;
    if (__builtin_sub_overflow(*local, *ref, &diff)) {
      reject("local_ns - ref_ns overflows");
      continue;
    }
    p.local_ns = *local;
    p.ref_ns = *ref;
    p.offset_ns = static_cast<double>(diff);
    if (col_unc >= 0) {
      const std::string& u = cells[static_cast<size_t>(col_unc)];
      if (!u.empty() && u != "NaN" && u != "nan" && u != "N/A") {
        const auto v = ParseDouble(u);
        if (!v || *v < 0) {
          reject("uncertainty_ns " + QuoteRaw(u) + " is not a finite number >= 0");
          continue;
        }
        p.uncertainty_ns = *v;
      }
    }
    if (col_source >= 0) {
      p.source = cells[static_cast<size_t>(col_source)];
      if (HasControlChars(p.source)) {
        reject("control characters in source");
        continue;
      }
    }
    if (p.source.empty()) p.source = "csv";
    p.synced = true;
    if (t == prev_raw) diag.Warn(source, ln, raw, "repeats line " + std::to_string(prev_line));
    prev_raw.assign(t);
    prev_line = ln;
    ++counts.accepted;
    if (sink) sink(p);
  }
  if (const Error* e = lines.error()) return *e;
  if (!have_header) {
    return MakeError(std::string(source), 0, 0, "empty sync CSV: no header",
                     "expected 'host,local_ns,ref_ns[,uncertainty_ns][,source]'");
  }
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
