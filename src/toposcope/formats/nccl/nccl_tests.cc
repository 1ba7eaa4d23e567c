// formats/nccl/nccl_tests: the reader of nccl-tests output (see nccl_tests.h).
#include "toposcope/formats/nccl/nccl_tests.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

// The length of a rank tag `[N]` at the start of `s` (MPICH/Intel MPI -prepend-rank); 0 if none.
size_t RankTagLength(std::string_view s) {
  if (s.size() < 3 || s[0] != '[') return 0;
  size_t i = 1;
  while (i < s.size() && i < 8 && s[i] >= '0' && s[i] <= '9') ++i;
  return i > 1 && i < s.size() && s[i] == ']' ? i + 1 : 0;
}

// A line reduced to what nccl-tests printed: launcher prefix, spaces and the leading '#' removed.
struct CleanLine {
  std::string_view body;    // after '#', trimmed
  bool commented = false;   // the line began with '#'
  std::string untagged;     // storage when rank tags were cut out of the line
};

// Fills `c` (whose `body` may point into its own `untagged`: keep `c` where it is).
void Clean(std::string_view raw, CleanLine& c) {
  std::string_view t = Trim(StripLauncherPrefix(raw));
  if (RankTagLength(t) > 0) {
    // A launcher that tags every write also tags the pieces of one row: cut every tag out.
    for (size_t i = 0; i < t.size();) {
      const size_t n = RankTagLength(t.substr(i));
      if (n > 0) {
        c.untagged.push_back(' ');
        i += n;
      } else {
        c.untagged.push_back(t[i++]);
      }
    }
    t = Trim(c.untagged);
  }
  if (!t.empty() && t[0] == '#') {
    c.commented = true;
    t = Trim(t.substr(1));
  }
  c.body = t;
}

// True when `body` reads as a row of the sizes table: size and count in digits, an NCCL data type
// name (ncclDataType_t as nccl-tests prints it), then at least the eight timing cells.
bool LooksLikeTableRow(std::string_view body) {
  static constexpr std::string_view kTypes[] = {"int8",   "uint8",  "int32", "uint32",   "int64",    "uint64",
                                                "half",   "float",  "double", "bfloat16", "f8e4m3", "f8e5m2",
                                                "fp8_e4m3", "fp8_e5m2"};
  const std::vector<std::string_view> cells = SplitWhitespace(body);
  if (cells.size() < 11 || !AllDigits(cells[0]) || !AllDigits(cells[1])) return false;
  return std::find(std::begin(kTypes), std::end(kTypes), cells[2]) != std::end(kTypes);
}

// The value after `key` in `tokens` ("nGpus" "8" -> 8); nullopt when absent or not a number.
std::optional<int64_t> ValueAfter(const std::vector<std::string_view>& tokens, std::string_view key) {
  for (size_t i = 0; i + 1 < tokens.size(); ++i) {
    if (tokens[i] == key) return ParseInt(tokens[i + 1]);
  }
  return std::nullopt;
}

// The number after the ':' of a footer line ("Avg bus bandwidth    : 70.742 OK").
std::optional<double> FooterNumber(std::string_view body) {
  const size_t colon = body.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const std::vector<std::string_view> rest = SplitWhitespace(body.substr(colon + 1));
  if (rest.empty()) return std::nullopt;
  return ParseDouble(rest[0]);
}

// The columns before the timings: from the table's header line, or guessed from a row.
enum class Prefix { kUnknown, kTypeOnly, kRedop, kRoot, kRedopRoot };

Prefix PrefixOfHeader(const std::vector<std::string_view>& tokens) {
  bool redop = false, root = false;
  for (const std::string_view t : tokens) {
    if (t == "time") break;
    if (t == "redop") redop = true;
    if (t == "root") root = true;
  }
  if (redop && root) return Prefix::kRedopRoot;
  if (redop) return Prefix::kRedop;
  if (root) return Prefix::kRoot;
  return Prefix::kTypeOnly;
}

size_t PrefixWidth(Prefix p) {
  switch (p) {
    case Prefix::kTypeOnly: return 3;
    case Prefix::kRedop:
    case Prefix::kRoot: return 4;
    case Prefix::kRedopRoot: return 5;
    case Prefix::kUnknown: break;
  }
  return 0;
}

// Reads four timing cells (time, algbw, busbw, #wrong); an error message when they are not numbers.
std::string ReadTiming(const std::vector<std::string_view>& cells, size_t at, NcclTestsTiming& t) {
  if (cells[at] == "N/A") return {};  // not run (in-place of some tests)
  const auto time = ParseDouble(cells[at]);
  const auto alg = ParseDouble(cells[at + 1]);
  const auto bus = ParseDouble(cells[at + 2]);
  if (!time || !alg || !bus) return Cat({"time/algbw/busbw not numbers: ", cells[at], " ", cells[at + 1], " ", cells[at + 2]});
  if (*time < 0 || *alg < 0 || *bus < 0) return "negative time or bandwidth";
  t.time_us = *time;
  t.algbw_gbps = *alg;
  t.busbw_gbps = *bus;
  t.present = true;
  if (cells[at + 3] == "N/A") {
    t.wrong = -1;
  } else {
    const auto wrong = ParseInt(cells[at + 3]);
    if (!wrong || *wrong < 0) return Cat({"#wrong not a count: ", cells[at + 3]});
    t.wrong = *wrong;
  }
  return {};
}

// Reads one table row with the given prefix; an error message when it is not one.
std::string ReadRow(const std::vector<std::string_view>& cells, Prefix prefix, NcclTestsRow& row) {
  if (cells.size() < 11) return Cat({"expected at least 11 columns, got ", std::to_string(cells.size())});
  if (prefix == Prefix::kUnknown) {
    const size_t width = cells.size() - 8;
    if (width == 5) prefix = Prefix::kRedopRoot;
    else if (width == 3) prefix = Prefix::kTypeOnly;
    else if (width == 4) prefix = ParseInt(cells[3]) ? Prefix::kRoot : Prefix::kRedop;
  }
  const size_t width = PrefixWidth(prefix);
  if (width == 0 || cells.size() != width + 8) {
    return Cat({"expected ", std::to_string(width + 8), " columns, got ", std::to_string(cells.size())});
  }
  const auto size = ParseInt(cells[0]);
  const auto count = ParseInt(cells[1]);
  if (!size || !count || *size < 0 || *count < 0) return Cat({"size/count not counts: ", cells[0], " ", cells[1]});
  row.size_bytes = *size;
  row.count = *count;
  row.type = std::string(cells[2]);
  size_t at = 3;
  if (prefix == Prefix::kRedop || prefix == Prefix::kRedopRoot) row.redop = std::string(cells[at++]);
  if (prefix == Prefix::kRoot || prefix == Prefix::kRedopRoot) {
    const auto root = ParseInt(cells[at++]);
    if (!root || *root < -1 || *root > (1 << 30)) return "root not a rank";
    row.root = static_cast<int>(*root);
  }
  if (std::string why = ReadTiming(cells, at, row.out_of_place); !why.empty()) return "out-of-place " + why;
  if (std::string why = ReadTiming(cells, at + 4, row.in_place); !why.empty()) return "in-place " + why;
  return {};
}

// `Rank N [Group N] Pid N on HOST device N [BUS] NAME`; an error message when malformed.
std::string ReadDevice(const std::vector<std::string_view>& tokens, NcclTestsDevice& d) {
  size_t i = 0;
  auto number = [&](std::string_view key, int64_t& out) {
    if (i + 1 >= tokens.size() || tokens[i] != key) return false;
    const auto v = ParseInt(tokens[i + 1]);
    if (!v || *v < 0 || *v > (int64_t{1} << 40)) return false;
    out = *v;
    i += 2;
    return true;
  };
  int64_t rank = 0, group = -1, pid = 0, device = 0;
  if (!number("Rank", rank)) return "device line: no rank number";
  if (i < tokens.size() && tokens[i] == "Group" && !number("Group", group)) return "device line: bad group";
  if (!number("Pid", pid)) return "device line: no pid";
  if (i + 1 >= tokens.size() || tokens[i] != "on") return "device line: no host";
  d.host = std::string(tokens[i + 1]);
  i += 2;
  if (!number("device", device)) return "device line: no device number";
  if (rank > (1 << 30) || device > (1 << 20) || group > (1 << 30)) return "device line: numbers out of range";
  d.rank = static_cast<int>(rank);
  d.group = static_cast<int>(group);
  d.pid = pid;
  d.device = static_cast<int>(device);
  if (i < tokens.size() && tokens[i].size() >= 2 && tokens[i].front() == '[' && tokens[i].back() == ']') {
    d.bus_id = std::string(tokens[i].substr(1, tokens[i].size() - 2));
    ++i;
  }
  for (; i < tokens.size(); ++i) d.gpu_name += Cat({d.gpu_name.empty() ? "" : " ", tokens[i]});
  return {};
}

// The reader's state over one file.
class NcclTestsReader {
 public:
  NcclTestsReader(std::string_view source, Diagnostics& diag, NcclTestsReport& out)
      : source_(source), diag_(diag), out_(out) {}

  // Takes one line (already counted as read).
  void Line(std::string_view raw, int64_t no) {
    CleanLine c;
    Clean(raw, c);
    if (c.body.empty()) return Accept();
    const std::vector<std::string_view> tokens = SplitWhitespace(c.body);
    const std::string_view first = tokens[0];
    if (first == "nThread") return Header(tokens, no);
    if (StartsWith(c.body, "nccl-tests version")) {
      pending_version_ = tokens.size() > 2 ? std::string(tokens[2]) : "";
      return Accept();
    }
    if (StartsWith(c.body, "Collective test starting:")) {
      pending_test_ = std::string(Trim(c.body.substr(c.body.find(':') + 1)));
      return Accept();
    }
    if (first == "Rank" && c.body.find(" Pid ") != std::string_view::npos) return Device(tokens, raw, no);
    if (first == "size" && c.body.find("count") != std::string_view::npos) {
      prefix_ = PrefixOfHeader(tokens);
      in_table_ = true;
      return Accept();
    }
    if (StartsWith(c.body, "Out of bounds values")) return Footer(c.body, raw, no, false);
    if (StartsWith(c.body, "Avg bus bandwidth")) return Footer(c.body, raw, no, true);
    if (!c.commented && AllDigits(first)) return Row(tokens, raw, no);
    Accept();
  }

  // A line another reader took (already counted as read): accepted, never parsed as a table row.
  void Taken() { Accept(); }

  [[nodiscard]] bool found() const { return !out_.runs.empty(); }

 private:
  void Accept() { ++out_.counts.accepted; }
  void Reject(int64_t no, std::string_view raw, std::string_view why) {
    ++out_.counts.rejected;
    diag_.Reject(source_, no, raw, why);
  }

  // The run lines go to, opened when there is none or the last one is finished.
  NcclTestsRun& Current(int64_t no) {
    if (out_.runs.empty() || finished_) NewRun(no);
    return out_.runs.back();
  }
  // The run a header or device line goes to: the current one while it has no rows yet (every rank
  // of an mpirun without MPI support prints its own header and devices), else a new one.
  NcclTestsRun& RunBeforeRows(int64_t no) {
    if (out_.runs.empty() || finished_ || !out_.runs.back().rows.empty()) NewRun(no);
    return out_.runs.back();
  }
  void NewRun(int64_t no) {
    NcclTestsRun r;
    r.first_line = no;
    r.version = std::move(pending_version_);
    r.test = std::move(pending_test_);
    pending_version_.clear();
    pending_test_.clear();
    out_.runs.push_back(std::move(r));
    finished_ = false;
    prefix_ = Prefix::kUnknown;
  }

  void Header(const std::vector<std::string_view>& tokens, int64_t no) {
    NcclTestsRun& r = RunBeforeRows(no);
    auto get = [&](std::string_view key) { return ValueAfter(tokens, key).value_or(0); };
    r.nthread = static_cast<int>(std::min<int64_t>(get("nThread"), 1 << 20));
    r.ngpus = static_cast<int>(std::min<int64_t>(get("nGpus"), 1 << 20));
    r.min_bytes = get("minBytes");
    r.max_bytes = get("maxBytes");
    for (size_t i = 0; i + 2 < tokens.size(); ++i) {
      if (tokens[i] == "warmup" && tokens[i + 1] == "iters:") {
        r.warmup_iters = static_cast<int>(std::min<int64_t>(ParseInt(tokens[i + 2]).value_or(0), 1 << 30));
      }
      if (tokens[i] != "warmup" && tokens[i] != "agg" && tokens[i + 1] == "iters:") {
        r.iters = static_cast<int>(std::min<int64_t>(ParseInt(tokens[i + 2]).value_or(0), 1 << 30));
      }
    }
    in_table_ = true;
    Accept();
  }

  void Device(const std::vector<std::string_view>& tokens, std::string_view raw, int64_t no) {
    NcclTestsDevice d;
    if (std::string why = ReadDevice(tokens, d); !why.empty()) return Reject(no, raw, why);
    d.line = no;
    RunBeforeRows(no).devices.push_back(std::move(d));
    in_table_ = true;
    Accept();
  }

  // A digit-led line: a table row inside a run; outside one, a row when it reads as one (a paste of
  // the table alone), other text otherwise.
  void Row(const std::vector<std::string_view>& tokens, std::string_view raw, int64_t no) {
    NcclTestsRow row;
    if (std::string why = ReadRow(tokens, prefix_, row); !why.empty()) {
      if (!in_table_) return Accept();
      return Reject(no, raw, why);
    }
    row.line = no;
    Current(no).rows.push_back(std::move(row));
    Accept();
  }

  void Footer(std::string_view body, std::string_view raw, int64_t no, bool avg) {
    const std::optional<double> v = FooterNumber(body);
    if (!v || *v < 0) return Reject(no, raw, avg ? "average bus bandwidth not a number" : "out-of-bounds count not a number");
    if (out_.runs.empty()) NewRun(no);
    NcclTestsRun& r = out_.runs.back();
    if (avg) {
      r.avg_busbw_gbps = *v;
      finished_ = true;  // the last line nccl-tests prints for a run
      in_table_ = false;
    } else {
      r.out_of_bounds = static_cast<int64_t>(*v);
    }
    Accept();
  }

  std::string_view source_;
  Diagnostics& diag_;
  NcclTestsReport& out_;
  std::string pending_version_, pending_test_;
  Prefix prefix_ = Prefix::kUnknown;
  bool finished_ = false;  // the last run has its footer
  bool in_table_ = false;  // a header or device line was seen: digit-led lines are table rows
};

}  // namespace

std::string_view StripLauncherPrefix(std::string_view line) {
  // OpenMPI --tag-output: "[1,0]<stdout>:" / "[1,0]<stderr>:".
  if (line.size() > 5 && line[0] == '[') {
    const size_t close = line.find("]<");
    if (close != std::string_view::npos && close < 24) {
      const std::string_view rest = line.substr(close + 2);
      for (const std::string_view tag : {"stdout>:", "stderr>:"}) {
        if (StartsWith(rest, tag)) return rest.substr(tag.size());
      }
    }
  }
  // srun --label: "12: ".
  size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const size_t digits = i;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && i - digits < 7) ++i;
  if (i > digits && i + 1 < line.size() && line[i] == ':' && line[i + 1] == ' ') return line.substr(i + 2);
  return line;
}

bool LooksLikeNcclTests(std::string_view head) {
  if (LooksBinary(head)) return false;
  TextLines lines(head);
  std::string_view line;
  int rows = 0;  // table rows seen (a paste may hold only those)
  while (lines.Next(&line)) {
    CleanLine c;
    Clean(line, c);
    if (StartsWith(c.body, "nThread ") && c.body.find("nGpus") != std::string_view::npos &&
        c.body.find("minBytes") != std::string_view::npos) {
      return true;
    }
    if (StartsWith(c.body, "Avg bus bandwidth")) return true;
    if (!c.commented && LooksLikeTableRow(c.body) && ++rows >= 3) return true;
  }
  return false;
}

Result<NcclTestsReport> ReadNcclTests(LineReader& lines, std::string_view source, Diagnostics& diag,
                                      const std::function<bool(std::string_view, int64_t)>& each_line) {
  NcclTestsReport out;
  out.source = std::string(source);
  NcclTestsReader reader(source, diag, out);
  std::string_view line;
  bool any_text = false;
  while (lines.Next(&line)) {
    const int64_t no = lines.line_number();
    if (!any_text && !Trim(line).empty()) {
      any_text = true;
      if (LooksBinary(line)) return MakeError(std::string(source), no, 0, "binary input, not nccl-tests output");
    }
    ++out.counts.read;
    if (each_line && each_line(line, no)) {
      reader.Taken();
      continue;
    }
    reader.Line(line, no);
  }
  if (const Error* e = lines.error()) return *e;
  if (!any_text) return MakeError(std::string(source), 0, 0, "empty input", "expected nccl-tests output (all_reduce_perf ...)");
  if (!reader.found()) {
    return MakeError(std::string(source), 0, 0, "no nccl-tests output: no `nThread` header, device line or table row",
                     "expected the output of all_reduce_perf or another nccl-tests binary");
  }
  return out;
}

Result<NcclTestsReport> ParseNcclTests(std::string_view text, std::string_view source, Diagnostics& diag) {
  LineReader lines = TextLineReader(text, std::string(source));
  return ReadNcclTests(lines, source, diag);
}

}  // namespace toposcope::formats
