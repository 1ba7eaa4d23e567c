// formats/node/p2p_matrix: readers and writers for GPU x GPU bandwidth/latency matrices.
//
// p2pBandwidthLatencyTest (CUDA samples): `Device: N, name, pciBusID: b4, ...` lines, then tables,
// each a title line ("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)"), a header whose first
// cell is `D\D` (or `GPU` / `CPU` for the two latency sub-tables) followed by the device ids, and
// one row per device.
//
// nvbandwidth (all versions): header lines (version, git version, CUDA/driver versions, optional
// hostname, `Device N: name (pci)`), then per testcase `Running <testcase>.`, a description line
// (`memcpy CE GPU(row) -> GPU(column) bandwidth (GB/s)`), a header of device ids, rows, a blank
// line and `SUM <testcase> <value>`. `N/A` is NaN. Reports with no SUM line and no version (or one
// before v0.2) print `0.00` on the GPU<->GPU diagonal for "not measured": it becomes NaN.
//
// CSV (toposcope's own):
//   long form:  `src,dst,bandwidth_gbps[,kind[,matrix]]`, one line per cell. kind is
//               unidir|bidir|latency_us|connectivity (default from the third header name, else
//               unidir); rows with the same (kind, matrix) form one matrix, rows and columns in
//               order of first appearance; matrix is a free label that becomes the title.
//   wide form:  header `,0,1,2` or `src\dst,0,1,2`, then `0,541.84,5.71,...` per source device;
//               one unidirectional matrix.
//   `N/A` or an empty cell is NaN; `#` comment lines and blank lines are skipped. The writer
//   writes the long form with all five columns and 2 decimals.
//
// Records (ReadCounts) are matrix rows and CSV data lines; a column header that has no rows (or
// cannot be read) counts as one rejected record. An output with no matrix but `Device` lines counts
// each of those lines as an accepted record (its GPUs are kept).
#include "toposcope/formats/node/p2p_matrix.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

constexpr int kMaxDeviceId = 65535;
constexpr double kMaxBandwidthGbps = 1e5;
constexpr double kMaxLatencyUs = 1e7;
constexpr double kMaxSum = 1e12;
constexpr size_t kBinaryProbe = 4096;

// ---------------------------------------------------------------------------------------------
// Shared helpers.

std::string Str(std::string_view s) { return std::string(s); }



bool IsDecimalInt(std::string_view s) {
  if (s.empty() || s.size() > 9) return false;
  for (const char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// A device id: plain decimal digits, 0..kMaxDeviceId.
std::optional<int> ParseDeviceId(std::string_view s) {
  if (!IsDecimalInt(s)) return std::nullopt;
  const auto v = ParseInt(s);
  if (!v || *v > kMaxDeviceId) return std::nullopt;
  return static_cast<int>(*v);
}

bool IsNa(std::string_view s) { return s == "N/A" || s == "n/a"; }

const char* UnitOf(P2pQuantity q) {
  switch (q) {
    case P2pQuantity::kLatencyUs:
      return "us";
    case P2pQuantity::kConnectivity:
      return "";
    default:
      return "GB/s";
  }
}

// Validates one numeric cell text (`N/A` is NaN). Returns the value, or sets `reason` (to be
// prefixed with where the cell is).
std::optional<double> ReadValue(std::string_view cell, P2pQuantity q, double scale, std::string& reason) {
  if (IsNa(cell)) return NAN;
  const auto v = ParseDouble(cell);
  if (!v) {
    reason = QuoteRaw(cell) + " is not a number";
    return std::nullopt;
  }
  if (*v < 0) {
    reason = "negative value " + QuoteRaw(cell);
    return std::nullopt;
  }
  const double x = *v * scale;
  if (q == P2pQuantity::kConnectivity) {
    if (x != 0.0 && x != 1.0) {
      reason = "connectivity must be 0 or 1, got " + QuoteRaw(cell);
      return std::nullopt;
    }
    return x;
  }
  const double limit = q == P2pQuantity::kLatencyUs ? kMaxLatencyUs : kMaxBandwidthGbps;
  if (x > limit) {
    reason = "implausible value " + QuoteRaw(cell) + " (over " + StringPrintf("%.0f %s", limit, UnitOf(q)) + ")";
    return std::nullopt;
  }
  return x;
}

// Column ids of a header; sets `reason` when one is out of range or repeated.
std::optional<std::vector<int>> ReadColumnIds(std::span<const std::string_view> cells, std::string& reason) {
  std::vector<int> ids;
  std::unordered_set<int> seen;
  for (const auto c : cells) {
    const auto id = ParseDeviceId(Trim(c));
    if (!id) {
      reason =
          "column header: " + QuoteRaw(c) + " is not a device index (0.." + std::to_string(kMaxDeviceId) + ")";
      return std::nullopt;
    }
    if (!seen.insert(*id).second) {
      reason = "column header: duplicate device id " + std::to_string(*id);
      return std::nullopt;
    }
    ids.push_back(*id);
  }
  if (ids.empty()) {
    reason = "column header has no device ids";
    return std::nullopt;
  }
  return ids;
}

// A matrix being read from a text table.
struct TableReader {
  TableReader(std::string_view src, Diagnostics& d, ReadCounts& c, std::vector<P2pMatrix>& o)
      : source(src), diag(d), counts(c), out(o) {}

  std::string_view source;
  Diagnostics& diag;
  ReadCounts& counts;
  std::vector<P2pMatrix>& out;

  bool open = false;
  bool bad_header = false;  // header rejected: its rows are rejected too
  P2pMatrix m;
  double scale = 1.0;
  int64_t header_line = 0;
  std::string header_raw;
  int64_t rows_read = 0;
  std::unordered_set<int> seen_rows;

  void Begin(P2pMatrix matrix, double value_scale, int64_t line, std::string_view raw) {
    open = true;
    bad_header = false;
    m = std::move(matrix);
    scale = value_scale;
    header_line = line;
    header_raw = ClipRaw(raw);
    rows_read = 0;
    seen_rows.clear();
  }

  // A header that could not be read: one rejected record; its rows follow it into the bin.
  void BeginBad(int64_t line, std::string_view raw, std::string_view reason) {
    ++counts.read;
    ++counts.rejected;
    diag.Reject(source, line, raw, reason);
    open = true;
    bad_header = true;
    rows_read = 0;
  }

  // Inside a table: a line that starts with a device id, or one with a bad label followed by
  // exactly one number (or N/A) per column.
  [[nodiscard]] bool IsRow(std::span<const std::string_view> tokens) const {
    if (!open) return false;
    if (ParseInt(tokens[0])) return true;
    if (bad_header || tokens[0] == "SUM" || tokens.size() != m.col_ids.size() + 1) return false;
    for (size_t i = 1; i < tokens.size(); ++i) {
      if (!IsNa(tokens[i]) && !ParseDouble(tokens[i])) return false;
    }
    return true;
  }

  void Row(std::span<const std::string_view> tokens, std::string_view raw, int64_t line) {
    ++counts.read;
    ++rows_read;
    std::string reason;
    const auto reject = [&](const std::string& why) {
      ++counts.rejected;
      diag.Reject(source, line, raw, why);
    };
    if (bad_header) return reject("row under an unreadable column header");
    const auto id = ParseDeviceId(tokens[0]);
    if (!id) {
      return reject("row label " + QuoteRaw(tokens[0]) + " is not a device index (0.." +
                    std::to_string(kMaxDeviceId) + ")");
    }
    const size_t n = tokens.size() - 1;
    if (n != m.col_ids.size()) {
      return reject(StringPrintf("row %d has %zu values, expected %zu", *id, n, m.col_ids.size()));
    }
    if (seen_rows.count(*id) != 0) return reject(StringPrintf("duplicate row %d", *id));
    std::vector<double> values;
    values.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      const auto v = ReadValue(tokens[i + 1], m.quantity, scale, reason);
      if (!v) return reject(StringPrintf("row %d, column %d: ", *id, m.col_ids[i]) + reason);
      values.push_back(*v);
    }
    seen_rows.insert(*id);
    m.row_ids.push_back(*id);
    m.values.push_back(std::move(values));
    ++counts.accepted;
  }

  // Ends the current matrix, keeping it when it has rows. Returns the index kept, or -1.
  int Close() {
    if (!open) return -1;
    open = false;
    if (bad_header) return -1;
    if (rows_read == 0) {
      ++counts.read;
      ++counts.rejected;
      diag.Reject(source, header_line, header_raw, "column header with no rows");
      return -1;
    }
    if (m.values.empty()) {
      diag.Warn(
          source, header_line, header_raw,
          StringPrintf("matrix dropped: none of its %lld rows could be read", static_cast<long long>(rows_read)));
      return -1;
    }
    if (m.gpu_to_gpu && m.row_ids.size() != m.col_ids.size()) {
      diag.Warn(source, header_line, header_raw,
                StringPrintf("matrix has %zu rows for %zu columns", m.row_ids.size(), m.col_ids.size()));
    }
    out.push_back(std::move(m));
    m = P2pMatrix{};
    return static_cast<int>(out.size()) - 1;
  }
};

Error NoMatrix(std::string_view source, std::string hint) {
  return MakeError(Str(source), 0, 0, "no bandwidth matrix found", std::move(hint));
}

// The report, or the "no matrix" error when it holds none (`expected`: the hint for non-empty text).
Result<P2pReport> ReportOrNoMatrix(P2pReport report, std::string_view text, std::string_view source,
                                   const char* expected) {
  if (report.matrices.empty()) return NoMatrix(source, text.empty() ? "the input is empty" : expected);
  return report;
}

// A report with `Device` lines but no matrix: the GPUs they list (the host's inventory) are kept,
// each line one accepted record, with a warning (`why`: why there is no matrix).
P2pReport KeepDeviceList(P2pReport report, std::string_view source, const std::string& why, Diagnostics& diag,
                         ReadCounts& counts) {
  const auto n = static_cast<int64_t>(report.devices.size());
  counts.read += n;
  counts.accepted += n;
  diag.Warn(source, 0, "",
            "no matrix: " + why + "; the " + std::to_string(n) + " GPU(s) of the Device lines are kept");
  return report;
}

// Binary input: one rejected record, then the error.
Error RejectBinary(std::string_view text, std::string_view source, Diagnostics& diag, ReadCounts& counts) {
  ++counts.read;
  ++counts.rejected;
  diag.RejectAtByte(source, 0, text.substr(0, 64), "input looks binary, not a text report");
  return NoMatrix(source, "the input is binary");
}

// Appends `v` with 2 decimals (as printf "%*.2f"), right-aligned in `width`; no "-0.00".
void AppendFixed2(std::string& out, double v, int width = 0) {
  char buf[400];
  if (v == 0) v = 0;
  const auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, 2);
  const size_t n = res.ec == std::errc() ? static_cast<size_t>(res.ptr - buf) : 0;
  if (static_cast<int>(n) < width) out.append(static_cast<size_t>(width) - n, ' ');
  out.append(buf, n);
}

// Appends an integer right-aligned in `width` (as printf "%*d").
void AppendInt(std::string& out, int v, int width = 0) {
  char buf[16];
  const auto res = std::to_chars(buf, buf + sizeof(buf), v);
  const size_t n = static_cast<size_t>(res.ptr - buf);
  if (static_cast<int>(n) < width) out.append(static_cast<size_t>(width) - n, ' ');
  out.append(buf, n);
}

std::string Fixed2(double v) {
  std::string out;
  AppendFixed2(out, v);
  return out;
}

// ---------------------------------------------------------------------------------------------
// p2pBandwidthLatencyTest.

struct P2pTitle {
  P2pQuantity quantity = P2pQuantity::kBandwidthUnidirGbps;
  bool p2p_enabled = true;
};

bool IsP2pTitle(std::string_view t) { return Contains(t, "Matrix"); }

P2pTitle ClassifyP2pTitle(std::string_view t) {
  P2pTitle c;
  if (Contains(t, "Connectivity")) {
    c.quantity = P2pQuantity::kConnectivity;
  } else if (Contains(t, "Latency")) {
    c.quantity = P2pQuantity::kLatencyUs;
  } else if (Contains(t, "Bidirectional")) {
    c.quantity = P2pQuantity::kBandwidthBidirGbps;
  }
  if (Contains(t, "P2P=Disabled")) c.p2p_enabled = false;
  return c;
}

bool IsP2pHeaderWord(std::string_view w) { return w == "D\\D" || w == "GPU" || w == "CPU"; }

std::optional<P2pDevice> ParseP2pDeviceLine(std::string_view t) {
  // Device: 0, NVIDIA GeForce RTX 2080 Ti, pciBusID: b4, pciDeviceID: 0, pciDomainID:0
  if (!StartsWith(t, "Device:")) return std::nullopt;
  std::string_view rest = t.substr(7);
  const size_t comma = rest.find(',');
  const auto id = ParseDeviceId(Trim(rest.substr(0, comma)));
  if (!id) return std::nullopt;
  P2pDevice d;
  d.index = *id;
  if (comma == std::string_view::npos) return d;
  rest = rest.substr(comma + 1);
  const size_t bus = rest.find("pciBusID:");
  std::string_view name = rest.substr(0, bus);
  name = Trim(name);
  if (bus != std::string_view::npos && !name.empty() && name.back() == ',') name.remove_suffix(1);
  d.name = Str(Trim(name));
  if (bus != std::string_view::npos) {
    std::string_view pci = rest.substr(bus + 9);
    pci = pci.substr(0, pci.find(','));
    d.pci_bus_id = Str(Trim(pci));
  }
  return d;
}

// Adds a device unless its index was seen (`seen` holds the indices so far).
void AddDevice(P2pReport& r, std::unordered_set<int>& seen, P2pDevice d, std::string_view source,
               int64_t line, std::string_view raw, Diagnostics& diag) {
  if (!seen.insert(d.index).second) {
    diag.Warn(source, line, raw, StringPrintf("duplicate device %d ignored", d.index));
    return;
  }
  r.devices.push_back(std::move(d));
}

// ---------------------------------------------------------------------------------------------
// nvbandwidth.

struct NvDescription {
  P2pQuantity quantity = P2pQuantity::kBandwidthUnidirGbps;
  bool gpu_to_gpu = true;
  double scale = 1.0;
};

NvDescription ClassifyNvDescription(std::string_view d) {
  NvDescription c;
  if (Contains(d, "latency")) {
    c.quantity = P2pQuantity::kLatencyUs;
    if (Contains(d, "(ns)")) c.scale = 1e-3;
  } else if (Contains(d, "peer access") || Contains(d, "onnectivity")) {
    c.quantity = P2pQuantity::kConnectivity;
  } else if (Contains(d, "<->")) {
    c.quantity = P2pQuantity::kBandwidthBidirGbps;
  }
  c.gpu_to_gpu = !Contains(d, "CPU(") && !Contains(d, "local");
  return c;
}

// Lines whose meaning comes from their start; a description must not look like one.
bool IsNvKeywordLine(std::string_view t) {
  return StartsWith(t, "nvbandwidth Version:") || StartsWith(t, "Built from Git version:") ||
         StartsWith(t, "CUDA Runtime Version") || StartsWith(t, "CUDA Driver Version") ||
         StartsWith(t, "Driver Version") || StartsWith(t, "Running ") || StartsWith(t, "Waiving ") ||
         StartsWith(t, "Waived") || StartsWith(t, "SUM ") || StartsWith(t, "Device ");
}

bool IsNvDescription(std::string_view t) {
  return !IsNvKeywordLine(t) && (Contains(t, "(column)") || Contains(t, "(row)"));
}

bool IsPciText(std::string_view s) {
  if (s.empty()) return false;
  for (const char c : s) {
    const bool ok =
        (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == ':' || c == '.';
    if (!ok) return false;
  }
  return true;
}

std::optional<P2pDevice> ParseNvDeviceLine(std::string_view t) {
  // Device 4: NVIDIA H20-3e (00000000:9b:00)
  if (!StartsWith(t, "Device ")) return std::nullopt;
  std::string_view rest = t.substr(7);
  const size_t colon = rest.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto id = ParseDeviceId(Trim(rest.substr(0, colon)));
  if (!id) return std::nullopt;
  P2pDevice d;
  d.index = *id;
  std::string_view name = Trim(rest.substr(colon + 1));
  if (!name.empty() && name.back() == ')') {
    const size_t open = name.rfind('(');
    if (open != std::string_view::npos) {
      const std::string_view pci = name.substr(open + 1, name.size() - open - 2);
      if (IsPciText(pci)) {
        d.pci_bus_id = Str(pci);
        name = Trim(name.substr(0, open));
      }
    }
  }
  d.name = Str(name);
  return d;
}

bool IsHostnameToken(std::string_view s) {
  bool alnum = false;
  for (const char c : s) {
    const bool a = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    alnum = alnum || a;
    if (!a && c != '-' && c != '.' && c != '_') return false;
  }
  return alnum;
}

// "v0.8" -> 0.8 as (major, minor); nullopt when not a version.
std::optional<std::pair<int64_t, int64_t>> ParseVersion(std::string_view v) {
  if (!v.empty() && (v[0] == 'v' || v[0] == 'V')) v.remove_prefix(1);
  const size_t dot = v.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view minor = v.substr(dot + 1);
  minor = minor.substr(0, minor.find('.'));
  const std::string_view major = v.substr(0, dot);
  if (!IsDecimalInt(major) || !IsDecimalInt(minor)) return std::nullopt;
  return std::make_pair(*ParseInt(major), *ParseInt(minor));
}

bool IsBeforeV02(std::string_view version) {
  if (version.empty()) return true;
  const auto v = ParseVersion(version);
  return v && (v->first == 0 && v->second < 2);
}

// True when the next non-blank line after `i` is a `Device N: ...` line.
bool NextIsDeviceLine(const std::vector<std::string_view>& lines, size_t i) {
  for (size_t j = i + 1; j < lines.size(); ++j) {
    const std::string_view n = Trim(lines[j]);
    if (!n.empty()) return ParseNvDeviceLine(n).has_value();
  }
  return false;
}

std::string AfterColon(std::string_view t) {
  const size_t c = t.find(':');
  return c == std::string_view::npos ? std::string() : Str(Trim(t.substr(c + 1)));
}

// Steps through the lines of a text report: matrix rows go to `table`; a blank line closes the open
// matrix (`close`), and every other line closes it too and goes to `other(i, raw, t, tokens,
// first_is_int)` (`t` the trimmed line, `first_is_int` whether its first token is an integer).
template <class CloseFn, class OtherFn>
void ReadReportLines(const std::vector<std::string_view>& lines, TableReader& table, CloseFn&& close, OtherFn&& other) {
  for (size_t i = 0; i < lines.size(); ++i) {
    const int64_t line_no = static_cast<int64_t>(i) + 1;
    const std::string_view raw = lines[i];
    const std::string_view t = Trim(raw);
    if (t.empty()) {
      close();
      continue;
    }
    const auto tokens = SplitWhitespace(t);
    const bool first_is_int = ParseInt(tokens[0]).has_value();
    if (table.IsRow(tokens)) {
      table.Row(tokens, raw, line_no);
      continue;
    }
    close();
    other(i, raw, t, tokens, first_is_int);
  }
}

// A stray matrix row: one rejected record.
void RejectRowWithoutHeader(std::string_view source, int64_t line_no, std::string_view raw, Diagnostics& diag,
                            ReadCounts& counts) {
  ++counts.read;
  ++counts.rejected;
  diag.Reject(source, line_no, raw, "matrix row without a column header");
}

}  // namespace

// =============================================================================================

Result<P2pReport> ParseP2pBandwidthLatencyTest(std::string_view text, std::string_view source,
                                               Diagnostics& diag, ReadCounts& counts) {
  if (LooksBinary(text.substr(0, kBinaryProbe))) return RejectBinary(text, source, diag, counts);
  P2pReport report;
  report.tool = P2pTool::kP2pBandwidthLatencyTest;
  TableReader table{source, diag, counts, report.matrices};
  const auto lines = SplitLines(text);
  std::unordered_set<int> device_ids;

  std::string title;  // current title
  int64_t title_line = 0;
  bool title_used = true;  // a header followed the current title
  const auto end_title = [&] {
    if (!title_used) diag.Warn(source, title_line, title, "table title with no matrix");
  };

  const auto close = [&] { table.Close(); };
  ReadReportLines(lines, table, close,
                  [&](size_t i, std::string_view raw, std::string_view t, const std::vector<std::string_view>& tokens,
                      bool first_is_int) {
                    const int64_t line_no = static_cast<int64_t>(i) + 1;
                    if (tokens.size() >= 2 && IsP2pHeaderWord(tokens[0])) {
                      std::string reason;
                      auto ids = ReadColumnIds(std::span(tokens).subspan(1), reason);
                      if (!ids) {
                        table.BeginBad(line_no, raw, reason);
                        title_used = true;
                        return;
                      }
                      P2pMatrix m;
                      if (title.empty()) {
                        diag.Warn(source, line_no, raw, "matrix header with no title; read as bandwidth");
                      }
                      const P2pTitle c = ClassifyP2pTitle(title);
                      m.title = title;
                      m.quantity = c.quantity;
                      m.p2p_enabled = c.p2p_enabled;
                      m.gpu_to_gpu = tokens[0] != "CPU";
                      m.col_ids = std::move(*ids);
                      title_used = true;
                      table.Begin(std::move(m), 1.0, line_no, raw);
                    } else if (IsP2pTitle(t) && !first_is_int) {
                      end_title();
                      title = Str(t);
                      title_line = line_no;
                      title_used = false;
                    } else if (auto d = ParseP2pDeviceLine(t)) {
                      AddDevice(report, device_ids, std::move(*d), source, line_no, raw, diag);
                    } else if (first_is_int && tokens.size() >= 2) {
                      RejectRowWithoutHeader(source, line_no, raw, diag, counts);
                    }
                    // Anything else (banner, `Device=0 CAN Access Peer Device=1`, NOTE lines) is
                    // informational.
                  });
  table.Close();
  end_title();
  // Cut before the first table (or no table asked for): the GPUs of the Device lines stay.
  if (report.matrices.empty() && !report.devices.empty()) {
    return KeepDeviceList(std::move(report), source, "the output stops before its first table", diag, counts);
  }
  return ReportOrNoMatrix(std::move(report), text, source,
                          "expected tables such as `P2P Connectivity Matrix` followed by a `D\\D` header");
}

namespace {

// Reads nvbandwidth's text output: the version lines, `Running <testcase>.`, a description line,
// a header of device ids and the rows of each matrix, `SUM <testcase> <value>` after it.
class NvbandwidthReader {
 public:
  NvbandwidthReader(std::string_view text, std::string_view source, Diagnostics& diag, ReadCounts& counts)
      : source_(source), diag_(diag), counts_(counts), lines_(SplitLines(text)) {
    report_.tool = P2pTool::kNvbandwidth;
  }

  // Reads every line; returns the report (matrices may be empty).
  P2pReport Run() {
    ReadReportLines(
        lines_, table_, [&] { Close(); },
        [&](size_t i, std::string_view raw, std::string_view t, const std::vector<std::string_view>& tokens,
            bool first_is_int) { Line(i, raw, t, tokens, first_is_int); });
    Close();
    EndTestcase();
    if (!any_sum_ && IsBeforeV02(report_.version)) BlankPreV02Diagonals();
    return std::move(report_);
  }

  // How many `Waiving`/`Waived` lines were read.
  [[nodiscard]] int waived() const { return waived_; }

 private:
  // Closes the open matrix; a good one becomes the one a SUM line may belong to.
  void Close() {
    if (!table_.open) return;
    const bool bad = table_.bad_header;
    const int idx = table_.Close();
    if (!bad) {
      last_matrix_ = idx;
      description_.clear();
    }
  }

  void EndTestcase() {
    if (!testcase_has_matrix_) {
      diag_.Warn(source_, testcase_line_, testcase_, "testcase `" + testcase_ + "` printed no matrix");
    }
    testcase_has_matrix_ = true;
  }

  // One line that is not a matrix row.
  void Line(size_t i, std::string_view raw, std::string_view t, const std::vector<std::string_view>& tokens,
            bool first_is_int) {
    const int64_t line_no = static_cast<int64_t>(i) + 1;
    if (StartsWith(t, "nvbandwidth Version:")) {
      report_.version = AfterColon(t);
    } else if (StartsWith(t, "Built from Git version:")) {
      report_.git_version = AfterColon(t);
    } else if (StartsWith(t, "CUDA Runtime Version")) {
      report_.cuda_runtime_version = AfterColon(t);
    } else if (StartsWith(t, "CUDA Driver Version")) {
      report_.cuda_driver_version = AfterColon(t);
    } else if (StartsWith(t, "Driver Version")) {
      report_.driver_version = AfterColon(t);
    } else if (StartsWith(t, "Running ")) {
      StartTestcase(t, line_no);
    } else if (StartsWith(t, "Waiving ") || StartsWith(t, "Waived")) {
      WaivedLine(t, raw, line_no);
    } else if (StartsWith(t, "SUM ")) {
      SumLine(t, raw, line_no);
    } else if (auto d = ParseNvDeviceLine(t)) {
      AddDevice(report_, device_ids_, std::move(*d), source_, line_no, raw, diag_);
    } else if (IsNvDescription(t)) {
      description_ = Str(t);
    } else if (tokens.size() == 1 && report_.devices.empty() && !seen_matrix_ && IsHostnameToken(t) &&
               NextIsDeviceLine(lines_, i)) {
      report_.hostname = Str(t);  // v0.8 prints the host name right before the devices
    } else if (std::all_of(tokens.begin(), tokens.end(), [](std::string_view s) { return ParseInt(s).has_value(); })) {
      HeaderLine(raw, tokens, line_no);
    } else if (first_is_int && tokens.size() >= 2) {
      RejectRowWithoutHeader(source_, line_no, raw, diag_, counts_);
    }
    // Other lines (NOTE paragraphs, `...`, COEFFICIENT_OF_VARIATION, errors) carry no data.
  }

  // `Waiving <testcase>.` (nvbandwidth skips a testcase whose filter fails, e.g. without peer access
  // between the GPUs, and prints no `Running` line for it) or a bare `Waived:`: a warning naming it.
  void WaivedLine(std::string_view t, std::string_view raw, int64_t line_no) {
    std::string_view name = StartsWith(t, "Waiving ") ? Trim(t.substr(8)) : std::string_view();
    if (!name.empty() && name.back() == '.') name.remove_suffix(1);
    ++waived_;
    diag_.Warn(source_, line_no, raw,
               name.empty() ? std::string("a testcase was waived (nvbandwidth skipped it): its matrix is missing")
                            : "testcase `" + Str(Trim(name)) +
                                  "` was waived (nvbandwidth skipped it, e.g. no peer access between the GPUs): "
                                  "its matrix is missing");
  }

  // `Running <testcase>.`
  void StartTestcase(std::string_view t, int64_t line_no) {
    EndTestcase();
    std::string_view name = Trim(t.substr(8));
    if (!name.empty() && name.back() == '.') name.remove_suffix(1);
    testcase_ = Str(Trim(name));
    testcase_line_ = line_no;
    testcase_has_matrix_ = false;
    description_.clear();
    last_matrix_ = -1;
  }

  // The column header of a matrix: opens it, described by the last description line.
  void HeaderLine(std::string_view raw, const std::vector<std::string_view>& tokens, int64_t line_no) {
    seen_matrix_ = true;
    testcase_has_matrix_ = true;
    std::string reason;
    auto ids = ReadColumnIds(tokens, reason);
    if (!ids) {
      table_.BeginBad(line_no, raw, reason);
      return;
    }
    if (description_.empty()) {
      diag_.Warn(source_, line_no, raw, "matrix with no description line; read as GPU->GPU bandwidth");
    }
    const NvDescription c = ClassifyNvDescription(description_);
    P2pMatrix m;
    m.testcase = testcase_;
    m.description = description_;
    m.title = !testcase_.empty() ? testcase_ : description_;
    m.quantity = c.quantity;
    m.gpu_to_gpu = c.gpu_to_gpu;
    m.col_ids = std::move(*ids);
    table_.Begin(std::move(m), c.scale, line_no, raw);
    testcase_.clear();
  }

  // `SUM [testcase] value`: the sum of the matrix just read, checked against its cells.
  void SumLine(std::string_view t, std::string_view raw, int64_t line_no) {
    any_sum_ = true;
    const std::string_view rest = Trim(t.substr(4));
    const size_t sp = rest.find_last_of(" \t");
    const std::string_view name = sp == std::string_view::npos ? std::string_view() : Trim(rest.substr(0, sp));
    const std::string_view value = sp == std::string_view::npos ? rest : rest.substr(sp + 1);
    const auto v = ParseDouble(value);
    if (!v || *v < 0) {
      diag_.Warn(source_, line_no, raw, "SUM value " + QuoteRaw(value) + " is not a number");
      return;
    }
    if (*v > kMaxSum) {
      diag_.Warn(source_, line_no, raw, "implausible SUM value " + QuoteRaw(value));
      return;
    }
    if (last_matrix_ < 0 || !std::isnan(report_.matrices[static_cast<size_t>(last_matrix_)].sum)) {
      diag_.Warn(source_, line_no, raw, "SUM line with no matrix before it");
      return;
    }
    P2pMatrix& m = report_.matrices[static_cast<size_t>(last_matrix_)];
    if (!m.testcase.empty() && !name.empty() && name != m.testcase) {
      diag_.Warn(source_, line_no, raw, "SUM names `" + Str(name) + "` but the matrix is `" + m.testcase + "`");
      return;
    }
    if (m.testcase.empty() && !name.empty()) {
      m.testcase = Str(name);
      m.title = m.testcase;
    }
    const double scale = ClassifyNvDescription(m.description).scale;
    m.sum = *v * scale;
    // nvbandwidth sums every cell (N/A as 0); a mismatch means rows went missing.
    double total = 0;
    size_t cells = 0;
    for (const auto& row : m.values) {
      for (const double x : row) {
        if (!std::isnan(x)) total += x;
        ++cells;
      }
    }
    const double tol = (0.0051 * static_cast<double>(cells) + 0.011) * scale;
    if (std::fabs(total - m.sum) > tol) {
      diag_.Warn(source_, line_no, raw,
                 "SUM " + Fixed2(m.sum) + " differs from the sum of the cells " + Fixed2(total) + " (rows missing?)");
    }
  }

  // Before v0.2 the diagonal of GPU<->GPU matrices printed 0.00 for "not measured".
  void BlankPreV02Diagonals() {
    for (auto& m : report_.matrices) {
      if (!m.gpu_to_gpu) continue;
      for (size_t r = 0; r < m.row_ids.size(); ++r) {
        for (size_t c = 0; c < m.col_ids.size(); ++c) {
          if (m.row_ids[r] == m.col_ids[c] && m.values[r][c] == 0.0) m.values[r][c] = NAN;
        }
      }
    }
  }

  std::string_view source_;
  Diagnostics& diag_;
  ReadCounts& counts_;
  const std::vector<std::string_view> lines_;
  P2pReport report_;
  TableReader table_{source_, diag_, counts_, report_.matrices};
  std::unordered_set<int> device_ids_;
  std::string testcase_;  // from the last `Running X.`
  int64_t testcase_line_ = 0;
  bool testcase_has_matrix_ = true;
  std::string description_;  // the last description line
  int last_matrix_ = -1;     // the matrix a SUM line may belong to
  bool any_sum_ = false;
  bool seen_matrix_ = false;
  int waived_ = 0;
};

}  // namespace

// Output whose testcases were all waived (`Waiving <testcase>.`, each a warning with its name and
// line) or stopped before a matrix still gives its `Device N:` GPUs. Fails as the header says when
// there is neither a matrix nor a Device line.
Result<P2pReport> ParseNvbandwidth(std::string_view text, std::string_view source, Diagnostics& diag,
                                   ReadCounts& counts) {
  if (LooksBinary(text.substr(0, kBinaryProbe))) return RejectBinary(text, source, diag, counts);
  NvbandwidthReader reader(text, source, diag, counts);
  P2pReport report = reader.Run();
  // Every testcase waived or cut short (an ASSERT before its matrix): the GPUs of the Device lines stay.
  if (report.matrices.empty() && !report.devices.empty()) {
    return KeepDeviceList(std::move(report), source,
                          std::to_string(reader.waived()) + " testcase(s) waived and none printed a matrix", diag,
                          counts);
  }
  return ReportOrNoMatrix(std::move(report), text, source,
                          "expected `Running <testcase>.`, a description line, a header of device ids and rows");
}

namespace {

// The CSV `kind` names; "latency" is read as latency_us too.
constexpr NamedValue<P2pQuantity> kKindNames[] = {
    {P2pQuantity::kBandwidthUnidirGbps, "unidir"}, {P2pQuantity::kBandwidthBidirGbps, "bidir"},
    {P2pQuantity::kLatencyUs, "latency_us"}, {P2pQuantity::kConnectivity, "connectivity"},
    {P2pQuantity::kLatencyUs, "latency"}};

const char* KindName(P2pQuantity q) { return NameIn(kKindNames, q, "unidir").data(); }

std::optional<P2pQuantity> ParseKind(std::string_view k) { return ValueIn(kKindNames, k); }

// One long-form group: cells keyed by (src, dst), rows/columns in order of first appearance.
struct LongGroup {
  LongGroup(P2pQuantity q, std::string l) : quantity(q), label(std::move(l)) {}
  P2pQuantity quantity;
  std::string label;
  std::vector<int> rows, cols;
  std::unordered_map<int, size_t> row_index, col_index;
  std::unordered_map<int64_t, double> cells;
};

// Reads a P2P CSV, wide or long form, after its header line.
class P2pCsvReader {
 public:
  P2pCsvReader(std::string_view text, std::string_view source, Diagnostics& diag, ReadCounts& counts)
      : text_(text), source_(source), diag_(diag), counts_(counts), lines_(SplitLines(text)) {}

  Result<P2pReport> Run() {
    report_.tool = P2pTool::kCsv;
    if (!FindHeader()) {
      return NoMatrix(source_, text_.empty() ? "the input is empty" : "the CSV has no header line");
    }
    const bool long_form = head_.size() >= 3 && head_.size() <= 5 && (head_[0] == "src" || head_[0] == "source") &&
                           (head_[1] == "dst" || head_[1] == "destination" || head_[1] == "dest");
    const bool wide_form = !long_form && head_.size() >= 2 && (head_[0].empty() || head_[0] == "src\\dst");
    if (!long_form && !wide_form) return BadHeader("CSV header not recognised");
    return wide_form ? ReadWide() : ReadLong();
  }

 private:
  // The first line that is not blank or a comment; false when there is none.
  bool FindHeader() {
    for (; i_ < lines_.size(); ++i_) {
      const std::string_view t = Trim(lines_[i_]);
      if (t.empty() || t[0] == '#') continue;
      header_ = t;
      header_line_ = static_cast<int64_t>(i_) + 1;
      ++i_;
      break;
    }
    if (header_.empty()) return false;
    for (const auto c : Split(header_, ',')) head_.push_back(ToLowerAscii(Trim(c)));
    return true;
  }

  // The header as one rejected record, and the error.
  Error BadHeader(const std::string& reason) {
    ++counts_.read;
    ++counts_.rejected;
    diag_.Reject(source_, header_line_, header_, reason);
    return NoMatrix(source_,
                    "CSV header must be `src,dst,bandwidth_gbps[,kind[,matrix]]` or "
                    "`,0,1,...` / `src\\dst,0,1,...`");
  }

  // Each data line after the header is a record: `fn(t)` returns "" when it accepts it, else why not.
  template <class Fn>
  void DataLines(Fn&& fn) {
    for (; i_ < lines_.size(); ++i_) {
      const std::string_view t = Trim(lines_[i_]);
      if (t.empty() || t[0] == '#') continue;
      ++counts_.read;
      std::string reason = fn(t);
      if (reason.empty()) {
        ++counts_.accepted;
      } else {
        ++counts_.rejected;
        diag_.Reject(source_, static_cast<int64_t>(i_) + 1, lines_[i_], reason);
      }
    }
  }

  // Wide form: `,0,1,...` and one row per source device.
  Result<P2pReport> ReadWide() {
    std::vector<std::string_view> id_cells;
    for (size_t c = 1; c < head_.size(); ++c) id_cells.push_back(head_[c]);
    std::string reason;
    auto ids = ReadColumnIds(id_cells, reason);
    if (!ids) return BadHeader(reason);
    P2pMatrix m;
    m.col_ids = std::move(*ids);
    std::unordered_set<int> seen;
    DataLines([&](std::string_view t) -> std::string {
      const auto cells = Split(t, ',');
      const std::string_view label = Trim(cells[0]);
      const auto id = ParseDeviceId(label);
      if (!id) return "row label " + QuoteRaw(label) + " is not a device index";
      if (cells.size() - 1 != m.col_ids.size()) {
        return StringPrintf("row %d has %zu values, expected %zu", *id, cells.size() - 1, m.col_ids.size());
      }
      if (seen.count(*id) != 0) return StringPrintf("duplicate row %d", *id);
      std::vector<double> row;
      row.reserve(m.col_ids.size());
      std::string why;
      for (size_t c = 1; c < cells.size(); ++c) {
        const std::string_view cell = Trim(cells[c]);
        if (cell.empty()) {
          row.push_back(NAN);
          continue;
        }
        const auto v = ReadValue(cell, m.quantity, 1.0, why);
        if (!v) return StringPrintf("row %d, column %d: ", *id, m.col_ids[c - 1]) + why;
        row.push_back(*v);
      }
      seen.insert(*id);
      m.row_ids.push_back(*id);
      m.values.push_back(std::move(row));
      return {};
    });
    if (m.values.empty()) {
      diag_.Warn(source_, header_line_, header_, "CSV matrix has no readable rows");
      return NoMatrix(source_, "no data line of the CSV could be read");
    }
    report_.matrices.push_back(std::move(m));
    return std::move(report_);
  }

  // Long form: `src,dst,value[,kind[,matrix]]`, one matrix per (kind, matrix label).
  Result<P2pReport> ReadLong() {
    default_kind_ = P2pQuantity::kBandwidthUnidirGbps;
    if (Contains(head_[2], "latency")) {
      default_kind_ = P2pQuantity::kLatencyUs;
    } else if (Contains(head_[2], "bidir")) {
      default_kind_ = P2pQuantity::kBandwidthBidirGbps;
    } else if (Contains(head_[2], "connect")) {
      default_kind_ = P2pQuantity::kConnectivity;
    }
    if (head_.size() >= 4 && head_[3] != "kind") return BadHeader("4th CSV column must be `kind`");
    if (head_.size() == 5 && head_[4] != "matrix") return BadHeader("5th CSV column must be `matrix`");
    DataLines([&](std::string_view t) { return LongLine(t); });
    for (auto& g : groups_) report_.matrices.push_back(GroupMatrix(g));
    if (report_.matrices.empty()) return NoMatrix(source_, "no data line of the CSV could be read");
    return std::move(report_);
  }

  // One long-form line into its group; "" when accepted, else why not.
  std::string LongLine(std::string_view t) {
    const auto cells = Split(t, ',');
    if (cells.size() != head_.size()) {
      return StringPrintf("line has %zu fields, expected %zu", cells.size(), head_.size());
    }
    const auto src = ParseDeviceId(Trim(cells[0]));
    if (!src) return "src " + QuoteRaw(Trim(cells[0])) + " is not a device index";
    const auto dst = ParseDeviceId(Trim(cells[1]));
    if (!dst) return "dst " + QuoteRaw(Trim(cells[1])) + " is not a device index";
    P2pQuantity kind = default_kind_;
    if (head_.size() >= 4) {
      const std::string_view k = Trim(cells[3]);
      if (!k.empty()) {
        const auto pk = ParseKind(k);
        if (!pk) return "unknown kind " + QuoteRaw(k) + " (unidir|bidir|latency_us|connectivity)";
        kind = *pk;
      }
    }
    const std::string_view label = head_.size() == 5 ? Trim(cells[4]) : std::string_view();
    const std::string_view cell = Trim(cells[2]);
    double value = NAN;
    if (!cell.empty()) {
      std::string why;
      const auto v = ReadValue(cell, kind, 1.0, why);
      if (!v) return StringPrintf("%d->%d: ", *src, *dst) + why;
      value = *v;
    }
    LongGroup* g = GroupOf(kind, label);
    const int64_t key = (static_cast<int64_t>(*src) << 32) | *dst;
    if (!g->cells.emplace(key, value).second) return StringPrintf("duplicate entry %d->%d", *src, *dst);
    if (g->row_index.emplace(*src, g->rows.size()).second) g->rows.push_back(*src);
    if (g->col_index.emplace(*dst, g->cols.size()).second) g->cols.push_back(*dst);
    return {};
  }

  // The group of (kind, label), added when new. Lines of one matrix come together: the last group
  // is tried before the index.
  LongGroup* GroupOf(P2pQuantity kind, std::string_view label) {
    if (last_group_ < groups_.size() && groups_[last_group_].quantity == kind && groups_[last_group_].label == label) {
      return &groups_[last_group_];
    }
    const std::string group_key = std::string(KindName(kind)) + '\x1f' + Str(label);
    const auto [it, added] = group_index_.emplace(group_key, groups_.size());
    if (added) groups_.emplace_back(kind, Str(label));
    last_group_ = it->second;
    return &groups_[last_group_];
  }

  // A group's cells as a matrix; cells never given are NaN.
  static P2pMatrix GroupMatrix(LongGroup& g) {
    P2pMatrix m;
    m.title = g.label;
    m.quantity = g.quantity;
    // A label that names P2P=Disabled (a p2pBandwidthLatencyTest heading) keeps that mode.
    m.p2p_enabled = !Contains(g.label, "P2P=Disabled");
    m.row_ids = g.rows;
    m.col_ids = g.cols;
    m.values.assign(g.rows.size(), std::vector<double>(g.cols.size(), NAN));
    for (const auto& [key, v] : g.cells) {
      const int src = static_cast<int>(key >> 32);
      const int dst = static_cast<int>(key & 0xffffffff);
      m.values[g.row_index[src]][g.col_index[dst]] = v;
    }
    return m;
  }

  std::string_view text_;
  std::string_view source_;
  Diagnostics& diag_;
  ReadCounts& counts_;
  const std::vector<std::string_view> lines_;
  size_t i_ = 0;  // the next line to read
  std::string_view header_;
  int64_t header_line_ = 0;
  std::vector<std::string> head_;  // the header's cells, trimmed and lowered
  P2pReport report_;
  P2pQuantity default_kind_ = P2pQuantity::kBandwidthUnidirGbps;
  std::vector<LongGroup> groups_;
  std::unordered_map<std::string, size_t> group_index_;
  size_t last_group_ = SIZE_MAX;
};

}  // namespace

Result<P2pReport> ParseP2pCsv(std::string_view text, std::string_view source, Diagnostics& diag, ReadCounts& counts) {
  if (LooksBinary(text.substr(0, kBinaryProbe))) return RejectBinary(text, source, diag, counts);
  return P2pCsvReader(text, source, diag, counts).Run();
}

// =============================================================================================
// Writers.

namespace {

std::string P2pTitleFor(const P2pMatrix& m) {
  // Keep the printed title when it reads back the same way and cannot be mistaken for a row.
  const std::string_view t = m.title;
  if (!t.empty() && Trim(t) == t && !HasControlChars(t) && IsP2pTitle(t)) {
    const auto tokens = SplitWhitespace(t);
    const P2pTitle c = ClassifyP2pTitle(t);
    // Right after a table's rows, "<word> 1.0 2.0" would read as a row with a bad label.
    bool numbers_only = tokens.size() >= 2;
    for (size_t i = 1; i < tokens.size(); ++i) {
      numbers_only = numbers_only && (IsNa(tokens[i]) || ParseDouble(tokens[i]).has_value());
    }
    if (!ParseInt(tokens[0]) && !IsP2pHeaderWord(tokens[0]) && !StartsWith(t, "Device:") && !numbers_only &&
        c.quantity == m.quantity && c.p2p_enabled == m.p2p_enabled) {
      return std::string(t);
    }
  }
  switch (m.quantity) {
    case P2pQuantity::kConnectivity:
      return m.p2p_enabled ? "P2P Connectivity Matrix" : "P2P=Disabled Connectivity Matrix";
    case P2pQuantity::kBandwidthBidirGbps:
      return m.p2p_enabled ? "Bidirectional P2P=Enabled Bandwidth Matrix (GB/s)"
                           : "Bidirectional P2P=Disabled Bandwidth Matrix (GB/s)";
    case P2pQuantity::kLatencyUs:
      return m.p2p_enabled ? "P2P=Enabled Latency (P2P Writes) Matrix (us)"
                           : "P2P=Disabled Latency Matrix (us)";
    default:
      return m.p2p_enabled ? "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)"
                           : "Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)";
  }
}

std::string NvTestcaseFor(const P2pMatrix& m) {
  if (!m.testcase.empty() && Trim(m.testcase) == m.testcase && !HasControlChars(m.testcase)) {
    return m.testcase;
  }
  switch (m.quantity) {
    case P2pQuantity::kConnectivity:
      return "device_peer_access";
    case P2pQuantity::kLatencyUs:
      return m.gpu_to_gpu ? "device_to_device_latency" : "host_device_latency";
    case P2pQuantity::kBandwidthBidirGbps:
      return m.gpu_to_gpu ? "device_to_device_bidirectional_memcpy_ce"
                          : "host_to_device_bidirectional_memcpy_ce";
    default:
      return m.gpu_to_gpu ? "device_to_device_memcpy_read_ce" : "host_to_device_memcpy_ce";
  }
}

std::string NvDescriptionFor(const P2pMatrix& m, const std::string& testcase) {
  const std::string_view d = m.description;
  if (!d.empty() && Trim(d) == d && !HasControlChars(d) && IsNvDescription(d)) {
    const NvDescription c = ClassifyNvDescription(d);
    if (c.quantity == m.quantity && c.gpu_to_gpu == m.gpu_to_gpu && c.scale == 1.0) {
      return std::string(d);
    }
  }
  const char* rows = m.gpu_to_gpu ? "GPU(row)" : "CPU(row)";
  switch (m.quantity) {
    case P2pQuantity::kConnectivity:
      return std::string("peer access ") + rows + " -> GPU(column) (1 = yes)";
    case P2pQuantity::kLatencyUs:
      return std::string("memory latency SM ") + rows + " <-> GPU(column) (us)";
    default:
      break;
  }
  const bool bidir = m.quantity == P2pQuantity::kBandwidthBidirGbps;
  if (!m.gpu_to_gpu && !bidir && Contains(testcase, "local")) {
    return "memcpy local GPU(column) bandwidth (GB/s)";
  }
  const char* engine = Contains(testcase, "_sm") ? "SM" : "CE";
  const char* arrow = bidir                                                             ? "<->"
                      : (Contains(testcase, "write") || Contains(testcase, "_to_host")) ? "<-"
                                                                                        : "->";
  return StringPrintf("memcpy %s %s %s GPU(column) bandwidth (GB/s)", engine, rows, arrow);
}

int Digits(int v) {
  int d = 1;
  while (v >= 10) {
    v /= 10;
    ++d;
  }
  return d;
}

// Free text for a writer: control bytes (which would make the output look binary) become '?'.
std::string Clean(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) c = '?';
  }
  return out;
}

std::string CsvSafe(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == ',' || c == 0x7f) c = ' ';
  }
  return Str(Trim(out));
}

}  // namespace

std::string WriteNvbandwidth(const P2pReport& report) {
  std::string out;
  // The layout is v0.8's (N/A diagonals, SUM lines): never claim an older version.
  const bool printable =
      !report.version.empty() && Trim(report.version) == report.version && !HasControlChars(report.version);
  const std::string version =
      printable && !IsBeforeV02(report.version) ? report.version : std::string("v0.8");
  out += "nvbandwidth Version: " + version + "\n";
  out += "Built from Git version: " + (report.git_version.empty() ? version : Clean(report.git_version)) +
         "\n\n";
  bool any_cuda = false;
  if (!report.cuda_runtime_version.empty()) {
    out += "CUDA Runtime Version: " + Clean(report.cuda_runtime_version) + "\n";
    any_cuda = true;
  }
  if (!report.cuda_driver_version.empty()) {
    out += "CUDA Driver Version: " + Clean(report.cuda_driver_version) + "\n";
    any_cuda = true;
  }
  if (!report.driver_version.empty()) {
    out += "Driver Version: " + Clean(report.driver_version) + "\n";
    any_cuda = true;
  }
  if (any_cuda) out += "\n";
  if (!report.devices.empty()) {
    if (IsHostnameToken(report.hostname)) out += report.hostname + "\n";
    for (const auto& d : report.devices) {
      out += "Device " + std::to_string(d.index) + ": " + Clean(d.name);
      if (!d.pci_bus_id.empty()) out += (d.name.empty() ? "(" : " (") + Clean(d.pci_bus_id) + ")";
      out += "\n";
    }
    out += "\n";
  }
  for (const auto& m : report.matrices) {
    const std::string testcase = NvTestcaseFor(m);
    out += "Running " + testcase + ".\n";
    out += NvDescriptionFor(m, testcase) + "\n";
    int width = 2;
    for (const int r : m.row_ids) width = std::max(width, Digits(r));
    out.append(static_cast<size_t>(width), ' ');
    for (const int c : m.col_ids) AppendInt(out, c, 10);
    out += "\n";
    for (size_t r = 0; r < m.row_ids.size(); ++r) {
      AppendInt(out, m.row_ids[r], width);
      for (size_t c = 0; c < m.col_ids.size(); ++c) {
        const double v = c < m.values[r].size() ? m.values[r][c] : NAN;
        if (std::isnan(v)) {
          out += "       N/A";
        } else {
          if (v >= 999999.995) out += ' ';  // keep values wider than the column apart
          AppendFixed2(out, v, 10);
        }
      }
      out += "\n";
    }
    out += "\n";
    if (!std::isnan(m.sum)) out += "SUM " + testcase + " " + Fixed2(m.sum) + "\n\n";
  }
  out +=
      "NOTE: The reported results may not reflect the full capabilities of the platform.\n"
      "Performance can vary with software drivers, hardware clocks, and system topology.\n\n";
  return out;
}

std::string WriteP2pBandwidthLatencyTest(const P2pReport& report) {
  std::string out = "[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]\n";
  for (const auto& d : report.devices) {
    out += "Device: " + std::to_string(d.index) + ", " + Clean(d.name);
    if (!d.pci_bus_id.empty()) {
      // The bus id as read ("b4"; an nvbandwidth "00000000:18:00" is kept whole, not split).
      out += ", pciBusID: " + Clean(d.pci_bus_id) + ", pciDeviceID: 0, pciDomainID:0";
    }
    out += "\n";
  }
  // The peer access lines, from the connectivity matrix when there is one.
  for (const auto& m : report.matrices) {
    if (m.quantity != P2pQuantity::kConnectivity) continue;
    for (size_t r = 0; r < m.row_ids.size(); ++r) {
      for (size_t c = 0; c < m.col_ids.size() && c < m.values[r].size(); ++c) {
        if (m.row_ids[r] == m.col_ids[c] || std::isnan(m.values[r][c])) continue;
        out += StringPrintf("Device=%d %s Access Peer Device=%d\n", m.row_ids[r],
                      m.values[r][c] != 0 ? "CAN" : "CANNOT", m.col_ids[c]);
      }
    }
    break;
  }
  out +=
      "\n***NOTE: In case a device doesn't have P2P access to other one, it falls back to normal "
      "memcopy procedure.\nSo you can see lesser Bandwidth (GB/s) and unstable Latency (us) in "
      "those cases.\n\n";
  std::string prev_title;
  bool prev_gpu_latency = false;
  for (const auto& m : report.matrices) {
    const std::string title = P2pTitleFor(m);
    const bool latency = m.quantity == P2pQuantity::kLatencyUs;
    if (latency && !m.gpu_to_gpu && prev_gpu_latency && title == prev_title) {
      out += "\n";  // the CPU sub-table under the same title
    } else {
      out += title + "\n";
    }
    prev_title = title;
    prev_gpu_latency = latency && m.gpu_to_gpu;
    if (m.quantity == P2pQuantity::kConnectivity) {
      out += m.gpu_to_gpu ? "     D\\D" : "     CPU";
      for (const int c : m.col_ids) AppendInt(out, c, 6);
      out += "\n";
      for (size_t r = 0; r < m.row_ids.size(); ++r) {
        AppendInt(out, m.row_ids[r], 6);
        out += '\t';
        for (size_t c = 0; c < m.col_ids.size(); ++c) {
          const double v = c < m.values[r].size() ? m.values[r][c] : NAN;
          out += std::isnan(v) ? "   N/A" : v != 0 ? "     1" : "     0";
        }
        out += "\n";
      }
      continue;
    }
    out += !m.gpu_to_gpu ? "   CPU" : latency ? "   GPU" : "   D\\D";
    for (const int c : m.col_ids) {
      AppendInt(out, c, 6);
      out += ' ';
    }
    out += "\n";
    for (size_t r = 0; r < m.row_ids.size(); ++r) {
      AppendInt(out, m.row_ids[r], 6);
      out += ' ';
      for (size_t c = 0; c < m.col_ids.size(); ++c) {
        const double v = c < m.values[r].size() ? m.values[r][c] : NAN;
        if (std::isnan(v)) {
          out += "   N/A";
        } else {
          AppendFixed2(out, v, 6);
        }
        out += ' ';
      }
      out += "\n";
    }
  }
  out +=
      "\nNOTE: The CUDA Samples are not meant for performance measurements. Results may vary when "
      "GPU Boost is enabled.\n";
  return out;
}

std::string WriteP2pCsv(const P2pReport& report) {
  std::string out =
      "# toposcope p2p matrix, long form: one line per (src, dst) cell; kind = "
      "unidir|bidir|latency_us|connectivity; N/A = not measured\n"
      "src,dst,bandwidth_gbps,kind,matrix\n";
  std::unordered_set<std::string> used;  // kind + '\x1f' + label
  const auto key = [](P2pQuantity q, const std::string& l) {
    std::string k = KindName(q);
    k += '\x1f';
    k += l;
    return k;
  };
  for (const auto& m : report.matrices) {
    // A label unique per kind, so that matrices stay apart when read back.
    std::string label = CsvSafe(m.title);
    if (used.count(key(m.quantity, label)) != 0 && !m.gpu_to_gpu) {
      label = CsvSafe(label + " (CPU)");
    }
    if (used.count(key(m.quantity, label)) != 0) {
      const std::string base = label;
      for (int n = 2; used.count(key(m.quantity, label)) != 0; ++n) {
        label = base;
        label += " #";
        label += std::to_string(n);
        label = CsvSafe(label);
      }
    }
    used.insert(key(m.quantity, label));
    const char* kind = KindName(m.quantity);
    for (size_t r = 0; r < m.row_ids.size(); ++r) {
      for (size_t c = 0; c < m.col_ids.size(); ++c) {
        const double v = c < m.values[r].size() ? m.values[r][c] : NAN;
        AppendInt(out, m.row_ids[r]);
        out += ',';
        AppendInt(out, m.col_ids[c]);
        out += ',';
        if (std::isnan(v)) {
          out += "N/A";
        } else {
          AppendFixed2(out, v);
        }
        out += ',';
        out += kind;
        out += ',';
        out += label;
        out += '\n';
      }
    }
  }
  return out;
}

}  // namespace toposcope::formats
