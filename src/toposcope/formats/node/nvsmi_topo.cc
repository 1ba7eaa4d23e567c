#include "toposcope/formats/node/nvsmi_topo.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "toposcope/base/link_type.h"
#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

// A header naming more devices than this is not taken as a header (the matrix is N x N strings).
constexpr size_t kMaxDevices = 256;
// Largest NUMA node id accepted in the affinity columns.
constexpr int64_t kMaxNumaId = 1 << 20;

// -p2p cells; newer drivers add DR (disabled by regkey), as in club-3090 issue #1229 (testdata/real).
constexpr std::array<std::string_view, 7> kP2pValues = {"OK", "CNS", "GNS", "TNS", "NS", "DR", "U"};
constexpr std::array<std::string_view, 5> kPcieValues = {"PIX", "PXB", "PHB", "NODE", "SYS"};

// Legend keys with the text nvidia-smi prints for them, in its order.
struct LegendEntry {
  std::string_view key;
  std::string_view text;
};
constexpr std::array<LegendEntry, 7> kTopoLegend = {{
    {"X", "Self"},
    {"SYS", "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)"},
    {"NODE",
     "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node"},
    {"PHB", "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"},
    {"PXB", "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"},
    {"PIX", "Connection traversing at most a single PCIe bridge"},
    {"NV#", "Connection traversing a bonded set of # NVLinks"},
}};
constexpr std::array<LegendEntry, 8> kP2pLegend = {{
    {"X", "Self"},
    {"OK", "Status Ok"},
    {"CNS", "Chipset not supported"},
    {"GNS", "GPU not supported"},
    {"TNS", "Topology not supported"},
    {"NS", "Not supported"},
    {"DR", "Disabled by regkey"},
    {"U", "Unknown"},
}};

// The affinity columns that may follow the device columns.
enum class ColumnKind { kCpuAffinity, kNumaAffinity, kGpuNumaId, kUnknown };

template <size_t N>
bool OneOf(std::string_view s, const std::array<std::string_view, N>& values) {
  return std::find(values.begin(), values.end(), s) != values.end();
}

// "PREFIX" followed by 1-6 decimal digits.
bool IsPrefixedIndex(std::string_view s, std::string_view prefix) {
  return StartsWith(s, prefix) && s.size() > prefix.size() && s.size() <= prefix.size() + 6 &&
         AllDigits(s.substr(prefix.size()));
}

bool IsGpuLabel(std::string_view s) { return IsPrefixedIndex(s, "GPU"); }

// A NIC device name as older drivers print it in place of NICn: lower case, with a digit
// ("mlx5_0", "mlx5_bond_0", "bnxt_re0", "irdma1").
bool IsNicDeviceName(std::string_view s) {
  if (s.empty() || s.size() > 64 || s[0] < 'a' || s[0] > 'z') return false;
  bool digit = false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.';
    if (!ok) return false;
    digit = digit || (c >= '0' && c <= '9');
  }
  return digit;
}

bool IsDeviceLabel(std::string_view s) {
  return IsGpuLabel(s) || IsPrefixedIndex(s, "NIC") || IsNicDeviceName(s);
}

// "NV" followed by a lane count in plain decimal, as ParseNvsmiCell understands it.
bool IsNvCell(std::string_view s) {
  if (!StartsWith(s, "NV") || s.size() > 6 || !AllDigits(s.substr(2))) return false;
  const auto c = ParseNvsmiCell(s);
  return c.has_value() && c->type == LinkType::kNvlink;
}

bool IsTopoCell(std::string_view s) { return IsNvCell(s) || OneOf(s, kPcieValues); }

struct Header {
  std::vector<std::string_view> labels;
  std::vector<ColumnKind> columns;         // affinity columns in header order
  std::vector<std::string> unknown_words;  // header words we do not know (warned about)
};

// Tries to read a header line: device labels, then the affinity column names. Returns nullopt
// (with `why` set when the line came close) if the line is not a header.
std::optional<Header> ParseHeader(std::string_view line, std::string& why) {
  const std::vector<std::string_view> words = SplitWhitespace(line);
  if (words.empty()) return std::nullopt;
  const std::string_view first = words[0];
  if (!IsGpuLabel(first) && !IsPrefixedIndex(first, "NIC") && !StartsWith(first, "mlx")) return std::nullopt;
  if (!IsDeviceLabel(first)) return std::nullopt;
  Header h;
  size_t i = 0;
  while (i < words.size() && IsDeviceLabel(words[i])) h.labels.push_back(words[i++]);
  // The rest must be column names; a cell value means this is a matrix row, not a header.
  while (i < words.size()) {
    const std::string_view w = words[i];
    auto next_is = [&](size_t k, std::string_view s) { return i + k < words.size() && words[i + k] == s; };
    if (w == "CPU" && next_is(1, "Affinity")) {
      h.columns.push_back(ColumnKind::kCpuAffinity);
      i += 2;
    } else if (w == "NUMA" && next_is(1, "Affinity")) {
      h.columns.push_back(ColumnKind::kNumaAffinity);
      i += 2;
    } else if (w == "GPU" && next_is(1, "NUMA") && next_is(2, "ID")) {
      h.columns.push_back(ColumnKind::kGpuNumaId);
      i += 3;
    } else if (w == "X" || IsTopoCell(w) || OneOf(w, kP2pValues) || w.size() > 32 || w[0] < 'A' ||
               w[0] > 'Z' || !std::all_of(w.begin(), w.end(), [](char c) {
                 return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
               })) {
      return std::nullopt;
    } else {
      h.columns.push_back(ColumnKind::kUnknown);
      h.unknown_words.emplace_back(w);
      ++i;
    }
  }
  if (h.labels.size() > kMaxDevices) {
    why = Cat({"a header-like line names ", std::to_string(h.labels.size()), " devices, more than ",
               std::to_string(kMaxDevices)});
    return std::nullopt;
  }
  std::vector<std::string_view> sorted = h.labels;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    why = "a header-like line repeats a device label";
    return std::nullopt;
  }
  return h;
}

// A matrix row as found in the text, validated once the matrix kind is known.
struct RowLine {
  int64_t line_no = 0;
  std::string_view raw;
  std::vector<std::string_view> tokens;
};

// Parses a NUMA id column value: an id, or -1 for N/A. nullopt when it is neither.
std::optional<int> ParseNumaValue(std::string_view s) {
  if (s == "N/A") return -1;
  if (!AllDigits(s)) return std::nullopt;
  const auto v = ParseInt(s);
  if (!v || *v > kMaxNumaId) return std::nullopt;
  return static_cast<int>(*v);
}

bool IsCpuList(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return (c >= '0' && c <= '9') || c == ',' || c == '-'; });
}

// The cells a matrix of `kind` may hold, for a diagnostic.
std::string ExpectedCells(NvsmiMatrixKind kind) {
  static constexpr NamedValue<NvsmiMatrixKind> kCells[] = {
      {NvsmiMatrixKind::kP2p, "OK, NS, CNS, GNS, TNS, DR or U"},
      {NvsmiMatrixKind::kPcieOnly, "PIX, PXB, PHB, NODE or SYS"}};
  return std::string(NameIn(kCells, kind, "NV#, PIX, PXB, PHB, NODE or SYS"));
}

bool ValidCell(NvsmiMatrixKind kind, std::string_view cell) {
  switch (kind) {
    case NvsmiMatrixKind::kP2p:
      return OneOf(cell, kP2pValues);
    case NvsmiMatrixKind::kPcieOnly:
      return OneOf(cell, kPcieValues);
    case NvsmiMatrixKind::kTopo:
      break;
  }
  return IsTopoCell(cell);
}

std::string Quoted(std::string_view s) { return Cat({"'", ClipRaw(s, 40), "'"}); }

class Parser {
 public:
  Parser(std::string_view source, Diagnostics& diag, ReadCounts& counts)
      : source_(source), diag_(diag), counts_(counts) {}

  Result<NvsmiTopo> Run(std::string_view text);

 private:
  void Collect(std::string_view line, int64_t line_no);
  void DetectKind();
  // Checks one row; returns the reason it is rejected, or empty when it was stored.
  std::string AddRow(const RowLine& row);
  void SetAffinity(NvsmiDevice& dev, ColumnKind column, std::string_view value, const RowLine& row);
  void WarnNicsWithoutLegend();

  std::string_view source_;
  Diagnostics& diag_;
  ReadCounts& counts_;
  Header header_;
  NvsmiTopo topo_;
  std::unordered_map<std::string_view, size_t> index_;
  std::vector<RowLine> rows_;
  // NIC Legend entries (`NIC0: mlx5_0`): line, NIC label, device name.
  std::vector<std::tuple<int64_t, std::string_view, std::string_view>> nic_legend_;
  std::vector<int64_t> row_line_;  // line of each device's accepted row
  bool in_matrix_ = true;
  bool blank_since_row_ = false;
  int64_t header_line_ = 0;
  // A second output pasted after the first (`topo -m` then `topo -p2p`): its header's line and its
  // rows, which are rejected (one matrix per file is read) rather than read into the first.
  int64_t second_header_line_ = 0;
  std::vector<RowLine> second_rows_;
};

Result<NvsmiTopo> Parser::Run(std::string_view text) {
  std::string stripped;
  if (text.find('\x1b') != std::string_view::npos) {
    stripped = StripAnsi(text);
    text = stripped;
  }
  bool have_header = false;
  std::string near_miss;
  TextLines lines(text);
  std::string_view line;
  while (lines.Next(&line)) {
    const int64_t line_no = lines.line_number();
    if (have_header) {
      Collect(line, line_no);
      continue;
    }
    std::string why;
    auto h = ParseHeader(line, why);
    if (!h) {
      if (near_miss.empty() && !why.empty()) near_miss = Cat({"line ", std::to_string(line_no), ": ", why});
      continue;
    }
    header_ = std::move(*h);
    header_line_ = line_no;
    have_header = true;
    for (const std::string& w : header_.unknown_words) {
      diag_.Warn(source_, line_no, line, Cat({"unknown header column '", w, "' ignored"}));
    }
  }
  if (!have_header) {
    std::string hint = near_miss;
    if (hint.empty()) {
      hint = LooksBinary(text) ? "the input looks binary"
                               : "expected the output of `nvidia-smi topo -m`, -mp or -p2p";
    }
    return MakeError(std::string(source_), 0, 0,
                     "no nvidia-smi topo header (a line of GPU0/NIC0/mlx5_0 column labels)", hint);
  }

  const size_t n = header_.labels.size();
  topo_.devices.resize(n);
  topo_.cells.assign(n, std::vector<std::string>(n));
  row_line_.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    NvsmiDevice& d = topo_.devices[i];
    d.label = std::string(header_.labels[i]);
    index_.emplace(header_.labels[i], i);
    if (IsGpuLabel(d.label)) {
      d.kind = NvsmiDeviceKind::kGpu;
      d.gpu_index = static_cast<int>(ParseInt(std::string_view(d.label).substr(3)).value_or(-1));
    } else {
      d.kind = NvsmiDeviceKind::kNic;
      if (!IsPrefixedIndex(d.label, "NIC")) d.nic_device = d.label;
    }
  }
  // NIC Legend entries, kept until now because they follow the matrix.
  for (const auto& [nic_line, nic, dev] : nic_legend_) {
    auto it = index_.find(nic);
    if (it == index_.end() || topo_.devices[it->second].kind != NvsmiDeviceKind::kNic) {
      diag_.Warn(source_, nic_line, Cat({nic, ": ", dev}),
                 "NIC Legend entry for a NIC that is not a header column");
      continue;
    }
    topo_.devices[it->second].nic_device = std::string(dev);
  }
  WarnNicsWithoutLegend();

  DetectKind();
  for (const RowLine& row : rows_) {
    ++counts_.read;
    const std::string reason = AddRow(row);
    if (reason.empty()) {
      ++counts_.accepted;
    } else {
      ++counts_.rejected;
      diag_.Reject(source_, row.line_no, row.raw, reason);
    }
  }
  for (const RowLine& row : second_rows_) {
    ++counts_.read;
    ++counts_.rejected;
    diag_.Reject(source_, row.line_no, row.raw,
                 Cat({"row of a second nvidia-smi topo matrix (header at line ", std::to_string(second_header_line_),
                      "): one matrix per file is read; split the file to read this one"}));
  }
  if (rows_.empty()) diag_.Warn(source_, 0, "", "nvidia-smi topo header without any matrix row");
  return std::move(topo_);
}

// One warning naming the NIC columns that have neither a device name nor a NIC Legend entry: they
// keep their header labels (NvsmiNicName), so that no two of them merge.
void Parser::WarnNicsWithoutLegend() {
  std::string labels;
  size_t count = 0;
  for (const NvsmiDevice& d : topo_.devices) {
    if (d.kind != NvsmiDeviceKind::kNic || !d.nic_device.empty()) continue;
    if (count++ < 4) labels += Cat({labels.empty() ? "" : ", ", d.label});
  }
  if (count == 0) return;
  if (count > 4) labels += ", ...";
  diag_.Warn(source_, header_line_, "",
             Cat({std::to_string(count), " NIC column(s) without a NIC Legend entry (", labels,
                  "): each NIC keeps its header label as its name"}));
}

// Sorts one line after the header: matrix row, legend entry, NIC Legend entry or other text.
void Parser::Collect(std::string_view line, int64_t line_no) {
  const std::string_view t = Trim(line);
  if (t.empty()) {
    blank_since_row_ = true;
    return;
  }
  if (t == "Legend:" || t == "NIC Legend:") {
    in_matrix_ = false;
    return;
  }
  if (!in_matrix_ && second_header_line_ == 0) {
    std::string why;
    if (ParseHeader(line, why)) {
      second_header_line_ = line_no;
      return;
    }
  }
  if (second_header_line_ != 0) {  // the second output: its rows are kept to be rejected, its legend ignored
    const std::vector<std::string_view> tokens = SplitWhitespace(t);
    if (IsDeviceLabel(tokens[0]) && t.find('=') == std::string_view::npos) second_rows_.push_back({line_no, line, tokens});
    return;
  }
  // Legend entry: `KEY = text`.
  const size_t eq = t.find('=');
  if (eq != std::string_view::npos) {
    const std::string_view key = Trim(t.substr(0, eq));
    if (key == "X" || key == "NV#" || OneOf(key, kPcieValues) || OneOf(key, kP2pValues)) {
      if (std::find(topo_.legend_keys.begin(), topo_.legend_keys.end(), key) == topo_.legend_keys.end()) {
        topo_.legend_keys.emplace_back(key);
      }
      return;
    }
  }
  // NIC Legend entry: `NICn: device`.
  const size_t colon = t.find(':');
  if (colon != std::string_view::npos && IsPrefixedIndex(Trim(t.substr(0, colon)), "NIC")) {
    const std::string_view dev = Trim(t.substr(colon + 1));
    if (!dev.empty() && SplitWhitespace(dev).size() == 1) {
      nic_legend_.emplace_back(line_no, Trim(t.substr(0, colon)), dev);
      return;
    }
  }
  if (!in_matrix_) return;
  std::vector<std::string_view> tokens = SplitWhitespace(t);
  // After a blank line, text that does not start with a device label ends the matrix.
  if (blank_since_row_ && !IsDeviceLabel(tokens[0])) {
    in_matrix_ = false;
    return;
  }
  blank_since_row_ = false;
  rows_.push_back({line_no, line, std::move(tokens)});
}

// kP2p when any cell has a -p2p value, or when no cell has a topo value and the legend has a -p2p
// key; else kPcieOnly when neither the cells nor the legend have NV#; else kTopo.
void Parser::DetectKind() {
  const size_t n = header_.labels.size();
  bool p2p = false;
  bool topo_cells = false;
  bool nv = false;
  for (const RowLine& row : rows_) {
    for (size_t c = 1; c < row.tokens.size() && c <= n; ++c) {
      p2p = p2p || OneOf(row.tokens[c], kP2pValues);
      topo_cells = topo_cells || IsTopoCell(row.tokens[c]);
      nv = nv || IsNvCell(row.tokens[c]);
    }
  }
  for (const std::string& k : topo_.legend_keys) {
    p2p = p2p || (!topo_cells && OneOf(std::string_view(k), kP2pValues));
    nv = nv || k == "NV#";
  }
  topo_.kind = p2p ? NvsmiMatrixKind::kP2p : (nv ? NvsmiMatrixKind::kTopo : NvsmiMatrixKind::kPcieOnly);
}

std::string Parser::AddRow(const RowLine& row) {
  const size_t n = header_.labels.size();
  const std::string_view label = row.tokens[0];
  auto it = index_.find(label);
  if (it == index_.end()) return Cat({"unknown row label ", Quoted(label), " (not a header column)"});
  const size_t r = it->second;
  if (topo_.devices[r].has_row) {
    return Cat({"duplicate row for ", label, " (first at line ", std::to_string(row_line_[r]), ")"});
  }
  const size_t fields = row.tokens.size() - 1;
  if (fields < n) {
    return Cat(
        {"row has ", std::to_string(fields), " cells, the header has ", std::to_string(n), " devices"});
  }
  for (size_t c = 0; c < n; ++c) {
    const std::string_view cell = row.tokens[1 + c];
    const std::string& col = topo_.devices[c].label;
    if (c == r) {
      if (cell != "X") return Cat({"diagonal cell for ", col, " is ", Quoted(cell), ", expected X"});
      continue;
    }
    if (cell == "X") return Cat({"'X' (self) off the diagonal, in column ", col});
    if (ValidCell(topo_.kind, cell)) continue;
    if (cell == "N/A" || (cell[0] >= '0' && cell[0] <= '9')) {
      return Cat({"row has fewer cells than the header's ", std::to_string(n), " devices (the cell for ", col,
                  " is the affinity value ", Quoted(cell), ")"});
    }
    return Cat(
        {"bad cell value ", Quoted(cell), " in column ", col, " (expected ", ExpectedCells(topo_.kind), ")"});
  }
  const size_t extra = fields - n;
  if (extra > header_.columns.size()) {
    return Cat({"row has ", std::to_string(extra), " values after its ", std::to_string(n),
                " cells, the header has ", std::to_string(header_.columns.size()), " affinity columns"});
  }
  NvsmiDevice& dev = topo_.devices[r];
  for (size_t k = 0; k < extra; ++k) SetAffinity(dev, header_.columns[k], row.tokens[1 + n + k], row);
  for (size_t c = 0; c < n; ++c) topo_.cells[r][c] = std::string(row.tokens[1 + c]);
  dev.has_row = true;
  row_line_[r] = row.line_no;
  return {};
}

// Stores one affinity value; a value that cannot be read is warned about and left unset.
void Parser::SetAffinity(NvsmiDevice& dev, ColumnKind column, std::string_view value, const RowLine& row) {
  switch (column) {
    case ColumnKind::kCpuAffinity:
      if (value == "N/A") return;
      if (IsCpuList(value)) {
        dev.cpu_affinity = std::string(value);
      } else {
        diag_.Warn(source_, row.line_no, row.raw, Cat({"bad CPU Affinity ", Quoted(value), " ignored"}));
      }
      return;
    case ColumnKind::kNumaAffinity:
    case ColumnKind::kGpuNumaId: {
      const auto v = ParseNumaValue(value);
      const char* name = column == ColumnKind::kNumaAffinity ? "NUMA Affinity" : "GPU NUMA ID";
      if (!v) {
        diag_.Warn(source_, row.line_no, row.raw, Cat({"bad ", name, " ", Quoted(value), " ignored"}));
      } else if (column == ColumnKind::kNumaAffinity) {
        dev.numa_affinity = *v;
      } else {
        dev.gpu_numa_id = *v;
      }
      return;
    }
    case ColumnKind::kUnknown:
      return;
  }
}

// The legend keys to write: the parsed ones (or the standard legend when there are none), made
// consistent with the kind so that a re-parse detects the same kind.
std::vector<std::string> LegendToWrite(const NvsmiTopo& topo) {
  std::vector<std::string> keys = topo.legend_keys;
  const bool p2p = topo.kind == NvsmiMatrixKind::kP2p;
  auto standard_if_empty = [&] {
    if (!keys.empty()) return;
    const std::span<const LegendEntry> standard = p2p ? std::span<const LegendEntry>(kP2pLegend)
                                                      : std::span<const LegendEntry>(kTopoLegend);
    for (const auto& e : standard) {
      if (topo.kind == NvsmiMatrixKind::kPcieOnly && e.key == "NV#") continue;
      keys.emplace_back(e.key);
    }
  };
  standard_if_empty();
  auto has = [&](std::string_view k) { return std::find(keys.begin(), keys.end(), k) != keys.end(); };
  if (p2p) {
    if (std::none_of(keys.begin(), keys.end(),
                     [](const std::string& k) { return OneOf(std::string_view(k), kP2pValues); })) {
      for (const auto& e : kP2pLegend) {
        if (e.key != "X") keys.emplace_back(e.key);
      }
    }
    return keys;
  }
  std::erase_if(keys, [&](const std::string& k) {
    return OneOf(std::string_view(k), kP2pValues) || (topo.kind == NvsmiMatrixKind::kPcieOnly && k == "NV#");
  });
  // A legend of P2P keys only in a topology matrix leaves nothing: write the standard one, as a
  // re-parse of an empty legend would.
  standard_if_empty();
  if (topo.kind == NvsmiMatrixKind::kTopo && !has("NV#")) keys.emplace_back("NV#");
  return keys;
}

std::string_view LegendText(std::string_view key) {
  for (const auto& e : kTopoLegend) {
    if (e.key == key) return e.text;
  }
  for (const auto& e : kP2pLegend) {
    if (e.key == key) return e.text;
  }
  return "";
}

bool HasWhitespace(std::string_view s) {
  return std::any_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; });
}

bool HasAffinity(const NvsmiDevice& d) {
  return !d.cpu_affinity.empty() || d.numa_affinity >= 0 || d.gpu_numa_id >= 0;
}

std::string NumaText(int v) { return v >= 0 ? std::to_string(v) : "N/A"; }

}  // namespace

Result<NvsmiTopo> ParseNvsmiTopo(std::string_view text, std::string_view source, Diagnostics& diag,
                                 ReadCounts& counts) {
  try {
    Parser parser(source, diag, counts);
    return parser.Run(text);
  } catch (const std::exception& e) {
    return MakeError(std::string(source), 0, 0, Cat({"nvidia-smi topo reader failed: ", e.what()}));
  }
}

std::string NvsmiNicName(const NvsmiDevice& device) {
  return device.nic_device.empty() ? device.label : device.nic_device;
}

std::string WriteNvsmiTopo(const NvsmiTopo& topo) {
  const size_t n = topo.devices.size();
  // Labels: GPUs keep theirs, NICs are numbered NIC0.. in column order as driver 550 prints them.
  std::vector<std::string> labels(n);
  int gpus = 0;
  int nics = 0;
  bool any_nic = false;
  for (size_t i = 0; i < n; ++i) {
    const NvsmiDevice& d = topo.devices[i];
    if (d.kind == NvsmiDeviceKind::kNic) {
      labels[i] = Cat({"NIC", std::to_string(nics++)});
      any_nic = true;
    } else {
      labels[i] =
          IsGpuLabel(d.label) ? d.label : Cat({"GPU", std::to_string(d.gpu_index >= 0 ? d.gpu_index : gpus)});
      ++gpus;
    }
  }
  const bool affinity = topo.kind != NvsmiMatrixKind::kP2p ||
                        std::any_of(topo.devices.begin(), topo.devices.end(), HasAffinity);

  std::string out;
  for (const std::string& l : labels) out += Cat({"\t", l});
  if (affinity) out += "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID";
  out += "\n";
  for (size_t r = 0; r < n; ++r) {
    const NvsmiDevice& d = topo.devices[r];
    if (!d.has_row) continue;
    out += labels[r];
    for (size_t c = 0; c < n; ++c) {
      out += '\t';
      if (c == r) {
        out += " X ";
        continue;
      }
      const std::string* cell =
          r < topo.cells.size() && c < topo.cells[r].size() ? &topo.cells[r][c] : nullptr;
      // A missing or blank cell would shift the columns; '?' keeps them and is rejected on read.
      out += cell == nullptr || cell->empty() || HasWhitespace(*cell) ? std::string("?") : *cell;
    }
    if (affinity && (d.kind == NvsmiDeviceKind::kGpu || HasAffinity(d))) {
      const bool cpu_ok = !d.cpu_affinity.empty() && IsCpuList(d.cpu_affinity);
      out += '\t';
      out += cpu_ok ? d.cpu_affinity : "N/A";
      out += Cat({"\t", NumaText(d.numa_affinity), "\t\t", NumaText(d.gpu_numa_id)});
    }
    out += '\n';
  }
  out += "\nLegend:\n\n";
  for (const std::string& key : LegendToWrite(topo)) {
    std::string k = Cat({"  ", key});
    k.resize(std::max<size_t>(k.size(), 6), ' ');
    out += Cat({k, " = ", LegendText(key), "\n"});
  }
  if (any_nic) {
    out += "\nNIC Legend:\n\n";
    for (size_t i = 0; i < n; ++i) {
      const NvsmiDevice& d = topo.devices[i];
      if (d.kind != NvsmiDeviceKind::kNic || d.nic_device.empty() || HasWhitespace(d.nic_device)) continue;
      out += Cat({"  ", labels[i], ": ", d.nic_device, "\n"});
    }
  }
  return out;
}

}  // namespace toposcope::formats
