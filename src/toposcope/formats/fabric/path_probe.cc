// formats/fabric/path_probe: reader of path probes (our CSV/JSONL, traceroute and ibtracert text) and
// writers of our layouts (docs/path_probe.md).
#include "toposcope/formats/fabric/path_probe.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "toposcope/base/csv.h"
#include "toposcope/base/file_io.h"
#include "toposcope/base/text.h"
#include "toposcope/base/time.h"

namespace toposcope::formats {
namespace {

// Control characters or malformed UTF-8: not a usable name.
bool HasBadChars(std::string_view s) { return HasControlChars(s) || !ValidUtf8(s); }

using nlohmann::json;


// An RTT in µs: finite, >= 0, below an hour.
std::optional<double> ParseRtt(std::string_view s) {
  const auto v = ParseDouble(Trim(s));
  if (!v || *v < 0 || *v > 3.6e9) return std::nullopt;
  return v;
}

bool ValidName(std::string_view s) { return !s.empty() && !HasBadChars(s); }

std::string FormatRtt(double v) { return FormatFixed(v, 3); }

// ---- traceroute ----------------------------------------------------------------------------

struct TracerouteBlock {
  bool open = false;
  PathProbe probe;
  std::string dst_ip;
  std::vector<std::string> hop_ips;
  int next_hop = 1;
};

// Parses `traceroute to NAME (IP), 30 hops max, 60 byte packets` (also traceroute6). False when
// the line is not such a header.
bool ParseTracerouteHeader(std::string_view t, std::string* name, std::string* ip) {
  std::string_view rest;
  if (StartsWith(t, "traceroute to ")) {
    rest = t.substr(14);
  } else if (StartsWith(t, "traceroute6 to ")) {
    rest = t.substr(15);
  } else {
    return false;
  }
  const auto words = SplitWhitespace(rest);
  if (words.empty()) return false;
  std::string_view n = words[0];
  if (!n.empty() && n.back() == ',') n.remove_suffix(1);
  if (n.empty() || HasBadChars(n)) return false;
  *name = std::string(n);
  ip->clear();
  if (words.size() > 1 && StartsWith(words[1], "(")) {
    std::string_view p = words[1];
    p.remove_prefix(1);
    while (!p.empty() && (p.back() == ',' || p.back() == ')')) p.remove_suffix(1);
    *ip = std::string(p);
  }
  return true;
}

// Parses one hop line ` 3  name (ip)  1.2 ms  1.3 ms ...`. Returns an error reason or empty.
std::string ParseTracerouteHop(std::string_view t, int* hop_no, std::string* name, std::string* ip,
                               double* min_ms) {
  const auto words = SplitWhitespace(t);
  if (words.empty() || !AllDigits(words[0]) || words[0].size() > 3) return "not a traceroute hop line";
  *hop_no = static_cast<int>(*ParseInt(words[0]));
  name->clear();
  ip->clear();
  *min_ms = NAN;
  bool any = false;
  std::string cur_name;
  for (size_t i = 1; i < words.size(); ++i) {
    const std::string_view w = words[i];
    if (w == "*") continue;
    if (w.front() == '!' || w.front() == '[' || w.front() == '<') continue;  // !H, [AS..], <TOS>
    if (w == "ms") return "'ms' without a time";
    if (w.front() == '(') {
      if (w.back() != ')' || w.size() < 3) return "broken address " + QuoteRaw(w);
      if (cur_name.empty()) return "address " + QuoteRaw(w) + " without a name";
      if (ip->empty() && *name == cur_name) *ip = std::string(w.substr(1, w.size() - 2));
      continue;
    }
    if (i + 1 < words.size() && words[i + 1] == "ms") {
      const auto v = ParseDouble(w);
      if (!v || *v < 0) return "time " + QuoteRaw(w) + " is not a number >= 0";
      if (cur_name.empty()) return "a time before any responder";
      if (std::isnan(*min_ms) || *v < *min_ms) *min_ms = *v;
      ++i;  // "ms"
      continue;
    }
    if (ParseDouble(w) && !Contains(w, ".")) return "unexpected number " + QuoteRaw(w);
    if (HasBadChars(w)) return "control characters or malformed UTF-8 in a name";
    cur_name = std::string(w);
    if (!any) {
      *name = cur_name;
      any = true;
    }
  }
  return {};
}

// ---- ibtracert -----------------------------------------------------------------------------

// The node's name on an ibtracert line: the quoted description, else the GUID in braces.
std::optional<std::string> IbNodeName(std::string_view t) {
  const size_t q1 = t.find('"');
  if (q1 != std::string_view::npos) {
    const size_t q2 = t.rfind('"');
    if (q2 == q1) return std::nullopt;
    std::string n(Trim(t.substr(q1 + 1, q2 - q1 - 1)));
    if (!ValidName(n)) return std::nullopt;
    return n;
  }
  const size_t b1 = t.find('{');
  const size_t b2 = t.find('}');
  if (b1 == std::string_view::npos || b2 == std::string_view::npos || b2 <= b1 + 1) return std::nullopt;
  std::string g(t.substr(b1 + 1, b2 - b1 - 1));
  if (!StartsWith(g, "0x") || g.size() > 18 || g.size() < 3) return std::nullopt;
  for (size_t i = 2; i < g.size(); ++i) {
    if (!std::isxdigit(static_cast<unsigned char>(g[i]))) return std::nullopt;
  }
  return g;
}

class Reader {
 public:
  Reader(std::string_view source, Diagnostics& diag, const PathProbeSink& sink, std::string_view default_src)
      : source_(source), diag_(diag), sink_(sink), default_src_(default_src) {}

  Result<PathProbeSummary> Run(LineReader& reader) {
    bool layout_known = false;
    std::string_view raw, t;
    while (NextCsvLine(reader, &raw, &t)) {
      const int64_t ln = reader.line_number();
      if (!layout_known) {
        if (LooksBinary(raw)) return MakeError(std::string(source_), ln, 0, "not path probes: binary data");
        layout_known = true;
        if (t[0] == '{') {
          sum_.layout = PathProbeLayout::kJsonl;
        } else if (StartsWith(t, "traceroute to ") || StartsWith(t, "traceroute6 to ")) {
          sum_.layout = PathProbeLayout::kTraceroute;
        } else if (StartsWith(t, "From ")) {
          sum_.layout = PathProbeLayout::kIbtracert;
        } else {
          sum_.layout = PathProbeLayout::kCsv;
          if (auto st = CsvHeader(t, ln); !st.ok()) return st.error();
          continue;
        }
      }
      ++sum_.counts.read;
      (this->*LineReaderOf(sum_.layout))(t, raw, ln);
    }
    if (const Error* e = reader.error()) return *e;
    if (sum_.layout == PathProbeLayout::kTraceroute) CloseTraceroute();
    if (sum_.layout == PathProbeLayout::kIbtracert && ib_open_) {
      diag_.Warn(source_, ib_probe_.line, "", "ibtracert trace without its 'To' line (truncated): dropped");
    }
    if (sum_.counts.read > 0 && sum_.counts.accepted == 0) {
      return MakeError(std::string(source_), 0, 0,
                       "not path probes: all " + std::to_string(sum_.counts.read) + " lines were rejected",
                       "see docs/path_probe.md");
    }
    return sum_;
  }

 private:
  void Reject(int64_t ln, std::string_view raw, const std::string& reason) {
    ++sum_.counts.rejected;
    diag_.Reject(source_, ln, raw, reason);
  }
  void Emit(PathProbe& p) {
    for (const auto& h : p.hops) {
      if (h == kUnknownHop) ++sum_.unknown_hops;
    }
    ++sum_.probes;
    if (sink_) sink_(p);
  }

  using LineFn = void (Reader::*)(std::string_view t, std::string_view raw, int64_t ln);

  // The reader of a data line in `layout`.
  static LineFn LineReaderOf(PathProbeLayout layout) {
    switch (layout) {
      case PathProbeLayout::kJsonl:
        return &Reader::JsonLine;
      case PathProbeLayout::kTraceroute:
        return &Reader::TracerouteLine;
      case PathProbeLayout::kIbtracert:
        return &Reader::IbtracertLine;
      case PathProbeLayout::kCsv:
        break;
    }
    return &Reader::CsvLine;
  }

  // ---- CSV ----
  Status CsvHeader(std::string_view t, int64_t ln) {
    if (!SplitCsvLine(t, cells_)) return MakeError(std::string(source_), ln, 0, "path probe CSV header has a broken quote");
    const int twice = FindCsvColumns(cells_, {{"ts|ts_ns|time|timestamp", &c_ts_},
                                              {"src", &c_src_},
                                              {"dst", &c_dst_},
                                              {"hops", &c_hops_},
                                              {"rtt_us", &c_rtt_}});
    if (twice >= 0) {
      return MakeError(std::string(source_), ln, 0,
                       "path probe CSV header names a column twice: " + QuoteRaw(cells_[static_cast<size_t>(twice)]));
    }
    if (c_ts_ >= 0) ts_is_ns_ = ToLowerAscii(cells_[static_cast<size_t>(c_ts_)]) == "ts_ns";
    if (c_src_ < 0 || c_dst_ < 0 || c_hops_ < 0) {
      return MakeError(std::string(source_), ln, 0,
                       "not path probes: the first line " + QuoteRaw(t) +
                           " is no CSV header with src, dst, hops, no JSON object, no traceroute or ibtracert output",
                       "see docs/path_probe.md");
    }
    ncols_ = cells_.size();
    return {};
  }

  void CsvLine(std::string_view t, std::string_view raw, int64_t ln) {
    if (!SplitCsvLine(t, cells_)) return Reject(ln, raw, "broken quote");
    if (cells_.size() != ncols_) {
      return Reject(ln, raw,
                    "row has " + std::to_string(cells_.size()) + " cells, the header " + std::to_string(ncols_));
    }
    auto cell = [&](int c) -> const std::string& { return cells_[static_cast<size_t>(c)]; };
    PathProbe p;
    p.line = ln;
    p.ts_ns = kNoTime;
    if (c_ts_ >= 0 && !cell(c_ts_).empty()) {
      const auto ts = ParseTimestampNs(cell(c_ts_), ts_is_ns_);
      if (!ts) return Reject(ln, raw, "ts " + QuoteRaw(cell(c_ts_)) + " is not a time (epoch number or ISO 8601)");
      p.ts_ns = *ts;
    }
    p.src = cell(c_src_);
    p.dst = cell(c_dst_);
    if (HasBadChars(p.src)) return Reject(ln, raw, "control characters or malformed UTF-8 in src");
    if (!ValidName(p.dst)) return Reject(ln, raw, "empty dst (or control characters / malformed UTF-8 in it)");
    if (!cell(c_hops_).empty()) {
      for (const auto h : Split(cell(c_hops_), ';')) {
        const std::string_view n = Trim(h);
        if (!ValidName(n)) return Reject(ln, raw, "empty hop name (or control characters / malformed UTF-8) in " + QuoteRaw(cell(c_hops_)));
        p.hops.emplace_back(n);
      }
    }
    if (c_rtt_ >= 0 && !cell(c_rtt_).empty()) {
      const auto rtt = ParseRtt(cell(c_rtt_));
      if (!rtt) return Reject(ln, raw, "rtt_us " + QuoteRaw(cell(c_rtt_)) + " is not a finite number in 0..3.6e9");
      p.rtt_us = *rtt;
    }
    ++sum_.counts.accepted;
    Emit(p);
  }

  // ---- JSONL ----
  void JsonLine(std::string_view t, std::string_view raw, int64_t ln) {
    json j = json::parse(t, nullptr, false);
    if (j.is_discarded()) return Reject(ln, raw, "not valid JSON");
    if (!j.is_object()) return Reject(ln, raw, "not a JSON object");
    PathProbe p;
    p.line = ln;
    p.ts_ns = kNoTime;
    bool have_dst = false, have_hops = false;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      const json& v = it.value();
      if (k == "ts" || k == "ts_ns" || k == "time" || k == "timestamp") {
        if (v.is_null()) continue;
        std::optional<int64_t> ts;
        if (v.is_number_integer()) {
          if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
            return Reject(ln, raw, "'" + k + "' out of range");
          }
          ts = k == "ts_ns" ? std::optional<int64_t>(v.get<int64_t>()) : ParseEpochAutoNs(v.dump());
        } else if (v.is_number_float()) {
          ts = ParseEpochAutoNs(v.dump());
        } else if (v.is_string()) {
          ts = ParseTimestampNs(v.get<std::string>(), k == "ts_ns");
        }
        if (!ts) return Reject(ln, raw, "'" + k + "' " + QuoteRaw(v.dump()) + " is not a time");
        p.ts_ns = *ts;
      } else if (k == "src" || k == "dst") {
        if (!v.is_string()) return Reject(ln, raw, "'" + k + "' is not a string");
        std::string s(Trim(v.get<std::string>()));
        if (HasBadChars(s)) return Reject(ln, raw, "control characters in " + k);
        if (k == "src") {
          p.src = std::move(s);
        } else {
          if (s.empty()) return Reject(ln, raw, "empty dst");
          p.dst = std::move(s);
          have_dst = true;
        }
      } else if (k == "hops") {
        if (!v.is_array()) return Reject(ln, raw, "'hops' is not an array of strings");
        for (const auto& h : v) {
          if (!h.is_string()) return Reject(ln, raw, "'hops' holds a non-string");
          std::string s(Trim(h.get<std::string>()));
          if (!ValidName(s)) return Reject(ln, raw, "empty hop name");
          p.hops.push_back(std::move(s));
        }
        have_hops = true;
      } else if (k == "rtt_us") {
        if (v.is_null()) continue;
        if (!v.is_number()) return Reject(ln, raw, "'rtt_us' is not a number");
        const double d = v.get<double>();
        if (!(d >= 0 && d <= 3.6e9)) return Reject(ln, raw, "rtt_us " + QuoteRaw(v.dump()) + " is not in 0..3.6e9");
        p.rtt_us = d;
      }
    }
    if (!have_dst) return Reject(ln, raw, "no dst");
    if (!have_hops) return Reject(ln, raw, "no hops");
    ++sum_.counts.accepted;
    Emit(p);
  }

  // ---- traceroute ----
  void CloseTraceroute() {
    if (!tr_.open) return;
    tr_.open = false;
    PathProbe& p = tr_.probe;
    if (!p.hops.empty()) {
      const std::string& last = p.hops.back();
      const std::string& last_ip = tr_.hop_ips.back();
      if ((last == p.dst || (!tr_.dst_ip.empty() && (last == tr_.dst_ip || last_ip == tr_.dst_ip))) &&
          !std::isnan(p.hop_rtt_us.back())) {
        p.rtt_us = p.hop_rtt_us.back();
        p.hops.back() = p.dst;  // the destination under the name the header gave
      }
    }
    Emit(p);
  }

  void TracerouteLine(std::string_view t, std::string_view raw, int64_t ln) {
    std::string name, ip;
    if (ParseTracerouteHeader(t, &name, &ip)) {
      CloseTraceroute();
      tr_ = TracerouteBlock{};
      tr_.open = true;
      tr_.probe.line = ln;
      tr_.probe.ts_ns = kNoTime;
      tr_.probe.src = std::string(default_src_);
      tr_.probe.dst = name;
      tr_.dst_ip = ip;
      ++sum_.counts.accepted;
      return;
    }
    int hop_no = 0;
    double min_ms = NAN;
    const std::string why = ParseTracerouteHop(t, &hop_no, &name, &ip, &min_ms);
    if (!why.empty()) return Reject(ln, raw, why);
    if (!tr_.open) return Reject(ln, raw, "hop line before any 'traceroute to' header");
    if (hop_no != tr_.next_hop) {
      return Reject(ln, raw,
                    "hop number " + std::to_string(hop_no) + " out of order (expected " + std::to_string(tr_.next_hop) + ")");
    }
    ++tr_.next_hop;
    tr_.probe.hops.push_back(name.empty() ? std::string(kUnknownHop) : name);
    tr_.hop_ips.push_back(ip.empty() ? name : ip);
    tr_.probe.hop_rtt_us.push_back(std::isnan(min_ms) ? NAN : min_ms * 1000.0);
    ++sum_.counts.accepted;
  }

  // ---- ibtracert ----
  void IbtracertLine(std::string_view t, std::string_view raw, int64_t ln) {
    if (StartsWith(t, "From ")) {
      const auto n = IbNodeName(t);
      if (!n) return Reject(ln, raw, "ibtracert 'From' line without a node name or GUID");
      if (ib_open_) diag_.Warn(source_, ib_probe_.line, "", "ibtracert trace without its 'To' line: dropped");
      ib_probe_ = PathProbe{};
      ib_probe_.line = ln;
      ib_probe_.ts_ns = kNoTime;
      ib_probe_.src = *n;
      ib_open_ = true;
      ++sum_.counts.accepted;
      return;
    }
    if (StartsWith(t, "[") && Contains(t, "] -> ")) {
      if (!ib_open_) return Reject(ln, raw, "ibtracert hop outside a trace (no 'From' line before it)");
      const auto n = IbNodeName(t.substr(t.find("->")));
      if (!n) return Reject(ln, raw, "ibtracert hop without a node name or GUID");
      ib_probe_.hops.push_back(*n);
      ++sum_.counts.accepted;
      return;
    }
    if (StartsWith(t, "To ")) {
      if (!ib_open_) return Reject(ln, raw, "ibtracert 'To' line without a 'From' line");
      const auto n = IbNodeName(t);
      if (!n) return Reject(ln, raw, "ibtracert 'To' line without a node name or GUID");
      ib_probe_.dst = *n;
      // Under -n the last hop is the destination's *port* GUID, the To line its node GUID: name
      // the hop as the node.
      if (!ib_probe_.hops.empty() && StartsWith(ib_probe_.hops.back(), "0x") && StartsWith(*n, "0x")) {
        ib_probe_.hops.back() = *n;
      }
      ib_open_ = false;
      ++sum_.counts.accepted;
      Emit(ib_probe_);
      return;
    }
    Reject(ln, raw, "not an ibtracert line ('From ...', '[port] -> ...', 'To ...')");
  }

  std::string_view source_;
  Diagnostics& diag_;
  const PathProbeSink& sink_;
  std::string_view default_src_;
  PathProbeSummary sum_;
  std::vector<std::string> cells_;
  int c_ts_ = -1, c_src_ = -1, c_dst_ = -1, c_hops_ = -1, c_rtt_ = -1;
  bool ts_is_ns_ = false;
  size_t ncols_ = 0;
  TracerouteBlock tr_;
  PathProbe ib_probe_;
  bool ib_open_ = false;
};

bool SameDouble(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

std::vector<std::string> ProbeNodes(const PathProbe& p) {
  std::vector<std::string> nodes{p.src};
  size_t b = 0, e = p.hops.size();
  if (b < e && p.hops[b] == p.src) ++b;
  if (b < e && p.hops[e - 1] == p.dst) --e;
  for (size_t i = b; i < e; ++i) nodes.push_back(p.hops[i]);
  nodes.push_back(p.dst);
  return nodes;
}

bool operator==(const PathProbe& a, const PathProbe& b) {
  if (a.ts_ns != b.ts_ns || a.src != b.src || a.dst != b.dst || a.hops != b.hops ||
      !SameDouble(a.rtt_us, b.rtt_us) || a.hop_rtt_us.size() != b.hop_rtt_us.size()) {
    return false;
  }
  for (size_t i = 0; i < a.hop_rtt_us.size(); ++i) {
    if (!SameDouble(a.hop_rtt_us[i], b.hop_rtt_us[i])) return false;
  }
  return true;
}

Result<PathProbeSummary> ReadPathProbes(LineReader& reader, std::string_view source, Diagnostics& diag,
                                        const PathProbeSink& sink, std::string_view default_src) {
  Reader r(source, diag, sink, default_src);
  return r.Run(reader);
}

Result<PathProbeSummary> ParsePathProbes(std::string_view text, std::string_view source, Diagnostics& diag,
                                         const PathProbeSink& sink, std::string_view default_src) {
  LineReader reader = TextLineReader(text, std::string(source));
  return ReadPathProbes(reader, source, diag, sink, default_src);
}

std::string PathProbeCsvHeader() { return "ts_ns,src,dst,hops,rtt_us\n"; }

std::string FormatPathProbeCsvLine(const PathProbe& p) {
  std::string out;
  if (p.ts_ns != kNoTime) out += std::to_string(p.ts_ns);
  out += ',';
  out += p.src;
  out += ',';
  out += p.dst;
  out += ',';
  for (size_t i = 0; i < p.hops.size(); ++i) {
    if (i > 0) out += ';';
    out += p.hops[i];
  }
  out += ',';
  if (!std::isnan(p.rtt_us)) out += FormatRtt(p.rtt_us);
  out += '\n';
  return out;
}

std::string FormatPathProbeJsonLine(const PathProbe& p) {
  json j = json::object();
  if (p.ts_ns != kNoTime) j["ts_ns"] = p.ts_ns;
  j["src"] = p.src;
  j["dst"] = p.dst;
  j["hops"] = p.hops;
  if (std::isnan(p.rtt_us)) {
    j["rtt_us"] = nullptr;
  } else {
    j["rtt_us"] = *ParseDouble(FormatRtt(p.rtt_us));
  }
  std::string out = j.dump(-1, ' ', false, json::error_handler_t::replace);
  out += '\n';
  return out;
}

}  // namespace toposcope::formats
