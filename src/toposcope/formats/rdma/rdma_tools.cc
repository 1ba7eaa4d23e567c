// formats/rdma/rdma_tools: readers (and writers) of `rdma res show`, `ibstat`, `ibv_devinfo`, `show_gids`.
// Formats from iproute2 rdma/res*.c, rdma-core infiniband-diags/ibstat.c and
// libibverbs/examples/devinfo.c, and real outputs of the MLNX_OFED show_gids script.
#include "toposcope/formats/rdma/rdma_tools.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <exception>
#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "toposcope/base/ip_address.h"
#include "toposcope/base/text.h"
#include "toposcope/base/file_io.h"

namespace toposcope::formats {
namespace {

using nlohmann::json;

// JSON `rdma -j` input larger than this is refused (it is buffered whole).
constexpr size_t kMaxJsonBytes = size_t{1} << 30;
// Lines read before the first QP line; past this without one, the input is not `rdma res show qp`.
constexpr int64_t kMaxLeadingNonQpLines = 256;
// Largest rate accepted from ibstat (Gb/s); XDR x12 is 9600.
constexpr double kMaxRateGbps = 100000.0;

// Decimal digits only, within [0, max].
std::optional<uint64_t> ParseUnsigned(std::string_view s, uint64_t max) {
  if (!AllDigits(s) || s.size() > 20) return std::nullopt;
  uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || ptr != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

// Decimal or 0x-hex, within [0, max].
std::optional<uint64_t> ParseUnsignedOrHex(std::string_view s, uint64_t max) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    std::string_view h = s.substr(2);
    if (h.empty() || h.size() > 16) return std::nullopt;
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(h.data(), h.data() + h.size(), v, 16);
    if (ec != std::errc() || ptr != h.data() + h.size() || v > max) return std::nullopt;
    return v;
  }
  return ParseUnsigned(s, max);
}

// The line without ANSI escape sequences (`rdma -color`, coloured scripts): the line itself when it
// has none, else the stripped copy in `buf`.
std::string_view WithoutAnsi(std::string_view line, std::string& buf) {
  if (line.find('\x1b') == std::string_view::npos) return line;
  buf = StripAnsi(line);
  return buf;
}

bool IsIndented(std::string_view line) { return !line.empty() && (line[0] == ' ' || line[0] == '\t'); }

// Shortest text that reads back as the same double ("400", "2.5").
std::string FormatShortest(double v) {
  std::array<char, 64> buf{};
  auto [ptr, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v);
  if (ec != std::errc()) return "0";
  return std::string(buf.data(), ptr);
}

// "PORT_ACTIVE (4)" -> ("PORT_ACTIVE", 4); "InfiniBand" -> ("InfiniBand", nullopt). False when a
// trailing "(...)" is not a small number.
bool SplitCode(std::string_view value, std::string& text, std::optional<int>& code) {
  value = Trim(value);
  code.reset();
  if (!value.empty() && value.back() == ')') {
    const size_t open = value.rfind('(');
    if (open == std::string_view::npos) return false;
    auto n = ParseUnsigned(value.substr(open + 1, value.size() - open - 2), 1000000);
    if (!n) return false;
    code = static_cast<int>(*n);
    value = Trim(value.substr(0, open));
  }
  // "PORT_ACTIVE (4": cut off; also before a code ("InfiniBand (PORT_ACTIVE (4)": two values run
  // together), which would be written back as the first form.
  if (value.find('(') != std::string_view::npos && value.find(')') == std::string_view::npos) return false;
  // A text that still ends in ')' ("InfiniBand)(0)") would read as another code once written back.
  if (!value.empty() && value.back() == ')') return false;
  text = std::string(value);
  return true;
}

// A rejected line kept until the input is known to be of this format at all.
struct PendingReject {
  int64_t line;
  std::string raw;
  std::string reason;
};

void Flush(std::vector<PendingReject>& pending, std::string_view source, Diagnostics& diag) {
  for (const PendingReject& p : pending) diag.Reject(source, p.line, p.raw, p.reason);
  pending.clear();
}

// ---------------------------------------------------------------------------------------------
// rdma res show qp
// ---------------------------------------------------------------------------------------------

constexpr std::array<std::string_view, 13> kQpTypes = {
    "SMI",       "GSI",     "RC",      "UC",      "UD",  "RAW_IPV6", "RAW_ETHERTYPE",
    "UNKNOWN",   "RAW_PACKET", "XRC_INI", "XRC_TGT", "XRC", "DRIVER"};
constexpr std::array<std::string_view, 8> kQpStates = {"RESET", "INIT", "RTR", "RTS",
                                                       "SQD",   "SQE",  "ERR", "UNKNOWN"};
constexpr std::array<std::string_view, 4> kPathMigStates = {"MIGRATED", "REARM", "ARMED", "UNKNOWN"};

template <size_t N>
bool OneOf(std::string_view s, const std::array<std::string_view, N>& values) {
  return std::find(values.begin(), values.end(), s) != values.end();
}

// Splits "mlx5_0/1" / "mlx5_0/-" into dev and port.
bool ParseLink(std::string_view link, std::string& dev, int& port, std::string& reason) {
  const size_t slash = link.rfind('/');
  if (slash == std::string_view::npos || slash == 0) {
    reason = Cat({"link ", QuoteRaw(link), " is not DEV/PORT"});
    return false;
  }
  std::string_view p = link.substr(slash + 1);
  if (p == "-") {
    port = -1;
  } else {
    auto n = ParseUnsigned(p, 255);
    if (!n || *n == 0) {
      reason = Cat({"port ", QuoteRaw(p), " is not 1..255 or '-'"});
      return false;
    }
    port = static_cast<int>(*n);
  }
  dev = std::string(link.substr(0, slash));
  return true;
}

// Which QP keys a record set (to catch repeats).
enum QpKeyBit : uint32_t {
  kBitLqpn = 1u << 0, kBitRqpn = 1u << 1, kBitType = 1u << 2, kBitSubtype = 1u << 3,
  kBitState = 1u << 4, kBitRqPsn = 1u << 5, kBitSqPsn = 1u << 6, kBitPathMig = 1u << 7,
  kBitPdn = 1u << 8, kBitPid = 1u << 9, kBitComm = 1u << 10,
};

// Sets one QP field from its key and textual value. Unknown keys return true with *known false.
bool SetQpField(RdmaQp& qp, std::string_view key, std::string_view val, uint32_t& seen, bool* known,
                std::string& reason) {
  *known = true;
  auto u32 = [&](std::optional<uint32_t>& out, uint32_t bit) {
    if (seen & bit) {
      reason = Cat({"key ", QuoteRaw(key), " repeated"});
      return false;
    }
    seen |= bit;
    auto n = ParseUnsigned(val, UINT32_MAX);
    if (!n) {
      reason = Cat({key, " ", QuoteRaw(val), " is not an unsigned 32-bit number"});
      return false;
    }
    out = static_cast<uint32_t>(*n);
    return true;
  };
  auto i64 = [&](std::optional<int64_t>& out, uint32_t bit) {
    if (seen & bit) {
      reason = Cat({"key ", QuoteRaw(key), " repeated"});
      return false;
    }
    seen |= bit;
    auto n = ParseUnsigned(val, static_cast<uint64_t>(INT64_MAX));
    if (!n) {
      reason = Cat({key, " ", QuoteRaw(val), " is not a non-negative 64-bit number"});
      return false;
    }
    out = static_cast<int64_t>(*n);
    return true;
  };
  auto word = [&](std::string& out, uint32_t bit, bool (*valid)(std::string_view)) {
    if (seen & bit) {
      reason = Cat({"key ", QuoteRaw(key), " repeated"});
      return false;
    }
    seen |= bit;
    if (val.empty() || (valid != nullptr && !valid(val))) {
      reason = Cat({"unknown ", key, " ", QuoteRaw(val)});
      return false;
    }
    out = std::string(val);
    return true;
  };
  if (key == "lqpn") {
    std::optional<uint32_t> v;
    if (!u32(v, kBitLqpn)) return false;
    qp.lqpn = *v;
    return true;
  }
  if (key == "rqpn") return u32(qp.rqpn, kBitRqpn);
  if (key == "rq-psn") return u32(qp.rq_psn, kBitRqPsn);
  if (key == "sq-psn") return u32(qp.sq_psn, kBitSqPsn);
  if (key == "pdn") return i64(qp.pdn, kBitPdn);
  if (key == "pid") return i64(qp.pid, kBitPid);
  if (key == "type") return word(qp.type, kBitType, [](std::string_view s) { return OneOf(s, kQpTypes); });
  if (key == "subtype") return word(qp.subtype, kBitSubtype, [](std::string_view s) { return !HasControlChars(s); });
  if (key == "state") return word(qp.state, kBitState, [](std::string_view s) { return OneOf(s, kQpStates); });
  if (key == "path-mig-state") {
    return word(qp.path_mig_state, kBitPathMig, [](std::string_view s) { return OneOf(s, kPathMigStates); });
  }
  if (key == "comm") {
    if (seen & kBitComm) {
      reason = "key 'comm' repeated";
      return false;
    }
    seen |= kBitComm;
    if (HasControlChars(val)) {  // a process name is printable; a CR in it would not write back
      reason = "control character in 'comm'";
      return false;
    }
    if (val.size() >= 2 && val.front() == '[' && val.back() == ']') {
      qp.kernel_owner = true;
      val = val.substr(1, val.size() - 2);
    }
    qp.comm = std::string(val);
    return true;
  }
  *known = false;
  return true;
}

bool CheckQpRequired(const RdmaQp& qp, uint32_t seen, std::string& reason) {
  if (!(seen & kBitLqpn)) reason = "no lqpn";
  else if (!(seen & kBitType)) reason = "no type";
  else if (!(seen & kBitState)) reason = "no state";
  else if (qp.dev.empty()) reason = "no device name";
  else return true;
  return false;
}

// One text line `link dev/port key value ...`. The caller has checked it starts with "link".
bool ParseQpLine(std::string_view line, RdmaQp& qp, std::string& reason) {
  const std::vector<std::string_view> toks = SplitWhitespace(line);
  if (toks.size() < 2) {
    reason = "truncated: 'link' without DEV/PORT";
    return false;
  }
  if (!ParseLink(toks[1], qp.dev, qp.port, reason)) return false;
  uint32_t seen = 0;
  for (size_t i = 2; i < toks.size(); i += 2) {
    const bool after_comm = (seen & kBitComm) != 0;
    if (after_comm) break;  // -d/-dd driver key/value pairs follow `comm`
    if (i + 1 >= toks.size()) {
      reason = Cat({"truncated: key ", QuoteRaw(toks[i]), " has no value"});
      return false;
    }
    bool known = false;
    if (!SetQpField(qp, toks[i], toks[i + 1], seen, &known, reason)) return false;
  }
  return CheckQpRequired(qp, seen, reason);
}

// A JSON scalar as the text `rdma` would print; false for arrays/objects/null.
bool JsonScalarText(const json& v, std::string& out) {
  switch (v.type()) {
    case json::value_t::string: out = v.get<std::string>(); return true;
    case json::value_t::number_unsigned: out = std::to_string(v.get<uint64_t>()); return true;
    case json::value_t::number_integer: out = std::to_string(v.get<int64_t>()); return true;
    case json::value_t::boolean: out = v.get<bool>() ? "true" : "false"; return true;
    case json::value_t::number_float: {
      const double d = v.get<double>();
      out = FormatShortest(d);
      return true;
    }
    default: return false;
  }
}

// True when a JSON string holds a blank or a control byte, which the text form cannot carry.
bool HasBlankOrControl(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u <= 0x20 || u == 0x7f;
  });
}

bool QpFromJson(const json& obj, RdmaQp& qp, std::string& reason) {
  uint32_t seen = 0;
  bool have_port = false;
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& key = it.key();
    std::string val;
    const bool scalar = JsonScalarText(it.value(), val);
    if (scalar && HasBlankOrControl(val) &&
        (key == "ifname" || key == "dev" || key == "comm" || key == "subtype" || key == "type" ||
         key == "state" || key == "path-mig-state")) {
      reason = Cat({"JSON ", key, " ", QuoteRaw(val), " holds a blank or control character"});
      return false;
    }
    if (key == "ifname" || key == "dev") {
      if (!scalar || val.empty()) {
        reason = Cat({"JSON ", key, " is not a device name"});
        return false;
      }
      qp.dev = val;
      continue;
    }
    if (key == "port") {
      auto n = scalar ? ParseUnsigned(val, 255) : std::nullopt;
      if (!n || *n == 0) {
        reason = Cat({"JSON port ", QuoteRaw(val), " is not 1..255"});
        return false;
      }
      qp.port = static_cast<int>(*n);
      have_port = true;
      continue;
    }
    if (!scalar) continue;  // driver tables and the like
    bool known = false;
    if (!SetQpField(qp, key, val, seen, &known, reason)) return false;
  }
  if (!have_port) qp.port = -1;
  if (!qp.pid || *qp.pid == 0) qp.kernel_owner = qp.kernel_owner || !qp.comm.empty();
  return CheckQpRequired(qp, seen, reason);
}

// The shared state of one `rdma res show qp` read.
class QpReader {
 public:
  QpReader(std::string_view source, const RdmaQpSink& sink, Diagnostics& diag, ReadCounts& counts)
      : source_(source), sink_(sink), diag_(diag), counts_(counts) {}

  // Takes one accepted or rejected QP; checks duplicates.
  void Take(RdmaQp&& qp, int64_t line, std::string_view raw) {
    ++counts_.read;
    const uint64_t k = (static_cast<uint64_t>(qp.port + 1) << 32) | qp.lqpn;
    auto [it, inserted] = keys_.emplace(qp.dev, k);
    if (!inserted) {
      RejectNow(line, raw,
                Cat({"duplicate QP: ", qp.dev, "/", qp.port < 0 ? "-" : std::to_string(qp.port), " lqpn ",
                     std::to_string(qp.lqpn), " already seen"}));
      return;
    }
    ++counts_.accepted;
    qp.line = line;
    sink_(std::move(qp));
  }

  void RejectNow(int64_t line, std::string_view raw, std::string_view reason) {
    ++counts_.rejected;
    diag_.Reject(source_, line, raw, reason);
  }

  void RejectRecord(int64_t line, std::string_view raw, std::string_view reason) {
    ++counts_.read;
    RejectNow(line, raw, reason);
  }

  // Parses buffered JSON. Returns false when nothing in it looks like QP output.
  bool ParseJson(std::string_view text, int64_t line_base, bool* any_qp_object) {
    int64_t before = counts_.read;
    bool ok_syntax = true;
    std::string err;
    size_t err_byte = 0;
    auto cb = [&](int /*depth*/, json::parse_event_t event, json& parsed) {
      if (event != json::parse_event_t::object_end) return true;
      if (!parsed.is_object()) return true;
      const bool qp_like = parsed.contains("lqpn");
      bool flat = true;
      for (const auto& [k, v] : parsed.items()) {
        (void)k;
        if (v.is_structured()) flat = false;
      }
      if (qp_like) {
        *any_qp_object = true;
        RdmaQp qp;
        std::string reason;
        if (QpFromJson(parsed, qp, reason)) {
          Take(std::move(qp), line_base, parsed.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 200));
        } else {
          RejectRecord(line_base, parsed.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 200), reason);
        }
        return false;  // discard
      }
      if (flat && !parsed.empty()) {
        RejectRecord(line_base, parsed.dump(-1, ' ', false, json::error_handler_t::replace).substr(0, 200), "JSON object has no lqpn (not a QP)");
        return false;
      }
      return true;
    };
    try {
      json discarded = json::parse(text.begin(), text.end(), cb, /*allow_exceptions=*/true);
      (void)discarded;
    } catch (const json::parse_error& e) {
      ok_syntax = false;
      err = e.what();
      err_byte = e.byte;
    } catch (const std::exception& e) {
      ok_syntax = false;
      err = e.what();
    }
    if (!ok_syntax) {
      if (counts_.read == before && !*any_qp_object) return false;
      int64_t line = line_base;
      if (line_base == 0 && err_byte > 0) {
        const size_t upto = std::min(err_byte, text.size());
        line = 1 + static_cast<int64_t>(std::count(text.begin(), text.begin() + static_cast<long>(upto), '\n'));
      }
      const size_t from = err_byte > 40 ? err_byte - 40 : 0;
      RejectRecord(line, text.substr(std::min(from, text.size()), 80),
                   Cat({"JSON syntax error (truncated?) after the QPs before it: ", err}));
    }
    return true;
  }

  std::string_view source_;
  const RdmaQpSink& sink_;
  Diagnostics& diag_;
  ReadCounts& counts_;
  std::set<std::pair<std::string, uint64_t>> keys_;
};

bool LooksLikeJsonStart(std::string_view t) { return !t.empty() && (t[0] == '[' || t[0] == '{'); }

// A shell prompt such as `[root@host ~]# show_gids` starts with '[' but is no JSON: an array
// starts with '[' then (after blanks) '{', ']' or the end of the line.
bool LooksLikeJsonDocument(std::string_view t) {
  if (t.empty() || t[0] == '{') return !t.empty();
  if (t[0] != '[') return false;
  const std::string_view rest = Trim(t.substr(1));
  return rest.empty() || rest[0] == '{' || rest[0] == ']';
}

bool IsEmptyJsonArray(std::string_view t) {
  std::string compact;
  for (char c : t) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') compact.push_back(c);
    if (compact.size() > 2) return false;
  }
  return compact == "[]";
}

Status ReadQpJson(std::string_view text, QpReader& r) {
  bool any_qp = false;
  const std::string_view t = Trim(text);
  if (IsEmptyJsonArray(t)) return {};  // `rdma -j res show qp` on a host without QPs
  if (t.find("\"lqpn\"") == std::string_view::npos) {
    return MakeError(std::string(r.source_), 1, 1, "not `rdma res show qp` JSON: no object has \"lqpn\"");
  }
  if (json::accept(t)) {
    r.ParseJson(t, 0, &any_qp);
    return {};
  }
  // One JSON value per line (several `rdma -j` runs appended), else one broken document.
  const std::vector<std::string_view> lines = Split(text, '\n');
  size_t nonblank = 0, good = 0;
  for (std::string_view l : lines) {
    if (Trim(l).empty()) continue;
    ++nonblank;
    if (json::accept(Trim(l))) ++good;
  }
  if (nonblank > 1 && good > 0) {
    int64_t no = 0;
    for (std::string_view l : lines) {
      ++no;
      std::string_view tl = Trim(l);
      if (tl.empty()) continue;
      if (!r.ParseJson(tl, no, &any_qp)) r.RejectRecord(no, tl, "not valid JSON");
    }
    return {};
  }
  if (!r.ParseJson(t, 0, &any_qp)) {
    return MakeError(std::string(r.source_), 1, 1, "not `rdma res show qp` output: JSON that cannot be parsed");
  }
  return {};
}

// ---------------------------------------------------------------------------------------------
// ibstat / ibv_devinfo shared
// ---------------------------------------------------------------------------------------------

// Splits "key: value" at the first ':'; false when there is none.
bool SplitKeyValue(std::string_view t, std::string_view& key, std::string_view& value) {
  const size_t colon = t.find(':');
  if (colon == std::string_view::npos) return false;
  key = Trim(t.substr(0, colon));
  value = Trim(t.substr(colon + 1));
  return true;
}

int MtuCode(int bytes) {
  switch (bytes) {
    case 256: return 1;
    case 512: return 2;
    case 1024: return 3;
    case 2048: return 4;
    case 4096: return 5;
    default: return -1;
  }
}

// Width multiplier of "4X" (1, 2, 4, 8, 12), 0 when unknown.
double WidthFactor(std::string_view w) {
  if (w.size() >= 2 && (w.back() == 'X' || w.back() == 'x')) {
    auto n = ParseUnsigned(w.substr(0, w.size() - 1), 64);
    if (n) return static_cast<double>(*n);
  }
  return 0;
}

// A device/port reader's line dispatcher result.
struct LineVerdict {
  bool ok = true;
  std::string reason;
};

}  // namespace

// ---------------------------------------------------------------------------------------------
// Public: rdma res show qp
// ---------------------------------------------------------------------------------------------

Status ReadRdmaResQp(LineReader& lines, std::string_view source, const RdmaQpSink& sink,
                     Diagnostics& diag, ReadCounts& counts) {
  QpReader r(source, sink, diag, counts);
  std::string_view line;
  std::string ansi_buf;
  bool seen_qp_line = false;
  bool prev_record = false;  // an indented -p line may follow
  bool any_line = false;
  std::vector<PendingReject> pending;
  std::string json_text;
  bool json_mode = false;
  while (lines.Next(&line)) {
    if (json_mode) {
      if (json_text.size() + line.size() + 1 > kMaxJsonBytes) {
        return MakeError(std::string(source), lines.line_number(), 0, "JSON input too large (over 1 GiB)");
      }
      json_text.append(line);
      json_text.push_back('\n');
      continue;
    }
    std::string_view l = WithoutAnsi(line, ansi_buf);
    const std::string_view t = Trim(l);
    if (t.empty()) continue;
    if (!any_line) {
      any_line = true;
      if (LooksLikeJsonStart(t)) {
        json_mode = true;
        json_text.append(line);
        json_text.push_back('\n');
        continue;
      }
    }
    const int64_t no = lines.line_number();
    if (IsIndented(l) && !StartsWith(t, "link ")) {
      if (prev_record) continue;  // -p driver details of the QP above
      PendingReject p{no, std::string(t), "indented line without a QP line before it"};
      if (seen_qp_line) r.RejectRecord(p.line, p.raw, p.reason);
      else pending.push_back(std::move(p));
      continue;
    }
    if (!StartsWith(t, "link ") && t != "link") {
      std::string reason = StartsWith(t, "dev ")
                               ? "not a QP line: starts with 'dev' (rdma res show cq/pd/mr output?)"
                               : "not a QP line: expected 'link DEV/PORT lqpn N ...'";
      prev_record = false;
      if (seen_qp_line) {
        r.RejectRecord(no, t, reason);
      } else {
        pending.push_back({no, std::string(t), std::move(reason)});
        if (static_cast<int64_t>(pending.size()) > kMaxLeadingNonQpLines) {
          return MakeError(std::string(source), no, 1,
                           "not `rdma res show qp` output: no 'link DEV/PORT lqpn' line in the first lines");
        }
      }
      continue;
    }
    if (!seen_qp_line) {
      seen_qp_line = true;
      for (const PendingReject& p : pending) r.RejectRecord(p.line, p.raw, p.reason);
      pending.clear();
    }
    prev_record = true;
    RdmaQp qp;
    std::string reason;
    if (ParseQpLine(t, qp, reason)) r.Take(std::move(qp), no, t);
    else r.RejectRecord(no, t, reason);
  }
  if (const Error* e = lines.error()) return *e;
  if (json_mode) return ReadQpJson(json_text, r);
  if (!any_line) return MakeError(std::string(source), 0, 0, "empty input", "expected `rdma res show qp` output");
  if (!seen_qp_line) {
    return MakeError(std::string(source), pending.empty() ? 0 : pending.front().line, 1,
                     "not `rdma res show qp` output: no 'link DEV/PORT lqpn N ...' line");
  }
  return {};
}

Result<RdmaQpTable> ParseRdmaResQp(std::string_view text, std::string_view source, Diagnostics& diag) {
  RdmaQpTable table;
  LineReader lines = TextLineReader(text, std::string(source));
  const auto keep = [&](RdmaQp&& qp) { table.qps.push_back(std::move(qp)); };
  if (Status st = ReadRdmaResQp(lines, source, keep, diag, table.counts); !st.ok()) return st.error();
  return table;
}

std::string WriteRdmaResQp(const std::vector<RdmaQp>& qps) {
  std::string out;
  for (const RdmaQp& q : qps) {
    out += Cat({"link ", q.dev, "/", q.port < 0 ? "-" : std::to_string(q.port), " lqpn ", std::to_string(q.lqpn)});
    if (q.rqpn) out += Cat({" rqpn ", std::to_string(*q.rqpn)});
    out += Cat({" type ", q.type.empty() ? "UNKNOWN" : q.type});
    if (!q.subtype.empty()) out += Cat({" subtype ", q.subtype});
    out += Cat({" state ", q.state.empty() ? "UNKNOWN" : q.state});
    if (q.rq_psn) out += Cat({" rq-psn ", std::to_string(*q.rq_psn)});
    if (q.sq_psn) out += Cat({" sq-psn ", std::to_string(*q.sq_psn)});
    if (!q.path_mig_state.empty()) out += Cat({" path-mig-state ", q.path_mig_state});
    if (q.pdn) out += Cat({" pdn ", std::to_string(*q.pdn)});
    if (q.pid) out += Cat({" pid ", std::to_string(*q.pid)});
    if (q.kernel_owner) out += Cat({" comm [", q.comm, "]"});
    else if (!q.comm.empty()) out += Cat({" comm ", q.comm});
    out += '\n';
  }
  return out;
}

std::string WriteRdmaResQpJson(const std::vector<RdmaQp>& qps) {
  json arr = json::array();
  for (const RdmaQp& q : qps) {
    json o = json::object();
    o["ifname"] = q.dev;
    if (q.port >= 0) o["port"] = q.port;
    o["lqpn"] = q.lqpn;
    if (q.rqpn) o["rqpn"] = *q.rqpn;
    o["type"] = q.type.empty() ? "UNKNOWN" : q.type;
    if (!q.subtype.empty()) o["subtype"] = q.subtype;
    o["state"] = q.state.empty() ? "UNKNOWN" : q.state;
    if (q.rq_psn) o["rq-psn"] = *q.rq_psn;
    if (q.sq_psn) o["sq-psn"] = *q.sq_psn;
    if (!q.path_mig_state.empty()) o["path-mig-state"] = q.path_mig_state;
    if (q.pdn) o["pdn"] = *q.pdn;
    if (q.pid) o["pid"] = *q.pid;
    if (!q.comm.empty()) o["comm"] = q.comm;
    arr.push_back(std::move(o));
  }
  // nlohmann sorts object keys; iproute2's order does not matter to readers. Invalid UTF-8 is
  // replaced (U+FFFD) rather than thrown on.
  std::string out = arr.dump(-1, ' ', false, json::error_handler_t::replace);
  out.push_back('\n');
  return out;
}

// ---------------------------------------------------------------------------------------------
// Public: rdma res show <resource>
// ---------------------------------------------------------------------------------------------

Result<RdmaResTable> ParseRdmaRes(std::string_view text, std::string_view source, Diagnostics& diag) {
  RdmaResTable table;
  std::vector<std::string_view> all = Split(text, '\n');
  bool any = false;
  for (std::string_view l : all) {
    std::string_view t = Trim(l);
    if (StartsWith(t, "dev ") || StartsWith(t, "link ")) {
      any = true;
      break;
    }
  }
  if (!any) {
    return MakeError(std::string(source), 0, 0, "not `rdma res show` output: no line starts with 'dev ' or 'link '");
  }
  bool prev_record = false;
  int64_t no = 0;
  std::string ansi_buf;
  for (std::string_view raw_line : all) {
    ++no;
    if (!raw_line.empty() && raw_line.back() == '\r') raw_line.remove_suffix(1);
    std::string_view l = WithoutAnsi(raw_line, ansi_buf);
    std::string_view t = Trim(l);
    if (t.empty()) continue;
    if (IsIndented(l) && prev_record && !StartsWith(t, "dev ") && !StartsWith(t, "link ")) continue;
    ++table.counts.read;
    auto reject = [&](std::string_view reason) {
      ++table.counts.rejected;
      diag.Reject(source, no, t, reason);
    };
    const std::vector<std::string_view> toks = SplitWhitespace(t);
    prev_record = false;
    if (toks[0] != "dev" && toks[0] != "link") {
      reject("not an rdma resource line: expected 'dev DEV ...' or 'link DEV/PORT ...'");
      continue;
    }
    prev_record = true;
    if (toks.size() < 2) {
      reject(Cat({"truncated: '", toks[0], "' without a value"}));
      continue;
    }
    RdmaResEntry e;
    std::string reason;
    if (toks[0] == "link") {
      if (!ParseLink(toks[1], e.dev, e.port, reason)) {
        reject(reason);
        continue;
      }
    } else {
      e.dev = std::string(toks[1]);
    }
    bool bad = false;
    bool after_comm = false;
    for (size_t i = 2; i < toks.size() && !bad; i += 2) {
      if (i + 1 >= toks.size()) {
        if (after_comm) break;  // a driver detail without a value
        reason = Cat({"truncated: key ", QuoteRaw(toks[i]), " has no value"});
        bad = true;
        break;
      }
      std::string_view key = toks[i], val = toks[i + 1];
      if (key == "pid" && !after_comm) {
        auto n = ParseUnsigned(val, static_cast<uint64_t>(INT64_MAX));
        if (!n) {
          reason = Cat({"pid ", QuoteRaw(val), " is not a non-negative 64-bit number"});
          bad = true;
          break;
        }
        e.pid = static_cast<int64_t>(*n);
      } else if (key == "comm" && !after_comm) {
        if (val.size() >= 2 && val.front() == '[' && val.back() == ']') {
          e.kernel_owner = true;
          val = val.substr(1, val.size() - 2);
        }
        e.comm = std::string(val);
        after_comm = true;
      }
      e.fields.emplace_back(std::string(key), std::string(val));
    }
    if (bad) {
      reject(reason);
      continue;
    }
    e.line = no;
    ++table.counts.accepted;
    table.entries.push_back(std::move(e));
  }
  return table;
}

// ---------------------------------------------------------------------------------------------
// Public: ibstat
// ---------------------------------------------------------------------------------------------

std::optional<uint64_t> ParseGuid(std::string_view text) {
  text = Trim(text);
  if (StartsWith(text, "0x") || StartsWith(text, "0X")) {
    std::string_view h = text.substr(2);
    if (h.empty() || h.size() > 16) return std::nullopt;
    uint64_t v = 0;
    auto [ptr, ec] = std::from_chars(h.data(), h.data() + h.size(), v, 16);
    if (ec != std::errc() || ptr != h.data() + h.size()) return std::nullopt;
    return v;
  }
  const std::vector<std::string_view> groups = Split(text, ':');
  if (groups.size() != 4) return std::nullopt;
  uint64_t v = 0;
  for (std::string_view g : groups) {
    if (g.size() != 4) return std::nullopt;
    uint64_t part = 0;
    auto [ptr, ec] = std::from_chars(g.data(), g.data() + g.size(), part, 16);
    if (ec != std::errc() || ptr != g.data() + g.size()) return std::nullopt;
    v = (v << 16) | part;
  }
  return v;
}

namespace {

// A shell prompt line that runs `tool`: an optional prompt without blanks (`root@host:~`, `host:/dir`)
// or in brackets (`[root@host tmp]`), then `$ ` or `# `, then the tool (after `sudo`, or as a path)
// and its arguments. True for one, with the host of a `user@host` prompt in `host` (else empty).
bool IsToolPromptLine(std::string_view t, std::string_view tool, std::string& host) {
  host.clear();
  size_t mark = 0;
  while (mark + 1 < t.size() && !((t[mark] == '$' || t[mark] == '#') && t[mark + 1] == ' ')) ++mark;
  if (mark + 1 >= t.size()) return false;
  const std::string_view prompt = t.substr(0, mark);
  const bool bracketed = StartsWith(prompt, "[") && prompt.back() == ']';
  if (!bracketed && prompt.find_first_of(" \t") != std::string_view::npos) return false;
  std::string_view cmd = Trim(t.substr(mark + 1));
  if (StartsWith(cmd, "sudo ")) cmd = Trim(cmd.substr(5));
  std::string_view word = cmd.substr(0, cmd.find_first_of(" \t"));
  if (const size_t slash = word.rfind('/'); slash != std::string_view::npos) word = word.substr(slash + 1);
  if (word != tool) return false;
  if (const size_t at = prompt.find('@'); at != std::string_view::npos) {
    std::string_view h = prompt.substr(at + 1);
    h = h.substr(0, h.find_first_of(": ]"));
    const bool ok = !h.empty() && std::all_of(h.begin(), h.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '.' || c == '_';
    });
    if (ok) host = std::string(h);
  }
  return true;
}

// True when `t` is a `CA 'name'` (or Switch/Router) header; sets name. `well_formed` false when
// it starts like one but is cut or empty.
bool IbstatHeader(std::string_view t, std::string& name, bool& well_formed) {
  for (std::string_view kind : {"CA '", "Switch '", "Router '"}) {
    if (StartsWith(t, kind)) {
      std::string_view rest = t.substr(kind.size());
      well_formed = rest.size() >= 2 && rest.back() == '\'' &&
                    rest.find('\'') == rest.size() - 1;
      if (well_formed) name = std::string(rest.substr(0, rest.size() - 1));
      return true;
    }
  }
  return false;
}

// Ends a device: warns when a PARTIAL copy printed fewer ports than announced.
void FinishDevice(const IbDevice& d, std::string_view source, Diagnostics& diag) {
  if (d.num_ports >= 0 && static_cast<size_t>(d.num_ports) > d.ports.size()) {
    diag.Warn(source, d.line, d.name,
              Cat({"device ", d.name, " announces ", std::to_string(d.num_ports), " ports but ",
                   std::to_string(static_cast<int64_t>(d.ports.size())), " are printed (partial copy?)"}));
  }
}

// What the ibstat and ibv_devinfo readers share: the devices read so far, the current device and
// port, and the line being read. Each line is a record.
struct DeviceListReader {
  DeviceListReader(std::string_view src, Diagnostics& d) : source(src), diag(d) {}

  std::string_view source;
  Diagnostics& diag;
  IbDeviceList out;
  IbDevice* dev = nullptr;
  IbPort* port = nullptr;
  std::set<std::string> names;
  int64_t no = 0;      // the line's number
  std::string_view t;  // the line: colour codes removed, trimmed
  std::string_view tool;  // the command whose shell prompt lines are skipped as preamble; empty: none

  // Rejects the line; returns false (the line is not accepted).
  bool Reject(std::string_view why) {
    ++out.counts.rejected;
    diag.Reject(source, no, t, why);
    return false;
  }

  // A decimal field in 0..max into `slot`; rejects "<key> '<value>' is not 0..<max>" otherwise.
  // Returns whether the line is accepted.
  bool ReadBounded(std::string_view key, std::string_view value, uint64_t max, int& slot) {
    auto n = ParseUnsigned(value, max);
    if (!n) return Reject(Cat({key, " ", QuoteRaw(value), " is not 0..", std::to_string(max)}));
    slot = static_cast<int>(*n);
    return true;
  }

  // A device header: starts device `name` when the name is well formed (else rejects with
  // `bad_name`) and new. Returns whether the line is accepted.
  bool StartDevice(bool name_ok, const std::string& name, std::string_view bad_name) {
    dev = nullptr;
    port = nullptr;
    if (!name_ok) return Reject(bad_name);
    if (!names.insert(name).second) return Reject(Cat({"device ", QuoteRaw(name), " repeated"}));
    out.devices.emplace_back();
    dev = &out.devices.back();
    dev->name = name;
    dev->line = no;
    return true;
  }

  // A port header: starts port `n` (nullopt when the text was not 0..255: rejected with `bad`)
  // unless the device has it already. Returns whether the line is accepted.
  bool StartPort(std::optional<uint64_t> n, std::string_view bad) {
    if (!n) {
      port = nullptr;
      return Reject(bad);
    }
    const int p = static_cast<int>(*n);
    if (std::any_of(dev->ports.begin(), dev->ports.end(), [&](const IbPort& x) { return x.port == p; })) {
      port = nullptr;
      return Reject(Cat({"port ", std::to_string(p), " of ", dev->name, " repeated"}));
    }
    dev->ports.emplace_back();
    port = &dev->ports.back();
    port->port = p;
    return true;
  }

  // True for a shell prompt line running `tool`: no record, a warning, its host kept.
  bool SkipPrompt() {
    std::string host;
    if (tool.empty() || !IsToolPromptLine(t, tool, host)) return false;
    ++out.prompt_lines;
    if (out.prompt_host.empty()) out.prompt_host = host;
    diag.Warn(source, no, t, Cat({"shell prompt running ", tool, ": skipped as preamble, not a record"}));
    return true;
  }

  // Calls `line()` for each non-blank line of `text` (set in `t`, its number in `no`) and counts
  // it: read, and accepted when `line()` returns true (rejects are counted by Reject).
  template <class LineFn>
  void ReadLines(std::string_view text, LineFn&& line) {
    std::string ansi_buf;
    for (std::string_view raw_line : Split(text, '\n')) {
      ++no;
      if (!raw_line.empty() && raw_line.back() == '\r') raw_line.remove_suffix(1);
      t = Trim(WithoutAnsi(raw_line, ansi_buf));
      if (t.empty() || SkipPrompt()) continue;
      ++out.counts.read;
      if (line()) ++out.counts.accepted;
    }
  }
};

// ibstat `Rate: 200 (HDR)`: the rate in Gb/s and the suffix; nullopt when it is not one.
std::optional<std::pair<double, std::string>> ParseIbstatRate(std::string_view value) {
  const std::vector<std::string_view> parts = SplitWhitespace(value);
  // A plain double with a validity flag: std::optional<double> trips GCC 12's
  // -Wmaybe-uninitialized at -O3.
  double rate = -1;
  if (!parts.empty()) {
    if (auto parsed = ParseDouble(parts[0]); parsed.has_value()) rate = parsed.value();
  }
  std::string suffix;
  if (parts.size() == 2 && parts[1].size() >= 2 && parts[1].front() == '(' && parts[1].back() == ')') {
    suffix = std::string(parts[1].substr(1, parts[1].size() - 2));
  } else if (parts.size() != 1) {
    rate = -1;
  }
  if (!(rate >= 0) || rate > kMaxRateGbps) return std::nullopt;
  return std::make_pair(rate, std::move(suffix));
}

// Reads `ibstat` output.
struct IbstatReader : DeviceListReader {
  using DeviceListReader::DeviceListReader;

  // One line; false when rejected.
  bool Line() {
    std::string name;
    bool wf = false;
    if (IbstatHeader(t, name, wf)) {
      if (dev != nullptr) FinishDevice(*dev, source, diag);
      return StartDevice(wf && !name.empty(), name, "truncated or empty CA name (expected CA 'name')");
    }
    std::string_view key, value;
    if (!SplitKeyValue(t, key, value)) {
      return Reject(dev == nullptr ? "text before any CA '<name>' line" : "unrecognised line (no 'key: value')");
    }
    if (dev == nullptr) return Reject(Cat({"key ", QuoteRaw(key), " before any CA '<name>' line"}));
    return Key(key, value);
  }

  // A `key: value` line of a device (or a port, after `Port N:`).
  bool Key(std::string_view key, std::string_view value) {
    if (EndsWith(key, " type") && key.find(' ') == key.rfind(' ')) {
      dev->ca_type = std::string(value);
    } else if (key == "Number of ports") {
      return ReadBounded(key, value, 255, dev->num_ports);
    } else if (key == "Firmware version") {
      dev->firmware = std::string(value);
    } else if (key == "Hardware version") {
      dev->hardware_version = std::string(value);
    } else if (key == "Node GUID" || key == "System image GUID") {
      if (!ParseGuid(value)) return Reject(Cat({key, " ", QuoteRaw(value), " is not a 64-bit GUID"}));
      (key == "Node GUID" ? dev->node_guid : dev->sys_image_guid) = std::string(value);
    } else if (StartsWith(key, "Port ") && key != "Port GUID" && value.empty()) {
      return StartPort(ParseUnsigned(Trim(key.substr(5)), 255),
                       Cat({"port number ", QuoteRaw(key.substr(5)), " is not 0..255"}));
    } else if (key == "State" || key == "Physical state" || key == "Rate" || key == "Base lid" || key == "LMC" ||
               key == "SM lid" || key == "Capability mask" || key == "Port GUID" || key == "Link layer" ||
               key == "Effective speed") {
      if (port == nullptr) return Reject(Cat({"port key ", QuoteRaw(key), " before any 'Port N:' line"}));
      return PortKey(key, value);
    }
    // Other keys (future ibstat versions) are kept quiet.
    return true;
  }

  // A port key, inside a `Port N:` block.
  bool PortKey(std::string_view key, std::string_view value) {
    if (key == "State") {
      port->state = std::string(value);
    } else if (key == "Physical state") {
      port->physical_state = std::string(value);
    } else if (key == "Rate") {
      auto rate = ParseIbstatRate(value);
      if (!rate) return Reject(Cat({"Rate ", QuoteRaw(value), " is not a rate in Gb/s"}));
      port->rate_gbps = rate->first;
      port->rate_suffix = rate->second;
    } else if (key == "Effective speed") {
      // Informational; Rate already holds the link rate.
    } else if (key == "Base lid" || key == "SM lid") {
      return ReadBounded(key, value, 65535, key == "Base lid" ? port->lid : port->sm_lid);
    } else if (key == "LMC") {
      return ReadBounded(key, value, 7, port->lmc);
    } else if (key == "Capability mask") {
      if (!ParseUnsignedOrHex(value, UINT32_MAX)) {
        return Reject(Cat({"Capability mask ", QuoteRaw(value), " is not a 32-bit number"}));
      }
      port->capability_mask = std::string(value);
    } else if (key == "Port GUID") {
      if (!ParseGuid(value)) return Reject(Cat({"Port GUID ", QuoteRaw(value), " is not a 64-bit GUID"}));
      port->port_guid = std::string(value);
    } else if (key == "Link layer") {
      port->link_layer = std::string(value);
    }
    return true;
  }
};

}  // namespace

Result<IbDeviceList> ParseIbstat(std::string_view text, std::string_view source, Diagnostics& diag) {
  const std::vector<std::string_view> all = Split(text, '\n');
  bool any_header = false;
  for (std::string_view l : all) {
    std::string name;
    bool wf = false;
    if (IbstatHeader(Trim(l), name, wf)) {
      any_header = true;
      break;
    }
  }
  if (!any_header) {
    if (Trim(text).empty()) return MakeError(std::string(source), 0, 0, "empty input", "expected `ibstat` output");
    return MakeError(std::string(source), 0, 0, "not `ibstat` output: no \"CA '<name>'\" line");
  }
  IbstatReader r(source, diag);
  r.ReadLines(text, [&] { return r.Line(); });
  if (r.dev != nullptr) FinishDevice(*r.dev, source, diag);
  return std::move(r.out);
}

std::string WriteIbstat(const std::vector<IbDevice>& devices) {
  std::string out;
  for (const IbDevice& d : devices) {
    out += Cat({"CA '", d.name, "'\n"});
    if (!d.ca_type.empty()) out += Cat({"\tCA type: ", d.ca_type, "\n"});
    if (d.num_ports >= 0) out += Cat({"\tNumber of ports: ", std::to_string(d.num_ports), "\n"});
    if (!d.firmware.empty()) out += Cat({"\tFirmware version: ", d.firmware, "\n"});
    if (!d.hardware_version.empty()) out += Cat({"\tHardware version: ", d.hardware_version, "\n"});
    if (!d.node_guid.empty()) out += Cat({"\tNode GUID: ", d.node_guid, "\n"});
    if (!d.sys_image_guid.empty()) out += Cat({"\tSystem image GUID: ", d.sys_image_guid, "\n"});
    for (const IbPort& p : d.ports) {
      out += Cat({"\tPort ", std::to_string(p.port), ":\n"});
      if (!p.state.empty()) out += Cat({"\t\tState: ", p.state, "\n"});
      if (!p.physical_state.empty()) out += Cat({"\t\tPhysical state: ", p.physical_state, "\n"});
      out += Cat({"\t\tRate: ", FormatShortest(p.rate_gbps)});
      if (!p.rate_suffix.empty()) out += Cat({" (", p.rate_suffix, ")"});
      out += '\n';
      if (p.lid >= 0) out += Cat({"\t\tBase lid: ", std::to_string(p.lid), "\n"});
      if (p.lmc >= 0) out += Cat({"\t\tLMC: ", std::to_string(p.lmc), "\n"});
      if (p.sm_lid >= 0) out += Cat({"\t\tSM lid: ", std::to_string(p.sm_lid), "\n"});
      if (!p.capability_mask.empty()) out += Cat({"\t\tCapability mask: ", p.capability_mask, "\n"});
      if (!p.port_guid.empty()) out += Cat({"\t\tPort GUID: ", p.port_guid, "\n"});
      if (!p.link_layer.empty()) out += Cat({"\t\tLink layer: ", p.link_layer, "\n"});
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Public: ibv_devinfo
// ---------------------------------------------------------------------------------------------

namespace {

// Fills rate_gbps of an ibv_devinfo -v port from width x speed when no effective speed was given.
void FinishDevinfoPort(IbPort& p) {
  if (p.active_speed.empty()) return;
  const std::vector<std::string_view> parts = SplitWhitespace(p.active_speed);
  if (parts.empty()) return;
  auto speed = ParseDouble(parts[0]);
  const double w = WidthFactor(p.active_width);
  if (speed && w > 0 && *speed > 0 && *speed * w <= kMaxRateGbps) p.rate_gbps = *speed * w;
}

bool IsHcaHeader(std::string_view t) { return StartsWith(t, "hca_id:"); }

constexpr std::array<std::string_view, 8> kCorePortKeys = {"state",   "max_mtu",  "active_mtu", "sm_lid",
                                                           "port_lid", "port_lmc", "link_layer", "phys_state"};

// Reads `ibv_devinfo [-v]` output.
struct DevinfoReader : DeviceListReader {
  using DeviceListReader::DeviceListReader;

  std::set<std::pair<size_t, int>> effective_seen;  // (device index, port) with effective_speed
  std::set<int> gid_seen;                            // GID indexes of the current port

  // Ends the current device: the rates of its ports from width x speed, the port count check.
  void Finish() {
    if (dev == nullptr) return;
    const size_t di = static_cast<size_t>(dev - out.devices.data());
    for (IbPort& p : dev->ports) {
      if (effective_seen.count({di, p.port}) == 0) FinishDevinfoPort(p);
    }
    FinishDevice(*dev, source, diag);
  }

  // One line; false when rejected.
  bool Line() {
    if (IsHcaHeader(t)) {
      Finish();
      const std::string name(Trim(t.substr(7)));
      return StartDevice(!name.empty() && name.find_first_of(" \t") == std::string::npos, name,
                         "hca_id without a device name");
    }
    if (dev == nullptr) return Reject("text before any 'hca_id:' line");
    if (StartsWith(t, "GID[")) return GidLine();
    std::string_view key, value;
    if (!SplitKeyValue(t, key, value)) return true;  // -v flag lines ("BAD_PKEY_CNTR", "NO SUPPORT", ...)
    if (key == "port") {
      const bool ok = StartPort(ParseUnsigned(value, 255), Cat({"port ", QuoteRaw(value), " is not 0..255"}));
      if (ok) gid_seen.clear();
      return ok;
    }
    if (port == nullptr) return DeviceKey(key, value);
    return PortKey(key, value);
  }

  // `GID[ i]: <gid>[, <type>]` of the current port.
  bool GidLine() {
    const size_t close = t.find(']');
    std::string_view rest = close == std::string_view::npos ? std::string_view{} : t.substr(close + 1);
    auto idx = close == std::string_view::npos ? std::nullopt : ParseUnsigned(Trim(t.substr(4, close - 4)), 65535);
    if (!idx || !StartsWith(rest, ":")) return Reject("GID line is not 'GID[ i]: <gid>'");
    if (port == nullptr) return Reject("GID line before any 'port:' line");
    rest = Trim(rest.substr(1));
    std::string_view gid = rest, type;
    const size_t comma = rest.find(',');
    if (comma != std::string_view::npos) {
      gid = Trim(rest.substr(0, comma));
      type = Trim(rest.substr(comma + 1));
    }
    if (gid.empty() || !IpAddress::Parse(gid)) return Reject(Cat({"GID ", QuoteRaw(gid), " is not an IPv6-form GID"}));
    if (comma != std::string_view::npos && type.empty()) return Reject("GID type after ',' is empty");
    const int i = static_cast<int>(*idx);
    if (!gid_seen.insert(i).second) return Reject(Cat({"GID index ", std::to_string(i), " repeated"}));
    port->gids.emplace_back(i, std::string(gid));
    port->gid_types.emplace_back(type);
    return true;
  }

  // A device key (before the first `port:` line); other device keys (-v capabilities) are accepted.
  bool DeviceKey(std::string_view key, std::string_view value) {
    if (OneOf(key, kCorePortKeys)) return Reject(Cat({"port key ", QuoteRaw(key), " before any 'port:' line"}));
    if (key == "transport") {
      std::string txt;
      std::optional<int> code;
      if (!SplitCode(value, txt, code)) return Reject(Cat({"transport ", QuoteRaw(value), " is malformed"}));
      dev->transport = txt;
    } else if (key == "fw_ver") {
      dev->firmware = std::string(value);
    } else if (key == "node_guid" || key == "sys_image_guid") {
      if (!ParseGuid(value)) return Reject(Cat({key, " ", QuoteRaw(value), " is not a 64-bit GUID"}));
      (key == "node_guid" ? dev->node_guid : dev->sys_image_guid) = std::string(value);
    } else if (key == "vendor_id") {
      dev->vendor_id = std::string(value);
    } else if (key == "vendor_part_id") {
      dev->vendor_part_id = std::string(value);
    } else if (key == "hw_ver") {
      dev->hardware_version = std::string(value);
    } else if (key == "board_id") {
      dev->board_id = std::string(value);
    } else if (key == "phys_port_cnt") {
      return ReadBounded(key, value, 255, dev->num_ports);
    }
    return true;
  }

  // A key of the current port; other port keys (-v) are accepted.
  bool PortKey(std::string_view key, std::string_view value) {
    std::string txt;
    std::optional<int> code;
    if (key == "state" || key == "phys_state") {
      if (!SplitCode(value, txt, code) || txt.empty()) return Reject(Cat({key, " ", QuoteRaw(value), " is malformed"}));
      if (key == "state") {
        port->state = txt;
        port->state_code = code.value_or(-1);
      } else {
        port->physical_state = txt;
        port->physical_state_code = code.value_or(-1);
      }
    } else if (key == "max_mtu" || key == "active_mtu") {
      auto n = SplitCode(value, txt, code) ? ParseUnsigned(txt, 65536) : std::nullopt;
      if (!n) return Reject(Cat({key, " ", QuoteRaw(value), " is not an MTU in bytes"}));
      (key == "max_mtu" ? port->max_mtu : port->active_mtu) = static_cast<int>(*n);
    } else if (key == "sm_lid" || key == "port_lid") {
      return ReadBounded(key, value, 65535, key == "sm_lid" ? port->sm_lid : port->lid);
    } else if (key == "port_lmc") {
      auto n = ParseUnsigned(value, 7);
      if (!n) n = ParseUnsignedOrHex(value, 7);
      if (!n) return Reject(Cat({"port_lmc ", QuoteRaw(value), " is not 0..7"}));
      port->lmc = static_cast<int>(*n);
    } else if (key == "link_layer") {
      port->link_layer = std::string(value);
    } else if (key == "port_cap_flags") {
      if (!ParseUnsignedOrHex(value, UINT32_MAX)) {
        return Reject(Cat({"port_cap_flags ", QuoteRaw(value), " is not a 32-bit number"}));
      }
      port->capability_mask = std::string(value);
    } else if (key == "gid_tbl_len") {
      auto n = ParseUnsigned(value, 1 << 20);
      if (!n) return Reject(Cat({"gid_tbl_len ", QuoteRaw(value), " is not a table length"}));
      port->gid_tbl_len = static_cast<int>(*n);
    } else if (key == "active_width" || key == "active_speed") {
      if (!SplitCode(value, txt, code)) return Reject(Cat({key, " ", QuoteRaw(value), " is malformed"}));
      (key == "active_width" ? port->active_width : port->active_speed) = txt;
    } else if (key == "effective_speed") {
      const std::vector<std::string_view> parts = SplitWhitespace(value);
      auto r = parts.empty() ? std::nullopt : ParseDouble(parts[0]);
      if (!r || *r < 0 || *r > kMaxRateGbps)
        return Reject(Cat({"effective_speed ", QuoteRaw(value), " is not a rate"}));
      port->rate_gbps = *r;
      effective_seen.insert({static_cast<size_t>(dev - out.devices.data()), port->port});
    }
    return true;
  }
};

}  // namespace

Result<IbDeviceList> ParseIbvDevinfo(std::string_view text, std::string_view source, Diagnostics& diag) {
  const std::vector<std::string_view> all = Split(text, '\n');
  if (std::none_of(all.begin(), all.end(), [](std::string_view l) { return IsHcaHeader(Trim(l)); })) {
    if (Trim(text).empty()) return MakeError(std::string(source), 0, 0, "empty input", "expected `ibv_devinfo` output");
    return MakeError(std::string(source), 0, 0, "not `ibv_devinfo` output: no 'hca_id:' line");
  }
  DevinfoReader r(source, diag);
  r.tool = "ibv_devinfo";
  r.ReadLines(text, [&] { return r.Line(); });
  r.Finish();
  return std::move(r.out);
}

std::string WriteIbvDevinfo(const std::vector<IbDevice>& devices) {
  std::string out;
  auto transport_code = [](std::string_view t) -> std::string {
    if (t == "InfiniBand") return " (0)";
    if (t == "iWARP") return " (1)";
    if (t == "usNIC") return " (2)";
    if (t == "usNIC UDP") return " (3)";
    if (t == "unspecified") return " (4)";
    return "";
  };
  auto mtu = [](int bytes) {
    const int c = MtuCode(bytes);
    return c < 0 ? std::to_string(bytes) : Cat({std::to_string(bytes), " (", std::to_string(c), ")"});
  };
  auto with_code = [](const std::string& txt, int code) {
    return code < 0 ? txt : Cat({txt, " (", std::to_string(code), ")"});
  };
  bool first = true;
  for (const IbDevice& d : devices) {
    if (!first) out += '\n';
    first = false;
    out += Cat({"hca_id:\t", d.name, "\n"});
    if (!d.transport.empty()) out += Cat({"\ttransport:\t\t\t", d.transport, transport_code(d.transport), "\n"});
    if (!d.firmware.empty()) out += Cat({"\tfw_ver:\t\t\t\t", d.firmware, "\n"});
    if (!d.node_guid.empty()) out += Cat({"\tnode_guid:\t\t\t", d.node_guid, "\n"});
    if (!d.sys_image_guid.empty()) out += Cat({"\tsys_image_guid:\t\t\t", d.sys_image_guid, "\n"});
    if (!d.vendor_id.empty()) out += Cat({"\tvendor_id:\t\t\t", d.vendor_id, "\n"});
    if (!d.vendor_part_id.empty()) out += Cat({"\tvendor_part_id:\t\t\t", d.vendor_part_id, "\n"});
    if (!d.hardware_version.empty()) out += Cat({"\thw_ver:\t\t\t\t", d.hardware_version, "\n"});
    if (!d.board_id.empty()) out += Cat({"\tboard_id:\t\t\t", d.board_id, "\n"});
    if (d.num_ports >= 0) out += Cat({"\tphys_port_cnt:\t\t\t", std::to_string(d.num_ports), "\n"});
    for (const IbPort& p : d.ports) {
      out += Cat({"\t\tport:\t", std::to_string(p.port), "\n"});
      if (!p.state.empty()) out += Cat({"\t\t\tstate:\t\t\t", with_code(p.state, p.state_code), "\n"});
      if (p.max_mtu >= 0) out += Cat({"\t\t\tmax_mtu:\t\t", mtu(p.max_mtu), "\n"});
      if (p.active_mtu >= 0) out += Cat({"\t\t\tactive_mtu:\t\t", mtu(p.active_mtu), "\n"});
      if (p.sm_lid >= 0) out += Cat({"\t\t\tsm_lid:\t\t\t", std::to_string(p.sm_lid), "\n"});
      if (p.lid >= 0) out += Cat({"\t\t\tport_lid:\t\t", std::to_string(p.lid), "\n"});
      if (p.lmc >= 0) out += StringPrintf("\t\t\tport_lmc:\t\t0x%02x\n", p.lmc);
      if (!p.link_layer.empty()) out += Cat({"\t\t\tlink_layer:\t\t", p.link_layer, "\n"});
      if (!p.capability_mask.empty()) out += Cat({"\t\t\tport_cap_flags:\t\t", p.capability_mask, "\n"});
      if (p.gid_tbl_len >= 0) out += Cat({"\t\t\tgid_tbl_len:\t\t", std::to_string(p.gid_tbl_len), "\n"});
      if (!p.active_width.empty()) out += Cat({"\t\t\tactive_width:\t\t", p.active_width, "\n"});
      if (!p.active_speed.empty()) out += Cat({"\t\t\tactive_speed:\t\t", p.active_speed, "\n"});
      // Rates not derivable from width x speed are kept as effective_speed.
      IbPort probe;
      probe.active_width = p.active_width;
      probe.active_speed = p.active_speed;
      FinishDevinfoPort(probe);
      if (p.rate_gbps != probe.rate_gbps) {
        out += Cat({"\t\t\teffective_speed:\t", FormatShortest(p.rate_gbps), " Gbps\n"});
      }
      if (!p.physical_state.empty()) {
        out += Cat({"\t\t\tphys_state:\t\t", with_code(p.physical_state, p.physical_state_code), "\n"});
      }
      for (size_t i = 0; i < p.gids.size(); ++i) {
        const std::string& type = i < p.gid_types.size() ? p.gid_types[i] : std::string();
        // Cat, not %s: a value may hold NUL bytes, which %s would cut.
        out += Cat({StringPrintf("\t\t\tGID[%3d]:\t\t", p.gids[i].first), p.gids[i].second,
                    type.empty() ? "" : ", ", type, "\n"});
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Public: show_gids
// ---------------------------------------------------------------------------------------------

namespace {

bool IsVersionCell(std::string_view s) {
  return s.size() == 2 && (s[0] == 'v' || s[0] == 'V') && (s[1] == '1' || s[1] == '2');
}

bool IsShowGidsHeader(std::string_view t) {
  const std::vector<std::string_view> toks = SplitWhitespace(t);
  return toks.size() >= 4 && toks[0] == "DEV" && toks[1] == "PORT" && toks[2] == "INDEX" && toks[3] == "GID";
}

// Parses one data row; false with a reason.
bool ParseGidRow(std::string_view t, GidEntry& e, std::string& reason) {
  std::vector<std::string_view> cells;
  const bool tabs = t.find('\t') != std::string_view::npos;
  for (std::string_view c : tabs ? Split(t, '\t') : SplitWhitespace(t)) {
    c = Trim(c);
    if (!c.empty()) cells.push_back(c);
  }
  if (cells.size() < 5 || cells.size() > 7) {
    reason = Cat({"expected 5 to 7 cells (DEV PORT INDEX GID [IPv4] VER [DEV]), got ",
                  std::to_string(static_cast<int64_t>(cells.size()))});
    return false;
  }
  e.dev = std::string(cells[0]);
  auto port = ParseUnsigned(cells[1], 255);
  if (!port) {
    reason = Cat({"PORT ", QuoteRaw(cells[1]), " is not 0..255"});
    return false;
  }
  auto index = ParseUnsigned(cells[2], 65535);
  if (!index) {
    reason = Cat({"INDEX ", QuoteRaw(cells[2]), " is not 0..65535"});
    return false;
  }
  auto gid = IpAddress::Parse(cells[3]);
  if (!gid || !gid->is_v6()) {
    reason = Cat({"GID ", QuoteRaw(cells[3]), " is not a GID (8 groups of hex digits)"});
    return false;
  }
  size_t i = 4;
  if (!IsVersionCell(cells[i]) && cells[i].find('.') != std::string_view::npos) {
    auto v4 = IpAddress::Parse(cells[i]);
    if (!v4 || !v4->is_v4()) {
      reason = Cat({"IPv4 ", QuoteRaw(cells[i]), " is not an IPv4 address"});
      return false;
    }
    e.ipv4 = v4->ToString();
    ++i;
  }
  if (i >= cells.size() || !IsVersionCell(cells[i])) {
    reason = Cat({"VER ", QuoteRaw(i < cells.size() ? cells[i] : std::string_view("(missing)")), " is not v1 or v2"});
    return false;
  }
  e.version = std::string(cells[i]);
  e.version[0] = 'v';
  ++i;
  if (i < cells.size()) e.netdev = std::string(cells[i++]);
  if (i != cells.size()) {
    reason = "extra cells after the netdev";
    return false;
  }
  e.port = static_cast<int>(*port);
  e.index = static_cast<int>(*index);
  e.gid = std::string(cells[3]);
  return true;
}

}  // namespace

Result<GidTable> ParseShowGids(std::string_view text, std::string_view source, Diagnostics& diag) {
  GidTable out;
  std::vector<PendingReject> pending;
  bool header = false;
  std::set<std::tuple<std::string, int, int>> keys;
  std::string ansi_buf;
  int64_t no = 0;
  int64_t n_found_line = 0;
  for (std::string_view raw_line : Split(text, '\n')) {
    ++no;
    if (!raw_line.empty() && raw_line.back() == '\r') raw_line.remove_suffix(1);
    std::string_view l = WithoutAnsi(raw_line, ansi_buf);
    const std::string_view t = Trim(l);
    if (t.empty()) continue;
    if (IsShowGidsHeader(t)) {
      header = true;
      continue;
    }
    if (t.find_first_not_of("- \t") == std::string_view::npos) continue;  // the header's underline
    if (std::string host; IsToolPromptLine(t, "show_gids", host)) {
      ++out.prompt_lines;
      if (out.prompt_host.empty()) out.prompt_host = host;
      diag.Warn(source, no, t, "shell prompt running show_gids: skipped as preamble, not a GID row");
      continue;
    }
    if (StartsWith(t, "n_gids_found=") && t.find_first_of(" \t") == std::string_view::npos) {
      auto n = ParseUnsigned(Trim(t.substr(13)), INT32_MAX);
      if (!n) diag.Warn(source, no, t, "n_gids_found is not a number");
      else {
        out.n_gids_found = static_cast<int>(*n);
        n_found_line = no;
      }
      continue;
    }
    ++out.counts.read;
    GidEntry e;
    std::string reason;
    if (!ParseGidRow(t, e, reason)) {
      ++out.counts.rejected;
      pending.push_back({no, std::string(t), std::move(reason)});
      continue;
    }
    if (!keys.emplace(e.dev, e.port, e.index).second) {
      ++out.counts.rejected;
      pending.push_back(
          {no, std::string(t),
           Cat({"GID ", e.dev, " port ", std::to_string(e.port), " index ", std::to_string(e.index), " repeated"})});
      continue;
    }
    if (!e.ipv4.empty()) {
      const auto g = IpAddress::Parse(e.gid);
      const auto v4 = IpAddress::Parse(e.ipv4);
      const auto b = g->bytes();
      const auto v = v4->bytes();
      if (!std::equal(v.begin(), v.end(), b.begin() + 12)) {
        diag.Warn(source, no, t, "the IPv4 cell does not match the GID's last 4 bytes");
      }
    }
    e.line = no;
    ++out.counts.accepted;
    out.gids.push_back(std::move(e));
  }
  if (!header && out.counts.accepted == 0) {
    if (Trim(text).empty()) return MakeError(std::string(source), 0, 0, "empty input", "expected `show_gids` output");
    return MakeError(std::string(source), 0, 0, "not `show_gids` output: no 'DEV PORT INDEX GID' header and no GID row");
  }
  Flush(pending, source, diag);
  if (out.n_gids_found >= 0 && out.n_gids_found != static_cast<int>(out.gids.size())) {
    diag.Warn(source, n_found_line, Cat({"n_gids_found=", std::to_string(out.n_gids_found)}),
              Cat({"n_gids_found says ", std::to_string(out.n_gids_found), " but ",
                   std::to_string(static_cast<int64_t>(out.gids.size())), " GID rows were accepted"}));
  }
  return out;
}

std::string WriteShowGids(const std::vector<GidEntry>& gids) {
  std::string out = "DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n";
  out += "---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n";
  for (const GidEntry& g : gids) {
    out += Cat({g.dev, "\t", std::to_string(g.port), "\t", std::to_string(g.index), "\t", g.gid, "\t"});
    if (g.ipv4.empty()) out += "\t\t";
    else out += Cat({g.ipv4, "  \t"});
    out += Cat({g.version, "\t", g.netdev, "\n"});
  }
  out += Cat({"n_gids_found=", std::to_string(static_cast<int64_t>(gids.size())), "\n"});
  return out;
}

// ---------------------------------------------------------------------------------------------
// Public: detection
// ---------------------------------------------------------------------------------------------

RdmaToolKind SniffRdmaTool(std::string_view head) {
  if (LooksBinary(head)) return RdmaToolKind::kUnknown;
  int seen = 0;
  std::string ansi_buf;
  for (std::string_view raw_line : Split(head, '\n')) {
    std::string_view t = Trim(WithoutAnsi(raw_line, ansi_buf));
    if (t.empty()) continue;
    if (++seen > 20) break;
    if (LooksLikeJsonDocument(t)) {
      return head.find("\"lqpn\"") != std::string_view::npos ? RdmaToolKind::kRdmaResQp : RdmaToolKind::kUnknown;
    }
    if (StartsWith(t, "link ")) {
      const std::vector<std::string_view> toks = SplitWhitespace(t);
      if (toks.size() >= 3 && toks[2] == "lqpn") return RdmaToolKind::kRdmaResQp;
      if (toks.size() >= 2 && toks[1].find('/') != std::string_view::npos) return RdmaToolKind::kRdmaResOther;
      continue;
    }
    if (StartsWith(t, "dev ") && SplitWhitespace(t).size() >= 4) return RdmaToolKind::kRdmaResOther;
    std::string name;
    bool wf = false;
    if (IbstatHeader(t, name, wf) && wf) return RdmaToolKind::kIbstat;
    if (IsHcaHeader(t)) return RdmaToolKind::kIbvDevinfo;
    if (IsShowGidsHeader(t)) return RdmaToolKind::kShowGids;
  }
  return RdmaToolKind::kUnknown;
}

}  // namespace toposcope::formats
