// formats/fabric/perfquery: see perfquery.h.
#include "toposcope/formats/fabric/perfquery.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

#include "toposcope/base/text.h"

namespace toposcope::formats {
namespace {

// perfquery -x's order (infiniband-diags perfquery.c): the select masks, data counters, then the
// error counters and PortXmitWait.
constexpr const char* kOrder[] = {
    "PortSelect",          "CounterSelect",         "PortXmitData",          "PortRcvData",
    "PortXmitPkts",        "PortRcvPkts",           "PortUnicastXmitPkts",   "PortUnicastRcvPkts",
    "PortMulticastXmitPkts", "PortMulticastRcvPkts", "CounterSelect2",       "SymbolErrorCounter",
    "LinkErrorRecoveryCounter", "LinkDownedCounter", "PortRcvErrors",        "PortRcvRemotePhysicalErrors",
    "PortRcvSwitchRelayErrors", "PortXmitDiscards",  "PortXmitConstraintErrors", "PortRcvConstraintErrors",
    "LocalLinkIntegrityErrors", "ExcessiveBufferOverrunErrors", "VL15Dropped", "PortXmitWait",
    "QP1Dropped"};

// Older perfquery's short names and the current ones.
constexpr std::pair<const char*, const char*> kOldNames[] = {
    {"SymbolErrors", "SymbolErrorCounter"},         {"LinkRecovers", "LinkErrorRecoveryCounter"},
    {"LinkDowned", "LinkDownedCounter"},            {"RcvErrors", "PortRcvErrors"},
    {"RcvRemotePhysErrors", "PortRcvRemotePhysicalErrors"}, {"RcvSwRelayErrors", "PortRcvSwitchRelayErrors"},
    {"XmtDiscards", "PortXmitDiscards"},            {"XmtConstraintErrors", "PortXmitConstraintErrors"},
    {"RcvConstraintErrors", "PortRcvConstraintErrors"}, {"LinkIntegrityErrors", "LocalLinkIntegrityErrors"},
    {"ExcBufOverrunErrors", "ExcessiveBufferOverrunErrors"}, {"XmtData", "PortXmitData"},
    {"RcvData", "PortRcvData"},                     {"XmtPkts", "PortXmitPkts"},
    {"RcvPkts", "PortRcvPkts"},                     {"XmtWait", "PortXmitWait"}};

bool IsNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_'; }

// `Name:....value`: the name and the value text, when the line has that shape (a name of letters,
// digits and '_', a colon, at least one dot).
struct CounterLine {
  std::string_view name, value;
};
std::optional<CounterLine> SplitCounterLine(std::string_view t) {
  const size_t colon = t.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 >= t.size() || t[colon + 1] != '.') return std::nullopt;
  const std::string_view name = t.substr(0, colon);
  if (!std::all_of(name.begin(), name.end(), IsNameChar)) return std::nullopt;
  size_t v = colon + 1;
  while (v < t.size() && t[v] == '.') ++v;
  return CounterLine{name, Trim(t.substr(v))};
}

std::optional<uint64_t> ParseCounter(std::string_view s) {
  int base = 10;
  if (StartsWith(s, "0x") || StartsWith(s, "0X")) {
    s.remove_prefix(2);
    base = 16;
  }
  if (s.empty()) return std::nullopt;
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int> SmallInt(std::string_view s, int max) {
  if (!AllDigits(s)) return std::nullopt;
  const auto v = ParseInt(s);
  if (!v || *v < 0 || *v > max) return std::nullopt;
  return static_cast<int>(*v);
}

// A header line (after `#`): fills lid, port, extended and cap_mask; why not, or "". `open_paren`
// is set when the `(CapMask: ...` is not closed on this line.
std::string ReadHeader(std::string_view t, PortCounterBlock& b, bool* open_paren) {
  std::string_view rest = Trim(t.substr(1));
  b.extended = StartsWith(rest, "Port extended counters:");
  rest = Trim(rest.substr(rest.find(':') + 1));
  const size_t paren = rest.find('(');
  const std::string_view ids = Trim(rest.substr(0, paren));
  const std::vector<std::string_view> w = SplitWhitespace(ids);
  if (w.size() < 3 || w[0] != "Lid") return "header without `Lid <n> port <n>`";
  const auto lid = SmallInt(w[1], 0xffff);
  if (!lid) return "LID " + QuoteRaw(w[1]) + " is not 0..65535";
  if (w.size() == 4 && w[2] == "all" && w[3] == "ports") {
    b.port = 255;
  } else if (w.size() == 4 && w[2] == "port") {
    const auto port = SmallInt(w[3], 255);
    if (!port) return "port " + QuoteRaw(w[3]) + " is not 0..255";
    b.port = *port;
  } else {
    return "header without `Lid <n> port <n>`";
  }
  b.lid = *lid;
  b.named_by = "header";
  *open_paren = false;
  if (paren != std::string_view::npos) {
    const std::string_view caps = rest.substr(paren + 1);
    *open_paren = caps.find(')') == std::string_view::npos;
    const size_t at = caps.find("CapMask:");
    if (at != std::string_view::npos) {
      const std::vector<std::string_view> c = SplitWhitespace(caps.substr(at + 8));
      if (!c.empty()) {
        std::string_view m = c[0];
        if (!m.empty() && m.back() == ')') m.remove_suffix(1);
        b.cap_mask = std::string(m);
      }
    }
  }
  return "";
}

// `perfquery [options] [<lid> [<port>]]` anywhere in a line: the LID and port it names (-1 when it
// names none, or addresses by GUID with -G).
struct CommandTarget {
  int lid = -1, port = -1;
};
std::optional<CommandTarget> ReadCommandLine(std::string_view t) {
  const std::vector<std::string_view> w = SplitWhitespace(t);
  size_t i = 0;
  while (i < w.size() && w[i] != "perfquery" && !EndsWith(w[i], "/perfquery")) ++i;
  if (i == w.size()) return std::nullopt;
  CommandTarget c;
  std::vector<int> numbers;
  bool by_guid = false;
  for (++i; i < w.size(); ++i) {
    const std::string_view a = w[i];
    if (a == "-C" || a == "-P" || a == "--Ca" || a == "--Port" || a == "-t" || a == "--timeout" || a == "-y" ||
        a == "--m_key") {
      ++i;  // takes a value
      continue;
    }
    if (a == "-G" || a == "--Guid") by_guid = true;
    if (StartsWith(a, "-") || a == "|" || a == ">" || a == ">>") {
      if (a == "|" || a == ">" || a == ">>") break;
      continue;
    }
    if (auto n = SmallInt(a, 0xffff)) numbers.push_back(*n);
  }
  if (!by_guid && !numbers.empty()) c.lid = numbers[0];
  if (numbers.size() >= 2 && numbers[1] <= 255) c.port = numbers[1];
  return c;
}

// A `timestamp <seconds>` line (with or without a leading `#`): the seconds.
std::optional<double> ReadTimestamp(std::string_view t) {
  if (StartsWith(t, "#")) t = Trim(t.substr(1));
  if (!StartsWith(t, "timestamp")) return std::nullopt;
  const std::vector<std::string_view> w = SplitWhitespace(t);
  if (w.size() != 2 || w[0] != "timestamp") return std::nullopt;
  const auto v = ParseDouble(w[1]);
  if (!v || *v < 0) return std::nullopt;
  return *v;
}

}  // namespace

std::string PerfqueryCounterName(std::string_view printed) {
  for (const auto& [old_name, name] : kOldNames) {
    if (printed == old_name) return name;
  }
  return std::string(printed);
}

namespace {

// The reader's state over one file.
struct PerfqueryReader {
  std::string_view source;
  Diagnostics& diag;
  PortCounters out;
  bool in_block = false;       // counters go to out.blocks.back()
  bool open_paren = false;     // the last header's CapMask continues on the next line
  bool block_timed = false;    // the current block has its own timestamp line
  std::optional<double> last_time;
  CommandTarget target;        // the last command line's
  bool any = false;

  void Reject(int64_t no, std::string_view t, const std::string& why) {
    ++out.counts.read;
    ++out.counts.rejected;
    diag.Reject(source, no, t, why);
  }
  void Accept() {
    ++out.counts.read;
    ++out.counts.accepted;
  }
  PortCounterBlock& Start(int64_t no) {
    out.blocks.emplace_back();
    PortCounterBlock& b = out.blocks.back();
    b.line = no;
    if (last_time) {
      b.has_time = true;
      b.time_s = *last_time;
    }
    in_block = true;
    block_timed = false;
    any = true;
    return b;
  }
  void Header(int64_t no, std::string_view t) {
    PortCounterBlock probe;
    bool open = false;
    if (std::string why = ReadHeader(t, probe, &open); !why.empty()) {
      in_block = false;
      open_paren = false;
      Reject(no, t, why);
      return;
    }
    PortCounterBlock& b = Start(no);
    b.lid = probe.lid;
    b.port = probe.port;
    b.extended = probe.extended;
    b.named_by = probe.named_by;
    b.cap_mask = probe.cap_mask;
    open_paren = open;
    target = {};
    Accept();
  }
  void Counter(int64_t no, std::string_view t, const CounterLine& c) {
    const auto v = ParseCounter(c.value);
    if (!v) {
      Reject(no, t, "counter " + std::string(c.name) + ": value " + QuoteRaw(c.value) + " is not a number");
      return;
    }
    if (!in_block) {
      PortCounterBlock& b = Start(no);
      b.lid = target.lid;
      b.port = target.port;
      if (target.lid >= 0) b.named_by = "command line";
    }
    PortCounterBlock& b = out.blocks.back();
    const std::string name = PerfqueryCounterName(c.name);
    if (!b.counters.emplace(name, *v).second) {
      Reject(no, t, "counter " + name + " printed twice in one block");
      return;
    }
    if (name == "PortSelect" && b.port < 0 && *v <= 255) {
      b.port = static_cast<int>(*v);
      if (b.named_by.empty()) b.named_by = "port select";
    }
    Accept();
  }
  void Timestamp(double s) {
    if (in_block && !block_timed) {
      out.blocks.back().has_time = true;
      out.blocks.back().time_s = s;
      block_timed = true;
    }
    last_time = s;
  }
  void Line(int64_t no, std::string_view raw) {
    const std::string_view t = Trim(raw);
    if (t.empty()) return;
    const bool was_open = open_paren;
    open_paren = false;
    if (StartsWith(t, "# Port counters:") || StartsWith(t, "# Port extended counters:") ||
        StartsWith(t, "#Port counters:") || StartsWith(t, "#Port extended counters:")) {
      Header(no, t);
      return;
    }
    if (was_open && in_block && t.find(')') != std::string_view::npos && t.find(':') == std::string_view::npos) {
      diag.Warn(source, no, t, "the header's CapMask wrapped onto this line: read as part of the header");
      return;
    }
    if (auto s = ReadTimestamp(t)) {
      Timestamp(*s);
      return;
    }
    if (auto c = SplitCounterLine(t)) {
      Counter(no, t, *c);
      return;
    }
    if (auto cmd = ReadCommandLine(t)) {
      target = *cmd;
      in_block = false;
      diag.Warn(source, no, t, "perfquery command line: names the port of the counters after it");
      return;
    }
    if (StartsWith(t, "ibwarn:") || StartsWith(t, "iberror:") || Contains(t, "perfquery: iberror") || StartsWith(t, "#")) {
      diag.Warn(source, no, t, "skipped: a warning or comment, not a counter");
      return;
    }
    Reject(no, t, "not perfquery output (no `# Port counters:` header or `<Name>:....<value>` counter)");
  }
};

}  // namespace

Result<PortCounters> ParsePerfquery(std::string_view text, std::string_view source, Diagnostics& diag) {
  if (LooksBinary(text.substr(0, 4096))) return MakeError(std::string(source), 0, 0, "binary input, not perfquery output");
  PerfqueryReader r{source, diag, {}};
  r.out.source = std::string(source);
  int64_t no = 0;
  for (std::string_view raw : SplitLines(text)) r.Line(++no, raw);
  if (!r.any) {
    return MakeError(std::string(source), 0, 0, "not perfquery output: no `# Port counters:` header and no counter line",
                     "expected the output of perfquery [-x] <lid> <port>");
  }
  return std::move(r.out);
}

bool LooksLikePerfquery(std::string_view head) {
  int counters = 0;
  for (std::string_view raw : SplitLines(head)) {
    const std::string_view t = Trim(raw);
    if (StartsWith(t, "# Port counters: Lid") || StartsWith(t, "# Port extended counters: Lid")) return true;
    const auto c = SplitCounterLine(t);
    if (!c) continue;
    const std::string name = PerfqueryCounterName(c->name);
    if (std::find_if(std::begin(kOrder), std::end(kOrder), [&](const char* n) { return name == n; }) != std::end(kOrder)) {
      if (++counters >= 2) return true;
    }
  }
  return false;
}

std::string WritePerfqueryBlock(const PortCounterBlock& b) {
  std::string out = b.extended ? "# Port extended counters: Lid " : "# Port counters: Lid ";
  out += std::to_string(b.lid);
  out += b.port == 255 ? " all ports" : " port " + std::to_string(b.port);
  if (!b.cap_mask.empty()) out += " (CapMask: " + b.cap_mask + ")";
  out += '\n';
  const auto line = [&out](const std::string& name, uint64_t v) {
    out += name;
    out += ':';
    out.append(name.size() + 1 < 33 ? 33 - name.size() - 1 : 1, '.');
    const bool mask = name == "CounterSelect" || name == "CounterSelect2";
    if (mask) {
      char buf[32];
      std::snprintf(buf, sizeof buf, name == "CounterSelect" ? "0x%04llx" : "0x%08llx", static_cast<unsigned long long>(v));
      out += buf;
    } else {
      out += std::to_string(v);
    }
    out += '\n';
  };
  for (const char* name : kOrder) {
    auto it = b.counters.find(name);
    if (it != b.counters.end()) line(it->first, it->second);
  }
  for (const auto& kv : b.counters) {
    const std::string& name = kv.first;
    if (std::find_if(std::begin(kOrder), std::end(kOrder), [&name](const char* n) { return name == n; }) == std::end(kOrder)) {
      line(name, kv.second);
    }
  }
  return out;
}

}  // namespace toposcope::formats
